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
const TWO_CALLS: &str = r#"
event: response.created
data: {"type":"response.created","response":{"id":"resp_d30db74ae503504cf0eff5cf28a7f23188e0bed27b2484fac7","object":"response","created_at":1767225600,"status":"in_progress","completed_at":null,"error":null,"incomplete_details":null,"instructions":"You are a travel assistant. Use the tools for live data.","model":"gpt-5.1-2025-11-13","output":[],"parallel_tool_calls":true,"previous_response_id":null,"store":true,"temperature":1.0,"tool_choice":"auto","tools":[],"top_p":1.0,"truncation":"disabled","usage":null,"metadata":{}},"sequence_number":0}
event: response.in_progress
data: {"type":"response.in_progress","response":{"id":"resp_d30db74ae503504cf0eff5cf28a7f23188e0bed27b2484fac7","object":"response","created_at":1767225600,"status":"in_progress","completed_at":null,"error":null,"incomplete_details":null,"instructions":"You are a travel assistant. Use the tools for live data.","model":"gpt-5.1-2025-11-13","output":[],"parallel_tool_calls":true,"previous_response_id":null,"store":true,"temperature":1.0,"tool_choice":"auto","tools":[],"top_p":1.0,"truncation":"disabled","usage":null,"metadata":{}},"sequence_number":1}
event: response.output_item.added
data: {"type":"response.output_item.added","item":{"id":"fc_cb107ef919596a96f6ad98019a2bab3210fb5cc64571c699e2","type":"function_call","status":"in_progress","arguments":"","call_id":"call_SB7pIL63nRHhVPr41Ve8o9Ez","name":"get_weather"},"output_index":0,"sequence_number":2}
event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","delta":"{\"city\":\"To","item_id":"fc_cb107ef919596a96f6ad98019a2bab3210fb5cc64571c699e2","obfuscation":"Xq3bT9","output_index":0,"sequence_number":3}
event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","delta":"kyo\",\"unit\":\"celsius\"}","item_id":"fc_cb107ef919596a96f6ad98019a2bab3210fb5cc64571c699e2","obfuscation":"kP0w","output_index":0,"sequence_number":4}
event: response.function_call_arguments.done
data: {"type":"response.function_call_arguments.done","arguments":"{\"city\":\"Tokyo\",\"unit\":\"celsius\"}","item_id":"fc_cb107ef919596a96f6ad98019a2bab3210fb5cc64571c699e2","output_index":0,"sequence_number":5}
event: response.output_item.done
data: {"type":"response.output_item.done","item":{"id":"fc_cb107ef919596a96f6ad98019a2bab3210fb5cc64571c699e2","type":"function_call","status":"completed","arguments":"{\"city\":\"Tokyo\",\"unit\":\"celsius\"}","call_id":"call_SB7pIL63nRHhVPr41Ve8o9Ez","name":"get_weather"},"output_index":0,"sequence_number":6}
event: response.output_item.added
data: {"type":"response.output_item.added","item":{"id":"fc_45125bb70317d674b0390d61940020fee10853923932d15925","type":"function_call","status":"in_progress","arguments":"","call_id":"call_IKNfdX1VNcWs6GHnVB0afHS6","name":"get_time"},"output_index":1,"sequence_number":7}
event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","delta":"{\"timezone\":\"Asia/Tokyo\"}","item_id":"fc_45125bb70317d674b0390d61940020fee10853923932d15925","obfuscation":"Xq3bT9","output_index":1,"sequence_number":8}
event: response.function_call_arguments.done
data: {"type":"response.function_call_arguments.done","arguments":"{\"timezone\":\"Asia/Tokyo\"}","item_id":"fc_45125bb70317d674b0390d61940020fee10853923932d15925","output_index":1,"sequence_number":9}
event: response.output_item.done
data: {"type":"response.output_item.done","item":{"id":"fc_45125bb70317d674b0390d61940020fee10853923932d15925","type":"function_call","status":"completed","arguments":"{\"timezone\":\"Asia/Tokyo\"}","call_id":"call_IKNfdX1VNcWs6GHnVB0afHS6","name":"get_time"},"output_index":1,"sequence_number":10}
event: response.completed
data: {"type":"response.completed","response":{"id":"resp_d30db74ae503504cf0eff5cf28a7f23188e0bed27b2484fac7","object":"response","created_at":1767225600,"status":"completed","completed_at":1767225601,"error":null,"incomplete_details":null,"instructions":"You are a travel assistant. Use the tools for live data.","model":"gpt-5.1-2025-11-13","output":[{"id":"fc_cb107ef919596a96f6ad98019a2bab3210fb5cc64571c699e2","type":"function_call","status":"completed","arguments":"{\"city\":\"Tokyo\",\"unit\":\"celsius\"}","call_id":"call_SB7pIL63nRHhVPr41Ve8o9Ez","name":"get_weather"},{"id":"fc_45125bb70317d674b0390d61940020fee10853923932d15925","type":"function_call","status":"completed","arguments":"{\"timezone\":\"Asia/Tokyo\"}","call_id":"call_IKNfdX1VNcWs6GHnVB0afHS6","name":"get_time"}],"parallel_tool_calls":true,"previous_response_id":null,"store":true,"temperature":1.0,"tool_choice":"auto","tools":[],"top_p":1.0,"truncation":"disabled","usage":{"input_tokens":143,"input_tokens_details":{"cache_write_tokens":0,"cached_tokens":0},"output_tokens":52,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":195},"metadata":{}},"sequence_number":11}
"#;

const FINAL_TEXT: &str = r#"
event: response.created
data: {"type":"response.created","response":{"id":"resp_2","object":"response","status":"in_progress","output":[]},"sequence_number":0}
event: response.output_item.added
data: {"type":"response.output_item.added","item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]},"output_index":0,"sequence_number":1}
event: response.output_text.delta
data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Tokyo: 21°C, ","sequence_number":2}
event: response.output_text.delta
data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"14:05.","sequence_number":3}
event: response.completed
data: {"type":"response.completed","response":{"id":"resp_2","object":"response","status":"completed","output":[],"usage":{"input_tokens":300,"input_tokens_details":{"cache_write_tokens":0,"cached_tokens":100},"output_tokens":9,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":309}},"sequence_number":4}
"#;

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
    // Calls replayed by call_id only; outputs paired on call_id.
    let second = &requests[1].body["input"];
    assert_eq!(
        second[1],
        json!({"type": "function_call", "call_id": "call_SB7pIL63nRHhVPr41Ve8o9Ez", "name": "get_weather",
               "arguments": "{\"city\":\"Tokyo\",\"unit\":\"celsius\"}"})
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
