//! The agent loop's own cost: a scripted model (the faux provider, arguments streamed in 4-char
//! fragments) calling `echo` and `uppercase` once each per turn for TURNS turns, then
//! answering; trivial tools; every event consumed, every tool result checked. Prints one JSON
//! line: turns/s, events/s, and heap allocations and bytes per turn (counted by the global
//! allocator of this program, over the runs only: setting one up is not a turn).
//!
//! PARTS says what is around the loop:
//! - `loop`: the loop as a program embedding it gets it (`pi_agent::Agent` with its default
//!   configuration: no gate, no session);
//! - `memory`: the session runtime every front end uses (`pi_coding_agent::CodingSession`):
//!   the approval gate in its default mode (`ask`) with the two tools allowed by a rule
//!   (nobody is there to answer), the recorder and its `before_request` hook, the compaction
//!   check, telemetry off; the session kept in memory (`--no-session`);
//! - `recorded`: the same, with the session written to a file and synced before each request
//!   (what a real run pays).
//!
//! `bench/peers/loop.sh` runs it beside upstream Pi's `agentLoop` on the same script.
//!
//! Usage: loop_cost [TURNS] [RUNS] [loop|memory|recorded]
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::alloc::System;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pi_agent::{Agent, AgentConfig, AgentEvent};
use pi_ai::{FauxProvider, UserMessage};
use pi_approval::{Mode, Permissions, ProjectTrust, Protected, RuleKind, RuleSet};
use pi_coding_agent::{
    ApprovalSetup, CodingSession, CodingSessionOptions, McpServers, NobodyToAsk, PromptOptions,
    SessionTarget, open_session,
};
use pi_tool::builtin;
use serde_json::{Value, json};
use stats_alloc::{INSTRUMENTED_SYSTEM, Stats, StatsAlloc};
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

/// The gate of a run in the default mode, `ask`, with the two tools allowed by a rule.
fn approvals(cwd: &Path) -> ApprovalSetup {
    let mut rules = Permissions::default();
    rules.add(RuleKind::Allow, "echo").unwrap();
    rules.add(RuleKind::Allow, "uppercase").unwrap();
    ApprovalSetup {
        mode: Mode::default(),
        rules: RuleSet::from_sources(&rules, None, None, ProjectTrust::Untrusted),
        user_settings: None,
        cwd: cwd.to_path_buf(),
        project_trusted: false,
        outside_tools: None,
        protected: Protected::new(),
        flags: pi_coding_agent::ApprovalFlags::default(),
    }
}

/// A session runtime as the print mode starts one, on a fresh script.
fn start(script: &Value, dirs: &Path, recorded: bool) -> CodingSession {
    let faux = FauxProvider::from_script(script)
        .unwrap()
        .with_chunk_chars(4);
    let cwd = dirs.join("work");
    std::fs::create_dir_all(&cwd).unwrap();
    let target = if recorded {
        SessionTarget::New
    } else {
        SessionTarget::InMemory
    };
    let opened = open_session(&target, || Ok(dirs.join("sessions")), &cwd).unwrap();
    CodingSession::start(CodingSessionOptions {
        cwd: cwd.clone(),
        agent_dir: Some(dirs.join("agent")),
        provider: Arc::new(faux),
        tools: builtin::registry(),
        mcp_servers: McpServers::default(),
        session: opened.session,
        approvals: approvals(&cwd),
        approver: Arc::new(NobodyToAsk {
            cwd: cwd.clone(),
            why: "a benchmark has nobody to ask",
        }),
        prompt: PromptOptions::new(&cwd),
        context_window: None,
        thinking_level: None,
        execution: Default::default(),
        max_turns: None,
        tool_timeout: None,
        stop: CancellationToken::new(),
        retry: pi_coding_agent::RetryPolicy::DISABLED,
    })
    .unwrap()
    .session
}

/// What runs the prompt: the bare loop, or a session runtime.
enum Runner {
    Loop(Box<Agent>),
    Session(Box<CodingSession>),
}

impl Runner {
    fn new(script: &Value, dirs: &Path, parts: &str) -> Self {
        match parts {
            "loop" => {
                let faux = FauxProvider::from_script(script)
                    .unwrap()
                    .with_chunk_chars(4);
                let tools = Arc::new(builtin::registry());
                Self::Loop(Box::new(Agent::new(AgentConfig::new(
                    Arc::new(faux),
                    tools,
                ))))
            }
            "memory" => Self::Session(Box::new(start(script, dirs, false))),
            "recorded" => Self::Session(Box::new(start(script, dirs, true))),
            other => panic!("PARTS is loop, memory or recorded, not {other}"),
        }
    }
}

/// One prompt of TURNS turns: its events, the time it took and what it allocated.
async fn one_run(runner: Runner, turns: usize) -> (usize, Duration, Stats) {
    let before = GLOBAL.stats();
    let started = Instant::now();
    let prompt = vec![UserMessage::text("go").into()];
    let (mut events, error) = match &runner {
        Runner::Loop(agent) => {
            let events = agent.subscribe();
            let run = agent
                .run(Vec::new(), prompt, CancellationToken::new())
                .await;
            (events, run.error)
        }
        Runner::Session(session) => {
            let events = session.subscribe();
            let outcome = session.prompt(prompt).await;
            assert!(outcome.recording_failure.is_none());
            (events, outcome.run.error)
        }
    };
    assert!(error.is_none(), "{error:?}");
    let (mut count, mut results) = (0, 0);
    while let Ok(event) = events.try_recv() {
        count += 1;
        if let AgentEvent::ToolExecutionEnd {
            is_error, result, ..
        } = &event
        {
            assert!(!is_error, "a tool failed: {result:?}");
            results += 1;
        }
    }
    let elapsed = started.elapsed();
    let stats = GLOBAL.stats() - before;
    drop(events);
    if let Runner::Session(session) = runner {
        assert_eq!(session.close().await, None);
    }
    assert_eq!(
        results,
        2 * turns,
        "{results} tool results for {turns} turns"
    );
    (count, elapsed, stats)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let turns: usize = args.first().map_or(10, |v| v.parse().unwrap());
    let runs: usize = args.get(1).map_or(200, |v| v.parse().unwrap());
    let parts = args.get(2).map_or("loop", String::as_str);
    let script = script(turns);
    let dirs = tempfile::tempdir().unwrap();
    for _ in 0..runs / 10 + 1 {
        one_run(Runner::new(&script, dirs.path(), parts), turns).await;
    }
    let (mut events, mut seconds) = (0, 0.0);
    let (mut allocations, mut bytes) = (0, 0);
    for _ in 0..runs {
        let runner = Runner::new(&script, dirs.path(), parts);
        let (count, elapsed, stats) = one_run(runner, turns).await;
        events += count;
        seconds += elapsed.as_secs_f64();
        allocations += stats.allocations;
        bytes += stats.bytes_allocated;
    }
    let all_turns = (turns + 1) * runs;
    let parts = match parts {
        "loop" => "the loop alone",
        "memory" => "gate (ask, allow rules), session in memory",
        _ => "gate (ask, allow rules), session file",
    };
    println!(
        "{}",
        json!({
            "loop": "pi-agent (Rust)",
            "parts": parts,
            "turns_per_s": all_turns as f64 / seconds,
            "events_per_s": events as f64 / seconds,
            "events_per_run": events / runs,
            "allocations_per_turn": allocations as f64 / all_turns as f64,
            "bytes_per_turn": bytes as f64 / all_turns as f64,
        })
    );
}
