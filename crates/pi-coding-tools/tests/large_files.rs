//! Files far larger than what a tool shows: `read` with `limit: 1` of a 2 GB file used 2.72 GB
//! (it read the whole file, then split it). It holds only what it shows now. Alone in its own
//! test binary, so the process's peak memory is this test's.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use pi_coding_tools::{Workspace, all_tools};
use pi_tool::{CallContext, ToolCall, execute_tool_call};
use serde_json::json;

/// The process's peak resident memory so far, in bytes (`VmHWM`).
fn peak_memory() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .unwrap();
    let kilobytes: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kilobytes * 1024
}

#[tokio::test]
async fn reading_a_window_of_a_huge_file_holds_only_the_window() {
    const SIZE: u64 = 512 * 1024 * 1024;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.log");
    // Two short lines, then half a gigabyte on one line (sparse: no disk needed).
    std::fs::write(&path, "first\nsecond\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(SIZE)
        .unwrap();
    let tools = all_tools(&Workspace::new(dir.path()));
    let before = peak_memory();

    let read = |arguments| {
        let call = ToolCall::new("c", "read", arguments);
        let tools = &tools;
        async move { execute_tool_call(&call, tools, CallContext::default()).await }
    };
    let first = read(json!({"path": "huge.log", "limit": 1})).await;
    assert_eq!(
        first.text(),
        "first\n\n[2 more lines in file. Use offset=2 to continue.]"
    );
    let long = read(json!({"path": "huge.log", "offset": 3})).await;
    assert!(
        long.text()
            .starts_with("[Line 3 is 512.0MB, exceeds 50.0KB limit."),
        "{}",
        long.text()
    );
    let grown = peak_memory().saturating_sub(before);
    assert!(
        grown < 64 * 1024 * 1024,
        "reading a window of a {SIZE}-byte file grew the peak memory by {grown} bytes"
    );
}
