//! Output whose reader went away. Rust ignores `SIGPIPE`, so a plain `print!` or `eprintln!` to
//! a closed pipe panics, and a panic while reporting a panic aborts. A closed stdout
//! (`pi-tool session context F | head`) ends the command quietly with status 0; a closed
//! stderr changes nothing: `serve` answers a call whose tool panics, and the next one.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write as _};
use std::process::{Command, Stdio};

use serde_json::Value;

/// A session of 2,000 user messages: its context and its tree are each far more than a pipe
/// holds (64 KiB), so the writes reach the closed pipe whenever it closes.
fn big_session(dir: &std::path::Path) -> std::path::PathBuf {
    let mut text = String::from(
        r#"{"type":"session","version":3,"id":"01a24909-7150-7000-8000-000000000001","timestamp":"2026-12-06T00:00:00.000Z","cwd":"/w"}"#,
    );
    text.push('\n');
    let mut parent = String::from("null");
    for index in 0..2000 {
        let id = format!("{index:08x}");
        writeln!(
            text,
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-12-06T00:00:00.000Z","message":{{"role":"user","content":"message {index} {}","timestamp":1}}}}"#,
            "words ".repeat(30)
        )
        .unwrap();
        parent = format!("\"{id}\"");
    }
    let path = dir.join("big.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

fn with_stdout_closed(args: &[&std::ffi::OsStr]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pi-tool"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

#[test]
fn session_commands_end_quietly_when_stdout_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let file = big_session(dir.path());
    for command in ["context", "tree"] {
        let output = with_stdout_closed(&["session".as_ref(), command.as_ref(), file.as_os_str()]);
        assert!(
            output.status.success(),
            "session {command}: {:?}, stderr: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            output.stderr.is_empty(),
            "session {command}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn serve_answers_a_panicking_tool_and_the_next_call_when_stderr_is_closed() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pi-tool"))
        .args(["serve", "--test-tools"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Nobody reads stderr: the panic's report goes to a closed pipe.
    drop(child.stderr.take());
    let mut stdin = child.stdin.take().unwrap();
    let requests = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"explode","arguments":{"value":"boom"}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"value":"still here"}}}"#,
    ];
    for request in requests {
        writeln!(stdin, "{request}").unwrap();
    }
    let mut answers = std::collections::HashMap::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let message: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if let Some(id) = message["id"].as_i64() {
            answers.insert(id, message);
        }
        if answers.contains_key(&1) && answers.contains_key(&2) {
            break;
        }
    }
    drop(stdin);
    let status = child.wait().unwrap();
    assert_eq!(
        answers[&1]["result"]["isError"],
        true,
        "{:?}",
        answers.get(&1)
    );
    assert_eq!(
        answers[&2]["result"]["content"][0]["text"],
        "still here",
        "{:?}",
        answers.get(&2)
    );
    assert!(status.success(), "{status:?}");
}
