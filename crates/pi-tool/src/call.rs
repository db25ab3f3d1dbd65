//! The one call path: lookup → parse → execute → result, whatever the tool (typed, dynamic,
//! MCP) and whoever calls (the agent loop, the MCP server, the CLI). One call in, exactly one
//! paired result out; panics are contained at every step.
//!
//! Parsing takes one of two ways, chosen by measurement (`scripts/instruction-counts.sh`):
//! - arguments that are still text are read in one pass straight into the tool's typed
//!   parameters when the schema can ([`crate::schema::Schema::check_text`]); no
//!   `serde_json::Value` is built;
//! - otherwise (JSON arguments, a schema that cannot read text, or a refusal that the tool's
//!   repair step may mend) the arguments are parsed as JSON, and repaired only if the schema
//!   refuses them as they are.

use std::panic::{AssertUnwindSafe, catch_unwind};

use arcstr::ArcStr;
use futures::FutureExt;
use serde_json::Value;

use crate::call_context::CallContext;
use crate::failure::{failure_message, invalid_message, panic_message, pretty};
use crate::model_text::{Wording, invalid_json_in, panic_without_message, unknown_tool};
use crate::prepared::PreparedCall;
use crate::registered::{OutputFuture, TextStart};
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
    let wording = registry.wording();
    let Some(tool) = registry.get(name) else {
        let reason = unknown_tool(wording, name);
        return failure_message(id.into(), name.into(), wording, &reason);
    };
    // The one copy of the id: the tool's context and the result share it. The name is the
    // registry's own (the lookup matched it exactly).
    let (id, name) = (ArcStr::from(id), tool.shared_name().clone());
    // The one-pass parse: JSON allows whitespace around the value, so no trimming here.
    let mut unused = Some(context);
    let started = catch_unwind(AssertUnwindSafe(|| {
        tool.start_text(raw_arguments, &id, &mut unused)
    }));
    match (started, unused) {
        (Ok(TextStart::Started(running)), _) => finish(id, name, running, wording).await.message,
        (Ok(TextStart::Rejected(invalid)), _) => {
            invalid_message(id, name, wording, &invalid, || {
                serde_json::from_str(raw_arguments)
                    .map_or_else(|_| raw_arguments.trim().to_owned(), |value| pretty(&value))
            })
        }
        // Declined, or the one-pass parse panicked: the JSON parse decides, and reports. Boxed:
        // this future is moved by whatever polls it, and the one-pass call should stay small.
        (_, Some(context)) => {
            let arguments = match raw_arguments.trim() {
                "" => Value::Object(serde_json::Map::new()),
                text => match serde_json::from_str(text) {
                    Ok(arguments) => arguments,
                    Err(error) => {
                        let reason = invalid_json_in(wording, &error);
                        return failure_message(id, name, wording, &reason);
                    }
                },
            };
            match PreparedCall::parse(id, name, tool, &arguments, wording) {
                Ok(prepared) => Box::pin(prepared.run(context)).await.message,
                Err(failure) => failure.into_message(),
            }
        }
        // The tool's own synchronous start panicked.
        (Err(panic), None) => failure_message(id, name, wording, &panic_message(&*panic)),
        (Ok(_), None) => failure_message(id, name, wording, panic_without_message(wording)),
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
