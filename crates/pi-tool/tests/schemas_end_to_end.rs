//! Dynamic, typed and repaired schemas through `execute_tool_call`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use pi_tool::dialect::Dialect;
use pi_tool::schema::{DynamicSchema, TypedSchema};
use pi_tool::{
    CallContext, FnTool, RegisteredTool, ToolCall, ToolOutput, ToolRegistry, ToolResultMessage,
    execute_tool_call,
};
use serde_json::{Value, json};

async fn call(tools: &ToolRegistry, name: &str, arguments: Value) -> ToolResultMessage {
    let call = ToolCall::new("call-7", name, arguments);
    execute_tool_call(&call, tools, CallContext::default()).await
}

/// A tool that answers with the exact JSON it received.
fn mirror(name: &str, schema: Value) -> RegisteredTool {
    RegisteredTool::new(FnTool::new(
        name,
        "Returns its arguments",
        DynamicSchema::new(schema).unwrap(),
        |arguments: Value, _cx| async move { Ok(ToolOutput::text(arguments.to_string())) },
    ))
}

fn edit_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "edits": {"type": "array", "minItems": 1, "items": {
                "type": "object",
                "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
                "required": ["oldText", "newText"]
            }}
        },
        "required": ["path", "edits"]
    })
}

#[tokio::test]
async fn a_dynamic_tool_receives_only_declared_fields() {
    let tools = ToolRegistry::new([mirror("edit", edit_schema())]).unwrap();
    let result = call(
        &tools,
        "edit",
        json!({"path": "a", "x": 1, "edits": [{"oldText": "o", "newText": "n", "y": 2}]}),
    )
    .await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(
        result.text(),
        r#"{"path":"a","edits":[{"oldText":"o","newText":"n"}]}"#
    );

    let bad = call(
        &tools,
        "edit",
        json!({"path": "a", "edits": [{"oldText": "o"}]}),
    )
    .await;
    assert!(bad.is_error);
    assert_eq!(
        bad.text(),
        "Tool edit failed: edits[0].newText: 必须是 string，但缺失"
    );
}

#[tokio::test]
async fn json_string_repair_is_opt_in_and_still_validated() {
    let repaired = RegisteredTool::new(
        FnTool::new(
            "edit",
            "Returns its arguments",
            DynamicSchema::new(edit_schema()).unwrap(),
            |arguments: Value, _cx| async move { Ok(ToolOutput::text(arguments.to_string())) },
        )
        .with_json_string_repair(),
    );
    let with_repair = ToolRegistry::new([repaired]).unwrap();
    let without_repair = ToolRegistry::new([mirror("edit", edit_schema())]).unwrap();
    let sent = json!({"path": "a", "edits": "[{\"oldText\":\"o\",\"newText\":\"n\"}]"});

    let fixed = call(&with_repair, "edit", sent.clone()).await;
    assert!(!fixed.is_error, "{}", fixed.text());
    assert_eq!(
        fixed.text(),
        r#"{"path":"a","edits":[{"oldText":"o","newText":"n"}]}"#
    );

    let refused = call(&without_repair, "edit", sent).await;
    assert_eq!(
        refused.text(),
        r#"Tool edit failed: edits: 必须是 array，收到 string "[{\"oldText\":\"o\",\"newText\":\"n\"}]""#
    );

    // A repaired value that is still wrong is still refused.
    let still_bad = call(&with_repair, "edit", json!({"path": "a", "edits": "[]"})).await;
    assert_eq!(
        still_bad.text(),
        "Tool edit failed: edits: 项数必须 >= 1，收到 array of 0 items"
    );
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct WeatherParams {
    /// City name
    #[schemars(length(min = 1))]
    city: String,
    /// Days ahead
    #[schemars(range(min = 1, max = 7))]
    days: u8,
}

#[tokio::test]
async fn a_serde_schemars_type_works_as_tool_parameters() {
    let weather = FnTool::new(
        "weather",
        "Forecast",
        TypedSchema::<WeatherParams>::new().unwrap(),
        |params: WeatherParams, _cx| async move {
            Ok(ToolOutput::text(format!("{}:{}", params.city, params.days)))
        },
    );
    let tools = ToolRegistry::new([weather]).unwrap();
    let ok = call(
        &tools,
        "weather",
        json!({"city": "Oslo", "days": 3, "units": "C"}),
    )
    .await;
    assert_eq!(ok.text(), "Oslo:3");
    let bad = call(&tools, "weather", json!({"city": "", "days": 9})).await;
    assert_eq!(
        bad.text(),
        "Tool weather failed: 参数有 2 处错误：\n- city: 长度必须 >= 1，收到 string \"\"\n- days: 必须 <= 7，收到 number 9"
    );
}

#[tokio::test]
async fn strict_mode_nulls_are_normalised_before_parsing() {
    let tools = ToolRegistry::new([mirror(
        "read",
        json!({"type": "object", "properties": {"path": {"type": "string"},
              "limit": {"type": "integer", "minimum": 1}}, "required": ["path"]}),
    )])
    .unwrap();
    let definition = &tools.definitions()[0];
    let sent = json!({"path": "a", "limit": null});
    let plain = Dialect::OpenAiStrict
        .normalize_arguments(&definition.parameters, &sent)
        .unwrap();
    assert_eq!(call(&tools, "read", plain).await.text(), r#"{"path":"a"}"#);
    assert!(
        call(&tools, "read", sent).await.is_error,
        "a raw null is not an integer"
    );
}
