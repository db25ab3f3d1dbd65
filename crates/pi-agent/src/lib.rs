//! The agent loop: the model proposes tool calls, the tools answer with paired results, the
//! model reads them, until it stops.
//!
//! Why a crate of its own: the loop is the part every front end drives and every embedding
//! program needs, with any [`pi_ai::Provider`]. It depends on the contract, the message model
//! and the telemetry names, not on any wire, tool set or command line: the providers, the coding
//! tools and the session runtime (`pi-coding-agent`) are plugged in from above.
//!
//! Two default features add what a coding agent needs and a bare loop does not:
//! - `approvals`: the approval gate ([`AgentConfig::with_approvals`], the `approval_decision`
//!   event); brings `pi-approval` and its bash parser (tree-sitter-bash);
//! - `compaction`: compacting a session's context ([`compaction`]); brings `pi-session`.
//!
//! `default-features = false` builds the loop without either (CI checks that it does, and that
//! neither crate is then in its dependency tree). The compaction events and their types
//! ([`CompactionReason`], [`Compacted`]) stay: a program may compact in its own way.
//!
//! Pi's loop is the reference for behaviour; this one is stricter where Pi's users were hurt:
//!
//! - every call gets exactly one result, in the assistant's call order, also when the run is
//!   cancelled mid-batch (calls that never started get an aborted result, running tools see their
//!   token cancelled) and when a tool's time limit fires;
//! - `tool_execution_end` events fire in completion order, result messages enter the transcript
//!   in call order;
//! - a response cut off by the token limit executes none of its calls;
//! - with approvals, every call is decided on its final
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
#[cfg(feature = "approvals")]
mod approval_gate;
#[cfg(feature = "approvals")]
mod approved_call;
mod batch;
mod call_order;
#[cfg(feature = "compaction")]
pub mod compaction;
mod compaction_outcome;
mod config;
mod emitter;
mod event;
mod queue;
mod telemetry;

pub use agent::{Agent, AgentRun};
#[cfg(feature = "approvals")]
pub use approval_gate::{ApprovalGate, Approved};
pub use call_order::{CallOrder, CallTask};
pub use compaction_outcome::{Compacted, CompactionReason};
pub use config::{
    AfterHook, AfterResponseHook, AfterToolCall, AfterToolCallContext, AgentConfig, BeforeHook,
    BeforeRequestContext, BeforeRequestHook, BeforeToolCall, BeforeToolCallContext,
    DEFAULT_MAX_CALLS_PER_BATCH, ExecutionMode, WillRetryHook,
};
pub use event::{AgentEvent, EndReason};
pub use queue::MessageQueue;
pub use telemetry::RunLabels;
