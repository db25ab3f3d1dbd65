//! OpenAI Chat Completions against a local fake replaying the reference's byte-exact streams.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use pi_agent::{Agent, AgentConfig, EndReason};
use pi_ai::{AssistantMessageEvent, Message, Provider, Request, StopReason, UserMessage};
use pi_providers::{OpenAiChat, ProviderConfig, RetryPolicy};
use serde_json::{Value, json};
use support::{Fake, Reply, sse, travel_tools};
use tokio_util::sync::CancellationToken;

/// The reference's two parallel calls (§1.2), byte for byte.
const TWO_CALLS: &str = include_str!("fixtures/openai_two_calls.sse");

fn text_answer(text: &str) -> String {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-2", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let (head, tail) = text.split_at(text.len() / 2);
    format!(
        "data: {}\n\ndata: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        chunk(json!({"role": "assistant", "content": head}), Value::Null),
        chunk(json!({"content": tail}), Value::Null),
        chunk(json!({}), json!("stop"))
    )
}

fn provider(fake: &Fake) -> OpenAiChat {
    OpenAiChat::new(
        ProviderConfig::new("gpt-4.1")
            .with_base_url(fake.url("/v1"))
            .with_api_key("sk-test-secret")
            .with_retry(RetryPolicy {
                max_retries: 2,
                initial_delay: Duration::from_millis(10),
                max_delay: Duration::from_secs(5),
            }),
    )
    .unwrap()
}

#[tokio::test]
async fn a_tool_using_run_completes_over_the_chat_wire() {
    let fake = Fake::start(vec![
        Reply::sse(sse(TWO_CALLS)),
        Reply::sse(text_answer("Tokyo is 21°C and it is 14:05.")),
    ])
    .await;
    let config = AgentConfig::new(Arc::new(provider(&fake)), Arc::new(travel_tools()))
        .with_system_prompt("You are a travel assistant. Use the tools for live data.");
    let run = Agent::new(config)
        .run(
            Vec::new(),
            vec![UserMessage::text("Weather and time in Tokyo?").into()],
            CancellationToken::new(),
        )
        .await;
    assert_eq!(run.end, EndReason::Completed, "{:?}", run.error);
    let Some(Message::Assistant(last)) = run.messages.last() else {
        panic!("{:?}", run.messages)
    };
    assert_eq!(last.text(), "Tokyo is 21°C and it is 14:05.");
    assert_eq!(last.stop_reason, StopReason::Stop);
    let Message::Assistant(calls) = &run.messages[1] else {
        panic!()
    };
    assert_eq!(calls.stop_reason, StopReason::ToolUse);
    // The completion's `id`, carried for `gen_ai.response.id` and Pi's `responseId`.
    assert_eq!(
        calls.response_id.as_deref(),
        Some("chatcmpl-jN0XI3V0rYImCAuqYJ9XJMq8CHZix")
    );
    assert_eq!(calls.usage.input, 151);
    assert_eq!(calls.usage.output, 48);
    let called = calls.tool_calls();
    assert_eq!(called[0].id, "call_SB7pIL63nRHhVPr41Ve8o9Ez");
    assert_eq!(
        called[0].arguments,
        json!({"city": "Tokyo", "unit": "celsius"})
    );
    assert_eq!(called[1].arguments, json!({"timezone": "Asia/Tokyo"}));

    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(
        requests[0].headers["authorization"].to_str().unwrap(),
        "Bearer sk-test-secret"
    );
    let first = &requests[0].body;
    assert_eq!(first["model"], "gpt-4.1");
    assert_eq!(first["stream"], true);
    assert_eq!(first["stream_options"], json!({"include_usage": true}));
    assert_eq!(first["tool_choice"], "auto");
    assert_eq!(
        first["messages"][0],
        json!({"role": "system", "content": "You are a travel assistant. Use the tools for live data."})
    );
    assert_eq!(first["tools"][0]["type"], "function");
    assert_eq!(first["tools"][0]["function"]["name"], "get_weather");
    assert_eq!(
        first["tools"][1]["function"]["parameters"]["required"],
        json!(["timezone"])
    );
    // The results go back as one `tool` message per call, arguments replayed as strings.
    let second = &requests[1].body["messages"];
    assert_eq!(second[2]["role"], "assistant");
    assert_eq!(second[2]["content"], Value::Null);
    assert_eq!(
        second[2]["tool_calls"][0]["function"]["arguments"],
        r#"{"city":"Tokyo","unit":"celsius"}"#
    );
    assert_eq!(
        second[3],
        json!({"role": "tool", "tool_call_id": "call_SB7pIL63nRHhVPr41Ve8o9Ez", "content": "{\"city\":\"Tokyo\",\"temp_c\":21}"})
    );
    assert_eq!(second[4]["tool_call_id"], "call_IKNfdX1VNcWs6GHnVB0afHS6");
    assert_eq!(second[4]["content"], "14:05");
}

async fn one_response(
    provider: &OpenAiChat,
    signal: CancellationToken,
) -> Vec<AssistantMessageEvent> {
    provider
        .stream(
            Request {
                system_prompt: None,
                messages: vec![UserMessage::text("hi").into()].into(),
                tools: Vec::new().into(),
            },
            signal,
        )
        .collect()
        .await
}

fn final_message(events: &[AssistantMessageEvent]) -> (StopReason, pi_ai::AssistantMessage) {
    match events.last() {
        Some(AssistantMessageEvent::Done { reason, message }) => {
            (*reason, pi_ai::AssistantMessage::clone(message))
        }
        Some(AssistantMessageEvent::Error { reason, error }) => {
            (*reason, pi_ai::AssistantMessage::clone(error))
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn rate_limits_are_retried_as_the_server_asks() {
    let fake = Fake::start(vec![
        Reply::error(429, r#"{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#)
            .with_header("retry-after-ms", "30"),
        Reply::error(503, r#"{"error":{"message":"overloaded"}}"#),
        Reply::sse(text_answer("hello")),
    ])
    .await;
    let started = std::time::Instant::now();
    let events = one_response(&provider(&fake), CancellationToken::new()).await;
    let (reason, message) = final_message(&events);
    assert_eq!(
        (reason, message.text().as_str()),
        (StopReason::Stop, "hello")
    );
    assert_eq!(fake.requests().len(), 3);
    assert!(started.elapsed() >= Duration::from_millis(30));
}

#[tokio::test]
async fn failures_end_as_errors_with_the_providers_words_and_no_key() {
    let fake = Fake::start(vec![Reply::error(
        401,
        r#"{"error":{"message":"Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#,
    )])
    .await;
    let (reason, message) =
        final_message(&one_response(&provider(&fake), CancellationToken::new()).await);
    assert_eq!(reason, StopReason::Error);
    let error = message.error_message.unwrap();
    assert!(
        error.starts_with("401: Incorrect API key provided"),
        "{error}"
    );
    assert!(!error.contains("sk-test-secret"));
    assert_eq!(fake.requests().len(), 1, "a 401 is not retried");

    // An error inside the stream, after some text.
    let in_stream = format!(
        "{}data: {{\"error\":{{\"message\":\"The server had an error\",\"type\":\"server_error\",\"param\":null,\"code\":null}}}}\n\n",
        text_answer("partial")
            .replace("data: [DONE]\n\n", "")
            .replace("\"finish_reason\":\"stop\"", "\"finish_reason\":null")
    );
    let fake = Fake::start(vec![Reply::sse(in_stream)]).await;
    let (reason, message) =
        final_message(&one_response(&provider(&fake), CancellationToken::new()).await);
    assert_eq!(reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("The server had an error")
    );
    assert_eq!(message.text(), "partial");

    // A connection dropped mid-stream, and a stream that ends without a finish.
    let mut dropped = Reply::sse(sse(TWO_CALLS));
    dropped.cut_after = Some(900);
    let fake = Fake::start(vec![dropped]).await;
    let (reason, message) =
        final_message(&one_response(&provider(&fake), CancellationToken::new()).await);
    assert_eq!(reason, StopReason::Error, "{message:?}");
    let fake = Fake::start(vec![Reply::sse(
        text_answer("cut")
            .replace("data: [DONE]\n\n", "")
            .replace("\"finish_reason\":\"stop\"", "\"finish_reason\":null"),
    )])
    .await;
    let (reason, message) =
        final_message(&one_response(&provider(&fake), CancellationToken::new()).await);
    assert_eq!(reason, StopReason::Error);
    assert!(message.error_message.unwrap().contains("ended before"));
}

#[tokio::test]
async fn a_stream_gone_silent_fails_at_the_read_timeout() {
    let mut silent = Reply::sse(text_answer("Half an answer, then nothing."));
    silent.stall_after = Some(250);
    let fake = Fake::start(vec![silent]).await;
    let config = ProviderConfig::new("gpt-4.1")
        .with_base_url(fake.url("/v1"))
        .with_read_timeout(Duration::from_millis(300));
    let started = std::time::Instant::now();
    let (reason, message) = final_message(
        &one_response(&OpenAiChat::new(config).unwrap(), CancellationToken::new()).await,
    );
    assert_eq!(reason, StopReason::Error, "{message:?}");
    let error = message.error_message.clone().unwrap();
    // Our idle clock (time since the last event) and reqwest's read timeout (time since the
    // last byte) both run; either may end it, whichever the scheduler wakes first.
    assert!(
        error.contains("no event for 0.3 s") || error.contains("timed out"),
        "{error}"
    );
    assert!(!message.text().is_empty(), "the text so far is kept");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn cancellation_aborts_at_once() {
    let mut slow = Reply::sse(sse(TWO_CALLS).repeat(200));
    slow.cut_after = None;
    let fake = Fake::start(vec![slow]).await;
    let provider = provider(&fake);
    let signal = CancellationToken::new();
    let stopper = signal.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        stopper.cancel();
    });
    let started = std::time::Instant::now();
    let events = one_response(&provider, signal).await;
    let (reason, message) = final_message(&events);
    assert_eq!(reason, StopReason::Aborted);
    assert_eq!(
        message.error_message.as_deref(),
        Some("Request was aborted")
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn malformed_final_arguments_get_a_paired_error_and_never_run() {
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    let broken = [
        chunk(
            json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_b", "type": "function",
                   "function": {"name": "get_weather", "arguments": "{\"city\": \"Tok"}}]}),
            Value::Null,
        ),
        chunk(json!({}), json!("tool_calls")),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let fake = Fake::start(vec![Reply::sse(broken), Reply::sse(text_answer("Sorry."))]).await;
    let config = AgentConfig::new(Arc::new(provider(&fake)), Arc::new(travel_tools()));
    let run = Agent::new(config).prompt("Weather in Tokyo?").await;
    assert_eq!(run.end, EndReason::Completed, "{:?}", run.error);
    let Message::ToolResult(result) = &run.messages[2] else {
        panic!("{:?}", run.messages)
    };
    assert_eq!(result.tool_call_id, "call_b");
    assert!(result.is_error);
    assert!(
        result
            .text()
            .starts_with("Tool get_weather failed: 必须是 object，收到 string"),
        "{}",
        result.text()
    );
    // The model is told, and the wire gets the broken text back as the model wrote it.
    let replay = &fake.requests()[1].body["messages"];
    assert_eq!(
        replay[1]["tool_calls"][0]["function"]["arguments"],
        "{\"city\": \"Tok"
    );
    assert!(
        replay[2]["content"]
            .as_str()
            .unwrap()
            .starts_with("[tool error] Tool get_weather failed")
    );
}

#[tokio::test]
async fn a_transcript_from_another_provider_replays_with_valid_paired_ids() {
    use pi_ai::{AssistantContent, AssistantMessage, ModelInfo};
    use pi_tool::ToolResultMessage;

    let responses = ModelInfo {
        api: "openai-responses".into(),
        provider: "openai".into(),
        model: "gpt-5.1".into(),
    };
    let long_id =
        "call_SB7pIL63nRHhVPr41Ve8o9Ez|fc_cb107ef919596a96f6ad98019a2bab3210fb5cc64571c699e2";
    let history = vec![
        Message::User(UserMessage::text("Weather in Tokyo?")),
        Message::Assistant(AssistantMessage::new(
            &responses,
            vec![
                AssistantContent::Thinking {
                    thinking: "The user wants weather.".into(),
                    thinking_signature: Some("opaque".into()),
                    redacted: None,
                },
                AssistantContent::tool_call(
                    long_id,
                    "get_weather",
                    json!({"city": "Tokyo", "unit": "celsius"}),
                ),
                // A call cut short: it never got a result.
                AssistantContent::tool_call(
                    "call_orphan",
                    "get_time",
                    json!({"timezone": "Asia/Tokyo"}),
                ),
            ],
        )),
        Message::ToolResult(ToolResultMessage {
            tool_call_id: long_id.into(),
            tool_name: "get_weather".into(),
            content: vec![pi_tool::text("21°C")],
            details: None,
            is_error: false,
            timestamp: 1,
        }),
    ];
    let fake = Fake::start(vec![Reply::sse(text_answer("It is 21°C."))]).await;
    let config = AgentConfig::new(Arc::new(provider(&fake)), Arc::new(travel_tools()));
    let run = Agent::new(config)
        .run(
            history,
            vec![UserMessage::text("Thanks").into()],
            CancellationToken::new(),
        )
        .await;
    assert_eq!(run.end, EndReason::Completed, "{:?}", run.error);
    let messages = &fake.requests()[0].body["messages"];
    let assistant = &messages[1];
    // Foreign thinking became text; the 83-character id became a valid, stable one.
    assert_eq!(assistant["content"], "The user wants weather.");
    let mapped = assistant["tool_calls"][0]["id"].as_str().unwrap();
    assert!(mapped.len() <= 40, "{mapped}");
    assert_eq!(messages[2]["tool_call_id"], mapped);
    assert_eq!(messages[2]["content"], "21°C");
    // The orphan call is answered, so the wire accepts the transcript.
    assert_eq!(messages[3]["tool_call_id"], "call_orphan");
    assert_eq!(messages[3]["content"], "[tool error] No result provided");
}

/// A tool with an optional property, answering with the arguments it received.
fn reading_tools() -> pi_tool::ToolRegistry {
    let read = pi_tool::FnTool::new(
        "read",
        "Read a file",
        pi_tool::schema::DynamicSchema::new(json!({"type": "object", "properties": {
            "path": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
            "required": ["path"]}))
        .unwrap(),
        |arguments: Value, _cx| async move { Ok(pi_tool::ToolOutput::text(arguments.to_string())) },
    );
    pi_tool::ToolRegistry::new([pi_tool::RegisteredTool::new(read)]).unwrap()
}

/// One call of `read` with `arguments`, split in two deltas.
fn read_call(arguments: &str) -> String {
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    let (head, tail) = arguments.split_at(arguments.len() / 2);
    [
        chunk(
            json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_r", "type": "function",
                   "function": {"name": "read", "arguments": head}}]}),
            Value::Null,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": tail}}]}),
            Value::Null,
        ),
        chunk(json!({}), json!("tool_calls")),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat()
}

#[tokio::test]
async fn strict_tools_are_sent_strict_and_their_nulls_removed_before_validation() {
    let sent = r#"{"path":"a.txt","limit":null}"#;
    let fake = Fake::start(vec![
        Reply::sse(read_call(sent)),
        Reply::sse(text_answer("Done.")),
    ])
    .await;
    let strict = OpenAiChat::new(
        ProviderConfig::new("gpt-4.1")
            .with_base_url(fake.url("/v1"))
            .with_strict_tools(true),
    )
    .unwrap();
    let config = AgentConfig::new(Arc::new(strict), Arc::new(reading_tools()));
    let run = Agent::new(config).prompt("Read a.txt").await;
    assert_eq!(run.end, EndReason::Completed, "{:?}", run.error);
    let Message::ToolResult(result) = &run.messages[2] else {
        panic!("{:?}", run.messages)
    };
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.text(), r#"{"path":"a.txt"}"#);
    let function = &fake.requests()[0].body["tools"][0]["function"];
    assert_eq!(function["strict"], true);
    assert_eq!(function["parameters"]["required"], json!(["path", "limit"]));
    assert_eq!(
        function["parameters"]["properties"]["limit"]["type"],
        json!(["integer", "null"])
    );
    assert_eq!(function["parameters"]["additionalProperties"], false);

    // Without strict mode the same `null` is the model's mistake, and it is told so.
    let fake = Fake::start(vec![
        Reply::sse(read_call(sent)),
        Reply::sse(text_answer("Ok.")),
    ])
    .await;
    let config = AgentConfig::new(Arc::new(provider(&fake)), Arc::new(reading_tools()));
    let run = Agent::new(config).prompt("Read a.txt").await;
    let Message::ToolResult(result) = &run.messages[2] else {
        panic!("{:?}", run.messages)
    };
    assert!(result.is_error, "{}", result.text());
    assert!(
        fake.requests()[0].body["tools"][0]["function"]
            .get("strict")
            .is_none()
    );
}

#[test]
fn strict_tools_are_refused_by_wires_without_them() {
    let config = ProviderConfig::new("claude").with_strict_tools(true);
    let error = pi_providers::Anthropic::new(config).unwrap_err();
    assert_eq!(
        error.to_string(),
        "strict tools are an OpenAI feature; the anthropic-messages wire has none"
    );
}
