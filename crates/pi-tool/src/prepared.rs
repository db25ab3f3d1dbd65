//! The executor in two steps, for callers that act between validation and execution (an agent
//! loop's hooks, timeouts and cancellation): [`prepare_tool_call`] looks the tool up and parses
//! the arguments; [`PreparedCall::run`] executes. Each step contains panics and answers every
//! failure with the paired result.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use arcstr::ArcStr;
use futures::FutureExt;
use serde_json::Value;

use crate::executor::{failure_message, invalid_message, pretty};
use crate::model_text::{PANIC_WITHOUT_MESSAGE, Wording, unknown_tool};
use crate::registered::{ErasedParams, OutputFuture};
use crate::{
    CallContext, RegisteredTool, ToolCall, ToolRegistry, ToolResultMessage, failed_result_in,
    now_millis,
};

/// A call whose tool exists and whose arguments passed validation; nothing has run yet.
///
/// It owns what it needs, so [`PreparedCall::run`] can be spawned on another task.
pub struct PreparedCall {
    id: ArcStr,
    name: ArcStr,
    tool: RegisteredTool,
    params: ErasedParams,
    wording: Wording,
}

/// What running a call produced: its one result message, and whether the tool asked an agent
/// loop to stop after this batch.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecutedCall {
    /// The paired result.
    pub message: ToolResultMessage,
    /// The tool's [`ToolOutput::terminate`](crate::ToolOutput::terminate); `false` for every failure.
    pub terminate: bool,
}

impl std::fmt::Debug for PreparedCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedCall")
            .field("id", &self.id)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Lookup and parse: the first two steps of the spec's order. `Err` is the paired failure (an
/// unknown tool, invalid arguments, a panic while parsing).
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
/// assert_eq!(prepare_tool_call(&unknown, &tools).unwrap_err().text(), "Tool missing failed: 未知工具");
/// ```
pub fn prepare_tool_call(
    call: &ToolCall,
    registry: &ToolRegistry,
) -> Result<PreparedCall, Box<ToolResultMessage>> {
    let wording = registry.wording();
    let Some(tool) = registry.get(&call.name) else {
        let reason = unknown_tool(wording, &call.name);
        return Err(Box::new(failed_result_in(wording, call, &reason)));
    };
    prepare_for(call, tool, wording)
}

/// Parse, once the tool is found.
pub(crate) fn prepare_for(
    call: &ToolCall,
    tool: &RegisteredTool,
    wording: Wording,
) -> Result<PreparedCall, Box<ToolResultMessage>> {
    let params = parse_contained(call, tool, &call.arguments, wording)?;
    Ok(PreparedCall {
        id: call.id.clone(),
        name: call.name.clone(),
        tool: tool.clone(),
        params,
        wording,
    })
}

fn parse_contained(
    call: &ToolCall,
    tool: &RegisteredTool,
    arguments: &Value,
    wording: Wording,
) -> Result<ErasedParams, Box<ToolResultMessage>> {
    match catch_unwind(AssertUnwindSafe(|| tool.parse(arguments))) {
        Ok(Ok(params)) => Ok(params),
        Ok(Err(invalid)) => Err(Box::new(invalid_message(
            call.id.clone(),
            call.name.clone(),
            wording,
            &invalid,
            || pretty(arguments),
        ))),
        Err(panic) => Err(Box::new(failed_result_in(
            wording,
            call,
            &panic_message(panic.as_ref()),
        ))),
    }
}

impl PreparedCall {
    /// The tool that will run.
    pub fn tool(&self) -> &RegisteredTool {
        &self.tool
    }

    /// The arguments as the tool sees them, as JSON: repaired, undeclared fields dropped,
    /// defaults filled in. `arguments` are the call's original arguments. For hooks and logs;
    /// the hot path never builds this.
    pub fn validated_arguments(&self, arguments: &Value) -> Value {
        let prepared = self.tool.prepare(arguments);
        match self.tool.json_schema() {
            Some(schema) => match crate::schema::drop_undeclared(schema, &prepared) {
                Ok(mut filtered) => {
                    if let Some(defaults) = self.tool.defaults() {
                        defaults.fill(&mut filtered);
                    }
                    filtered
                }
                Err(_) => prepared.into_owned(),
            },
            None => prepared.into_owned(),
        }
    }

    /// The same call with other arguments (a hook's rewrite), validated again.
    pub fn with_arguments(self, arguments: &Value) -> Result<Self, Box<ToolResultMessage>> {
        let call = ToolCall::new(self.id.clone(), self.name.clone(), Value::Null);
        let params = parse_contained(&call, &self.tool, arguments, self.wording)?;
        Ok(Self { params, ..self })
    }

    /// Executes the tool: the last two steps of the spec's order. Never fails, never panics.
    pub async fn run(self, context: CallContext) -> ExecutedCall {
        let context = context.for_call(&self.id);
        // The synchronous start of `execute` runs user code too: contain panics there.
        let tool = &self.tool;
        let params = self.params;
        match catch_unwind(AssertUnwindSafe(|| tool.start(params, context))) {
            Ok(running) => finish(self.id, self.name, running, self.wording).await,
            Err(panic) => failed(
                self.id,
                self.name,
                self.wording,
                &panic_message(panic.as_ref()),
            ),
        }
    }
}

/// Awaits a started tool and turns what it produced into the paired result, which takes the id
/// and name as they are (shared strings: the tool's context holds the same id).
pub(crate) async fn finish(
    id: ArcStr,
    name: ArcStr,
    running: OutputFuture<'_>,
    wording: Wording,
) -> ExecutedCall {
    match AssertUnwindSafe(running).catch_unwind().await {
        Ok(Ok(output)) if let Some(reason) = output.failure() => failed(id, name, wording, &reason),
        Ok(Ok(output)) => ExecutedCall {
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
        Ok(Err(error)) => failed(id, name, wording, error.message()),
        Err(panic) => failed(id, name, wording, &panic_message(panic.as_ref())),
    }
}

fn failed(id: ArcStr, name: ArcStr, wording: Wording, reason: &str) -> ExecutedCall {
    ExecutedCall {
        message: failure_message(id, name, wording, reason),
        terminate: false,
    }
}

/// The message of a caught panic, as `panic!` formatted it (a fixed text for other payloads).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        PANIC_WITHOUT_MESSAGE.to_owned()
    }
}
