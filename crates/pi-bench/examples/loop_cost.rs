//! The agent loop's own cost: a scripted model (the faux provider, arguments streamed in 4-char
//! fragments) calling `echo` and `uppercase` once each per turn for TURNS turns, then answering;
//! trivial tools; every event consumed, every tool result checked. Prints one JSON line: turns/s, events/s, and heap
//! allocations and bytes per turn (counted by the global allocator of this program).
//! `bench/peers/loop.sh` runs it beside upstream Pi's `agentLoop` on the same script.
//!
//! Usage: loop_cost [TURNS] [RUNS]
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::alloc::System;
use std::sync::Arc;
use std::time::Instant;

use pi_agent::{Agent, AgentConfig, AgentEvent};
use pi_ai::{FauxProvider, UserMessage};
use pi_tool::builtin;
use serde_json::{Value, json};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use tokio_util::sync::CancellationToken;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// TURNS turns of two tool calls each, then a final answer: the script both loops run.
fn script(turns: usize) -> Value {
    let mut responses: Vec<Value> = (0..turns)
        .map(|turn| {
            json!({"content": [
                {"type": "toolCall", "id": format!("call-{turn}-a"), "name": "echo", "arguments": {"value": "Pi"}},
                {"type": "toolCall", "id": format!("call-{turn}-b"), "name": "uppercase", "arguments": {"value": "pi"}},
            ]})
        })
        .collect();
    responses.push(
        json!({"content": [{"type": "text", "text": "echo said Pi and uppercase said PI."}]}),
    );
    Value::Array(responses)
}

async fn one_run(script: &Value, tools: &Arc<pi_tool::ToolRegistry>, turns: usize) -> usize {
    let faux = FauxProvider::from_script(script)
        .unwrap()
        .with_chunk_chars(4);
    let agent = Agent::new(AgentConfig::new(Arc::new(faux), Arc::clone(tools)));
    let mut events = agent.subscribe();
    let run = agent
        .run(
            Vec::new(),
            vec![UserMessage::text("go").into()],
            CancellationToken::new(),
        )
        .await;
    assert!(run.error.is_none(), "{:?}", run.error);
    drop(agent);
    let (mut count, mut results) = (0, 0);
    while let Some(event) = events.recv().await {
        count += 1;
        if let AgentEvent::ToolExecutionEnd { is_error, .. } = event {
            assert!(!is_error, "a tool failed");
            results += 1;
        }
    }
    assert_eq!(
        results,
        2 * turns,
        "{results} tool results for {turns} turns"
    );
    count
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let turns: usize = args.first().map_or(10, |v| v.parse().unwrap());
    let runs: usize = args.get(1).map_or(200, |v| v.parse().unwrap());
    let script = script(turns);
    let tools = Arc::new(builtin::registry());
    for _ in 0..runs / 10 + 1 {
        one_run(&script, &tools, turns).await;
    }
    let region = Region::new(GLOBAL);
    let started = Instant::now();
    let mut events = 0;
    for _ in 0..runs {
        events += one_run(&script, &tools, turns).await;
    }
    let seconds = started.elapsed().as_secs_f64();
    let stats = region.change();
    let all_turns = (turns + 1) * runs;
    println!(
        "{}",
        json!({
            "loop": "pi-agent (Rust)",
            "turns_per_s": all_turns as f64 / seconds,
            "events_per_s": events as f64 / seconds,
            "events_per_run": events / runs,
            "allocations_per_turn": stats.allocations as f64 / all_turns as f64,
            "bytes_per_turn": stats.bytes_allocated as f64 / all_turns as f64,
        })
    );
}
