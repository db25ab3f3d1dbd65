//! Anthropic Messages against a local fake replaying the reference's byte-exact stream.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::sync::Arc;

use pi_agent::{Agent, AgentConfig, EndReason};
use pi_ai::{Message, StopReason, UserMessage};
use pi_providers::{Anthropic, ProviderConfig};
use serde_json::json;
use support::{Fake, Reply, sse, travel_tools};
use tokio_util::sync::CancellationToken;

/// The reference's text + two parallel calls (§3.2), byte for byte.
const TEXT_AND_TWO_CALLS: &str = include_str!("fixtures/anthropic_text_and_two_calls.sse");

const FINAL_TEXT: &str = include_str!("fixtures/anthropic_final_text.sse");

#[tokio::test]
async fn a_tool_using_run_completes_over_the_messages_wire() {
    let fake = Fake::start(vec![
        Reply::sse(sse(TEXT_AND_TWO_CALLS)),
        Reply::sse(sse(FINAL_TEXT)),
    ])
    .await;
    let provider = Anthropic::new(
        ProviderConfig::new("claude-sonnet-4-5")
            .with_base_url(fake.url(""))
            .with_api_key("sk-ant-secret"),
    )
    .unwrap();
    let config = AgentConfig::new(Arc::new(provider), Arc::new(travel_tools()))
        .with_system_prompt("You are a travel assistant. Use the tools for live data.");
    let run = Agent::new(config)
        .run(
            Vec::new(),
            vec![UserMessage::text("Weather and time in Tokyo?").into()],
            CancellationToken::new(),
        )
        .await;
    assert_eq!(run.end, EndReason::Completed, "{:?}", run.error);
    let Message::Assistant(calls) = &run.messages[1] else {
        panic!()
    };
    assert_eq!(calls.text(), "Checking Tokyo now.");
    assert_eq!(calls.stop_reason, StopReason::ToolUse);
    assert_eq!((calls.usage.input, calls.usage.output), (702, 96));
    // `message_start`'s message id: Pi's `responseId`, our `gen_ai.response.id`.
    assert_eq!(
        calls.response_id.as_deref(),
        Some("msg_01X3fQtjkgsrBQXUdOB4m06z")
    );
    let called = calls.tool_calls();
    assert_eq!(
        called[0].arguments,
        json!({"city": "Tokyo", "unit": "celsius"})
    );
    assert_eq!(called[1].id, "toolu_01dbf1y7it66Mf5moAuBLVN3");
    let Some(Message::Assistant(last)) = run.messages.last() else {
        panic!()
    };
    assert_eq!(last.text(), "Tokyo: 21°C, 14:05.");

    let requests = fake.requests();
    assert_eq!(requests[0].path, "/v1/messages");
    assert_eq!(
        requests[0].headers["x-api-key"].to_str().unwrap(),
        "sk-ant-secret"
    );
    assert_eq!(
        requests[0].headers["anthropic-version"].to_str().unwrap(),
        "2023-06-01"
    );
    let first = &requests[0].body;
    // Cached as Pi caches it by default (the short retention): the system prompt, the last
    // tool and the last user block.
    let ephemeral = json!({"type": "ephemeral"});
    assert_eq!(
        first["system"],
        json!([{"type": "text", "text": "You are a travel assistant. Use the tools for live data.",
                "cache_control": ephemeral}])
    );
    let last_tool = first["tools"].as_array().unwrap().last().unwrap();
    assert_eq!(last_tool["cache_control"], ephemeral);
    assert!(first["tools"][0].get("cache_control").is_none());
    assert_eq!(first["max_tokens"], 4096);
    assert_eq!(first["tool_choice"], json!({"type": "auto"}));
    assert_eq!(first["tools"][0]["name"], "get_weather");
    assert_eq!(first["tools"][0]["input_schema"]["type"], "object");
    // Both results in one user message of tool_result blocks, is_error kept.
    let second = &requests[1].body["messages"];
    assert_eq!(second[1]["role"], "assistant");
    assert_eq!(
        second[1]["content"][0],
        json!({"type": "text", "text": "Checking Tokyo now."})
    );
    assert_eq!(second[1]["content"][1]["type"], "tool_use");
    assert_eq!(
        second[1]["content"][1]["input"],
        json!({"city": "Tokyo", "unit": "celsius"})
    );
    assert_eq!(second[2]["role"], "user");
    assert_eq!(second[2]["content"].as_array().unwrap().len(), 2);
    assert_eq!(
        second[2]["content"][1],
        json!({"type": "tool_result", "tool_use_id": "toolu_01dbf1y7it66Mf5moAuBLVN3",
               "content": [{"type": "text", "text": "14:05"}], "is_error": false,
               "cache_control": ephemeral})
    );
    // Only the last user message is marked.
    assert!(second[0].to_string().find("cache_control").is_none());
}

#[tokio::test]
async fn an_overload_inside_the_stream_ends_as_an_error() {
    let overloaded = r#"
event: message_start
data: {"type":"message_start","message":{"model":"m","id":"msg_03","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}
event: error
data: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
"#;
    let fake = Fake::start(vec![Reply::sse(sse(overloaded))]).await;
    let provider = Anthropic::new(ProviderConfig::new("m").with_base_url(fake.url(""))).unwrap();
    let config = AgentConfig::new(Arc::new(provider), Arc::new(travel_tools()));
    let run = Agent::new(config)
        .run(
            Vec::new(),
            vec![UserMessage::text("hi").into()],
            CancellationToken::new(),
        )
        .await;
    assert_eq!(run.end, EndReason::Error);
    let Some(Message::Assistant(last)) = run.messages.last() else {
        panic!()
    };
    assert_eq!(last.error_message.as_deref(), Some("Overloaded"));
}
