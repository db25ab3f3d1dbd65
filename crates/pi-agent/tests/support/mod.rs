//! Shared by the loop tests: a scripted model and a `work` tool with chosen outcomes.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use pi_agent::{Agent, AgentConfig, AgentEvent};
use pi_ai::{FauxProvider, UserMessage};
use pi_tool::schema::ObjectParams;
use pi_tool::{
    FnTool, RegisteredTool, ToolContext, ToolError, ToolOutput, ToolParams, ToolRegistry, builtin,
};
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

#[derive(ToolParams)]
pub(crate) struct WorkParams {
    pub(crate) label: String,
    #[param(one_of = ["ok", "error", "panic", "stubborn", "terminate"], default = "ok")]
    pub(crate) outcome: String,
    pub(crate) ms: Option<u64>,
}

/// `work`: sleeps `ms` (watching its token unless `stubborn`), then succeeds, fails, panics or
/// asks to terminate.
pub(crate) fn work_tool() -> RegisteredTool {
    RegisteredTool::new(FnTool::new(
        "work",
        "Does some work",
        WorkParams::object_schema(),
        |params: WorkParams, cx: ToolContext| async move {
            let pause = Duration::from_millis(params.ms.unwrap_or(0));
            if params.outcome == "stubborn" {
                tokio::time::sleep(pause).await;
            } else {
                tokio::select! {
                    () = tokio::time::sleep(pause) => {}
                    () = cx.signal().cancelled() => return Err(ToolError::new(format!("{} stopped", params.label))),
                }
            }
            match params.outcome.as_str() {
                "error" => Err(ToolError::new(format!("{} failed", params.label))),
                "panic" => panic!("{} panicked", params.label),
                "terminate" => Ok(ToolOutput::text(params.label).with_terminate()),
                _ => Ok(ToolOutput::text(params.label)),
            }
        },
    ))
}

/// The built-in tools plus `work`, and an exclusive `lock` tool.
pub(crate) fn tools() -> Arc<ToolRegistry> {
    let mut registry = builtin::registry();
    registry.register(work_tool()).unwrap();
    registry
        .register(
            RegisteredTool::new(
                FnTool::new(
                    "lock",
                    "Must run alone",
                    builtin::ValueParams::object_schema(),
                    |params: builtin::ValueParams, _cx| async move {
                        Ok(ToolOutput::text(params.value))
                    },
                )
                .exclusive(),
            ),
        )
        .unwrap();
    Arc::new(registry)
}

/// A faux model answering with `script` (Pi-shaped assistant messages).
pub(crate) fn faux(script: Value) -> Arc<FauxProvider> {
    Arc::new(FauxProvider::from_script(&script).unwrap())
}

/// A `toolCall` block.
pub(crate) fn call(id: &str, name: &str, arguments: Value) -> Value {
    json!({"type": "toolCall", "id": id, "name": name, "arguments": arguments})
}

/// A text-only response.
pub(crate) fn answer(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

pub(crate) fn start(config: AgentConfig) -> (Agent, UnboundedReceiver<AgentEvent>) {
    let agent = Agent::new(config);
    let events = agent.subscribe();
    (agent, events)
}

pub(crate) fn prompt(text: &str) -> Vec<pi_ai::Message> {
    vec![UserMessage::text(text).into()]
}

/// Every event received so far.
pub(crate) fn drain(events: &mut UnboundedReceiver<AgentEvent>) -> Vec<AgentEvent> {
    let mut out = Vec::new();
    while let Ok(event) = events.try_recv() {
        out.push(event);
    }
    out
}
