//! OpenAI Responses against a local fake replaying the reference's byte-exact stream.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::sync::Arc;

use pi_agent::{Agent, AgentConfig, EndReason};
use pi_ai::{Message, StopReason};
use pi_providers::{OpenAiResponses, ProviderConfig};
use serde_json::json;
use support::{Fake, Reply, sse, travel_tools};

/// The reference's two parallel calls (§2.2), byte for byte.
const TWO_CALLS: &str = include_str!("fixtures/openai_responses_two_calls.sse");

const FINAL_TEXT: &str = include_str!("fixtures/openai_responses_final_text.sse");

#[tokio::test]
async fn a_tool_using_run_completes_over_the_responses_wire() {
    let fake = Fake::start(vec![
        Reply::sse(sse(TWO_CALLS)),
        Reply::sse(sse(FINAL_TEXT)),
    ])
    .await;
    let provider = OpenAiResponses::new(
        ProviderConfig::new("gpt-5.1")
            .with_base_url(fake.url("/v1"))
            .with_api_key("sk-test"),
    )
    .unwrap();
    let config = AgentConfig::new(Arc::new(provider), Arc::new(travel_tools()))
        .with_system_prompt("You are a travel assistant. Use the tools for live data.");
    let run = Agent::new(config)
        .prompt("Weather and time in Tokyo?")
        .await;
    assert_eq!(run.end, EndReason::Completed, "{:?}", run.error);
    let Message::Assistant(calls) = &run.messages[1] else {
        panic!()
    };
    assert_eq!(calls.stop_reason, StopReason::ToolUse);
    assert_eq!((calls.usage.input, calls.usage.output), (143, 52));
    // `response.created` names the response: Pi's `responseId`, our `gen_ai.response.id`.
    assert_eq!(
        calls.response_id.as_deref(),
        Some("resp_d30db74ae503504cf0eff5cf28a7f23188e0bed27b2484fac7")
    );
    let called = calls.tool_calls();
    assert_eq!(
        called[0].id,
        "call_SB7pIL63nRHhVPr41Ve8o9Ez|fc_cb107ef919596a96f6ad98019a2bab3210fb5cc64571c699e2"
    );
    assert_eq!(
        called[0].arguments,
        json!({"city": "Tokyo", "unit": "celsius"})
    );
    let Some(Message::Assistant(last)) = run.messages.last() else {
        panic!()
    };
    assert_eq!(last.text(), "Tokyo: 21°C, 14:05.");
    assert_eq!((last.usage.input, last.usage.cache_read), (200, 100));

    let requests = fake.requests();
    assert_eq!(requests[0].path, "/v1/responses");
    let first = &requests[0].body;
    assert_eq!(
        first["instructions"],
        "You are a travel assistant. Use the tools for live data."
    );
    assert_eq!(
        first["input"][0],
        json!({"type": "message", "role": "user", "content": "Weather and time in Tokyo?"})
    );
    assert_eq!(first["tools"][0]["strict"], false);
    assert_eq!(first["tools"][0]["name"], "get_weather");
    // Calls replayed with their item ids (this model made them, as Pi sends them); outputs
    // paired on call_id; nothing stored on the server.
    assert_eq!(requests[1].body["store"], false);
    let second = &requests[1].body["input"];
    assert_eq!(
        second[1],
        json!({"type": "function_call", "call_id": "call_SB7pIL63nRHhVPr41Ve8o9Ez", "name": "get_weather",
               "arguments": "{\"city\":\"Tokyo\",\"unit\":\"celsius\"}",
               "id": "fc_cb107ef919596a96f6ad98019a2bab3210fb5cc64571c699e2"})
    );
    assert_eq!(
        second[4],
        json!({"type": "function_call_output", "call_id": "call_IKNfdX1VNcWs6GHnVB0afHS6", "output": "14:05"})
    );
}

#[tokio::test]
async fn a_failed_response_ends_as_an_error() {
    let failed = r#"
event: response.created
data: {"type":"response.created","response":{"id":"resp_3","status":"in_progress","output":[]},"sequence_number":0}
event: error
data: {"type":"error","sequence_number":1,"error":{"type":"insufficient_quota","code":"insufficient_quota","message":"You exceeded your current quota.","param":null}}
"#;
    let fake = Fake::start(vec![Reply::sse(sse(failed))]).await;
    let provider =
        OpenAiResponses::new(ProviderConfig::new("gpt-5.1").with_base_url(fake.url("/v1")))
            .unwrap();
    let run = Agent::new(AgentConfig::new(
        Arc::new(provider),
        Arc::new(travel_tools()),
    ))
    .prompt("hi")
    .await;
    assert_eq!(run.end, EndReason::Error);
    let Some(Message::Assistant(last)) = run.messages.last() else {
        panic!()
    };
    assert_eq!(
        last.error_message.as_deref(),
        Some("You exceeded your current quota.")
    );
}
