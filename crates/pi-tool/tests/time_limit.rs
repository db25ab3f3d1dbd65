//! `PreparedCall::run_within`: the one time limit with its grace, and the caller's signal.
#![allow(clippy::unwrap_used, missing_docs)]

use std::time::Duration;

use pi_tool::{
    CallContext, FailureKind, FnTool, ToolCall, ToolOutput, ToolRegistry, prepare_tool_call,
    schema::DynamicSchema,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// A tool that waits for ever, ignoring its signal.
fn stubborn() -> ToolRegistry {
    let schema = DynamicSchema::new(json!({"type": "object"})).unwrap();
    ToolRegistry::new([FnTool::new("wait", "", schema, |_: Value, _| async {
        std::future::pending::<()>().await;
        Ok(ToolOutput::text("never"))
    })])
    .unwrap()
}

async fn run(signal: Option<CancellationToken>, limit: Option<Duration>) -> pi_tool::ExecutedCall {
    let tools = stubborn();
    let call = ToolCall::new("c1", "wait", json!({}));
    let context = CallContext {
        signal,
        report_progress: None,
    };
    let prepared = prepare_tool_call(&call, &tools).unwrap();
    prepared
        .run_within(context, limit, Duration::from_millis(10))
        .await
}

#[tokio::test]
async fn the_limit_answers_timed_out_after_the_grace() {
    let executed = run(None, Some(Duration::from_millis(10))).await;
    assert_eq!(executed.failure, Some(FailureKind::Timeout));
    assert!(executed.message.is_error);
    assert_eq!(executed.message.tool_call_id, "c1");
}

#[tokio::test]
async fn a_cancelled_caller_is_answered_aborted() {
    let signal = CancellationToken::new();
    let stop = signal.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(10)).await;
        stop.cancel();
    });
    let executed = run(Some(signal), None).await;
    assert_eq!(executed.failure, Some(FailureKind::Aborted));
    assert_eq!(
        executed.message.text(),
        "Tool wait failed: 调用已中止：运行被取消"
    );
}

#[tokio::test]
async fn a_signal_cancelled_before_the_start_never_runs_the_tool() {
    let signal = CancellationToken::new();
    signal.cancel();
    let executed = run(Some(signal), Some(Duration::from_secs(60))).await;
    assert_eq!(executed.failure, Some(FailureKind::Aborted));
}

#[tokio::test]
async fn a_time_limit_does_not_cancel_the_callers_signal() {
    let signal = CancellationToken::new();
    let executed = run(Some(signal.clone()), Some(Duration::from_millis(10))).await;
    assert_eq!(executed.failure, Some(FailureKind::Timeout));
    assert!(!signal.is_cancelled());
}
