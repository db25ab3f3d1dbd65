//! What an agent run tells its subscribers, in Pi's event shapes.

use std::sync::Arc;

use pi_ai::{AssistantMessageEvent, Message};
#[cfg(feature = "approvals")]
use pi_approval::ApprovalRecord;
use pi_tool::{ArcStr, ToolUpdate};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EndReason {
    /// The model answered without calling tools and nothing was queued.
    Completed,
    /// Every result of the last batch asked to terminate.
    Terminated,
    /// The turn limit was reached.
    MaxTurns,
    /// The run was cancelled.
    Aborted,
    /// The provider failed.
    Error,
}

/// One event of a run. `message_update` carries the provider's delta event only (no snapshot of
/// the partial message), so a long response streams in linear time.
///
/// Messages are shared, not copied: a message's `message_start`, `message_end`, the
/// `tool_execution_end` of a result, `turn_end` and `agent_end` all hold the same
/// [`Arc`], and every subscriber gets that same `Arc`, so an event costs the same with one
/// subscriber or ten, and a 32 MiB answer is never copied for them.
///
/// Non-exhaustive: the `approvals` feature adds a variant, and features only add.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// The run began.
    AgentStart,
    /// The run ended.
    AgentEnd {
        /// Every message this run added, prompts included.
        messages: Vec<Arc<Message>>,
        /// Why it ended.
        reason: EndReason,
        /// Whether the session asks again for the failed response (its automatic retry);
        /// decided by [`crate::AgentConfig::will_retry`], `false` without it.
        #[serde(rename = "willRetry", default)]
        will_retry: bool,
    },
    /// A turn (one model response and its tool calls) began.
    TurnStart,
    /// A turn ended.
    #[serde(rename_all = "camelCase")]
    TurnEnd {
        /// The model's response (a [`Message::Assistant`]).
        message: Arc<Message>,
        /// The results of its calls, in call order (each a [`Message::ToolResult`]).
        tool_results: Vec<Arc<Message>>,
    },
    /// A message began (an assistant message starts empty and streams).
    MessageStart {
        /// The message.
        message: Arc<Message>,
    },
    /// The streaming assistant message changed. The stream's `start`, `done` and `error` are
    /// not passed on (as in Pi): they are this message's `message_start` and `message_end`.
    #[serde(rename_all = "camelCase")]
    MessageUpdate {
        /// What changed.
        assistant_message_event: AssistantMessageEvent,
    },
    /// A message is complete.
    MessageEnd {
        /// The message.
        message: Arc<Message>,
    },
    /// A tool call's execution began (before lookup and validation).
    #[serde(rename_all = "camelCase")]
    ToolExecutionStart {
        /// The call id.
        tool_call_id: ArcStr,
        /// The tool name as requested.
        tool_name: ArcStr,
        /// The raw arguments.
        args: Value,
    },
    /// A running tool reported progress.
    #[serde(rename_all = "camelCase")]
    ToolExecutionUpdate {
        /// The call id.
        tool_call_id: ArcStr,
        /// The tool name.
        tool_name: ArcStr,
        /// What it reported: `{content, details?}`, as Pi's `partialResult`.
        partial_result: ToolUpdate,
    },
    /// A tool call has its result (events fire in completion order).
    #[serde(rename_all = "camelCase")]
    ToolExecutionEnd {
        /// The call id.
        tool_call_id: ArcStr,
        /// The tool name.
        tool_name: ArcStr,
        /// The result (a [`Message::ToolResult`], shared with its `message_end`).
        result: Arc<Message>,
        /// Whether it is an error.
        is_error: bool,
    },
    /// The approval gate decided a call (with approvals configured): allowed, denied, or
    /// asked and answered.
    #[cfg(feature = "approvals")]
    ApprovalDecision(Arc<ApprovalRecord>),
    /// A compaction began.
    CompactionStart {
        /// Why it runs.
        reason: crate::CompactionReason,
    },
    /// A compaction ended: written (`result`) or refused (`error`; nothing was written).
    #[serde(rename_all = "camelCase")]
    CompactionEnd {
        /// Why it ran.
        reason: crate::CompactionReason,
        /// The entry written, with the estimated tokens after compacting.
        result: Option<crate::Compacted>,
        /// Why nothing was written.
        error: Option<String>,
        /// Whether the failed request is sent again (an overflow compaction that worked).
        will_retry: bool,
    },
    /// The queued steering or follow-up messages changed (one was queued, delivered or
    /// cleared): the text of every message still queued, oldest first (Pi's `queue_update`).
    #[serde(rename_all = "camelCase")]
    QueueUpdate {
        /// The steering messages.
        steering: Vec<String>,
        /// The follow-up messages.
        follow_up: Vec<String>,
    },
    /// A response failed with a transient error (overloaded, rate limit, 5xx, a dropped
    /// connection) and is asked for again after a pause (Pi's automatic retry).
    #[serde(rename_all = "camelCase")]
    AutoRetryStart {
        /// Which retry this is, from 1.
        attempt: u32,
        /// The most retries.
        max_attempts: u32,
        /// The pause before it, in milliseconds.
        delay_ms: u64,
        /// The error retried.
        error_message: String,
    },
    /// The retries ended: a response came (`success`), or the last failed or was cancelled.
    #[serde(rename_all = "camelCase")]
    AutoRetryEnd {
        /// Whether a response came.
        success: bool,
        /// How many retries were made.
        attempt: u32,
        /// The error that ended them.
        #[serde(skip_serializing_if = "Option::is_none")]
        final_error: Option<String>,
    },
}

impl AgentEvent {
    /// The event's `type`, e.g. `tool_execution_end`.
    pub fn kind(&self) -> &'static str {
        match self {
            AgentEvent::AgentStart => "agent_start",
            AgentEvent::AgentEnd { .. } => "agent_end",
            AgentEvent::TurnStart => "turn_start",
            AgentEvent::TurnEnd { .. } => "turn_end",
            AgentEvent::MessageStart { .. } => "message_start",
            AgentEvent::MessageUpdate { .. } => "message_update",
            AgentEvent::MessageEnd { .. } => "message_end",
            AgentEvent::ToolExecutionStart { .. } => "tool_execution_start",
            AgentEvent::ToolExecutionUpdate { .. } => "tool_execution_update",
            AgentEvent::ToolExecutionEnd { .. } => "tool_execution_end",
            #[cfg(feature = "approvals")]
            AgentEvent::ApprovalDecision(_) => "approval_decision",
            AgentEvent::CompactionStart { .. } => "compaction_start",
            AgentEvent::CompactionEnd { .. } => "compaction_end",
            AgentEvent::QueueUpdate { .. } => "queue_update",
            AgentEvent::AutoRetryStart { .. } => "auto_retry_start",
            AgentEvent::AutoRetryEnd { .. } => "auto_retry_end",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_event_stays_small() {
        // The emitter's channel holds events in blocks of slots of this size: the loop pays
        // it for every event of every turn (docs/benchmarks.md, bytes per turn).
        let size = std::mem::size_of::<AgentEvent>();
        assert!(size <= 144, "{size} bytes");
    }
}
