//! The executor: one call in, exactly one paired result out, whatever happens.

use std::panic::{AssertUnwindSafe, catch_unwind};

use arcstr::ArcStr;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::model_text::{
    Wording, failure_text_in, invalid_arguments_text, invalid_json_in, panic_without_message,
    unknown_tool, validation_text,
};
use crate::prepared::finish;
use crate::registered::{OutputFuture, TextStart};
use crate::schema::ValidationError;
use crate::{
    ProgressCallback, RegisteredTool, ToolCall, ToolContext, ToolRegistry, ToolResultMessage,
    now_millis, panic_message, text,
};

/// What the caller hands to every tool it runs: the spec's `Omit<ToolContext, "callId">`.
///
/// There is no `call_id` here on purpose: the executor sets it from the call, last, so a caller
/// cannot make a tool believe it is answering another call.
#[derive(Clone, Debug, Default)]
pub struct CallContext {
    /// Cancellation for the call; when `None`, nothing can cancel it (a tool that asks for its
    /// signal gets a token that is never cancelled).
    pub signal: Option<CancellationToken>,
    /// Receives the tool's progress reports.
    pub report_progress: Option<ProgressCallback>,
}

impl CallContext {
    /// The tool's context for the call `call_id`.
    pub(crate) fn for_call(self, call_id: &ArcStr) -> ToolContext {
        let mut context = ToolContext::new(call_id.clone());
        if let Some(signal) = self.signal {
            context = context.with_signal(signal);
        }
        if let Some(callback) = self.report_progress {
            context = context.with_progress(callback);
        }
        context
    }
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
    let wording = registry.wording();
    let Some(tool) = registry.get(&call.name) else {
        let reason = unknown_tool(wording, &call.name);
        return failure_message(call.id.clone(), call.name.clone(), wording, &reason);
    };
    run_parsed(
        call.id.clone(),
        call.name.clone(),
        &call.arguments,
        tool,
        context,
        wording,
    )
    .await
}

/// Parse and execute, once the tool is found: the typed parameters are handed straight to the
/// tool (no `PreparedCall`, whose erased parameters are boxed for the callers that stop
/// between the two steps).
async fn run_parsed(
    id: ArcStr,
    name: ArcStr,
    arguments: &Value,
    tool: &RegisteredTool,
    context: CallContext,
    wording: Wording,
) -> ToolResultMessage {
    // Parsing and the synchronous start of `execute` run user code: contain panics there.
    match catch_unwind(AssertUnwindSafe(|| {
        tool.start_value(arguments, &id, context)
    })) {
        Ok(Ok(running)) => finish(id, name, running, wording).await.message,
        Ok(Err(invalid)) => invalid_message(id, name, wording, &invalid, || pretty(arguments)),
        Err(panic) => failure_message(id, name, wording, &panic_message(panic.as_ref())),
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
    // Lookup comes first and answers alone: the text of an unknown tool's call is never read.
    let wording = registry.wording();
    let Some(tool) = registry.get(name) else {
        let reason = unknown_tool(wording, name);
        return failure_message(id.into(), name.into(), wording, &reason);
    };
    // The one copy of the id: the tool's context and the result share it. The name is the
    // registry's own (the lookup matched it exactly).
    let id = ArcStr::from(id);
    let name = tool.shared_name().clone();
    // The hot road (a valid call on the one-pass road) awaits only the tool; the rest is
    // synchronous or boxed, which keeps this future small (it is moved into whatever polls it).
    match start_raw(&id, raw_arguments, tool, context, wording) {
        RawStart::Running(running) => finish(id, name, running, wording).await.message,
        RawStart::Rejected(invalid) => invalid_message(id, name, wording, &invalid, || {
            serde_json::from_str(raw_arguments)
                .map_or_else(|_| raw_arguments.trim().to_owned(), |value| pretty(&value))
        }),
        RawStart::Refused(reason) => failure_message(id, name, wording, &reason),
        RawStart::Json(context) => {
            Box::pin(json_road(id, name, raw_arguments, tool, context, wording)).await
        }
    }
}

/// How a raw call left its synchronous start.
enum RawStart<'a> {
    /// The tool is running on parameters read in one pass.
    Running(OutputFuture<'a>),
    /// Rejected arguments, with every violation.
    Rejected(ValidationError),
    /// Refused for this reason: a panic at the start.
    Refused(String),
    /// For the JSON road, with the context still unused.
    Json(CallContext),
}

fn start_raw<'a>(
    id: &ArcStr,
    raw_arguments: &str,
    tool: &'a RegisteredTool,
    context: CallContext,
    wording: Wording,
) -> RawStart<'a> {
    let mut context = Some(context);
    // The one-pass road: typed parameters straight from the text into the tool, or the full
    // report of what is wrong with it. It takes the context only once the text is accepted (a
    // rejected call never makes a signal); what it declines goes down the JSON path.
    let started = catch_unwind(AssertUnwindSafe(|| {
        // JSON allows the whitespace around it: no trimming on this road.
        tool.start_text(raw_arguments, id, &mut context)
    }));
    match (started, context) {
        (Ok(TextStart::Started(running)), _) => RawStart::Running(running),
        (Ok(TextStart::Rejected(violations)), _) => RawStart::Rejected(violations),
        // Declined, or its parse panicked: the JSON path decides, and reports.
        (_, Some(context)) => RawStart::Json(context),
        // The tool's own synchronous start panicked.
        (Err(panic), None) => RawStart::Refused(panic_message(panic.as_ref())),
        (Ok(_), None) => RawStart::Refused(panic_without_message(wording).to_owned()),
    }
}

/// The JSON road of a raw call: parse the text into JSON, then validate and run as
/// [`execute_tool_call`] does.
async fn json_road(
    id: ArcStr,
    name: ArcStr,
    raw_arguments: &str,
    tool: &RegisteredTool,
    context: CallContext,
    wording: Wording,
) -> ToolResultMessage {
    let text = raw_arguments.trim();
    let arguments = if text.is_empty() {
        Value::Object(serde_json::Map::new())
    } else {
        match serde_json::from_str(text) {
            Ok(arguments) => arguments,
            Err(error) => {
                return failure_message(id, name, wording, &invalid_json_in(wording, &error));
            }
        }
    };
    run_parsed(id, name, &arguments, tool, context, wording).await
}

/// The paired failure for `call` in the course's wording: content
/// `Tool <name> failed: <reason>`, details `{"error": reason}`, `isError: true`.
pub fn failed_result(call: &ToolCall, reason: &str) -> ToolResultMessage {
    failed_result_in(Wording::Course, call, reason)
}

/// The paired failure for `call` in `wording` (see [`crate::model_text::failure_text_in`]).
pub fn failed_result_in(wording: Wording, call: &ToolCall, reason: &str) -> ToolResultMessage {
    failure_message(call.id.clone(), call.name.clone(), wording, reason)
}

/// [`failed_result_in`] from an id and a name already owned.
pub(crate) fn failure_message(
    id: ArcStr,
    name: ArcStr,
    wording: Wording,
    reason: &str,
) -> ToolResultMessage {
    let content = failure_text_in(wording, &name, reason);
    message_of(id, name, content, reason.to_owned())
}

/// The paired refusal of invalid arguments; `arguments` renders what arrived (for Pi's words).
pub(crate) fn invalid_message(
    id: ArcStr,
    name: ArcStr,
    wording: Wording,
    invalid: &ValidationError,
    arguments: impl FnOnce() -> String,
) -> ToolResultMessage {
    match wording {
        // The report is rendered once: it is both the reason and the content's tail.
        Wording::Course => {
            let reason = validation_text(invalid);
            let content = failure_text_in(wording, &name, &reason);
            message_of(id, name, content, reason)
        }
        Wording::Pi => {
            let content = invalid_arguments_text(wording, &name, invalid, arguments);
            message_of(id, name, content.clone(), content)
        }
    }
}

fn message_of(id: ArcStr, name: ArcStr, content: String, reason: String) -> ToolResultMessage {
    ToolResultMessage {
        content: vec![text(content)],
        tool_call_id: id,
        tool_name: name,
        details: Some(json!({ "error": reason })),
        is_error: true,
        timestamp: now_millis(),
    }
}

/// Arguments as a person reads them (Pi shows them pretty-printed).
pub(crate) fn pretty(arguments: &Value) -> String {
    serde_json::to_string_pretty(arguments).unwrap_or_else(|_| arguments.to_string())
}
