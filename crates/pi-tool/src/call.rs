//! The one call path: lookup → parse → execute → result, whatever the tool (typed, dynamic,
//! MCP) and whoever calls (the agent loop, the MCP server, the CLI). One call in, exactly one
//! paired result out; panics are contained at every step.
//!
//! Arguments arrive as a parsed JSON `Value` (the loop's assembled stream, the object rmcp
//! hands over); the tool's schema checks them, and the tool's repair step sees them only if
//! the schema refuses them as they are.

use std::panic::{AssertUnwindSafe, catch_unwind};

use arcstr::ArcStr;
use futures::FutureExt;
use serde_json::Value;

use crate::call_context::CallContext;
use crate::failure::{failure_message, panic_message};
use crate::model_text::{Wording, unknown_tool};
use crate::prepared::PreparedCall;
use crate::registered::OutputFuture;
use crate::{
    CallFailure, ExecutedCall, FailureKind, ToolCall, ToolRegistry, ToolResultMessage, now_millis,
};

/// Runs one tool call: lookup → parse → execute → result. Never fails, never panics.
///
/// - unknown tool: nothing is parsed or run; the result names the tool as requested;
/// - invalid arguments: the tool never runs;
/// - an `Err` from the tool, or a panic inside it: `Tool <name> failed: <message>`;
/// - success: content and details kept, `is_error` kept when the tool set it, `false` otherwise.
///
/// ```
/// use pi_tool::{CallContext, ToolCall, builtin, execute_tool_call};
/// use serde_json::json;
///
/// let tools = builtin::registry();
/// let call = ToolCall::new("call-1", "echo", json!({"value": "Pi", "ignored": "drop me"}));
/// let result = futures::executor::block_on(execute_tool_call(&call, &tools, CallContext::default()));
/// assert_eq!(result.tool_call_id, "call-1");
/// assert_eq!(result.text(), "Pi");
/// assert_eq!(result.details, Some(json!({"source": "echo"})));
/// assert!(!result.is_error);
/// ```
pub async fn execute_tool_call(
    call: &ToolCall,
    registry: &ToolRegistry,
    context: CallContext,
) -> ToolResultMessage {
    match prepare_tool_call(call, registry) {
        Ok(prepared) => prepared.run(context).await.message,
        Err(failure) => failure.into_message(),
    }
}

/// Lookup and parse, the first two steps, for callers that act before the tool runs (hooks,
/// approvals, time limits). `Err` says why ([`FailureKind::UnknownTool`],
/// [`FailureKind::InvalidArguments`], [`FailureKind::Panic`] while parsing) and carries the
/// paired result; the caller never looks the tool up again.
///
/// ```
/// use pi_tool::{CallContext, ToolCall, builtin, prepare_tool_call};
/// use serde_json::json;
///
/// let tools = builtin::registry();
/// let call = ToolCall::new("call-1", "echo", json!({"value": "Pi", "ignored": 1}));
/// let prepared = prepare_tool_call(&call, &tools).unwrap();
/// assert_eq!(prepared.validated_arguments(&call.arguments), json!({"value": "Pi"}));
/// let executed = futures::executor::block_on(prepared.run(CallContext::default()));
/// assert_eq!(executed.message.text(), "Pi");
///
/// let unknown = ToolCall::new("call-2", "missing", json!({}));
/// let failure = prepare_tool_call(&unknown, &tools).unwrap_err();
/// assert_eq!(failure.kind(), pi_tool::FailureKind::UnknownTool);
/// assert_eq!(failure.message().text(), "Tool missing failed: 未知工具");
/// ```
pub fn prepare_tool_call(
    call: &ToolCall,
    registry: &ToolRegistry,
) -> Result<PreparedCall, CallFailure> {
    let wording = registry.wording();
    let Some(tool) = registry.get(&call.name) else {
        let reason = unknown_tool(wording, &call.name);
        let failure = failure_message(call.id.clone(), call.name.clone(), wording, &reason);
        return Err(CallFailure::new(FailureKind::UnknownTool, failure));
    };
    PreparedCall::parse(
        call.id.clone(),
        call.name.clone(),
        tool,
        &call.arguments,
        wording,
    )
}

impl PreparedCall {
    /// Executes the tool: the last two steps. Never fails, never panics.
    pub async fn run(self, context: CallContext) -> ExecutedCall {
        let context = context.for_call(&self.id);
        let (tool, params) = (&self.tool, self.params);
        // The synchronous start of `execute` runs user code too: contain panics there.
        match catch_unwind(AssertUnwindSafe(|| tool.start(params, context))) {
            Ok(running) => finish(self.id, self.name, running, self.wording).await,
            Err(panic) => panicked(self.id, self.name, self.wording, &*panic),
        }
    }
}

/// Awaits a started tool and turns what it produced into the paired result, which takes the id
/// and name as they are (shared strings: the tool's context holds the same id).
async fn finish(
    id: ArcStr,
    name: ArcStr,
    running: OutputFuture<'_>,
    wording: Wording,
) -> ExecutedCall {
    match AssertUnwindSafe(running).catch_unwind().await {
        Ok(Ok(output)) if let Some(reason) = output.failure() => {
            failed(id, name, wording, FailureKind::ToolError, &reason)
        }
        Ok(Ok(output)) => ExecutedCall {
            // An output the tool marked as an error is its failure, as an `Err` is.
            failure: output
                .is_error
                .unwrap_or(false)
                .then_some(FailureKind::ToolError),
            message: ToolResultMessage {
                tool_call_id: id,
                tool_name: name,
                content: crate::output_limit::bounded(output.content),
                details: output.details,
                is_error: output.is_error.unwrap_or(false),
                timestamp: now_millis(),
            },
            terminate: output.terminate,
        },
        Ok(Err(error)) => {
            let mut executed = failed(id, name, wording, FailureKind::ToolError, error.message());
            // What the tool said for the program goes beside `error`.
            if let (Some(extra), Some(Value::Object(details))) =
                (error.details(), executed.message.details.as_mut())
            {
                details.extend(
                    extra
                        .iter()
                        .map(|(key, value)| (key.clone(), value.clone())),
                );
            }
            executed
        }
        Err(panic) => panicked(id, name, wording, &*panic),
    }
}

/// The failed call's outcome: `kind`, answered `Tool <name> failed: <reason>`.
pub(crate) fn failed(
    id: ArcStr,
    name: ArcStr,
    wording: Wording,
    kind: FailureKind,
    reason: &str,
) -> ExecutedCall {
    ExecutedCall::failed(kind, failure_message(id, name, wording, reason))
}

fn panicked(
    id: ArcStr,
    name: ArcStr,
    wording: Wording,
    payload: &(dyn std::any::Any + Send),
) -> ExecutedCall {
    failed(
        id,
        name,
        wording,
        FailureKind::Panic,
        &panic_message(payload),
    )
}
