//! The pairing invariant as a property: for random batches (outcomes, durations, unknown tools,
//! invalid arguments, panics, time limits, cancellation at random moments, parallel or
//! sequential, with or without a concurrency limit), every call gets exactly one result, with
//! its id and name, in the assistant's call order.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod support;

use std::time::Duration;

use pi_agent::{AgentConfig, AgentEvent, EndReason, ExecutionMode};
use pi_ai::Message;
use proptest::prelude::*;
use serde_json::{Value, json};
use support::*;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Clone)]
enum Kind {
    Ok(u64),
    Error(u64),
    Stubborn(u64),
    Panic,
    Unknown,
    Invalid,
}

fn kind() -> impl Strategy<Value = Kind> {
    // Durations keep clear of the 150 ms time limit so that the expected outcome is certain.
    let duration = prop_oneof![0u64..100, 200u64..300];
    prop_oneof![
        duration.clone().prop_map(Kind::Ok),
        duration.clone().prop_map(Kind::Error),
        duration.prop_map(Kind::Stubborn),
        Just(Kind::Panic),
        Just(Kind::Unknown),
        Just(Kind::Invalid),
    ]
}

fn block(index: usize, kind: &Kind) -> Value {
    let id = format!("c{index}");
    match kind {
        Kind::Ok(ms) => call(&id, "work", json!({"label": id, "ms": ms})),
        Kind::Error(ms) => call(
            &id,
            "work",
            json!({"label": id, "ms": ms, "outcome": "error"}),
        ),
        Kind::Stubborn(ms) => call(
            &id,
            "work",
            json!({"label": id, "ms": ms, "outcome": "stubborn"}),
        ),
        Kind::Panic => call(&id, "work", json!({"label": id, "outcome": "panic"})),
        Kind::Unknown => call(&id, "missing", json!({})),
        Kind::Invalid => call(&id, "work", json!({"label": 1})),
    }
}

fn expected_success(kind: &Kind) -> bool {
    match kind {
        Kind::Ok(ms) | Kind::Stubborn(ms) => *ms < 150,
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_call_gets_one_result_in_call_order(
        kinds in proptest::collection::vec(kind(), 1..8),
        cancel_at in proptest::option::of(0u64..400),
        sequential in any::<bool>(),
        limit in proptest::option::of(1usize..4),
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        runtime.block_on(async {
            let content: Vec<Value> = kinds.iter().enumerate().map(|(i, kind)| block(i, kind)).collect();
            let model = faux(json!([{"content": content}, answer("done")]));
            let mut config = AgentConfig::new(model, tools())
                .with_tool_timeout(Duration::from_millis(150))
                .with_cancel_grace(Duration::from_millis(20));
            if sequential {
                config = config.with_execution(ExecutionMode::Sequential);
            }
            if let Some(limit) = limit {
                config = config.with_max_concurrency(limit);
            }
            let (agent, mut events) = start(config);
            let signal = CancellationToken::new();
            if let Some(at) = cancel_at {
                let trigger = signal.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(at)).await;
                    trigger.cancel();
                });
            }
            let run = agent.run(Vec::new(), prompt("go"), signal).await;

            let results: Vec<&pi_tool::ToolResultMessage> = run.messages.iter().filter_map(|m| match m {
                Message::ToolResult(result) => Some(result),
                _ => None,
            }).collect();
            // Every assistant message's calls are answered right after it, in call order.
            for (position, message) in run.messages.iter().enumerate() {
                if let Message::Assistant(assistant) = message {
                    for (offset, call) in assistant.tool_calls().iter().enumerate() {
                        match run.messages.get(position + 1 + offset) {
                            Some(Message::ToolResult(result)) => {
                                prop_assert_eq!(&result.tool_call_id, &call.id);
                                prop_assert_eq!(&result.tool_name, &call.name);
                            }
                            other => prop_assert!(false, "call {} unanswered: {:?}", call.id, other),
                        }
                    }
                }
            }
            let proposed = run.messages.iter().any(|m| matches!(m, Message::Assistant(a) if !a.tool_calls().is_empty()));
            if proposed {
                prop_assert_eq!(results.len(), kinds.len(), "one result per call");
                for (index, (result, kind)) in results.iter().zip(&kinds).enumerate() {
                    prop_assert_eq!(&result.tool_call_id, &format!("c{index}"));
                    let name = if matches!(kind, Kind::Unknown) { "missing" } else { "work" };
                    prop_assert_eq!(&result.tool_name, name);
                    if cancel_at.is_none() {
                        prop_assert_eq!(!result.is_error, expected_success(kind), "{:?}: {}", kind, result.text());
                    }
                }
                // The results follow their assistant message directly, in call order.
                let position = run.messages.iter().position(|m| matches!(m, Message::ToolResult(_))).unwrap();
                prop_assert!(matches!(run.messages[position - 1], Message::Assistant(_)));
            }
            let mut ended = Vec::new();
            while let Ok(event) = events.try_recv() {
                if let AgentEvent::ToolExecutionEnd { tool_call_id, .. } = event {
                    ended.push(tool_call_id);
                }
            }
            ended.sort();
            let mut ids: Vec<_> = results.iter().map(|r| r.tool_call_id.clone()).collect();
            ids.sort();
            prop_assert_eq!(ended, ids, "one tool_execution_end per result");
            if cancel_at.is_none() {
                prop_assert_eq!(run.end, EndReason::Completed);
            }
            Ok(())
        })?;
    }
}
