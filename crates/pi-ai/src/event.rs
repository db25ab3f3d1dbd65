//! The events a provider streams while a model answers.

use pi_tool::{ArcStr, ToolCall};
use serde::{Deserialize, Serialize};

use crate::{AssistantMessage, StopReason};

/// One event of a streamed assistant response, Pi's `AssistantMessageEvent`.
///
/// Deltas carry only what is new (no snapshot of the whole message), so streaming stays linear;
/// [`AssistantMessageBuilder`](crate::AssistantMessageBuilder) assembles them. The stream always
/// ends with exactly one `done` or `error`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AssistantMessageEvent {
    /// The response began; `partial` has the model information and no content yet.
    Start {
        /// The message as it starts.
        partial: AssistantMessage,
    },
    /// A text block began.
    #[serde(rename_all = "camelCase")]
    TextStart {
        /// Its position in `content`.
        content_index: usize,
    },
    /// More text.
    #[serde(rename_all = "camelCase")]
    TextDelta {
        /// Its position in `content`.
        content_index: usize,
        /// The new text.
        delta: String,
    },
    /// A text block ended.
    #[serde(rename_all = "camelCase")]
    TextEnd {
        /// Its position in `content`.
        content_index: usize,
        /// The whole text.
        content: String,
    },
    /// A thinking block began.
    #[serde(rename_all = "camelCase")]
    ThinkingStart {
        /// Its position in `content`.
        content_index: usize,
    },
    /// More thinking.
    #[serde(rename_all = "camelCase")]
    ThinkingDelta {
        /// Its position in `content`.
        content_index: usize,
        /// The new text.
        delta: String,
    },
    /// A thinking block ended.
    #[serde(rename_all = "camelCase")]
    ThinkingEnd {
        /// Its position in `content`.
        content_index: usize,
        /// The whole text.
        content: String,
    },
    /// A tool call began.
    #[serde(rename = "toolcall_start", rename_all = "camelCase")]
    ToolCallStart {
        /// Its position in `content`.
        content_index: usize,
        /// The call id.
        id: ArcStr,
        /// The tool name.
        name: ArcStr,
    },
    /// More of the arguments' JSON text (a fragment, not valid JSON by itself).
    #[serde(rename = "toolcall_delta", rename_all = "camelCase")]
    ToolCallDelta {
        /// Its position in `content`.
        content_index: usize,
        /// The new fragment.
        delta: String,
    },
    /// A tool call ended, with its parsed arguments.
    #[serde(rename = "toolcall_end", rename_all = "camelCase")]
    ToolCallEnd {
        /// Its position in `content`.
        content_index: usize,
        /// The whole call.
        tool_call: ToolCall,
    },
    /// The response ended normally (`stop`, `length` or `toolUse`).
    Done {
        /// Why.
        reason: StopReason,
        /// The complete message.
        message: AssistantMessage,
    },
    /// The response failed (`error` or `aborted`); `error` is the message so far, with its
    /// `errorMessage`.
    Error {
        /// Why.
        reason: StopReason,
        /// The message as it ended.
        error: AssistantMessage,
    },
}
