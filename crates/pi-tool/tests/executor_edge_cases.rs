//! What the course leaves open: messages for non-object arguments and several bad fields, panics
//! in every place user code runs, details that cannot be serialised, stateful tools.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::RequestParams;
use pi_tool::schema::{ObjectParams, ObjectSchema, Schema, Validator};
use pi_tool::{
    CallContext, FnTool, RegisteredTool, Tool, ToolCall, ToolContext, ToolError, ToolOutput,
    ToolRegistry, execute_tool_call, model_text,
};
use serde_json::{Value, json};

fn request_tool() -> RegisteredTool {
    RegisteredTool::new(FnTool::new(
        "request",
        "Takes a request",
        RequestParams::object_schema(),
        |params: RequestParams, _cx| async move { Ok(ToolOutput::text(params.value)) },
    ))
}

/// Runs the call.
async fn run(tools: &ToolRegistry, name: &str, arguments: Value) -> pi_tool::ToolResultMessage {
    let call = ToolCall::new("call-9", name, arguments);
    execute_tool_call(&call, tools, CallContext::default()).await
}

#[tokio::test]
async fn arguments_that_are_not_an_object_say_what_arrived() {
    let tools = ToolRegistry::new([request_tool()]).unwrap();
    for (arguments, arrived) in [
        (json!(null), "null"),
        (json!([1, 2]), "array of 2 items"),
        (json!("value"), "string \"value\""),
        (json!(3), "number 3"),
    ] {
        let result = run(&tools, "request", arguments).await;
        assert!(result.is_error);
        assert_eq!(
            result.text(),
            format!("Tool request failed: 必须是 object，收到 {arrived}")
        );
    }
}

#[tokio::test]
async fn every_bad_field_is_reported_with_what_arrived() {
    let tools = ToolRegistry::new([request_tool()]).unwrap();
    let result = run(
        &tools,
        "request",
        json!({"label": 7, "limit": 0, "extra": true}),
    )
    .await;
    assert!(result.is_error);
    let reason = "参数有 3 处错误：\n\
        - value: 必须是 string，但缺失\n\
        - label: 必须是 string，收到 number 7\n\
        - limit: 必须是 integer 且 >= 1，收到 number 0";
    assert_eq!(result.text(), model_text::failure_text("request", reason));
    assert_eq!(result.details, Some(json!({"error": reason})));
}

#[tokio::test]
async fn a_panicking_validator_is_contained() {
    let exploding: Validator<String> = Validator::new(None, |_| panic!("validator exploded"));
    let schema = ObjectSchema::new(
        vec![pi_tool::__private::FieldSpec::new("value", &exploding, &[])],
        move |object| {
            let mut fields = pi_tool::__private::ObjectFields::new(object);
            fields
                .field("value", &exploding)
                .ok_or_else(|| fields.finish())
        },
    );
    let tool = FnTool::new(
        "fragile",
        "Panics while parsing",
        schema,
        |value: String, _cx| async move { Ok(ToolOutput::text(value)) },
    );
    let tools = ToolRegistry::new([tool]).unwrap();
    let result = run(&tools, "fragile", json!({"value": "x"})).await;
    assert!(result.is_error);
    assert_eq!(result.text(), "Tool fragile failed: validator exploded");
}

/// A stateful tool whose `execute` panics before it even returns a future, and counts calls.
struct Eager {
    calls: AtomicUsize,
}

impl Tool for Eager {
    type Params = RequestParams;

    fn name(&self) -> &str {
        "eager"
    }

    fn description(&self) -> &str {
        "Panics synchronously on label \"sync\", asynchronously with a non-string payload on \"any\""
    }

    fn schema(&self) -> &dyn Schema<Output = RequestParams> {
        RequestParams::object_schema()
    }

    #[allow(clippy::manual_async_fn)]
    fn execute(
        &self,
        params: RequestParams,
        _context: ToolContext,
    ) -> impl Future<Output = Result<ToolOutput, ToolError>> + Send {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if params.label.as_deref() == Some("sync") {
            panic!("sync {}", params.value);
        }
        async move {
            if params.label.as_deref() == Some("any") {
                std::panic::panic_any(42_u8);
            }
            Ok(ToolOutput::text(params.value))
        }
    }
}

#[tokio::test]
async fn panics_before_and_after_the_first_await_are_contained() {
    let tools = ToolRegistry::new([Eager {
        calls: AtomicUsize::new(0),
    }])
    .unwrap();
    let sync = run(&tools, "eager", json!({"value": "now", "label": "sync"})).await;
    assert_eq!(sync.text(), "Tool eager failed: sync now");
    assert!(sync.is_error);

    let any = run(&tools, "eager", json!({"value": "x", "label": "any"})).await;
    assert_eq!(
        any.text(),
        model_text::failure_text("eager", model_text::PANIC_WITHOUT_MESSAGE)
    );

    let fine = run(&tools, "eager", json!({"value": "ok"})).await;
    assert!(!fine.is_error);
    assert_eq!(fine.text(), "ok");
    assert_eq!(fine.details, None, "no details means no details field");
    assert_eq!(fine.tool_call_id, "call-9");
}

#[tokio::test]
async fn a_panic_is_told_apart_from_a_tool_error() {
    use pi_tool::FailureKind;
    let tools = ToolRegistry::new([Eager {
        calls: AtomicUsize::new(0),
    }])
    .unwrap();
    let executed = |label: Option<&str>| {
        let mut arguments = json!({"value": "v"});
        if let Some(label) = label {
            arguments["label"] = json!(label);
        }
        let call = pi_tool::ToolCall::new("call-1", "eager", arguments);
        let prepared = pi_tool::prepare_tool_call(&call, &tools).unwrap();
        prepared.run(pi_tool::CallContext::default())
    };
    // Before the first await, after it, and not at all.
    let sync = executed(Some("sync")).await;
    assert!(sync.message.is_error && sync.failure == Some(FailureKind::Panic));
    let any = executed(Some("any")).await;
    assert!(any.message.is_error && any.failure == Some(FailureKind::Panic));
    let fine = executed(None).await;
    assert!(!fine.message.is_error && fine.failure.is_none());
    let refusing = FnTool::new(
        "refusing",
        "Always fails",
        RequestParams::object_schema(),
        |_params: RequestParams, _cx| async move { Err::<ToolOutput, _>(ToolError::new("no")) },
    );
    let tools = ToolRegistry::new([refusing]).unwrap();
    let call = pi_tool::ToolCall::new("call-2", "refusing", json!({"value": "v"}));
    let prepared = pi_tool::prepare_tool_call(&call, &tools).unwrap();
    let error = prepared.run(pi_tool::CallContext::default()).await;
    assert!(error.message.is_error && error.failure == Some(FailureKind::ToolError));
}

#[tokio::test]
async fn details_that_cannot_be_serialised_become_an_error_result() {
    use std::collections::HashMap;
    let tool = FnTool::new(
        "odd",
        "Returns details JSON cannot hold",
        RequestParams::object_schema(),
        |_params: RequestParams, _cx| async move {
            let mut details = HashMap::new();
            details.insert((1, 2), "tuple keys are not JSON object keys");
            Ok(ToolOutput::text("fine").with_details(details))
        },
    );
    let tools = ToolRegistry::new([tool]).unwrap();
    let result = run(&tools, "odd", json!({"value": "x"})).await;
    assert!(result.is_error);
    assert!(
        result
            .text()
            .starts_with("Tool odd failed: details could not be serialized"),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn without_a_caller_signal_the_tool_gets_a_live_token() {
    let tool = FnTool::new(
        "probe",
        "Reports its token",
        RequestParams::object_schema(),
        |_params: RequestParams, cx: ToolContext| async move {
            Ok(ToolOutput::text(format!(
                "{}:{}",
                cx.call_id(),
                cx.signal().is_cancelled()
            )))
        },
    );
    let tools = ToolRegistry::new([tool]).unwrap();
    let result = run(&tools, "probe", json!({"value": "x"})).await;
    assert_eq!(result.text(), "call-9:false");
}

#[tokio::test]
async fn an_explicit_is_error_false_and_image_content_are_kept() {
    let tool = FnTool::new(
        "picture",
        "Returns an image",
        RequestParams::object_schema(),
        |_params: RequestParams, _cx| async move {
            Ok(ToolOutput::new(vec![pi_tool::image("AAAA", "image/png")]).with_is_error(false))
        },
    );
    let tools = ToolRegistry::new([tool]).unwrap();
    let result = run(&tools, "picture", json!({"value": "x"})).await;
    assert!(!result.is_error);
    assert_eq!(
        serde_json::to_value(&result.content).unwrap(),
        json!([{"type": "image", "data": "AAAA", "mimeType": "image/png"}])
    );
}

#[tokio::test]
async fn calls_get_the_callers_signal_progress_and_their_own_id() {
    use std::sync::{Arc, Mutex};
    let tool = FnTool::new(
        "probe",
        "Reports progress, then waits for cancellation",
        RequestParams::object_schema(),
        |params: RequestParams, cx: ToolContext| async move {
            cx.progress(vec![pi_tool::text(format!("{} started", cx.call_id()))]);
            cx.signal().cancelled().await;
            Err::<ToolOutput, _>(ToolError::new(format!("{} cancelled", params.value)))
        },
    );
    let tools = ToolRegistry::new([tool]).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let signal = tokio_util::sync::CancellationToken::new();
    let context = CallContext {
        signal: Some(signal.clone()),
        report_progress: Some(pi_tool::ProgressCallback::new({
            let seen = Arc::clone(&seen);
            move |update: pi_tool::ToolUpdate| seen.lock().unwrap().extend(update.content)
        })),
    };
    let call = ToolCall::new("call-7", "probe", json!({"value": "x"}));
    let running = execute_tool_call(&call, &tools, context);
    let canceller = async {
        tokio::task::yield_now().await;
        signal.cancel();
    };
    let (result, ()) = tokio::join!(running, canceller);
    assert_eq!(result.tool_call_id, "call-7");
    assert_eq!(result.text(), "Tool probe failed: x cancelled");
    assert_eq!(*seen.lock().unwrap(), vec![pi_tool::text("call-7 started")]);
}

#[tokio::test]
async fn json_details_arrive_unchanged_and_typed_ones_serialised() {
    #[derive(serde::Serialize)]
    struct Typed {
        lines: u32,
    }
    let as_json = FnTool::new(
        "as_json",
        "JSON details",
        RequestParams::object_schema(),
        |_p: RequestParams, _cx| async move {
            Ok(ToolOutput::text("j").with_details(json!({"nested": {"list": [1, "two", null]}})))
        },
    );
    let typed = FnTool::new(
        "typed",
        "Typed details",
        RequestParams::object_schema(),
        |_p: RequestParams, _cx| async move {
            Ok(ToolOutput::text("t").with_details(Typed { lines: 3 }))
        },
    );
    let mut tools = ToolRegistry::new([as_json]).unwrap();
    tools.register(typed).unwrap();
    let json_result = run(&tools, "as_json", json!({"value": "x"})).await;
    assert_eq!(
        json_result.details,
        Some(json!({"nested": {"list": [1, "two", null]}}))
    );
    let typed_result = run(&tools, "typed", json!({"value": "x"})).await;
    assert_eq!(typed_result.details, Some(json!({"lines": 3})));
}

/// The call id is made once and shared, never copied: the id the tool sees, the id the result
/// carries and the call's own are one string; the result's tool name is the registry's.
#[tokio::test]
async fn the_call_id_and_tool_name_are_shared_not_copied() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(None));
    let recorder = seen.clone();
    let tools = ToolRegistry::new([FnTool::new(
        "request",
        "Records its call id",
        RequestParams::object_schema(),
        move |_params: RequestParams, cx: ToolContext| {
            *recorder.lock().unwrap() = Some(cx.call_id().as_ptr() as usize);
            async move { Ok("done") }
        },
    )])
    .unwrap();
    let call = ToolCall::new("call-shared", "request", json!({"value": "x"}));
    let result = execute_tool_call(&call, &tools, CallContext::default()).await;
    assert!(pi_tool::ArcStr::ptr_eq(&call.id, &result.tool_call_id));
    assert_eq!(*seen.lock().unwrap(), Some(call.id.as_ptr() as usize));
}
