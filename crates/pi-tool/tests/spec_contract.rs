//! The course's four focused tests, ported: validator, registry, executor success, and the three
//! failures. Each result shown in the course is compared against its golden fixture.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use common::{RequestParams, assert_matches_fixture, fixture};
use pi_tool::ToolParams;
use pi_tool::schema::{ObjectParams, Schema, string};
use pi_tool::{
    CallContext, Content, FnTool, ProgressCallback, RegisteredTool, ToolCall, ToolContext,
    ToolError, ToolOutput, ToolRegistry, builtin, execute_tool_call, text,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Clone, PartialEq, serde::Serialize, ToolParams)]
pub struct EchoParams {
    pub value: String,
}

fn echo_call() -> ToolCall {
    serde_json::from_value(fixture("seed/echo_call.json")).unwrap()
}

fn echo_tool() -> RegisteredTool {
    RegisteredTool::new(FnTool::new(
        "echo",
        "Echo one value",
        EchoParams::object_schema(),
        |params: EchoParams, _cx| async move {
            Ok(ToolOutput::text(params.value).with_details(json!({"source": "echo"})))
        },
    ))
}

fn upper_tool() -> RegisteredTool {
    RegisteredTool::new(FnTool::new(
        "upper",
        "Upper-case one value",
        EchoParams::object_schema(),
        |params: EchoParams, _cx| async move { Ok(ToolOutput::text(params.value.to_uppercase())) },
    ))
}

#[test]
fn validator() {
    // The validator's three faces.
    let value = string();
    assert_eq!(value.check(Some(&json!("Pi"))).unwrap(), "Pi");
    assert_eq!(
        value.json_schema().unwrap().to_string(),
        fixture("seed/string_value_json_schema.json").to_string()
    );
    assert!(!value.is_optional());

    // The object schema: exact JSON Schema, filtering, optional fields, rejections.
    let echo_schema = EchoParams::object_schema();
    assert_eq!(
        echo_schema.json_schema().unwrap(),
        &fixture("seed/echo_json_schema.json")
    );
    let arguments = json!({"value": "Pi", "ignored": "drop me"});
    let before = arguments.clone();
    let parsed = echo_schema.parse(&arguments).unwrap();
    assert_eq!(
        serde_json::to_value(&parsed).unwrap(),
        fixture("seed/echo_parse.json")
    );
    assert_eq!(arguments, before, "parse must not mutate its input");

    let request = RequestParams::object_schema();
    assert_eq!(
        request.json_schema().unwrap(),
        &json!({
            "type": "object",
            "properties": {
                "value": {"type": "string"},
                "label": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1}
            },
            "required": ["value"],
            "additionalProperties": false
        })
    );
    let full = request
        .parse(&json!({"value": "Pi", "label": "answer", "limit": 2, "ignored": "drop me"}))
        .unwrap();
    assert_eq!(
        serde_json::to_value(&full).unwrap(),
        fixture("seed/request_parse.json")
    );
    let omitted = request.parse(&json!({"value": "Pi"})).unwrap();
    assert_eq!(
        omitted,
        RequestParams {
            value: "Pi".into(),
            label: None,
            limit: None
        }
    );

    for rejected in [
        json!(null),
        json!([]),
        json!("Pi"),
        json!(1),
        json!({"value": 1}),
        json!({"value": "Pi", "limit": 0}),
    ] {
        assert!(request.parse(&rejected).is_err(), "{rejected} was accepted");
    }
    // The course pins the bare text for echo's one-field schema only; with several fields the
    // report names the field.
    assert_eq!(
        request.parse(&json!({"value": 1})).unwrap_err().to_string(),
        "value: 必须是 string，收到 number 1"
    );
    assert_eq!(
        request
            .parse(&json!({"label": "x"}))
            .unwrap_err()
            .to_string(),
        "value: 必须是 string，但缺失"
    );
}

#[test]
fn registry() {
    let echo = echo_tool();
    let upper = upper_tool();
    let mut tools = ToolRegistry::new([echo.clone()]).unwrap();

    assert!(
        tools.get("echo").unwrap().ptr_eq(&echo),
        "get returns the registered object"
    );
    assert!(tools.get("missing").is_none());
    assert_eq!(
        serde_json::to_value(tools.definitions()).unwrap(),
        fixture("seed/definitions.json")
    );

    let duplicate = tools.register(echo_tool()).unwrap_err();
    assert_eq!(duplicate.to_string(), "Tool 已存在：echo");
    assert!(
        tools.get("echo").unwrap().ptr_eq(&echo),
        "a duplicate never overwrites"
    );

    tools.register(upper.clone()).unwrap();
    let listed: Vec<&RegisteredTool> = tools.list().collect();
    assert_eq!(listed.len(), 2);
    assert!(
        listed[0].ptr_eq(&echo) && listed[1].ptr_eq(&upper),
        "registration order"
    );
    let names: Vec<String> = tools.definitions().into_iter().map(|d| d.name).collect();
    assert_eq!(names, ["echo", "upper"]);

    // Another registry shares nothing with this one.
    let other = ToolRegistry::new([upper_tool()]).unwrap();
    assert!(other.get("echo").is_none());
    assert!(!other.get("upper").unwrap().ptr_eq(&upper));
    assert_eq!(tools.len(), 2);

    // Construction registers one by one and stops at the first duplicate.
    let error = ToolRegistry::new([echo_tool(), upper_tool(), echo_tool()]).unwrap_err();
    assert_eq!(error.to_string(), "Tool 已存在：echo");
}

#[tokio::test]
async fn executor_success_keeps_output_and_context() {
    let tools = ToolRegistry::new([echo_tool()]).unwrap();
    let result = execute_tool_call(&echo_call(), &tools, CallContext::default()).await;
    assert_matches_fixture(&result, "seed/echo_success.json");

    // The inspect tool sees the call id, the caller's own signal and progress callback, and
    // returns a domain error that keeps its content and details.
    let seen: Arc<Mutex<Option<ToolContext>>> = Arc::default();
    let seen_in_tool = Arc::clone(&seen);
    let inspect = FnTool::new(
        "inspect",
        "Inspect the context",
        EchoParams::object_schema(),
        move |params: EchoParams, cx: ToolContext| {
            let seen = Arc::clone(&seen_in_tool);
            async move {
                cx.progress(vec![text(format!("progress:{}", params.value))]);
                *seen.lock().unwrap() = Some(cx);
                Ok(ToolOutput::text(format!("done:{}", params.value))
                    .with_details(json!({"phase": "domain-error"}))
                    .with_is_error(true))
            }
        },
    );
    let tools = ToolRegistry::new([inspect]).unwrap();
    let signal = CancellationToken::new();
    let progress: Arc<Mutex<Vec<Vec<Content>>>> = Arc::default();
    let progress_sink = Arc::clone(&progress);
    let report_progress = ProgressCallback::new(move |content| {
        progress_sink.lock().unwrap().push(content.content);
    });
    let call = ToolCall::new("ctx", "inspect", json!({"value": "Pi"}));
    let result = execute_tool_call(
        &call,
        &tools,
        CallContext {
            signal: Some(signal.clone()),
            report_progress: Some(report_progress.clone()),
        },
    )
    .await;
    assert_matches_fixture(&result, "seed/inspect_domain_error.json");
    assert_eq!(*progress.lock().unwrap(), vec![vec![text("progress:Pi")]]);

    let cx = seen.lock().unwrap().take().unwrap();
    assert_eq!(cx.call_id(), "ctx");
    assert!(cx.report_progress().unwrap().ptr_eq(&report_progress));
    assert!(!cx.signal().is_cancelled());
    signal.cancel();
    assert!(
        cx.signal().is_cancelled(),
        "the tool holds the caller's own signal"
    );
}

#[tokio::test]
async fn executor_failures_answer_the_original_call() {
    let executions = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&executions);
    let counted_echo = FnTool::new(
        "echo",
        "Echo one value",
        EchoParams::object_schema(),
        move |params: EchoParams, _cx| {
            counter.fetch_add(1, Ordering::SeqCst);
            async move { Ok(ToolOutput::text(params.value).with_details(json!({"source": "echo"}))) }
        },
    );
    let tools = ToolRegistry::new([counted_echo]).unwrap();

    // Bad arguments: parse stops the call before execute.
    let mut bad = echo_call();
    bad.arguments = json!({"value": 1});
    let result = execute_tool_call(&bad, &tools, CallContext::default()).await;
    assert_matches_fixture(&result, "seed/echo_invalid_arguments.json");
    assert_eq!(
        executions.load(Ordering::SeqCst),
        0,
        "invalid arguments never reach execute"
    );

    let ok = execute_tool_call(&echo_call(), &tools, CallContext::default()).await;
    assert!(!ok.is_error);
    assert_eq!(executions.load(Ordering::SeqCst), 1);

    // Unknown tool: nothing parsed or executed, the requested name is kept.
    let mut missing = echo_call();
    missing.name = "missing".into();
    missing.arguments = json!({});
    let result = execute_tool_call(&missing, &tools, CallContext::default()).await;
    assert_matches_fixture(&result, "seed/unknown_tool.json");
    assert_eq!(executions.load(Ordering::SeqCst), 1);

    // A tool error, returned or panicked, after lookup and parse succeeded.
    let failing = FnTool::new(
        "echo",
        "Echo one value",
        EchoParams::object_schema(),
        |_params: EchoParams, _cx| async move { Err::<ToolOutput, _>(ToolError::new("exploded")) },
    );
    let tools = ToolRegistry::new([failing]).unwrap();
    let result = execute_tool_call(&echo_call(), &tools, CallContext::default()).await;
    assert_matches_fixture(&result, "seed/tool_throws.json");

    let panicking = FnTool::new(
        "echo",
        "Echo one value",
        EchoParams::object_schema(),
        |_params: EchoParams, _cx| async move {
            if true {
                panic!("exploded");
            }
            Ok(ToolOutput::text("unreachable"))
        },
    );
    let tools = ToolRegistry::new([panicking]).unwrap();
    let result = execute_tool_call(&echo_call(), &tools, CallContext::default()).await;
    assert_matches_fixture(&result, "seed/tool_throws.json");

    // The course's focused test isolates the same branch with a tool named `boom`.
    let boom = FnTool::new(
        "boom",
        "Always fails",
        EchoParams::object_schema(),
        |_p: EchoParams, _cx| async move { Err::<ToolOutput, _>(ToolError::new("exploded")) },
    );
    let tools = ToolRegistry::new([boom]).unwrap();
    let call = ToolCall::new("call-1", "boom", json!({"value": "Pi"}));
    let result = execute_tool_call(&call, &tools, CallContext::default()).await;
    assert_eq!(result.text(), "Tool boom failed: exploded");
    assert_eq!(result.details, Some(json!({"error": "exploded"})));
    assert!(result.is_error);
}

#[tokio::test]
async fn uppercase_migration_exercise() {
    let tools = builtin::registry();
    let call = ToolCall::new("call-1", "uppercase", json!({"value": "Pi"}));
    let result = execute_tool_call(&call, &tools, CallContext::default()).await;
    assert_matches_fixture(&result, "seed/uppercase_success.json");

    let bad = ToolCall::new("call-1", "uppercase", json!({"value": 1}));
    let result = execute_tool_call(&bad, &tools, CallContext::default()).await;
    assert_matches_fixture(&result, "seed/uppercase_invalid_arguments.json");
}

#[tokio::test]
async fn builtin_echo_gives_the_specs_result() {
    let result =
        execute_tool_call(&echo_call(), &builtin::registry(), CallContext::default()).await;
    assert_matches_fixture(&result, "seed/echo_success.json");
    assert_eq!(
        serde_json::to_value(&builtin::registry().definitions()[..1]).unwrap(),
        fixture("seed/definitions.json")
    );
}
