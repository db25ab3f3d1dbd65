//! `grep` over a file with a huge line: a 1 GB one-line file took 1.9 GB (the searcher's line
//! buffer grew to hold the line). The search of that file now stops at the line, the result
//! says where, and the matches before it are shown. Alone in its own test binary, so the
//! process's peak memory is this test's.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::io::Write;

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
async fn a_huge_line_stops_that_files_search_within_bounded_memory() {
    const LONG: usize = 160 << 20;
    let dir = tempfile::tempdir().unwrap();
    // A match, 160 MiB on one line (not NUL bytes: those end lines in a named file), a match.
    let mut file = std::fs::File::create(dir.path().join("huge.txt")).unwrap();
    file.write_all(b"needle one\n").unwrap();
    let chunk = vec![b'a'; 1 << 20];
    for _ in 0..LONG >> 20 {
        file.write_all(&chunk).unwrap();
    }
    file.write_all(b" needle in the long line\nneedle two\n")
        .unwrap();
    drop(file);
    std::fs::write(dir.path().join("small.txt"), "a needle here\n").unwrap();
    let tools = all_tools(&Workspace::new(dir.path()));
    let before = peak_memory();

    let grep = |arguments| {
        let call = ToolCall::new("c", "grep", arguments);
        let tools = &tools;
        async move { execute_tool_call(&call, tools, CallContext::default()).await }
    };
    let named = grep(json!({"pattern": "needle", "path": "huge.txt"})).await;
    assert_eq!(
        named.text(),
        "huge.txt:1: needle one\n\n[Not searched past: huge.txt (a line longer than 32 MiB). Use read to see it]"
    );
    let walked = grep(json!({"pattern": "needle"})).await;
    let text = walked.text();
    assert!(text.contains("huge.txt:1: needle one"), "{text}");
    assert!(text.contains("small.txt:1: a needle here"), "{text}");
    assert!(
        text.ends_with(
            "[Not searched past: huge.txt (a line longer than 32 MiB). Use read to see it]"
        ),
        "{text}"
    );
    let none = grep(json!({"pattern": "nowhere", "path": "huge.txt"})).await;
    assert!(
        none.text()
            .starts_with("No matches found\n\n[Not searched past: huge.txt"),
        "{}",
        none.text()
    );
    let grown = peak_memory().saturating_sub(before);
    assert!(
        grown < 96 << 20,
        "searching a file with a {LONG}-byte line grew the peak memory by {grown} bytes"
    );
}
