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
        /// The message as it starts (boxed, as `Done`'s).
        partial: Box<AssistantMessage>,
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
        /// The complete message (boxed: it is most of an event's size, and every event of a
        /// stream, a delta too, is as large as the largest kind).
        message: Box<AssistantMessage>,
    },
    /// The response failed (`error` or `aborted`); `error` is the message so far, with its
    /// `errorMessage`.
    Error {
        /// Why.
        reason: StopReason,
        /// The message as it ended (boxed, as `Done`'s).
        error: Box<AssistantMessage>,
    },
}

impl AssistantMessageEvent {
    /// The response began with `partial`.
    pub fn start(partial: AssistantMessage) -> Self {
        Self::Start {
            partial: Box::new(partial),
        }
    }

    /// The response ended normally with `message`.
    pub fn done(reason: StopReason, message: AssistantMessage) -> Self {
        Self::Done {
            reason,
            message: Box::new(message),
        }
    }

    /// The response failed; `message` is what arrived, with its `errorMessage`.
    pub fn error(reason: StopReason, message: AssistantMessage) -> Self {
        Self::Error {
            reason,
            error: Box::new(message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_the_size_of_a_delta_not_of_a_message() {
        // Every event of a stream, and every slot of the channels that carry them, is as
        // large as the largest kind: the messages of `start`, `done` and `error` are boxed so
        // that the many deltas do not each take a whole message's room.
        let event = std::mem::size_of::<AssistantMessageEvent>();
        let message = std::mem::size_of::<AssistantMessage>();
        assert!(event <= 104, "{event} bytes");
        assert!(
            event < message / 2,
            "{event} bytes beside a message's {message}"
        );
    }
}
