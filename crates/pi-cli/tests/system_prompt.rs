//! What the model is told: the system prompt `pi-tool agent` sends, read from the request body
//! a local fake of the OpenAI wire receives, in a prepared directory tree (an agent directory
//! with `AGENTS.md` and `APPEND_SYSTEM.md`, an ancestor `AGENTS.md`, the project's `CLAUDE.md`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::path::{Path, PathBuf};

mod support;

use assert_cmd::Command;
use serde_json::Value;

/// An agent directory and a project two levels under a temporary root.
struct Tree {
    _root: tempfile::TempDir,
    agent: PathBuf,
    project: PathBuf,
}

impl Tree {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(root.path()).unwrap();
        let tree = Self {
            agent: real.join("agent"),
            project: real.join("work").join("repo"),
            _root: root,
        };
        tree.write("agent/AGENTS.md", "GLOBAL-RULES");
        tree.write("agent/APPEND_SYSTEM.md", "GLOBAL-APPEND");
        tree.write("work/AGENTS.md", "ANCESTOR-RULES");
        tree.write("work/repo/CLAUDE.md", "PROJECT-RULES");
        tree
    }

    fn write(&self, relative: &str, text: &str) {
        let path = self.agent.parent().unwrap().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Runs the agent in the project with `flags`; gives the system prompt of its one request
    /// and its stderr.
    fn run(&self, flags: &[&str]) -> (String, String) {
        let reply = [
            r#"data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}"#,
            "",
            "data: [DONE]",
            "",
            "",
        ]
        .join("\n");
        let (url, seen) = support::serve(vec![support::Reply::sse(reply)]);
        let output = Command::cargo_bin("pi-tool")
            .unwrap()
            .current_dir(&self.project)
            .env("PI_CODING_AGENT_DIR", &self.agent)
            .env("HOME", self.agent.parent().unwrap())
            .arg("--coding-tools")
            .arg(&self.project)
            .args([
                "agent",
                "--provider",
                "openai",
                "--model",
                "m",
                "--base-url",
            ])
            .arg(format!("{url}/v1"))
            .args(["--no-session", "--json"])
            .args(flags)
            .arg("hello")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "{stderr}");
        let bodies = support::bodies(&seen);
        assert_eq!(bodies.len(), 1);
        let messages = bodies[0]["messages"].as_array().unwrap();
        assert_eq!(messages[0]["role"], "system", "{messages:?}");
        (messages[0]["content"].as_str().unwrap().to_owned(), stderr)
    }
}

/// Asserts each of `parts` is in `text`, in this order.
fn in_order(text: &str, parts: &[&str]) {
    let mut from = 0;
    for part in parts {
        let Some(at) = text.get(from..).and_then(|rest| rest.find(part)) else {
            panic!("{part:?} missing or out of order in:\n{text}");
        };
        from += at + part.len();
    }
}

fn sources(stderr: &str) -> Vec<Value> {
    let line = stderr
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|line| line["type"] == "system_prompt")
        .unwrap_or_else(|| panic!("no system_prompt line in {stderr}"));
    line["sources"].as_array().unwrap().clone()
}

fn path_of(source: &Value) -> &Path {
    Path::new(source["path"].as_str().unwrap())
}

#[test]
fn a_run_tells_the_model_who_it_is_its_tools_the_project_context_the_date_and_the_directory() {
    let tree = Tree::new();
    let (prompt, stderr) = tree.run(&[]);
    let agents = format!("path=\"{}\"", tree.agent.join("AGENTS.md").display());
    let ancestor = format!(
        "path=\"{}\"",
        tree.project.with_file_name("AGENTS.md").display()
    );
    let claude = format!("path=\"{}\"", tree.project.join("CLAUDE.md").display());
    in_order(
        &prompt,
        &[
            "expert coding assistant",
            "- read: Read the contents of a file\n",
            "- edit: ",
            "Guidelines:",
            "with read, not with cat or sed",
            "GLOBAL-APPEND",
            &agents,
            "GLOBAL-RULES",
            &ancestor,
            "ANCESTOR-RULES",
            &claude,
            "PROJECT-RULES",
            "Today's date: ",
        ],
    );
    assert!(
        prompt.ends_with(&format!("\nWorking directory: {}", tree.project.display())),
        "{prompt}"
    );
    // The course's demonstration tools are never offered to a model unless asked for.
    assert!(
        !prompt.contains("- echo: ") && !prompt.contains("- uppercase: "),
        "{prompt}"
    );
    // `--json` lists the files that went in, in the prompt's order.
    let sources = sources(&stderr);
    let kinds: Vec<&str> = sources
        .iter()
        .map(|s| s["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "appendSystemPrompt",
            "contextFile",
            "contextFile",
            "contextFile"
        ]
    );
    assert_eq!(path_of(&sources[0]), tree.agent.join("APPEND_SYSTEM.md"));
    assert_eq!(path_of(&sources[3]), tree.project.join("CLAUDE.md"));
}

#[test]
fn dash_nc_leaves_the_context_files_out() {
    let tree = Tree::new();
    for flag in ["-nc", "--no-context-files"] {
        let (prompt, stderr) = tree.run(&[flag]);
        assert!(!prompt.contains("-RULES"), "{flag}: {prompt}");
        assert!(!prompt.contains("<project_context>"), "{flag}");
        assert!(prompt.contains("GLOBAL-APPEND"), "{flag}");
        assert_eq!(sources(&stderr).len(), 1, "{flag}");
    }
}

#[test]
fn system_prompt_replaces_the_default_part_from_text_or_a_file() {
    let tree = Tree::new();
    tree.write("prompt.md", "You are a careful reviewer.");
    let file = tree.agent.with_file_name("prompt.md");
    for value in [file.to_str().unwrap(), "You are a careful reviewer."] {
        for flag in ["--system-prompt", "--system"] {
            let (prompt, _) = tree.run(&[flag, value]);
            assert!(
                prompt.starts_with("You are a careful reviewer.\n\nGLOBAL-APPEND\n\n"),
                "{flag} {value}: {prompt}"
            );
            assert!(!prompt.contains("expert coding assistant"));
            in_order(
                &prompt,
                &["GLOBAL-RULES", "PROJECT-RULES", "Today's date: "],
            );
        }
    }
}

#[test]
fn append_system_prompt_adds_each_text_in_order_instead_of_append_system_md() {
    let tree = Tree::new();
    let (prompt, _) = tree.run(&[
        "--append-system-prompt",
        "FIRST-ADDED",
        "--append-system-prompt",
        "SECOND-ADDED",
    ]);
    in_order(
        &prompt,
        &["Guidelines:", "FIRST-ADDED", "SECOND-ADDED", "GLOBAL-RULES"],
    );
    assert!(!prompt.contains("GLOBAL-APPEND"));
}

#[test]
fn a_project_system_md_counts_only_when_the_project_is_trusted() {
    let tree = Tree::new();
    tree.write("work/repo/.pi/SYSTEM.md", "PROJECT-SYSTEM");
    let (prompt, stderr) = tree.run(&[]);
    assert!(!prompt.contains("PROJECT-SYSTEM"));
    assert!(
        stderr.contains("SYSTEM.md is ignored: this project is not trusted"),
        "{stderr}"
    );
    // The project's context files are read all the same.
    assert!(prompt.contains("PROJECT-RULES"));

    let settings = serde_json::json!({"permissions": {"trustedProjects": [tree.project]}});
    tree.write("agent/settings.json", &settings.to_string());
    let (prompt, _) = tree.run(&[]);
    assert!(
        prompt.starts_with("PROJECT-SYSTEM\n\nGLOBAL-APPEND"),
        "{prompt}"
    );
}
