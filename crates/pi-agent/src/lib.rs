//! The agent loop: the model proposes tool calls, the tools answer with paired results, the
//! model reads them, until it stops.
//!
//! Why a crate of its own: the loop is the part every front end drives and every embedding
//! program needs, with any [`pi_ai::Provider`]. It depends on the contract, the message model,
//! the approval decision, the session format (for compaction) and the telemetry names, not on
//! any wire, tool set or command line: the providers, the coding tools and the session runtime
//! (`pi-coding-agent`) are plugged in from above.
//!
//! Pi's loop is the reference for behaviour; this one is stricter where Pi's users were hurt:
//!
//! - every call gets exactly one result, in the assistant's call order, also when the run is
//!   cancelled mid-batch (calls that never started get an aborted result, running tools see their
//!   token cancelled) and when a tool's time limit fires;
//! - `tool_execution_end` events fire in completion order, result messages enter the transcript
//!   in call order;
//! - a response cut off by the token limit executes none of its calls;
//! - with approvals ([`AgentConfig::with_approvals`]), every call is decided on its final
//!   arguments after the hooks, and runs exactly those or gets a paired denial;
//! - subscribers get every event through their own unbounded channel: a slow one delays nothing
//!   and loses nothing.
//!
//! ```
//! use std::sync::Arc;
//! use pi_agent::{Agent, AgentConfig, EndReason};
//! use pi_ai::{FauxProvider, Message, UserMessage};
//! use serde_json::json;
//!
//! let faux = FauxProvider::from_script(&json!([
//!     {"content": [{"type": "toolCall", "id": "c1", "name": "echo", "arguments": {"value": "Pi"}}]},
//!     {"content": [{"type": "text", "text": "It said Pi."}]}
//! ])).unwrap();
//! let agent = Agent::new(AgentConfig::new(Arc::new(faux), Arc::new(pi_tool::builtin::registry())));
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! let run = runtime.block_on(agent.run(Vec::new(), vec![UserMessage::text("echo Pi").into()], Default::default()));
//! assert_eq!(run.end, EndReason::Completed);
//! // user, assistant (tool call), tool result, assistant (answer)
//! assert_eq!(run.messages.len(), 4);
//! assert!(matches!(&run.messages[2], Message::ToolResult(result) if result.text() == "Pi"));
//! ```

mod agent;
mod approval_gate;
mod batch;
mod call_order;
pub mod compaction;
mod config;
mod emitter;
mod event;
mod queue;
mod telemetry;

pub use agent::{Agent, AgentRun};
pub use approval_gate::{ApprovalGate, Approved};
pub use call_order::{CallOrder, CallTask};
pub use config::{
    AfterHook, AfterResponseHook, AfterToolCall, AfterToolCallContext, AgentConfig, BeforeHook,
    BeforeRequestContext, BeforeRequestHook, BeforeToolCall, BeforeToolCallContext,
    DEFAULT_MAX_CALLS_PER_BATCH, ExecutionMode, WillRetryHook,
};
pub use event::{AgentEvent, EndReason};
pub use queue::MessageQueue;
pub use telemetry::RunLabels;
