//! A tool whose parameters are a Rust struct: one `#[derive(ToolParams)]` gives the JSON Schema
//! the model is shown and the parser that checks what the model sent.
//!
//! Run: `cargo run --example typed_tool`

use pi_tool::{
    CallContext, FnTool, ToolCall, ToolOutput, ToolParams, ToolRegistry, execute_tool_call,
};
use serde_json::json;

/// The parameters of `echo`. Doc comments become descriptions in the schema.
#[derive(ToolParams)]
struct EchoParams {
    /// The text to send back.
    value: String,
    /// How many times to repeat it. An `Option` is an optional property.
    #[param(min = 1, max = 5)]
    times: Option<usize>,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A tool from a closure. The closure receives the parsed struct, never raw JSON.
    let echo = FnTool::typed("echo", "Echo one value", |p: EchoParams, _cx| async move {
        let times = p.times.unwrap_or(1);
        Ok(ToolOutput::text(p.value.repeat(times)).with_details(json!({"times": times})))
    });
    // The registry is what one agent run may call. A second tool named `echo` would be refused.
    let tools = ToolRegistry::new([echo])?;

    // What a provider sends the model: name, description and the JSON Schema of the parameters.
    println!("{}", serde_json::to_string_pretty(&tools.definitions())?);

    // A call as a model would propose it. `ignored` is not declared, so it is dropped.
    let call = ToolCall::new(
        "call-1",
        "echo",
        json!({"value": "Pi", "times": 2, "ignored": "drop me"}),
    );
    // Never fails: every outcome, success or not, is one result paired with the call's id.
    let result = execute_tool_call(&call, &tools, CallContext::default()).await;
    println!("{}", serde_json::to_string(&result)?);

    // Arguments that break the schema never reach the closure: the model reads why instead,
    // in the course's words by default (`.with_wording(Wording::Pi)` gives upstream Pi's English).
    let wrong = ToolCall::new("call-2", "echo", json!({"value": "Pi", "times": 9}));
    let result = execute_tool_call(&wrong, &tools, CallContext::default()).await;
    println!("isError={} {}", result.is_error, result.text());
    Ok(())
}
