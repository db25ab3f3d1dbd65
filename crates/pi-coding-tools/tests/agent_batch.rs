//! The coding tools under the agent loop: one model response asks for several edits of one file
//! and a read, all run as one parallel batch. Upstream lost all but one of such edits
//! (earendil-works/pi#2327); here each waits for the file and all of them land.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::sync::Arc;

use pi_agent::{Agent, AgentConfig, EndReason};
use pi_ai::{FauxProvider, Message, UserMessage};
use pi_coding_tools::{Workspace, all_tools};
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn parallel_edits_of_one_file_in_one_batch_all_land() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = (0..8).map(|n| format!("line {n}")).collect();
    std::fs::write(dir.path().join("notes.txt"), lines.join("\n") + "\n").unwrap();
    let edits: Vec<_> = (0..8)
        .map(|n| {
            json!({"type": "toolCall", "id": format!("e{n}"), "name": "edit", "arguments": {
                "path": "notes.txt",
                "edits": [{"oldText": format!("line {n}\n"), "newText": format!("LINE {n}\n")}]
            }})
        })
        .collect();
    let script = json!([
        {"content": edits},
        {"content": [{"type": "toolCall", "id": "r", "name": "read", "arguments": {"path": "notes.txt"}}]},
        {"content": [{"type": "text", "text": "done"}]}
    ]);
    let model = Arc::new(FauxProvider::from_script(&script).unwrap());
    let tools = Arc::new(all_tools(&Workspace::new(dir.path())));
    let agent = Agent::new(AgentConfig::new(model, tools));
    let run = agent
        .run(
            Vec::new(),
            vec![UserMessage::text("shout every line").into()],
            CancellationToken::new(),
        )
        .await;
    assert_eq!(run.end, EndReason::Completed);
    let results: Vec<(String, String, bool)> = run
        .messages
        .iter()
        .filter_map(|message| match message {
            Message::ToolResult(result) => Some((
                result.tool_call_id.to_string(),
                result.text(),
                result.is_error,
            )),
            _ => None,
        })
        .collect();
    let expected_edits = (0..8).map(|n| {
        (
            format!("e{n}"),
            "Successfully replaced 1 block(s) in notes.txt.".to_owned(),
            false,
        )
    });
    let shouted: Vec<String> = (0..8).map(|n| format!("LINE {n}")).collect();
    let expected: Vec<_> = expected_edits
        .chain([("r".to_owned(), shouted.join("\n") + "\n", false)])
        .collect();
    assert_eq!(results, expected);
}
