//! The system prompt beside Pi 0.80.6's, in one prepared directory (a global `AGENTS.md`, the
//! repository's, a `CLAUDE.md` below it, `APPEND_SYSTEM.md`, two skills of which one is
//! invalid, a prompt template): both programs run `-p` against a scripted server and the
//! parts of what they send are compared, not the wording: the context files in order, the
//! skills block, the appended text, the tools, the date and the working directory, and the
//! expanded template.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::path::Path;

use serde_json::Value;
use support::pi_run::Program;

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn answer() -> support::Reply {
    let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]});
    support::Reply::sse(format!("data: {chunk}\n\ndata: [DONE]\n\n"))
}

/// The prepared tree, with `models.json` naming the fake at `url`.
fn tree(root: &Path, url: &str) {
    write(root, "agent/AGENTS.md", "Global rules.");
    write(root, "agent/APPEND_SYSTEM.md", "Appended instructions.");
    write(
        root,
        "agent/skills/good/SKILL.md",
        "---\nname: good\ndescription: A good skill.\n---\nbody\n",
    );
    write(
        root,
        "agent/skills/bad/SKILL.md",
        "---\nname: bad\n---\nno description\n",
    );
    write(
        root,
        "agent/prompts/review.md",
        "---\ndescription: review a path\n---\nReview $1 carefully.\n",
    );
    write(root, "repo/.git/HEAD", "ref: refs/heads/main\n");
    write(root, "repo/AGENTS.md", "Repo rules.");
    write(root, "repo/sub/CLAUDE.md", "Claude rules.");
    let models = serde_json::json!({"providers": {"local": {
        "baseUrl": format!("{url}/v1"), "api": "openai-completions", "apiKey": "none",
        "models": [{"id": "m"}]
    }}});
    write(root, "agent/models.json", &models.to_string());
}

/// What one program sent: the system prompt and the user's message.
fn sent(program: &Program) -> (String, String) {
    let (url, seen) = support::serve(vec![answer()]);
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    tree(&root, &url);
    let output = std::process::Command::new(&program.executable)
        .args(&program.prefix)
        .args(["-p", "/review src"])
        .current_dir(root.join("repo/sub"))
        .env("PI_CODING_AGENT_DIR", root.join("agent"))
        .env("HOME", &root)
        .env("PI_OFFLINE", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let body = support::bodies(&seen).remove(0);
    let messages = body["messages"].as_array().unwrap();
    let text = |message: &Value| match &message["content"] {
        Value::String(text) => text.clone(),
        blocks => blocks
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect(),
    };
    // Paths are the temporary root's: name them from it, so both runs compare.
    let relative = |text: String| text.replace(&root.display().to_string(), "ROOT");
    (relative(text(&messages[0])), relative(text(&messages[1])))
}

/// The context files' paths, in order (`path="..."` inside `<project_context>`).
fn context_paths(prompt: &str) -> Vec<String> {
    let start = prompt.find("<project_context>").expect("a project context");
    let end = prompt.find("</project_context>").expect("its end");
    prompt[start..end]
        .split("path=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().to_owned())
        .collect()
}

fn block<'a>(prompt: &'a str, open: &str, close: &str) -> &'a str {
    let start = prompt.find(open).expect(open);
    let end = prompt.find(close).expect(close) + close.len();
    &prompt[start..end]
}

/// The value after `label` on its line.
fn line_value<'a>(prompt: &'a str, label: &str) -> &'a str {
    prompt
        .lines()
        .find_map(|line| line.strip_prefix(label))
        .unwrap_or_else(|| panic!("no {label:?} line in:\n{prompt}"))
        .trim()
}

/// The tools listed (`- name: purpose` lines before the guidelines), sorted.
fn tools(prompt: &str) -> Vec<String> {
    let mut names: Vec<String> = prompt
        .split("Guidelines:")
        .next()
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_prefix("- "))
        .filter_map(|line| line.split(':').next())
        .map(str::to_owned)
        .collect();
    names.sort();
    names
}

#[test]
#[ignore = "needs upstream Pi: scripts/setup-pi.sh"]
fn the_system_prompt_carries_what_pi_s_carries() {
    let (theirs, their_message) = sent(&Program::upstream_pi());
    let (ours, our_message) = sent(&Program::pi_tool());
    assert_eq!(
        context_paths(&ours),
        context_paths(&theirs),
        "ours:\n{ours}\nPi's:\n{theirs}"
    );
    assert_eq!(
        context_paths(&ours),
        [
            "ROOT/agent/AGENTS.md",
            "ROOT/repo/AGENTS.md",
            "ROOT/repo/sub/CLAUDE.md"
        ]
    );
    assert_eq!(
        block(&ours, "<available_skills>", "</available_skills>"),
        block(&theirs, "<available_skills>", "</available_skills>")
    );
    assert!(!ours.contains("<name>bad</name>"));
    for prompt in [&ours, &theirs] {
        let appended = prompt.find("Appended instructions.").expect("appended");
        assert!(appended < prompt.find("<project_context>").unwrap());
    }
    assert_eq!(tools(&ours), tools(&theirs));
    assert_eq!(
        line_value(&ours, "Today's date:"),
        line_value(&theirs, "Current date:")
    );
    assert_eq!(
        line_value(&ours, "Working directory:"),
        line_value(&theirs, "Current working directory:")
    );
    assert_eq!(our_message, their_message);
    assert_eq!(our_message, "Review src carefully.");
}
