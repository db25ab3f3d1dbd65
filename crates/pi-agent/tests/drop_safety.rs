//! Dropping a run's future mid-batch stops its calls: no tool keeps running for a run nobody
//! awaits.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use pi_agent::{Agent, AgentConfig};
use pi_tool::schema::ObjectParams;
use pi_tool::{FnTool, RegisteredTool, ToolOutput, ToolRegistry, builtin};
use serde_json::{Value, json};
use support::{call, faux, prompt};
use tokio_util::sync::CancellationToken;

#[derive(Default)]
struct Counts {
    started: AtomicUsize,
    finished: AtomicUsize,
    dropped: AtomicUsize,
}

/// Counts a call's future as dropped unless it finished.
struct Watch(Arc<Counts>, bool);

impl Drop for Watch {
    fn drop(&mut self) {
        if !self.1 {
            self.0.dropped.fetch_add(1, Ordering::SeqCst);
        }
    }
}

#[tokio::test]
async fn dropping_the_run_stops_every_running_call() {
    let counts = Arc::new(Counts::default());
    let seen = Arc::clone(&counts);
    // Ignores its cancellation token on purpose: only aborting its task can stop it.
    let linger = FnTool::new(
        "linger",
        "Works for 300 ms, deaf to cancellation",
        builtin::ValueParams::object_schema(),
        move |_params: builtin::ValueParams, _cx| {
            let counts = Arc::clone(&seen);
            async move {
                counts.started.fetch_add(1, Ordering::SeqCst);
                let mut watch = Watch(Arc::clone(&counts), false);
                tokio::time::sleep(Duration::from_millis(300)).await;
                counts.finished.fetch_add(1, Ordering::SeqCst);
                watch.1 = true;
                Ok(ToolOutput::text("done"))
            }
        },
    );
    let tools = Arc::new(ToolRegistry::new([RegisteredTool::new(linger)]).unwrap());
    let calls: Vec<Value> = (0..8)
        .map(|n| call(&format!("c{n}"), "linger", json!({"value": "x"})))
        .collect();
    let model = faux(json!([{"content": calls}, {"content": [{"type": "text", "text": "ok"}]}]));
    let agent = Agent::new(AgentConfig::new(model, tools));
    let run = agent.run(Vec::new(), prompt("go"), CancellationToken::new());
    assert!(
        tokio::time::timeout(Duration::from_millis(100), run)
            .await
            .is_err(),
        "the run should still be in its batch"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(counts.started.load(Ordering::SeqCst), 8);
    assert_eq!(
        counts.finished.load(Ordering::SeqCst),
        0,
        "calls outlived their run"
    );
    assert_eq!(counts.dropped.load(Ordering::SeqCst), 8);
}

/// A runaway response: only the first calls run, the rest are answered as refused, in order.
#[tokio::test]
async fn calls_beyond_the_batch_limit_are_refused_not_run() {
    let calls: Vec<Value> = (0..5)
        .map(|n| call(&format!("c{n}"), "echo", json!({"value": format!("v{n}")})))
        .collect();
    let model = faux(json!([{"content": calls}, {"content": [{"type": "text", "text": "ok"}]}]));
    let config = AgentConfig::new(model, Arc::new(builtin::registry())).with_max_calls_per_batch(3);
    let run = Agent::new(config).prompt("go").await;
    let results: Vec<(String, bool)> = run
        .messages
        .iter()
        .filter_map(|message| match message {
            pi_ai::Message::ToolResult(result) => Some((result.text(), result.is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 5);
    assert_eq!(results[2], ("v2".to_owned(), false));
    assert!(results[3].1 && results[4].1);
    assert!(
        results[3].0.contains("at most 3 tool calls"),
        "{}",
        results[3].0
    );
}
