//! The README's library example, compiled and run: `cargo run -p pi-tool --example echo`.
#![allow(missing_docs)]

use pi_tool::{
    CallContext, FnTool, ObjectParams, ToolCall, ToolOutput, ToolRegistry, execute_tool_call,
    object_schema, optional_positive_integer, string_value,
};
use serde_json::json;

// One declaration gives the typed struct, the JSON Schema the model sees, and the parser.
object_schema! {
    pub struct EchoParams {
        /// Becomes the field's "description" in the JSON Schema.
        pub value: String = string_value(),
        pub limit: Option<u64> = optional_positive_integer(),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let echo = FnTool::new(
        "echo",
        "Echo one value",
        EchoParams::object_schema(),
        |params: EchoParams, _cx| async move {
            Ok(ToolOutput::text(params.value).with_details(json!({"source": "echo"})))
        },
    );
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
