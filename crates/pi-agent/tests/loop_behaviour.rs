//! The loop's behaviour, one rule per test, with the faux model.
//!
//! (Over 500 lines on purpose: each file under `tests/` is its own binary that links the whole
//! crate stack, so one file per behaviour area keeps CI's link time and disk down; the tests
//! inside are independent and share only the helpers at the top.)
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::FutureExt;
use pi_agent::{AfterToolCall, AgentConfig, AgentEvent, BeforeToolCall, EndReason, ExecutionMode};
use pi_ai::{Message, StopReason, UserMessage};
use pi_tool::{model_text, text};
use serde_json::json;
use support::*;
use tokio_util::sync::CancellationToken;

/// The ids of the `tool_execution_end` events received so far, in the order they fired.
fn ended_ids(events: &mut tokio::sync::mpsc::UnboundedReceiver<AgentEvent>) -> Vec<String> {
    drain(events)
        .into_iter()
        .filter_map(|event| match event {
            AgentEvent::ToolExecutionEnd { tool_call_id, .. } => Some(tool_call_id.to_string()),
            _ => None,
        })
        .collect()
}

fn results(messages: &[Message]) -> Vec<(String, String, bool)> {
    messages
        .iter()
        .filter_map(|message| match message {
            Message::ToolResult(result) => Some((
                result.tool_call_id.to_string(),
                result.text(),
                result.is_error,
            )),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn one_tool_turn_emits_pis_event_sequence() {
    let model = faux(json!([
        {"content": [call("c1", "echo", json!({"value": "Pi"}))]},
        answer("done")
    ]));
    let (agent, mut events) = start(AgentConfig::new(model, tools()));
    let run = agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    assert_eq!(run.end, EndReason::Completed);

    let kinds: Vec<&str> = drain(&mut events)
        .iter()
        .map(AgentEvent::kind)
        .filter(|kind| *kind != "message_update")
        .collect();
    assert_eq!(
        kinds,
        [
            "agent_start",
            "turn_start", // before the prompt, as Pi orders them
            "message_start",
            "message_end", // the prompt
            "message_start",
            "message_end", // the assistant's tool call
            "tool_execution_start",
            "tool_execution_end",
            "message_start",
            "message_end", // the tool result
            "turn_end",
            "turn_start",
            "message_start",
            "message_end", // the answer
            "turn_end",
            "agent_end",
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn events_share_each_message_and_pass_on_no_stream_start_or_end() {
    let model = faux(json!([
        {"content": [call("c1", "echo", json!({"value": "Pi"}))]},
        answer("done")
    ]));
    let (agent, mut first) = start(AgentConfig::new(model, tools()));
    let mut second = agent.subscribe();
    agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    let (first, second) = (drain(&mut first), drain(&mut second));
    assert_eq!(first.len(), second.len());
    // Pi passes the stream's start, done and error on as message_start and message_end only.
    assert!(first.iter().all(|event| !matches!(
        event,
        AgentEvent::MessageUpdate {
            assistant_message_event: pi_ai::AssistantMessageEvent::Start { .. }
                | pi_ai::AssistantMessageEvent::Done { .. }
                | pi_ai::AssistantMessageEvent::Error { .. }
        }
    )));
    let ends = |events: &[AgentEvent]| -> Vec<Arc<Message>> {
        events
            .iter()
            .filter_map(|event| match event {
                AgentEvent::MessageEnd { message } => Some(Arc::clone(message)),
                _ => None,
            })
            .collect()
    };
    // Both subscribers hold the very same messages: none was copied for them.
    let (ends_first, ends_second) = (ends(&first), ends(&second));
    assert_eq!(ends_first.len(), 4);
    for (a, b) in ends_first.iter().zip(&ends_second) {
        assert!(Arc::ptr_eq(a, b));
    }
    // The tool's end, the turn's end and the run's end share them too.
    let result = first.iter().find_map(|event| match event {
        AgentEvent::ToolExecutionEnd { result, .. } => Some(Arc::clone(result)),
        _ => None,
    });
    assert!(Arc::ptr_eq(&result.unwrap(), &ends_first[2]));
    let turn = first.iter().find_map(|event| match event {
        AgentEvent::TurnEnd {
            message,
            tool_results,
        } => Some((Arc::clone(message), tool_results.clone())),
        _ => None,
    });
    let (assistant, results) = turn.unwrap();
    assert!(Arc::ptr_eq(&assistant, &ends_first[1]));
    assert!(Arc::ptr_eq(&results[0], &ends_first[2]));
    let Some(AgentEvent::AgentEnd { messages, .. }) = first.last() else {
        panic!("no agent_end");
    };
    assert_eq!(messages.len(), 4);
    for (a, b) in messages.iter().zip(&ends_first) {
        assert!(Arc::ptr_eq(a, b));
    }
}

#[tokio::test(start_paused = true)]
async fn a_parallel_batch_ends_in_completion_order_but_records_in_call_order() {
    let model = faux(json!([
        {"content": [
            call("slow", "work", json!({"label": "slow", "ms": 300})),
            call("fast", "work", json!({"label": "fast", "ms": 10})),
            call("mid", "work", json!({"label": "mid", "ms": 100}))
        ]},
        answer("done")
    ]));
    let (agent, mut events) = start(AgentConfig::new(model, tools()));
    let started = tokio::time::Instant::now();
    let run = agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    assert!(
        started.elapsed() < Duration::from_millis(600),
        "the calls overlapped"
    );

    let ended: Vec<String> = ended_ids(&mut events);
    assert_eq!(ended, ["fast", "mid", "slow"]);
    let recorded: Vec<String> = results(&run.messages)
        .into_iter()
        .map(|(id, _, _)| id)
        .collect();
    assert_eq!(recorded, ["slow", "fast", "mid"]);
}

#[tokio::test(start_paused = true)]
async fn sequential_mode_exclusive_tools_and_a_concurrency_limit_serialise_calls() {
    let batch = json!([
        {"content": [
            call("a", "work", json!({"label": "a", "ms": 80})),
            call("b", "work", json!({"label": "b", "ms": 10}))
        ]},
        answer("done")
    ]);
    for config in [
        AgentConfig::new(faux(batch.clone()), tools()).with_execution(ExecutionMode::Sequential),
        AgentConfig::new(faux(batch.clone()), tools()).with_max_concurrency(1),
    ] {
        let (agent, mut events) = start(config);
        agent
            .run(Vec::new(), prompt("go"), CancellationToken::new())
            .await;
        let ended: Vec<String> = ended_ids(&mut events);
        assert_eq!(ended, ["a", "b"], "one at a time, in call order");
    }

    let with_lock = faux(json!([
        {"content": [
            call("a", "work", json!({"label": "a", "ms": 80})),
            call("l", "lock", json!({"value": "x"})),
            call("b", "work", json!({"label": "b", "ms": 10}))
        ]},
        answer("done")
    ]));
    let (agent, mut events) = start(AgentConfig::new(with_lock, tools()));
    agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    let ended: Vec<String> = ended_ids(&mut events);
    assert_eq!(
        ended,
        ["a", "l", "b"],
        "an exclusive tool makes the batch sequential"
    );
}

#[tokio::test(start_paused = true)]
async fn every_failure_kind_still_pairs_in_call_order() {
    let model = faux(json!([
        {"content": [
            call("ok", "work", json!({"label": "fine"})),
            call("unknown", "nope", json!({})),
            call("invalid", "work", json!({"label": 3})),
            call("error", "work", json!({"label": "e", "outcome": "error"})),
            call("panic", "work", json!({"label": "p", "outcome": "panic"}))
        ]},
        answer("done")
    ]));
    let (agent, _events) = start(AgentConfig::new(model, tools()));
    let run = agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    assert_eq!(
        results(&run.messages),
        [
            ("ok".into(), "fine".into(), false),
            ("unknown".into(), "Tool nope failed: 未知工具".into(), true),
            (
                "invalid".into(),
                "Tool work failed: label: 必须是 string，收到 number 3".into(),
                true
            ),
            ("error".into(), "Tool work failed: e failed".into(), true),
            ("panic".into(), "Tool work failed: p panicked".into(), true),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_timed_out_call_sees_its_token_and_says_it_timed_out() {
    let model = faux(json!([
        {"content": [
            call("slow", "work", json!({"label": "slow", "ms": 5000})),
            call("fast", "work", json!({"label": "fast", "ms": 1}))
        ]},
        answer("done")
    ]));
    let config =
        AgentConfig::new(model, tools()).with_tool_timeout_for("work", Duration::from_millis(100));
    let (agent, _events) = start(config);
    let started = tokio::time::Instant::now();
    let run = agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    assert!(started.elapsed() < Duration::from_secs(2));
    let found = results(&run.messages);
    assert_eq!(
        found[0],
        (
            "slow".into(),
            format!(
                "Tool work failed: {}",
                model_text::timed_out(Duration::from_millis(100))
            ),
            true
        )
    );
    assert_eq!(found[1], ("fast".into(), "fast".into(), false));
}

#[tokio::test(start_paused = true)]
async fn cancelling_mid_batch_answers_every_call() {
    let model = faux(json!([
        {"content": [
            call("watching", "work", json!({"label": "w", "ms": 10000})),
            call("stubborn", "work", json!({"label": "s", "ms": 10000, "outcome": "stubborn"})),
            call("queued", "work", json!({"label": "q"}))
        ]},
        answer("never")
    ]));
    let config = AgentConfig::new(model.clone(), tools()).with_max_concurrency(2);
    let (agent, _events) = start(config);
    let signal = CancellationToken::new();
    let trigger = signal.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let run = agent.run(Vec::new(), prompt("go"), signal).await;
    assert_eq!(run.end, EndReason::Aborted);
    assert_eq!(
        results(&run.messages),
        [
            (
                "watching".into(),
                "Tool work failed: w stopped".into(),
                true
            ),
            (
                "stubborn".into(),
                format!("Tool work failed: {}", model_text::ABORTED),
                true
            ),
            (
                "queued".into(),
                format!("Tool work failed: {}", model_text::ABORTED),
                true
            ),
        ]
    );
    assert_eq!(
        model.remaining(),
        1,
        "no further model request after cancellation"
    );
}

#[tokio::test(start_paused = true)]
async fn before_hook_sees_validated_arguments_and_can_block_or_rewrite() {
    let model = faux(json!([
        {"content": [
            call("allowed", "echo", json!({"value": "a", "extra": 1})),
            call("blocked", "echo", json!({"value": "b"})),
            call("rewritten", "echo", json!({"value": "c"})),
            call("rewritten-badly", "echo", json!({"value": "d"}))
        ]},
        answer("done")
    ]));
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen_by_hook = Arc::clone(&seen);
    let config = AgentConfig::new(model, tools()).with_before_tool_call(move |context| {
        seen_by_hook.lock().unwrap().push(context.arguments.clone());
        async move {
            match context.call.id.as_str() {
                "blocked" => BeforeToolCall::Block {
                    reason: Some("not allowed here".into()),
                },
                "rewritten" => BeforeToolCall::Rewrite {
                    arguments: json!({"value": "C!"}),
                },
                "rewritten-badly" => BeforeToolCall::Rewrite {
                    arguments: json!({"value": 9}),
                },
                _ => BeforeToolCall::Allow,
            }
        }
        .boxed()
    });
    let (agent, _events) = start(config);
    let run = agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    assert_eq!(
        seen.lock().unwrap()[0],
        json!({"value": "a"}),
        "validated: extra dropped"
    );
    assert_eq!(
        results(&run.messages),
        [
            ("allowed".into(), "a".into(), false),
            (
                "blocked".into(),
                "Tool echo failed: not allowed here".into(),
                true
            ),
            ("rewritten".into(), "C!".into(), false),
            (
                "rewritten-badly".into(),
                "Tool echo failed: 必须是 string".into(),
                true
            ),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn after_hook_rewrites_every_result_including_synthesized_ones() {
    let model = faux(json!([
        {"content": [call("ok", "echo", json!({"value": "a"})), call("missing", "nope", json!({}))]},
        answer("done")
    ]));
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&calls);
    let config = AgentConfig::new(model, tools()).with_after_tool_call(move |context| {
        counter.fetch_add(1, Ordering::SeqCst);
        async move {
            AfterToolCall {
                content: Some(vec![text(format!(
                    "[{}] {}",
                    context.call.id,
                    context.result.text()
                ))]),
                details: Some(None),
                is_error: Some(false),
                terminate: None,
            }
        }
        .boxed()
    });
    let (agent, _events) = start(config);
    let run = agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(
        results(&run.messages),
        [
            ("ok".into(), "[ok] a".into(), false),
            (
                "missing".into(),
                "[missing] Tool nope failed: 未知工具".into(),
                false
            ),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_response_cut_off_by_the_token_limit_runs_none_of_its_calls() {
    let model = faux(json!([
        {"content": [call("c1", "work", json!({"label": "x"}))], "stopReason": "length"},
        answer("retrying")
    ]));
    let (agent, mut events) = start(AgentConfig::new(model, tools()));
    let run = agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    assert_eq!(run.end, EndReason::Completed);
    let found = results(&run.messages);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].1, model_text::truncated_call("work"));
    assert!(found[0].2);
    assert!(
        drain(&mut events)
            .iter()
            .all(|event| !matches!(event, AgentEvent::ToolExecutionUpdate { .. })),
    );
}

#[tokio::test(start_paused = true)]
async fn steering_arrives_after_the_batch_and_follow_ups_when_it_would_stop() {
    let model = Arc::new(
        pi_ai::FauxProvider::from_script(&json!([
            {"content": [call("c1", "work", json!({"label": "x", "ms": 50}))]},
            answer("first answer"),
            answer("second answer")
        ]))
        .unwrap()
        .recording_requests(),
    );
    let (agent, _events) = start(AgentConfig::new(model.clone(), tools()));
    let steering = agent.steering();
    let follow_ups = agent.follow_ups();
    follow_ups.push(UserMessage::text("one more thing"));
    let pusher = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(10)).await;
        steering.push(UserMessage::text("also consider y"));
    });
    let run = agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    pusher.await.unwrap();
    let roles: Vec<String> = run
        .messages
        .iter()
        .map(|message| match message {
            Message::User(user) => format!(
                "user:{}",
                match &user.content {
                    pi_ai::UserContent::Text(text) => text.clone(),
                    pi_ai::UserContent::Blocks(_) => String::new(),
                }
            ),
            Message::Assistant(assistant) => format!("assistant:{}", assistant.text()),
            Message::ToolResult(result) => format!("result:{}", result.tool_call_id),
        })
        .collect();
    assert_eq!(
        roles,
        [
            "user:go",
            "assistant:",
            "result:c1",
            "user:also consider y",
            "assistant:first answer",
            "user:one more thing",
            "assistant:second answer",
        ]
    );
    // The steering message reached the model with the next request, after the tool result.
    let second_request = &model.requests()[1];
    assert!(matches!(
        second_request.messages.last(),
        Some(Message::User(_))
    ));
}

#[tokio::test(start_paused = true)]
async fn a_batch_that_all_asks_to_terminate_ends_the_run() {
    let model = faux(json!([
        {"content": [
            call("a", "work", json!({"label": "a", "outcome": "terminate"})),
            call("b", "work", json!({"label": "b", "outcome": "terminate"}))
        ]},
        answer("never")
    ]));
    let (agent, _events) = start(AgentConfig::new(model.clone(), tools()));
    let run = agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    assert_eq!(run.end, EndReason::Terminated);
    assert_eq!(model.remaining(), 1);

    let mixed = faux(json!([
        {"content": [
            call("a", "work", json!({"label": "a", "outcome": "terminate"})),
            call("b", "work", json!({"label": "b"}))
        ]},
        answer("continued")
    ]));
    let (agent, _events) = start(AgentConfig::new(mixed, tools()));
    let run = agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    assert_eq!(
        run.end,
        EndReason::Completed,
        "one result not terminating keeps going"
    );
}

#[tokio::test(start_paused = true)]
async fn max_turns_and_provider_errors_end_the_run_with_a_reason() {
    let looping = faux(json!([
        {"content": [call("1", "echo", json!({"value": "a"}))]},
        {"content": [call("2", "echo", json!({"value": "b"}))]},
        {"content": [call("3", "echo", json!({"value": "c"}))]}
    ]));
    let (agent, _events) = start(AgentConfig::new(looping, tools()).with_max_turns(2));
    let run = agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    assert_eq!(run.end, EndReason::MaxTurns);
    assert_eq!(
        run.error.as_deref(),
        Some("stopped after 2 turns (max_turns)")
    );

    let exhausted = faux(json!([]));
    let (agent, _events) = start(AgentConfig::new(exhausted, tools()));
    let run = agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    assert_eq!(run.end, EndReason::Error);
    assert_eq!(run.error.as_deref(), Some("No more faux responses queued"));
    match run.messages.last() {
        Some(Message::Assistant(message)) => assert_eq!(message.stop_reason, StopReason::Error),
        other => panic!("{other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn a_subscriber_that_reads_late_loses_nothing() {
    let model = faux(json!([
        {"content": [call("c1", "echo", json!({"value": "a"}))]},
        answer("done")
    ]));
    let (agent, mut early) = start(AgentConfig::new(model, tools()));
    let run = agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    // Nobody read during the run; everything is still there, ending with agent_end.
    let events = drain(&mut early);
    assert!(events.len() > 10);
    match events.last() {
        Some(AgentEvent::AgentEnd {
            messages, reason, ..
        }) => {
            let shared: Vec<_> = messages.iter().map(|message| (**message).clone()).collect();
            assert_eq!(shared, run.messages);
            assert_eq!(*reason, EndReason::Completed);
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn calls_of_an_aborted_response_are_answered_not_run() {
    let model = faux(json!([
        {"content": [call("c1", "work", json!({"label": "x"}))], "stopReason": "aborted", "errorMessage": "Request was aborted"}
    ]));
    let (agent, _events) = start(AgentConfig::new(model, tools()));
    let run = agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    assert_eq!(run.end, EndReason::Aborted);
    assert_eq!(
        results(&run.messages),
        [(
            "c1".into(),
            format!("Tool work failed: {}", model_text::ABORTED),
            true
        )]
    );
}

/// Hands the script's answers on, noting where each request's transcript and tool list live
/// and letting go of the request at once, as a provider that has sent it does.
struct Sharing {
    script: Arc<pi_ai::FauxProvider>,
    seen: std::sync::Mutex<Vec<(usize, usize, usize)>>,
}

impl pi_ai::Provider for Sharing {
    fn model(&self) -> pi_ai::ModelInfo {
        self.script.model()
    }

    fn stream(&self, request: pi_ai::Request, signal: CancellationToken) -> pi_ai::EventStream {
        self.seen.lock().unwrap().push((
            Arc::as_ptr(&request.messages) as usize,
            request.messages.len(),
            request.tools.as_ptr() as usize,
        ));
        self.script.stream(pi_ai::Request::default(), signal)
    }
}

#[tokio::test(start_paused = true)]
async fn every_turn_shares_one_transcript_and_one_tool_list() {
    let sharing = Arc::new(Sharing {
        script: faux(json!([
            {"content": [call("c1", "echo", json!({"value": "a"}))]},
            {"content": [call("c2", "echo", json!({"value": "b"}))]},
            answer("done")
        ])),
        seen: std::sync::Mutex::new(Vec::new()),
    });
    let history = vec![UserMessage::text("earlier").into()];
    let (agent, _events) = start(AgentConfig::new(Arc::clone(&sharing) as _, tools()));
    let run = agent
        .run(history, prompt("go"), CancellationToken::new())
        .await;
    assert_eq!(run.end, EndReason::Completed);
    // Six added: the prompt, two calls and their results, the answer; not the history.
    assert_eq!(run.messages.len(), 6);
    assert!(matches!(&run.messages[0], Message::User(_)));
    let seen = sharing.seen.lock().unwrap().clone();
    let lengths: Vec<usize> = seen.iter().map(|(_, length, _)| *length).collect();
    assert_eq!(lengths, [2, 4, 6]);
    // The same allocation every turn: the transcript was appended to, never copied.
    assert!(
        seen.iter()
            .all(|(messages, _, tools)| { (*messages, *tools) == (seen[0].0, seen[0].2) })
    );
}

#[tokio::test(start_paused = true)]
async fn before_request_sees_each_requests_conversation_and_can_stop_the_run() {
    let model = faux(json!([
        {"content": [call("c1", "echo", json!({"value": "Pi"}))]},
        answer("done")
    ]));
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let config = AgentConfig::new(model, tools()).with_before_request(move |context| {
        let roles: Vec<&'static str> = context
            .messages
            .iter()
            .map(|message| match message {
                Message::User(_) => "user",
                Message::Assistant(_) => "assistant",
                Message::ToolResult(_) => "toolResult",
            })
            .collect();
        record
            .lock()
            .unwrap()
            .push((context.turn, context.added_from, roles));
        async { Ok(()) }.boxed()
    });
    let (agent, _events) = start(config);
    let history = prompt("earlier");
    let run = agent
        .run(history, prompt("go"), CancellationToken::new())
        .await;
    assert_eq!(run.end, EndReason::Completed);
    assert_eq!(
        *seen.lock().unwrap(),
        [
            (1, 1, vec!["user", "user"]),
            (2, 1, vec!["user", "user", "assistant", "toolResult"]),
        ]
    );

    // A hook's error ends the run before the request, with the hook's reason.
    let (agent, _events) = start(
        AgentConfig::new(faux(json!([answer("unused")])), tools())
            .with_before_request(|_| async { Err("stop here".to_owned()) }.boxed()),
    );
    let run = agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    assert_eq!(run.end, EndReason::Error);
    assert_eq!(run.error.as_deref(), Some("stop here"));
    assert_eq!(
        run.messages.len(),
        1,
        "only the prompt: no request was made"
    );
}

/// R3: a tool that outlives its call (a blocking read of a 1 TB sparse file, on a thread of its
/// own that holds its context) must not hold the run's event channel open: once the run has
/// ended, a subscriber's stream ends too, so a front end that prints when the stream ends (the
/// `--json` transcript) prints and exits.
#[tokio::test]
async fn a_tool_that_outlives_its_time_limit_does_not_hold_the_events_open() {
    let model = faux(json!([
        {"content": [call("stuck", "stuck", json!({"value": "x"}))]},
        answer("done")
    ]));
    let (release, released) = std::sync::mpsc::channel::<()>();
    let released = Arc::new(std::sync::Mutex::new(released));
    let mut registry = pi_tool::builtin::registry();
    registry
        .register(pi_tool::RegisteredTool::new(pi_tool::FnTool::new(
            "stuck",
            "Blocks a thread of its own, deaf to cancellation",
            <pi_tool::builtin::ValueParams as pi_tool::schema::ObjectParams>::object_schema(),
            move |_params: pi_tool::builtin::ValueParams, context: pi_tool::ToolContext| {
                let released = Arc::clone(&released);
                async move {
                    let (done, finished) = tokio::sync::oneshot::channel();
                    std::thread::spawn(move || {
                        // Holds the context (and so its progress callback) until released.
                        let _context = context;
                        let _ = released.lock().unwrap().recv();
                        let _ = done.send(());
                    });
                    let _ = finished.await;
                    Ok(pi_tool::ToolOutput::text("late"))
                }
            },
        )))
        .unwrap();
    let config =
        AgentConfig::new(model, Arc::new(registry)).with_tool_timeout(Duration::from_millis(100));
    let (agent, mut events) = start(config);
    let run = agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    assert_eq!(run.end, EndReason::Completed);
    drop(agent);
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        while events.recv().await.is_some() {}
    })
    .await;
    let _ = release.send(());
    assert!(
        ended.is_ok(),
        "the event stream stayed open while the tool's thread ran"
    );
}
