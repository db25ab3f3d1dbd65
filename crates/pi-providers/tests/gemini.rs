//! Gemini against a local fake replaying the reference's byte-exact stream.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::sync::Arc;

use pi_agent::{Agent, AgentConfig, EndReason};
use pi_ai::{AssistantContent, Message, StopReason, UserMessage};
use pi_providers::{Gemini, ProviderConfig};
use serde_json::json;
use support::{Fake, Reply, sse, travel_tools};
use tokio_util::sync::CancellationToken;

/// The reference's Gemini 3 parallel calls (§4.2), byte for byte.
const TWO_CALLS: &str = include_str!("fixtures/gemini_two_calls.sse");

const FINAL_TEXT: &str = include_str!("fixtures/gemini_final_text.sse");

#[tokio::test]
async fn a_tool_using_run_completes_over_the_gemini_wire() {
    let fake = Fake::start(vec![
        Reply::sse(sse(TWO_CALLS)),
        Reply::sse(sse(FINAL_TEXT)),
    ])
    .await;
    let provider = Gemini::new(
        ProviderConfig::new("gemini-3-flash-preview")
            .with_base_url(fake.url(""))
            .with_api_key("AIza-secret"),
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
    // Gemini says STOP for tool calls: the message still reads as a tool use.
    assert_eq!(calls.stop_reason, StopReason::ToolUse);
    assert_eq!(calls.usage.output, 29 + 64);
    // Every chunk repeats `responseId`: Pi's `responseId`, our `gen_ai.response.id`.
    assert_eq!(
        calls.response_id.as_deref(),
        Some("2JFJlmWwugYkFskMVajKfZA")
    );
    let AssistantContent::ToolCall {
        id,
        thought_signature,
        arguments,
        ..
    } = &calls.content[0]
    else {
        panic!()
    };
    assert_eq!(id, "ma9k428g");
    assert_eq!(arguments, &json!({"city": "Tokyo", "unit": "celsius"}));
    assert!(
        thought_signature
            .as_deref()
            .unwrap()
            .starts_with("EpskZ1z9")
    );
    let Some(Message::Assistant(last)) = run.messages.last() else {
        panic!()
    };
    assert_eq!(last.text(), "Tokyo: 21°C, 14:05.");
    // This recorded stream names no response: none is made up.
    assert_eq!(last.response_id, None);

    let requests = fake.requests();
    assert_eq!(
        requests[0].path,
        "/v1beta/models/gemini-3-flash-preview:streamGenerateContent?alt=sse"
    );
    assert_eq!(
        requests[0].headers["x-goog-api-key"].to_str().unwrap(),
        "AIza-secret"
    );
    let first = &requests[0].body;
    assert_eq!(
        first["systemInstruction"],
        json!({"parts": [{"text": "You are a travel assistant. Use the tools for live data."}]})
    );
    assert_eq!(
        first["toolConfig"],
        json!({"functionCallingConfig": {"mode": "AUTO"}})
    );
    assert_eq!(
        first["tools"][0]["functionDeclarations"][1]["name"],
        "get_time"
    );
    // The model turn comes back with its signature; both results in one user turn.
    let second = &requests[1].body["contents"];
    assert_eq!(second[1]["role"], "model");
    assert_eq!(second[1]["parts"][0]["functionCall"]["id"], "ma9k428g");
    assert!(second[1]["parts"][0]["thoughtSignature"].is_string());
    assert!(second[1]["parts"][1].get("thoughtSignature").is_none());
    assert_eq!(second[2]["role"], "user");
    assert_eq!(
        second[2]["parts"][1],
        json!({"functionResponse": {"id": "8j9ihm7z", "name": "get_time", "response": {"output": "14:05"}}})
    );
}
