//! `pi-tool run` keeps one file's calls in call order, as the agent loop does (issue 42): a
//! chain of edits, each finding the text the one before it left, through two hard-linked names
//! of one file. Before `run` started its calls through the loop's `CallOrder`, 2 to 11 of 20
//! runs applied them out of order; before the ordering key was the file's device and inode,
//! the two names ran side by side and lost edits.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::io::Write;
use std::process::{Command, Stdio};

const EDITS: usize = 20;

fn step(index: usize) -> String {
    format!("step-{index:02}")
}

#[test]
fn a_chain_of_edits_through_two_hard_linked_names_applies_in_call_order() {
    let mut calls = String::new();
    for index in 0..EDITS {
        let name = if index % 2 == 0 { "a.txt" } else { "b.txt" };
        let call = serde_json::json!({"type": "toolCall", "id": format!("e{index}"), "name": "edit",
            "arguments": {"path": name, "edits": [{"oldText": step(index), "newText": step(index + 1)}]}});
        calls.push_str(&call.to_string());
        calls.push('\n');
    }
    for run in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), format!("{}\n", step(0))).unwrap();
        std::fs::hard_link(dir.path().join("a.txt"), dir.path().join("b.txt")).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_pi-tool"))
            .args(["--coding-tools", dir.path().to_str().unwrap(), "run"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(calls.as_bytes())
            .unwrap();
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "run {run}: {output:?}");
        let results: Vec<serde_json::Value> = String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(results.len(), EDITS, "run {run}");
        for (index, result) in results.iter().enumerate() {
            assert_eq!(result["toolCallId"], format!("e{index}"), "run {run}");
            assert_eq!(
                result["isError"], false,
                "run {run}, call {index}: {result}"
            );
        }
        let end = format!("{}\n", step(EDITS));
        for name in ["a.txt", "b.txt"] {
            let content = std::fs::read_to_string(dir.path().join(name)).unwrap();
            assert_eq!(content, end, "run {run}: {name}");
        }
    }
}
