//! A batch of writes, edits and reads of the same files (under several names) gives the bytes
//! and results that running its calls one by one gives. Before the per-file order was taken
//! in call order, `[write fresh.txt, edit fresh.txt]` ran the edit first in 4 runs of 20.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::sync::Arc;

use pi_agent::{Agent, AgentConfig, EndReason};
use pi_ai::{FauxProvider, Message, UserMessage};
use pi_coding_tools::{Workspace, all_tools};
use pi_tool::{CallContext, ToolCall, execute_tool_call};
use proptest::prelude::*;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const NAMES: [&str; 4] = ["fresh.txt", "./fresh.txt", "link.txt", "other.txt"];
const CONTENTS: [&str; 3] = ["one\ntwo\n", "two\nthree\n", "x\n"];
const WORDS: [&str; 4] = ["one", "two", "three", "x"];

/// One call: (tool, arguments).
fn call() -> impl Strategy<Value = (String, Value)> {
    let name = proptest::sample::select(NAMES.to_vec());
    prop_oneof![
        (name.clone(), proptest::sample::select(CONTENTS.to_vec())).prop_map(|(path, content)| (
            "write".to_owned(),
            json!({"path": path, "content": content})
        )),
        (
            name.clone(),
            proptest::sample::select(WORDS.to_vec()),
            proptest::sample::select(WORDS.to_vec())
        )
            .prop_map(|(path, old, new)| (
                "edit".to_owned(),
                json!({"path": path, "edits": [{"oldText": old, "newText": format!("{new}!")}]})
            )),
        name.prop_map(|path| ("read".to_owned(), json!({"path": path}))),
    ]
}

/// A fresh workspace: `link.txt` links to `fresh.txt`, which does not exist yet.
fn workspace() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("fresh.txt", dir.path().join("link.txt")).unwrap();
    let workspace = Workspace::new(dir.path());
    (dir, workspace)
}

/// The files' bytes at the end (`None`: missing).
fn files(dir: &tempfile::TempDir) -> Vec<Option<String>> {
    ["fresh.txt", "other.txt"]
        .iter()
        .map(|name| std::fs::read_to_string(dir.path().join(name)).ok())
        .collect()
}

async fn one_by_one(calls: &[(String, Value)]) -> (Vec<String>, Vec<Option<String>>) {
    let (dir, workspace) = workspace();
    let tools = all_tools(&workspace);
    let mut texts = Vec::new();
    for (index, (name, arguments)) in calls.iter().enumerate() {
        let call = ToolCall::new(format!("c{index}"), name.as_str(), arguments.clone());
        texts.push(
            execute_tool_call(&call, &tools, CallContext::default())
                .await
                .text(),
        );
    }
    (texts, files(&dir))
}

async fn as_one_batch(calls: &[(String, Value)]) -> (Vec<String>, Vec<Option<String>>) {
    let (dir, workspace) = workspace();
    let content: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(index, (name, arguments))| {
            json!({"type": "toolCall", "id": format!("c{index}"), "name": name, "arguments": arguments})
        })
        .collect();
    let script = json!([{"content": content}, {"content": [{"type": "text", "text": "done"}]}]);
    let model = Arc::new(FauxProvider::from_script(&script).unwrap());
    let agent = Agent::new(AgentConfig::new(model, Arc::new(all_tools(&workspace))));
    let run = agent
        .run(
            Vec::new(),
            vec![UserMessage::text("go").into()],
            CancellationToken::new(),
        )
        .await;
    assert_eq!(run.end, EndReason::Completed);
    let texts = run
        .messages
        .iter()
        .filter_map(|message| match message {
            Message::ToolResult(result) => Some(result.text()),
            _ => None,
        })
        .collect();
    (texts, files(&dir))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn a_batch_gives_what_its_calls_give_one_by_one(calls in proptest::collection::vec(call(), 2..7)) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let expected = runtime.block_on(one_by_one(&calls));
        // Several times: a race shows only now and then.
        for _ in 0..3 {
            let batch = runtime.block_on(as_one_batch(&calls));
            prop_assert_eq!(&batch, &expected, "calls: {:?}", calls);
        }
    }
}
