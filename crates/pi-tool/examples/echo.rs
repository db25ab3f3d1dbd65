//! The README's library example, compiled and run: `cargo run -p pi-tool --example echo`.

use pi_tool::{
    CallContext, FnTool, ToolCall, ToolOutput, ToolParams, ToolRegistry, execute_tool_call,
};
use serde_json::json;

/// One type gives the parameters, the JSON Schema the model sees, and the parser.
#[derive(ToolParams)]
struct EchoParams {
    /// Becomes the field's "description" in the JSON Schema.
    value: String,
    #[param(min = 1)]
    limit: Option<u64>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let echo = FnTool::typed("echo", "Echo one value", |p: EchoParams, _cx| async move {
        Ok(ToolOutput::text(p.value).with_details(json!({"source": "echo", "limit": p.limit})))
    });
    let tools = ToolRegistry::new([echo])?; // Err(`Tool 已存在：echo`) on a duplicate
    let for_the_provider = tools.definitions(); // name, description, parameters
    println!("{}", serde_json::to_string(&for_the_provider)?);

    let call = ToolCall::new(
        "call-1",
        "echo",
        json!({"value": "Pi", "ignored": "drop me"}),
    );
    let result =
        futures::executor::block_on(execute_tool_call(&call, &tools, CallContext::default()));
    println!("{}", serde_json::to_string(&result)?);
    Ok(())
}
