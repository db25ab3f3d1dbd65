//! Pi's English wording, for models prompted in English: the same failures as the course's
//! texts (which the course pins and `spec_contract.rs` checks), in upstream Pi's words.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use pi_tool::model_text::Wording;
use pi_tool::{
    CallContext, FnTool, ToolCall, ToolError, ToolOutput, ToolParams, ToolRegistry,
    execute_tool_call, prepare_tool_call,
};
use serde_json::{Value, json};

#[derive(Debug, ToolParams)]
pub struct ReadParams {
    /// Path to the file to read
    pub path: String,
    /// Line number to start reading from (1-indexed)
    #[param(min = 1)]
    pub offset: Option<u64>,
    /// Maximum number of lines to read
    #[param(min = 1)]
    pub limit: Option<u64>,
}

fn tools(wording: Wording) -> ToolRegistry {
    let read = FnTool::typed(
        "read",
        "Read a file",
        |params: ReadParams, _cx| async move {
            if params.path == "missing.txt" {
                return Err(ToolError::new("ENOENT: no such file or directory"));
            }
            Ok(ToolOutput::text("contents"))
        },
    );
    ToolRegistry::new([read]).unwrap().with_wording(wording)
}

async fn run(wording: Wording, name: &str, arguments: Value) -> (String, bool) {
    let call = ToolCall::new("c1", name, arguments);
    let result = execute_tool_call(&call, &tools(wording), CallContext::default()).await;
    (result.text(), result.is_error)
}

#[tokio::test]
async fn invalid_arguments_read_as_pi_writes_them() {
    let (text, is_error) = run(
        Wording::Pi,
        "read",
        json!({"limit": "ten", "offset": 0, "extra": true}),
    )
    .await;
    assert!(is_error);
    assert_eq!(
        text,
        "Validation failed for tool \"read\":\n  \
         - path: must be string, but is missing\n  \
         - offset: must be an integer >= 1, received number 0\n  \
         - limit: must be an integer >= 1, received string \"ten\"\n\n\
         Received arguments:\n{\n  \"limit\": \"ten\",\n  \"offset\": 0,\n  \"extra\": true\n}"
    );
    // The course's words for the same call stay as they were.
    let (course, _) = run(
        Wording::Course,
        "read",
        json!({"limit": "ten", "offset": 0}),
    )
    .await;
    assert!(
        course.starts_with("Tool read failed: 参数有 3 处错误："),
        "{course}"
    );
}

#[tokio::test]
async fn unknown_tools_errors_and_refusals_read_as_pi_writes_them() {
    assert_eq!(
        run(Wording::Pi, "write", json!({})).await,
        ("Tool write not found".to_owned(), true)
    );
    assert_eq!(
        run(Wording::Course, "write", json!({})).await.0,
        "Tool write failed: 未知工具"
    );
    // A tool's own error is the text the model reads, as Pi's loop reports a thrown error.
    assert_eq!(
        run(Wording::Pi, "read", json!({"path": "missing.txt"})).await,
        ("ENOENT: no such file or directory".to_owned(), true)
    );
    // A refusal shows the arguments as Pi does.
    assert_eq!(
        run(Wording::Pi, "read", json!({"path": 7})).await.0,
        "Validation failed for tool \"read\":\n  - path: must be string, received number 7\n\n\
         Received arguments:\n{\n  \"path\": 7\n}"
    );
    // The two-step path (the agent loop's) answers the same.
    let call = ToolCall::new("c1", "nope", json!({}));
    let failure = prepare_tool_call(&call, &tools(Wording::Pi)).unwrap_err();
    assert_eq!(failure.kind(), pi_tool::FailureKind::UnknownTool);
    assert_eq!(failure.message().text(), "Tool nope not found");
}
