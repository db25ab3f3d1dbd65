//! Skills and prompt templates on Pi's command line, as a Pi user types them, against a local
//! fake of the OpenAI Chat wire: `--skill` adds a skill the system prompt lists, a template
//! `/review src` is sent expanded, `/skill:NAME` loads a skill into the message, and
//! `--no-skills` / `--no-prompt-templates` leave the discovered ones out.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn answer() -> support::Reply {
    let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]});
    support::Reply::sse(format!("data: {chunk}\n\ndata: [DONE]\n\n"))
}

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// An agent directory with a skill, a template and `models.json` naming the server at `url`,
/// a `work` directory, and a skill outside both for `--skill`.
fn setup(url: &str) -> tempfile::TempDir {
    let dirs = tempfile::tempdir().unwrap();
    let root = dirs.path();
    let models = serde_json::json!({"providers": {"local": {
        "baseUrl": format!("{url}/v1"), "api": "openai-completions",
        "models": [{"id": "local-model"}]}}});
    write(root, "agent/models.json", &models.to_string());
    write(
        root,
        "agent/skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse pdftk.\n",
    );
    write(
        root,
        "agent/prompts/review.md",
        "---\ndescription: Review a path\n---\nReview $1 for bugs; notes: ${2:-none}.",
    );
    write(
        root,
        "extra/SKILL.md",
        "---\nname: extra\ndescription: Given with --skill.\n---\nExtra steps.\n",
    );
    std::fs::create_dir_all(root.join("work")).unwrap();
    dirs
}

/// Runs `pi-tool -p` in `work` with `args`; gives each request's system prompt and last user
/// text.
fn run(args: &[&str], replies: usize) -> (tempfile::TempDir, Vec<(String, String)>) {
    let (url, seen) = support::serve((0..replies).map(|_| answer()).collect());
    let dirs = setup(&url);
    let output = Command::cargo_bin("pi-tool")
        .unwrap()
        .current_dir(dirs.path().join("work"))
        .env("PI_CODING_AGENT_DIR", dirs.path().join("agent"))
        .env("HOME", dirs.path().join("home"))
        .args(["-p", "--no-session"])
        .args(args)
        .write_stdin("")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let requests = support::bodies(&seen)
        .iter()
        .map(|body| {
            let messages = body["messages"].as_array().unwrap();
            let system = messages[0]["content"].as_str().unwrap().to_owned();
            let user = messages
                .iter()
                .rev()
                .find(|message| message["role"] == "user")
                .map(|message| match &message["content"] {
                    Value::String(text) => text.clone(),
                    blocks => blocks[0]["text"].as_str().unwrap().to_owned(),
                })
                .unwrap();
            (system, user)
        })
        .collect();
    (dirs, requests)
}

#[test]
fn skill_adds_a_skill_and_commands_are_expanded() {
    let (dirs, requests) = run(
        &["--skill", "../extra", "/review src", "/skill:extra go on"],
        2,
    );
    assert_eq!(requests.len(), 2);
    let (system, first) = &requests[0];
    assert!(system.contains("<name>pdf</name>"), "{system}");
    assert!(system.contains("<name>extra</name>"), "{system}");
    assert_eq!(first, "Review src for bugs; notes: none.");
    let extra = dirs.path().join("extra");
    assert_eq!(
        requests[1].1,
        format!(
            "<skill name=\"extra\" location=\"{}\">\nRelative paths in this skill start from {}.\n\nExtra steps.\n</skill>\n\ngo on",
            extra.join("SKILL.md").display(),
            extra.display()
        )
    );
}

#[test]
fn no_skills_and_no_prompt_templates_leave_the_discovered_ones_out() {
    let (_dirs, requests) = run(&["-ns", "-np", "--skill", "../extra", "/review src"], 1);
    let (system, user) = &requests[0];
    assert!(!system.contains("<name>pdf</name>"), "{system}");
    assert!(system.contains("<name>extra</name>"), "{system}");
    assert_eq!(user, "/review src");
    let (_dirs, requests) = run(&["--no-skills", "hello"], 1);
    assert!(
        !requests[0].0.contains("available_skills"),
        "{}",
        requests[0].0
    );
}
