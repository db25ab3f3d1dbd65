//! A reader of stdout that goes away (`pi-tool session context F | head`) ends the command
//! quietly with status 0: never a panic (Rust ignores `SIGPIPE`, so a plain `print!` to a
//! closed pipe panics), never an error message. (A closed stderr: `mcp_server_wire.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::process::{Command, Stdio};

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

/// `pi-tool ARGS` given `input` on stdin, its stdout closed before it writes.
fn with_stdout_closed(args: &[&std::ffi::OsStr], input: &str) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pi-tool"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, input.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// Exited 0 and said nothing.
fn quiet(what: &str, output: &std::process::Output) {
    assert!(
        output.status.success(),
        "{what}: {:?}, stderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.stderr.is_empty(),
        "{what}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn run_ends_quietly_when_stdout_is_closed() {
    let call = r#"{"id":"1","name":"echo","arguments":{"value":"Pi"}}"#;
    quiet(
        "run",
        &with_stdout_closed(&["run".as_ref()], &format!("{call}\n")),
    );
}

#[test]
fn session_commands_end_quietly_when_stdout_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let file = big_session(dir.path());
    for command in ["context", "tree"] {
        let args = ["session".as_ref(), command.as_ref(), file.as_os_str()];
        quiet(
            &format!("session {command}"),
            &with_stdout_closed(&args, ""),
        );
    }
}
