//! The executor: one call in, exactly one paired result out, whatever happens.

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::model_text::{failure_text, invalid_json};
use crate::{
    PreparedCall, ProgressCallback, ToolCall, ToolRegistry, ToolResultMessage, now_millis,
    prepare_tool_call, text,
};

/// What the caller hands to every tool it runs: the seed's `Omit<ToolContext, "callId">`.
///
/// There is no `call_id` here on purpose: the executor sets it from the call, last, so a caller
/// cannot make a tool believe it is answering another call.
#[derive(Clone, Debug, Default)]
pub struct CallContext {
    /// Cancellation for the call; a fresh, never-cancelled token when `None`.
    pub signal: Option<CancellationToken>,
    /// Receives the tool's progress reports.
    pub report_progress: Option<ProgressCallback>,
}

/// Runs one tool call: lookup → parse → execute → result. Never fails, never panics.
///
/// - unknown tool: nothing is parsed or run; the result names the tool as requested;
/// - invalid arguments: the tool never runs;
/// - an `Err` from the tool, or a panic inside it: `Tool <name> failed: <message>`;
/// - success: content and details kept, `is_error` kept when the tool set it, `false` otherwise.
///
/// ```
/// use pi_tool::{CallContext, ToolCall, builtin, execute_tool_call};
/// use serde_json::{Value, json};
///
/// # tokio_test(async {
/// let tools = builtin::registry();
/// let call = ToolCall::new("call-1", "echo", json!({"value": "Pi", "ignored": "drop me"}));
/// let result = execute_tool_call(&call, &tools, CallContext::default()).await;
/// assert_eq!(result.tool_call_id, "call-1");
/// assert_eq!(result.text(), "Pi");
/// assert_eq!(result.details, Some(json!({"source": "echo"})));
/// assert!(!result.is_error);
/// # });
/// # fn tokio_test(f: impl std::future::Future<Output = ()>) { futures::executor::block_on(f) }
/// ```
pub async fn execute_tool_call(
    call: &ToolCall,
    registry: &ToolRegistry,
    context: CallContext,
) -> ToolResultMessage {
    match prepare_tool_call(call, registry) {
        Ok(prepared) => prepared.run(context).await.message,
        Err(failed) => *failed,
    }
}

/// Runs a call whose arguments are still the raw JSON text a provider delivered.
///
/// Same order and guarantees as [`execute_tool_call`]: an unknown tool is reported before the
/// text is looked at; text that is not JSON is a paired failure, not an error; empty text
/// (what some providers stream for a call without arguments) means `{}`.
///
/// ```
/// use pi_tool::{CallContext, builtin, execute_raw_tool_call};
///
/// let tools = builtin::registry();
/// let run = |raw| futures::executor::block_on(
///     execute_raw_tool_call("call-1", "echo", raw, &tools, CallContext::default()));
/// assert_eq!(run(r#"{"value":"Pi","ignored":"drop me"}"#).text(), "Pi");
/// assert!(run(r#"{"value":"Pi""#).text().starts_with("Tool echo failed: 参数不是有效的 JSON"));
/// ```
pub async fn execute_raw_tool_call(
    id: &str,
    name: &str,
    raw_arguments: &str,
    registry: &ToolRegistry,
    context: CallContext,
) -> ToolResultMessage {
    let text = raw_arguments.trim();
    if let Some(prepared) = registry
        .get(name)
        .and_then(|tool| PreparedCall::from_text(tool, id, name, text))
    {
        return prepared.run(context).await.message;
    }
    let parsed = if text.is_empty() {
        Ok(Value::Object(serde_json::Map::new()))
    } else {
        serde_json::from_str(text)
    };
    let arguments = match parsed {
        Ok(arguments) => arguments,
        Err(error) if registry.get(name).is_some() => {
            return failed_result(&ToolCall::new(id, name, Value::Null), &invalid_json(&error));
        }
        // Unknown tool: lookup comes first and answers; the text is never looked at.
        Err(_) => Value::Null,
    };
    execute_tool_call(&ToolCall::new(id, name, arguments), registry, context).await
}

/// The paired failure for `call`: content `Tool <name> failed: <reason>`, details
/// `{"error": reason}`, `isError: true`.
pub fn failed_result(call: &ToolCall, reason: &str) -> ToolResultMessage {
    ToolResultMessage {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        content: vec![text(failure_text(&call.name, reason))],
        details: Some(json!({ "error": reason })),
        is_error: true,
        timestamp: now_millis(),
    }
}
