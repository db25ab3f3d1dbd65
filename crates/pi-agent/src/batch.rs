//! One assistant message's tool calls, run as a batch: every call gets exactly one result,
//! results come back in call order, `tool_execution_end` fires in completion order.

use std::sync::Arc;

use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use pi_ai::Message;
use pi_tool::model_text::{self, BLOCKED};
use pi_tool::{
    CallContext, CallFailure, ExecutedCall, FailureKind, PreparedCall, ProgressCallback, ToolCall,
    ToolResultMessage, failed_result_in, panic_message, prepare_tool_call,
};
use tokio_util::sync::CancellationToken;

use crate::call_order::CallOrder;
use crate::config::{AfterToolCallContext, BeforeToolCall, BeforeToolCallContext};
use crate::emitter::Emitter;
use crate::{AgentConfig, AgentEvent, ExecutionMode};

/// A call's paired result as the run keeps it: one message, shared by its
/// `tool_execution_end`, `message_start`/`message_end` and `turn_end` events.
#[derive(Debug, Clone)]
pub(crate) struct Answered {
    /// The result, a [`Message::ToolResult`].
    pub(crate) message: Arc<Message>,
    /// Whether the result asks the loop to stop after this batch.
    pub(crate) terminate: bool,
}

impl From<ExecutedCall> for Answered {
    fn from(executed: ExecutedCall) -> Self {
        Self {
            message: Arc::new(Message::ToolResult(executed.message)),
            terminate: executed.terminate,
        }
    }
}

/// Runs `calls` and returns one result per call, in call order.
pub(crate) async fn run_batch(
    config: &AgentConfig,
    calls: &[Arc<ToolCall>],
    signal: &CancellationToken,
    emitter: &Emitter,
) -> Vec<Answered> {
    for call in calls {
        emitter.emit(AgentEvent::ToolExecutionStart {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            args: call.arguments.clone(),
        });
    }
    // Lookup and parse, once per call and in call order, before any call runs: the batch's
    // scheduling, the hooks and the result all read the prepared call (or its typed failure).
    // Calls past the cap are never looked at.
    let mut preparations: Vec<Option<Result<PreparedCall, CallFailure>>> = calls
        .iter()
        .take(config.max_calls_per_batch)
        .map(|call| Some(prepare_tool_call(call, &config.tools)))
        .collect();
    // Each call's place behind the earlier calls on the same thing (its ordering key), taken
    // for every call before any runs: a key taken when a call starts could see what an earlier
    // call of the batch has changed since (a file it created).
    let mut keys: Vec<Option<String>> = preparations
        .iter()
        .zip(calls)
        .map(|(preparation, call)| {
            preparation
                .as_ref()
                .and_then(|prepared| prepared.as_ref().ok())
                .and_then(|prepared| prepared.tool().ordering_key(&call.arguments))
        })
        .collect();
    let exclusive = preparations
        .iter()
        .flatten()
        .any(|prepared| prepared.as_ref().is_ok_and(|p| p.tool().is_exclusive()));
    let limit = if config.execution == ExecutionMode::Sequential || exclusive {
        1
    } else {
        config.max_concurrency.unwrap_or(calls.len()).max(1)
    };

    let mut results: Vec<Option<Answered>> = vec![None; calls.len()];
    let mut running = FuturesUnordered::new();
    let mut order = CallOrder::new();
    let mut next = 0;
    loop {
        while running.len() < limit && next < calls.len() {
            if let Some(call) = calls.get(next) {
                let preparation = preparations.get_mut(next).and_then(Option::take);
                if signal.is_cancelled() {
                    // Never started: answered without running.
                    let aborted = ExecutedCall::failed(FailureKind::Aborted, aborted(config, call));
                    record(config, emitter, &mut results, next, call, aborted).await;
                } else if let Some(preparation) = preparation {
                    // Its place is taken in call order, with the key read before the batch.
                    let key = keys.get_mut(next).and_then(Option::take);
                    let run = run_call(
                        config.clone(),
                        Arc::clone(call),
                        preparation,
                        signal.clone(),
                        emitter.clone(),
                    );
                    let task = order.spawn(key, crate::telemetry::instrument_call(call, run));
                    let index = next;
                    running.push(task.map(move |joined| (index, joined)));
                } else {
                    // Past the cap: refused unread.
                    let reason = model_text::too_many_calls(config.max_calls_per_batch);
                    let mut refused = failed(config, call, &reason);
                    refused.content = vec![pi_tool::text(reason)];
                    let refused = ExecutedCall::failed(FailureKind::Denied, refused);
                    record(config, emitter, &mut results, next, call, refused).await;
                }
            }
            next += 1;
        }
        let Some((index, joined)) = running.next().await else {
            break;
        };
        if let Some(call) = calls.get(index) {
            let executed = match joined {
                Ok(executed) => executed,
                // `run_call` contains every panic; this is the runtime shutting down.
                Err(error) => ExecutedCall::failed(
                    FailureKind::Aborted,
                    failed(config, call, &format!("the call did not finish: {error}")),
                ),
            };
            record(config, emitter, &mut results, index, call, executed).await;
        }
    }
    results
        .into_iter()
        .zip(calls)
        .map(|(result, call)| {
            result.unwrap_or_else(|| {
                ExecutedCall::failed(FailureKind::Aborted, aborted(config, call)).into()
            })
        })
        .collect()
}

/// Results for calls of a response that hit the token limit: none of them runs.
pub(crate) async fn refuse_truncated(
    config: &AgentConfig,
    calls: &[Arc<ToolCall>],
    emitter: &Emitter,
) -> Vec<Answered> {
    refuse_all(config, calls, emitter, |call| {
        // Upstream Pi's exact words, without the "Tool x failed:" prefix.
        let reason = model_text::truncated_call(&call.name);
        let mut refused = failed(config, call, &reason);
        refused.content = vec![pi_tool::text(reason)];
        refused
    })
    .await
}

/// Results for calls of a response that failed or was aborted: none of them runs.
pub(crate) async fn refuse_failed(
    config: &AgentConfig,
    calls: &[Arc<ToolCall>],
    emitter: &Emitter,
) -> Vec<Answered> {
    refuse_all(config, calls, emitter, |call| aborted(config, call)).await
}

async fn refuse_all(
    config: &AgentConfig,
    calls: &[Arc<ToolCall>],
    emitter: &Emitter,
    refusal: impl Fn(&ToolCall) -> ToolResultMessage,
) -> Vec<Answered> {
    let mut results = vec![None; calls.len()];
    for (index, call) in calls.iter().enumerate() {
        emitter.emit(AgentEvent::ToolExecutionStart {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            args: call.arguments.clone(),
        });
        record(
            config,
            emitter,
            &mut results,
            index,
            call,
            ExecutedCall::failed(FailureKind::Aborted, refusal(call)),
        )
        .await;
    }
    results.into_iter().flatten().collect()
}

/// Applies `after_tool_call`, stores the result and announces it.
async fn record(
    config: &AgentConfig,
    emitter: &Emitter,
    results: &mut [Option<Answered>],
    index: usize,
    call: &ToolCall,
    executed: ExecutedCall,
) {
    let executed = after_hook(config, call, executed).await;
    let is_error = executed.message.is_error;
    let answered = Answered::from(executed);
    emitter.emit(AgentEvent::ToolExecutionEnd {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        is_error,
        result: Arc::clone(&answered.message),
    });
    if let Some(slot) = results.get_mut(index) {
        *slot = Some(answered);
    }
}

async fn after_hook(
    config: &AgentConfig,
    call: &ToolCall,
    mut executed: ExecutedCall,
) -> ExecutedCall {
    let Some(hook) = &config.after_tool_call else {
        return executed;
    };
    let context = AfterToolCallContext {
        call: call.clone(),
        result: executed.message.clone(),
    };
    // A failing hook leaves the result as it was.
    let Ok(change) = std::panic::AssertUnwindSafe(hook(context))
        .catch_unwind()
        .await
    else {
        return executed;
    };
    if let Some(content) = change.content {
        executed.message.content = content;
    }
    if let Some(details) = change.details {
        executed.message.details = details;
    }
    if let Some(is_error) = change.is_error {
        executed.message.is_error = is_error;
        // The hook's word on success stands for the outcome too.
        executed.failure = match is_error {
            false => None,
            true => executed.failure.or(Some(FailureKind::ToolError)),
        };
    }
    if let Some(terminate) = change.terminate {
        executed.terminate = terminate;
    }
    executed
}

/// One prepared call: `before_tool_call`, the approval, execution under its time limit and the
/// run's cancellation. Always returns the call's one result.
// Without approvals, a hook's rewrite is only parsed: nothing else reads it.
#[cfg_attr(
    not(feature = "approvals"),
    allow(unused_variables, unused_assignments)
)]
async fn run_call(
    config: AgentConfig,
    call: Arc<ToolCall>,
    preparation: Result<PreparedCall, CallFailure>,
    signal: CancellationToken,
    emitter: Emitter,
) -> ExecutedCall {
    let prepared = match preparation {
        Ok(prepared) => prepared,
        Err(failure) => return failure.into_executed(),
    };
    // The arguments as the hook left them (`None`: as the model sent them), for the gate.
    let mut rewritten: Option<serde_json::Value> = None;
    let prepared = match &config.before_tool_call {
        None => prepared,
        Some(hook) => {
            let context = BeforeToolCallContext {
                arguments: prepared.validated_arguments(&call.arguments),
                call: ToolCall::clone(&call),
            };
            let decision = match std::panic::AssertUnwindSafe(hook(context))
                .catch_unwind()
                .await
            {
                Ok(decision) => decision,
                Err(panic) => BeforeToolCall::Block {
                    reason: Some(model_text::hook_failed(&panic_message(panic.as_ref()))),
                },
            };
            match decision {
                BeforeToolCall::Allow => prepared,
                BeforeToolCall::Block { reason } => {
                    let reason = reason.as_deref().unwrap_or(BLOCKED);
                    return ExecutedCall::failed(
                        FailureKind::Denied,
                        failed(&config, &call, reason),
                    );
                }
                BeforeToolCall::Rewrite { arguments } => {
                    match prepared.with_arguments(&arguments) {
                        Ok(prepared) => {
                            rewritten = Some(arguments);
                            prepared
                        }
                        Err(failure) => return failure.into_executed(),
                    }
                }
            }
        }
    };
    #[cfg(feature = "approvals")]
    if let Some(gate) = &config.approvals {
        let arguments = rewritten.as_ref().unwrap_or(&call.arguments);
        return crate::approved_call::run(
            gate, &config, &call, prepared, arguments, &signal, &emitter,
        )
        .await;
    }
    execute(&config, &call, prepared, &signal, &emitter).await
}

/// Runs a prepared call under its time limit and the run's cancellation, its progress
/// announced. Always returns the call's one result.
pub(crate) async fn execute(
    config: &AgentConfig,
    call: &ToolCall,
    prepared: pi_tool::PreparedCall,
    signal: &CancellationToken,
    emitter: &Emitter,
) -> ExecutedCall {
    // The tool holds its progress callback for as long as it runs, which after a time limit
    // may be for ever (a blocking read of a 1 TB sparse file): the callback reaches the run's
    // events through this slot, emptied once the call is answered, so a tool that outlives
    // its call keeps no event channel open (the subscribers wait for it to close).
    let progress_emitter = std::sync::Arc::new(std::sync::Mutex::new(Some(emitter.clone())));
    let progress = {
        let slot = std::sync::Arc::clone(&progress_emitter);
        let (id, name) = (call.id.clone(), call.name.clone());
        ProgressCallback::new(move |update| {
            let emitter = slot
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone();
            if let Some(emitter) = emitter {
                emitter.emit(AgentEvent::ToolExecutionUpdate {
                    tool_call_id: id.clone(),
                    tool_name: name.clone(),
                    partial_result: update,
                });
            }
        })
    };
    let context = CallContext {
        signal: Some(signal.clone()),
        report_progress: Some(progress),
    };
    let limit = config.timeout_for(&call.name);
    let executed = prepared
        .run_within(context, limit, config.cancel_grace)
        .await;
    progress_emitter
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    executed
}

/// The paired failure of `call` in the registry's wording.
pub(crate) fn failed(config: &AgentConfig, call: &ToolCall, reason: &str) -> ToolResultMessage {
    failed_result_in(config.tools.wording(), call, reason)
}

/// The paired result of a call the run's cancellation stopped or never started.
fn aborted(config: &AgentConfig, call: &ToolCall) -> ToolResultMessage {
    failed(config, call, model_text::aborted(config.tools.wording()))
}
