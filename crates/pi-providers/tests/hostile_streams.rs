//! Streams a hostile or broken server may send (issue 20): without end, in many calls each under
//! the per-call cap, only keep-alive comments, events trickling forever, one line that never
//! ends, and call ids repeated within a response. Each response must end, as an `error` that
//! says why, with its memory bounded and the connection dropped; repeated ids must go back to
//! the model unique and paired.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::response::Response;
use futures::{Stream, StreamExt};
use pi_agent::{Agent, AgentConfig, EndReason};
use pi_ai::{AssistantMessage, AssistantMessageEvent, Message, Provider, Request, StopReason};
use pi_providers::{OpenAiChat, ProviderConfig, RetryPolicy};
use serde_json::{Value, json};
use support::{Fake, Reply};
use tokio_util::sync::CancellationToken;

type Pieces = Pin<Box<dyn Stream<Item = Vec<u8>> + Send>>;

/// A server whose every answer is the stream `make` gives, counting what it sent and noting
/// when the client hung up (the body is dropped when the connection goes).
struct Endless {
    address: SocketAddr,
    sent: Arc<AtomicUsize>,
    closed: Arc<AtomicBool>,
}

/// Sets `closed` when the body is dropped.
struct Closed(Arc<AtomicBool>);

impl Drop for Closed {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

impl Endless {
    async fn start(make: fn() -> Pieces) -> Self {
        let sent = Arc::new(AtomicUsize::new(0));
        let closed = Arc::new(AtomicBool::new(false));
        let (count, flag) = (Arc::clone(&sent), Arc::clone(&closed));
        let app = axum::Router::new().fallback(move || {
            let (count, flag) = (Arc::clone(&count), Arc::clone(&flag));
            async move {
                let guard = Closed(flag);
                let body = make().map(move |piece| {
                    let _held = &guard;
                    count.fetch_add(piece.len(), Ordering::SeqCst);
                    Ok::<_, std::io::Error>(piece)
                });
                Response::builder()
                    .header("content-type", "text/event-stream")
                    .body(Body::from_stream(body))
                    .unwrap()
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self {
            address,
            sent,
            closed,
        }
    }

    fn config(&self) -> ProviderConfig {
        ProviderConfig::new("gpt-4.1")
            .with_base_url(format!("http://{}/v1", self.address))
            .with_retry(RetryPolicy {
                max_retries: 0,
                ..RetryPolicy::default()
            })
    }

    /// Waits (a little) for the client to hang up; whether it did.
    async fn hung_up(&self) -> bool {
        for _ in 0..100 {
            if self.closed.load(Ordering::SeqCst) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        false
    }
}

fn chunk(delta: Value) -> Vec<u8> {
    format!(
        "data: {}\n\n",
        json!({"choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
    )
    .into_bytes()
}

/// One response, within a bound the fixes must beat by far: a run that hangs fails here.
async fn one_response(config: ProviderConfig) -> (Vec<AssistantMessageEvent>, Duration) {
    let provider = OpenAiChat::new(config).unwrap();
    let started = Instant::now();
    let request = Request {
        system_prompt: None,
        messages: vec![pi_ai::UserMessage::text("hi").into()].into(),
        tools: Vec::new().into(),
    };
    let events = tokio::time::timeout(
        Duration::from_secs(20),
        provider
            .stream(request, CancellationToken::new())
            .collect::<Vec<_>>(),
    )
    .await
    .expect("the response never ended");
    (events, started.elapsed())
}

fn failure(events: &[AssistantMessageEvent]) -> (AssistantMessage, String) {
    match events.last() {
        Some(AssistantMessageEvent::Error { reason, error }) => {
            assert_eq!(*reason, StopReason::Error);
            let message = error.error_message.clone().unwrap();
            (AssistantMessage::clone(error), message)
        }
        other => panic!("the response did not fail: {other:?}"),
    }
}

/// 16 KiB of text per event, up to 64 MiB (the server's own bound).
fn endless_text() -> Pieces {
    let piece = chunk(json!({"content": "x".repeat(16 << 10)}));
    Box::pin(futures::stream::iter(std::iter::repeat_n(piece, 4096)))
}

#[tokio::test]
async fn an_endless_text_stream_ends_at_the_response_limit_and_hangs_up() {
    let server = Endless::start(endless_text).await;
    let (events, _) = one_response(server.config().with_max_response_bytes(1 << 20)).await;
    let (message, error) = failure(&events);
    assert_eq!(
        error,
        "the model's response passed the limit of 1 MiB (text, thinking and tool calls together)"
    );
    assert!(message.text().len() <= 1 << 20, "{}", message.text().len());
    assert!(
        !message.text().is_empty(),
        "what arrived within the limit is kept"
    );
    assert!(server.hung_up().await, "the connection was dropped");
    let sent = server.sent.load(Ordering::SeqCst);
    assert!(
        sent < 16 << 20,
        "the server was not read to its end: {sent} bytes"
    );
}

#[tokio::test]
async fn the_default_limit_is_32_mib() {
    let server = Endless::start(endless_text).await;
    let (events, _) = one_response(server.config()).await;
    let (message, error) = failure(&events);
    assert!(error.contains("the limit of 32 MiB"), "{error}");
    assert!(message.text().len() <= 32 << 20);
    assert!(message.text().len() > 31 << 20);
}

/// Ten calls of 600 KiB arguments each, every one under the per-call cap.
fn many_calls() -> Pieces {
    let mut pieces = Vec::new();
    for index in 0..10 {
        pieces.push(chunk(
            json!({"tool_calls": [{"index": index, "id": format!("call_{index}"),
            "type": "function", "function": {"name": "echo", "arguments": "{\"value\":\""}}]}),
        ));
        for _ in 0..10 {
            pieces.push(chunk(json!({"tool_calls": [{"index": index,
                "function": {"arguments": "x".repeat(60 << 10)}}]})));
        }
        pieces.push(chunk(
            json!({"tool_calls": [{"index": index, "function": {"arguments": "\"}"}}]}),
        ));
    }
    pieces.push(
        format!(
            "data: {}\n\ndata: [DONE]\n\n",
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
        )
        .into_bytes(),
    );
    Box::pin(futures::stream::iter(pieces))
}

#[tokio::test]
async fn many_calls_each_under_the_call_cap_end_at_the_response_limit() {
    let server = Endless::start(many_calls).await;
    // The whole response (6 MiB) passes when the limit allows it ...
    let (events, _) = one_response(server.config().with_max_response_bytes(8 << 20)).await;
    match events.last() {
        Some(AssistantMessageEvent::Done { message, .. }) => {
            assert_eq!(message.tool_calls().len(), 10);
        }
        other => panic!("{other:?}"),
    }
    // ... and ends, after the calls that fit, when it does not.
    let (events, _) = one_response(server.config().with_max_response_bytes(2 << 20)).await;
    let (message, error) = failure(&events);
    assert!(error.contains("passed the limit of 2 MiB"), "{error}");
    let kept: usize = message
        .tool_calls()
        .iter()
        .map(|call| call.arguments.to_string().len())
        .sum();
    assert!(kept <= 2 << 20, "{kept}");
    assert!(message.tool_calls().len() < 10);
}

/// `: keepalive` every 20 ms, for at most 30 s.
fn keepalive_only() -> Pieces {
    Box::pin(async_stream::stream! {
        for _ in 0..1500 {
            yield b": keepalive\n\n".to_vec();
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
}

#[tokio::test]
async fn keepalive_comments_do_not_hold_a_response_open() {
    let server = Endless::start(keepalive_only).await;
    let (events, took) = one_response(
        server
            .config()
            .with_read_timeout(Duration::from_millis(400)),
    )
    .await;
    let (_, error) = failure(&events);
    assert_eq!(
        error,
        "the provider sent no event for 0.4 s (keep-alive comments do not count)"
    );
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert!(server.hung_up().await);
}

/// A token every 50 ms, for at most 30 s: never idle, never done.
fn trickle() -> Pieces {
    Box::pin(async_stream::stream! {
        for _ in 0..600 {
            yield chunk(json!({"content": "tick "}));
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
}

#[tokio::test]
async fn a_response_that_never_ends_stops_at_its_total_time_limit() {
    let server = Endless::start(trickle).await;
    let (events, took) = one_response(
        server
            .config()
            .with_read_timeout(Duration::from_millis(500))
            .with_response_timeout(Duration::from_millis(1500)),
    )
    .await;
    let (message, error) = failure(&events);
    assert_eq!(
        error,
        "the response did not end within its time limit of 1.5 s"
    );
    assert!(
        message.text().starts_with("tick tick"),
        "the text so far is kept"
    );
    assert!(took < Duration::from_secs(4), "{took:?}");
    assert!(server.hung_up().await);
}

/// One `data:` line that never ends, up to 64 MiB.
fn endless_line() -> Pieces {
    let head = futures::stream::iter([b"data: {\"choices\":[{\"delta\":{\"content\":\"".to_vec()]);
    let rest = futures::stream::iter(std::iter::repeat_n(vec![b'x'; 16 << 10], 4096));
    Box::pin(head.chain(rest))
}

#[tokio::test]
async fn a_line_that_never_ends_is_refused_at_the_event_limit() {
    let server = Endless::start(endless_line).await;
    // An event may hold twice the response limit and 1 MiB more: 1.5 MiB here.
    let (events, _) = one_response(server.config().with_max_response_bytes(256 << 10)).await;
    let (_, error) = failure(&events);
    assert_eq!(
        error,
        format!(
            "the provider sent an event of more than {} bytes",
            (512 << 10) + (1 << 20)
        )
    );
    assert!(server.hung_up().await);
    let sent = server.sent.load(Ordering::SeqCst);
    assert!(
        sent < 16 << 20,
        "the server was not read to its end: {sent} bytes"
    );
}

fn two_calls(first_id: Option<&str>, second_id: &str) -> String {
    let start = |index: u64, id: Option<&str>, value: &str| {
        let mut call = json!({"index": index, "type": "function",
            "function": {"name": "echo", "arguments": format!("{{\"value\":\"{value}\"}}")}});
        if let Some(id) = id {
            call["id"] = json!(id);
        }
        String::from_utf8(chunk(json!({"tool_calls": [call]}))).unwrap()
    };
    format!(
        "{}{}data: {}\n\ndata: [DONE]\n\n",
        start(0, first_id, "first"),
        start(1, Some(second_id), "second"),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    )
}

fn final_text() -> String {
    format!(
        "{}data: {}\n\ndata: [DONE]\n\n",
        String::from_utf8(chunk(json!({"content": "done"}))).unwrap(),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    )
}

/// Runs the agent over `first` then a final answer; returns the calls' ids as the run kept
/// them and the second request's messages.
async fn run_with_ids(first: String) -> (Vec<String>, Vec<Value>) {
    let fake = Fake::start(vec![Reply::sse(first), Reply::sse(final_text())]).await;
    let provider =
        OpenAiChat::new(ProviderConfig::new("gpt-4.1").with_base_url(fake.url("/v1"))).unwrap();
    let config = AgentConfig::new(Arc::new(provider), Arc::new(pi_tool::builtin::registry()));
    let run = Agent::new(config).prompt("echo twice").await;
    assert_eq!(run.end, EndReason::Completed, "{:?}", run.error);
    let Message::Assistant(calls) = &run.messages[1] else {
        panic!("{:?}", run.messages)
    };
    let ids = calls
        .tool_calls()
        .iter()
        .map(|call| call.id.to_string())
        .collect();
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let messages = requests[1].body["messages"].as_array().unwrap().clone();
    (ids, messages)
}

/// The second request pairs each call with its own result, every id once.
fn assert_paired(messages: &[Value], ids: &[&str]) {
    let assistant = &messages[1];
    let sent: Vec<&str> = assistant["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| call["id"].as_str().unwrap())
        .collect();
    assert_eq!(sent, ids);
    let results: Vec<(&str, &str)> = messages[2..4]
        .iter()
        .map(|result| {
            (
                result["tool_call_id"].as_str().unwrap(),
                result["content"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(results, [(ids[0], "first"), (ids[1], "second")]);
}

#[tokio::test]
async fn a_repeated_call_id_is_made_unique_and_each_result_pairs_with_its_call() {
    let (ids, messages) = run_with_ids(two_calls(Some("call_7"), "call_7")).await;
    assert_eq!(ids, ["call_7", "call_7_2"]);
    assert_paired(&messages, &["call_7", "call_7_2"]);
}

#[tokio::test]
async fn a_server_id_equal_to_one_we_made_is_made_unique() {
    // The first call comes without an id (we name it `call_0`), the second is called `call_0`.
    let (ids, messages) = run_with_ids(two_calls(None, "call_0")).await;
    assert_eq!(ids, ["call_0", "call_0_2"]);
    assert_paired(&messages, &["call_0", "call_0_2"]);
}
