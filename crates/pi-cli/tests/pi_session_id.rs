//! Pi's `--session-id` beside `--fork`, as Pi 0.80.6 takes it: the fork gets the id, and a
//! second fork with the same id is refused. (With `--no-session`, see pi_prompt_cache_key.rs.)
//! Both programs run the same command lines against the same scripted server; the outcomes
//! and the new session's header are compared.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use support::pi_run::{AgentDirs, Program, chat_answer};

/// What a run of the fork sequence gave: whether each of the three runs succeeded, and the
/// fork's header (its `id` and whether it names a `parentSession`).
#[derive(Debug, PartialEq)]
struct Forked {
    succeeded: [bool; 3],
    id: Option<Value>,
    has_parent: bool,
}

fn headers(dir: &Path) -> Vec<(PathBuf, Value)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        if let Some(first) = text.lines().next() {
            found.push((entry.path(), serde_json::from_str(first).unwrap()));
        }
    }
    found
}

/// `-p hi` into a new session, then `--fork THAT --session-id forked-1 -p again` twice.
fn fork_twice(program: &Program) -> Forked {
    let (url, _seen) = support::serve((0..3).map(|_| chat_answer()).collect());
    let dirs = AgentDirs::new();
    dirs.models_json(
        &json!({"providers": {"local": {"baseUrl": format!("{url}/v1"),
        "api": "openai-completions", "apiKey": "none", "models": [{"id": "m"}]}}}),
    );
    let sessions = dirs.path().join("sessions");
    let run = |extra: &[&str]| {
        dirs.command(program)
            .args([
                "-p",
                "--no-context-files",
                "--provider",
                "local",
                "--model",
                "m",
            ])
            .arg("--session-dir")
            .arg(&sessions)
            .args(extra)
            .output()
            .unwrap()
    };
    let first = run(&["hi"]);
    let source = headers(&sessions);
    assert_eq!(
        source.len(),
        1,
        "{}: {}",
        program.name(),
        String::from_utf8_lossy(&first.stderr)
    );
    let source_path = source[0].0.display().to_string();
    let fork = [
        "--fork",
        source_path.as_str(),
        "--session-id",
        "forked-1",
        "again",
    ];
    let second = run(&fork);
    let third = run(&fork);
    let header = headers(&sessions)
        .into_iter()
        .map(|(_, header)| header)
        .find(|header| header["id"] == "forked-1");
    Forked {
        succeeded: [
            first.status.success(),
            second.status.success(),
            third.status.success(),
        ],
        id: header.as_ref().map(|header| header["id"].clone()),
        has_parent: header.is_some_and(|header| header.get("parentSession").is_some()),
    }
}

#[test]
fn a_fork_takes_the_session_id_once() {
    assert_eq!(
        fork_twice(&Program::pi_tool()),
        Forked {
            succeeded: [true, true, false],
            id: Some(json!("forked-1")),
            has_parent: true,
        }
    );
}

#[test]
#[ignore = "needs upstream Pi: run scripts/test.sh"]
fn a_fork_takes_the_session_id_as_in_pi() {
    assert_eq!(
        fork_twice(&Program::pi_tool()),
        fork_twice(&Program::upstream_pi())
    );
}
