//! A tool answering with more than the model can take is cut to `MAX_TOOL_OUTPUT_BYTES`, with a
//! note, on every path.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs)]

use pi_tool::schema::DynamicSchema;
use pi_tool::{
    CallContext, FnTool, MAX_TOOL_OUTPUT_BYTES, RegisteredTool, ToolCall, ToolOutput, ToolRegistry,
    execute_tool_call,
};
use serde_json::{Value, json};

fn flooding() -> ToolRegistry {
    let flood = FnTool::new(
        "flood",
        "Answer with more text than any model can read",
        DynamicSchema::new(json!({"type": "object"})).unwrap(),
        |_arguments: Value, _cx| async move {
            Ok(ToolOutput::text("x".repeat(MAX_TOOL_OUTPUT_BYTES + 10)))
        },
    );
    ToolRegistry::new([RegisteredTool::new(flood)]).unwrap()
}

#[tokio::test]
async fn a_flood_of_output_is_cut_with_a_note() {
    let tools = flooding();
    let call = ToolCall::new("c1", "flood", json!({}));
    let result = execute_tool_call(&call, &tools, CallContext::default()).await;
    assert!(!result.is_error);
    assert_eq!(result.tool_call_id, "c1");
    let text = result.text();
    assert!(text.len() < MAX_TOOL_OUTPUT_BYTES + 200);
    assert!(
        text.ends_with(&format!(
            "[output truncated: the tool returned {} bytes; at most {} reach the model]",
            MAX_TOOL_OUTPUT_BYTES + 10,
            MAX_TOOL_OUTPUT_BYTES
        )),
        "{}",
        &text[text.len() - 120..]
    );
}
