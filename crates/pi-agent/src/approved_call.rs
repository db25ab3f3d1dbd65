//! A call through the approval gate (the `approvals` feature): decided on its final validated
//! arguments, run on exactly those, and, in `full-auto`, what the sandbox refused asked about
//! once to run outside it.

use std::sync::Arc;

use pi_tool::{ExecutedCall, FailureKind, PreparedCall, ToolCall, ToolResultMessage};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::approval_gate::{GateOutcome, Hints, Outside};
use crate::batch::{execute, failed};
use crate::emitter::Emitter;
use crate::{AgentConfig, ApprovalGate};

/// Decides `prepared` (whose final arguments are `arguments`: the model's, or the
/// `before_tool_call` hook's rewrite) and runs it if allowed. Always returns the call's one
/// result: a refusal is a paired denial.
pub(crate) async fn run(
    gate: &Arc<ApprovalGate>,
    config: &AgentConfig,
    call: &Arc<ToolCall>,
    prepared: PreparedCall,
    arguments: &Value,
    signal: &CancellationToken,
    emitter: &Emitter,
) -> ExecutedCall {
    // The decision comes last, on the final validated arguments; the call then runs exactly
    // those (parsed again from them), checked against the decision's fingerprint.
    let validated = prepared.validated_arguments(arguments);
    let hints = Hints::of(prepared.tool());
    let approved = match gate.decide(call, hints, validated, signal, emitter).await {
        GateOutcome::Refuse(reason) => {
            return ExecutedCall::failed(FailureKind::Denied, failed(config, call, &reason));
        }
        GateOutcome::Run(approved) => approved,
    };
    let prepared = match prepared.with_arguments(approved.arguments()) {
        Ok(prepared) => prepared,
        Err(failure) => return failure.into_executed(),
    };
    if let Err(mismatch) = approved.check(&call.name, approved.arguments()) {
        let refused = failed(config, call, &mismatch.to_string());
        return ExecutedCall::failed(FailureKind::Denied, refused);
    }
    let executed = execute(config, call, prepared, signal, emitter).await;
    // In `full-auto`, what the sandbox refused asks to run outside it, once.
    let Some(refusal) = gate.refusal_to_ask_about(&executed.message) else {
        return executed;
    };
    if signal.is_cancelled() {
        return executed;
    }
    match gate
        .ask_outside(call, &approved, refusal.clone(), signal, emitter)
        .await
    {
        Outside::Run(prepared) => {
            let mut again = execute(config, call, *prepared, signal, emitter).await;
            note_outside(&mut again.message, &refusal, true);
            again
        }
        Outside::Stand(why) => {
            let mut executed = executed;
            executed
                .message
                .content
                .push(pi_tool::text(format!("\n\n{why}")));
            note_outside(&mut executed.message, &refusal, false);
            executed
        }
    }
}

/// Says in a result's details whether the call ran outside the sandbox after it refused it:
/// `outsideSandbox: {"ran": bool, "refusal": ...}`.
fn note_outside(message: &mut ToolResultMessage, refusal: &pi_tool::SandboxRefusal, ran: bool) {
    let note = serde_json::json!({"ran": ran, "refusal": refusal});
    match &mut message.details {
        Some(Value::Object(details)) => {
            details.insert("outsideSandbox".into(), note);
        }
        details => {
            let mut map = serde_json::Map::new();
            if let Some(other) = details.take() {
                map.insert("result".into(), other);
            }
            map.insert("outsideSandbox".into(), note);
            *details = Some(Value::Object(map));
        }
    }
}
