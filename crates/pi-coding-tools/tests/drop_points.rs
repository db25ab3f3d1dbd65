//! A run dropped at any point of a batch that runs a shell pipeline, a write and an edit of one
//! file leaves nothing behind: no process of the command, no held write queue, no torn file.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use pi_agent::{Agent, AgentConfig};
use pi_ai::{FauxProvider, UserMessage};
use pi_coding_tools::{Workspace, all_tools};
use pi_tool::{CallContext, ToolCall, execute_tool_call};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// The live (not zombie) processes whose process group is `group`, from `/proc`.
fn live_members(group: i32) -> Vec<String> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp ...`; comm may hold spaces, so split after its `)`.
        let Some((head, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2 && fields[2] == group.to_string() && fields[0] != "Z" {
            members.push(format!("{head}) {}", fields[0]));
        }
    }
    members
}

fn groups_started(dir: &Path) -> Vec<i32> {
    std::fs::read_to_string(dir.join("groups"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.trim().parse().ok())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_dropped_at_any_point_leaves_no_process_lock_or_torn_file() {
    let old = "old line\n".repeat(20_000);
    let new = "new line\n".repeat(20_000);
    for step in 0..16_u64 {
        let drop_after = Duration::from_millis(step * 40);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), &old).unwrap();
        let script = json!([
            {"content": [
                // The shell records its group, then runs a pipeline: processes beyond the shell.
                {"type": "toolCall", "id": "b", "name": "bash", "arguments": {
                    "command": "echo $$ >> groups; sleep 30 | cat"}},
                {"type": "toolCall", "id": "w", "name": "write", "arguments": {
                    "path": "notes.txt", "content": new}},
                {"type": "toolCall", "id": "e", "name": "edit", "arguments": {
                    "path": "notes.txt", "edits": [{"oldText": "line\n", "newText": "LINE\n"}]}}
            ]},
            {"content": [{"type": "text", "text": "done"}]}
        ]);
        let model = Arc::new(FauxProvider::from_script(&script).unwrap());
        let tools = Arc::new(all_tools(&Workspace::new(dir.path())));
        let agent = Agent::new(AgentConfig::new(model, Arc::clone(&tools)));
        let run = agent.run(
            Vec::new(),
            vec![UserMessage::text("go").into()],
            CancellationToken::new(),
        );
        // The run cannot finish (the pipeline sleeps 30 s): it is dropped at `drop_after`.
        assert!(
            tokio::time::timeout(drop_after, run).await.is_err(),
            "the run ended on its own"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;

        for group in groups_started(dir.path()) {
            let members = live_members(group);
            assert!(
                members.is_empty(),
                "dropped after {drop_after:?}: group {group} still runs {members:?}"
            );
        }
        // The file's write queue is free, and the file whole: the old text or a new one.
        let write = ToolCall::new(
            "again",
            "write",
            json!({"path": "notes.txt", "content": "after\n"}),
        );
        let text = std::fs::read_to_string(dir.path().join("notes.txt")).unwrap();
        assert!(
            text == old || text == new || text == new.replacen("line\n", "LINE\n", 1),
            "dropped after {drop_after:?}: a torn file of {} bytes",
            text.len()
        );
        let result = tokio::time::timeout(
            Duration::from_secs(5),
            execute_tool_call(&write, &tools, CallContext::default()),
        )
        .await
        .expect("the write queue was left held");
        assert!(!result.is_error, "{}", result.text());
    }
}
