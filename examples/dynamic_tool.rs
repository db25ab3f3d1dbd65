//! A tool whose parameters are only known at run time, as a JSON Schema: read from a plugin's
//! manifest, a config file or another service. The arguments arrive as a checked
//! `serde_json::Value` (undeclared fields dropped, defaults filled in).
//!
//! Run: `cargo run --example dynamic_tool`

use pi_tool::schema::DynamicSchema;
use pi_tool::{CallContext, FnTool, ToolCall, ToolOutput, ToolRegistry, execute_tool_call};
use serde_json::{Value, json};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A manifest as a plugin might ship it. Only the schema is interpreted by the library.
    let manifest = json!({
        "name": "convert_temperature",
        "description": "Convert a temperature between Celsius and Fahrenheit",
        "parameters": {
            "type": "object",
            "properties": {
                "value": {"type": "number", "description": "The temperature to convert"},
                "to": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "fahrenheit"}
            },
            "required": ["value"]
        }
    });
    let field = |key: &str| manifest.get(key).cloned().unwrap_or_default();
    let (name, description) = (field("name"), field("description"));
    let name = name.as_str().ok_or("the manifest has no name")?;

    // Compiled once, here: a schema the library cannot check is refused now, not mid-call.
    let schema = DynamicSchema::new(field("parameters"))?;
    let description = description.as_str().unwrap_or_default();
    let tool = FnTool::new(name, description, schema, |args: Value, _cx| async move {
        // The schema already guaranteed a number and a known unit (the default filled in).
        let value = args
            .get("value")
            .and_then(Value::as_f64)
            .unwrap_or_default();
        let converted = match args.get("to").and_then(Value::as_str) {
            Some("celsius") => (value - 32.0) * 5.0 / 9.0,
            _ => value * 9.0 / 5.0 + 32.0,
        };
        Ok(ToolOutput::text(format!("{converted:.1}")))
    });
    let tools = ToolRegistry::new([tool])?;

    // `to` was left out: the schema's default ("fahrenheit") is what the tool receives.
    let call = ToolCall::new("call-1", name, json!({"value": 21}));
    let result = execute_tool_call(&call, &tools, CallContext::default()).await;
    println!("21 °C = {} °F", result.text());

    // A wrong type or an unknown unit is answered with the error text the model reads.
    let wrong = ToolCall::new("call-2", name, json!({"value": "hot", "to": "kelvin"}));
    let result = execute_tool_call(&wrong, &tools, CallContext::default()).await;
    println!("isError={} {}", result.is_error, result.text());
    Ok(())
}
