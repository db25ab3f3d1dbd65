//! Assembling a streamed response into its message, in linear time.

use pi_tool::now_millis;
use serde_json::Value;

use crate::{AssistantContent, AssistantMessage, AssistantMessageEvent, StopReason};

/// Folds [`AssistantMessageEvent`]s into the message they describe.
///
/// Tool-call argument fragments are not parsed here: the provider's `toolcall_end` carries the
/// call its [`StreamAssembler`](crate::StreamAssembler) parsed once, and the builder takes it
/// from there (the deltas are for display).
#[derive(Debug, Clone)]
pub struct AssistantMessageBuilder {
    message: AssistantMessage,
    finished: bool,
}

impl AssistantMessageBuilder {
    /// Starts from a `start` event's partial message.
    pub fn new(partial: AssistantMessage) -> Self {
        Self {
            message: partial,
            finished: false,
        }
    }

    /// The message so far.
    pub fn message(&self) -> &AssistantMessage {
        &self.message
    }

    /// Whether a `done` or `error` event has arrived.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Applies one event.
    pub fn apply(&mut self, event: &AssistantMessageEvent) {
        match event {
            AssistantMessageEvent::Start { partial } => self.message = partial.clone(),
            AssistantMessageEvent::TextStart { content_index } => {
                self.put(*content_index, AssistantContent::text(""));
            }
            AssistantMessageEvent::TextDelta {
                content_index,
                delta,
            } => {
                if let Some(AssistantContent::Text { text, .. }) =
                    self.message.content.get_mut(*content_index)
                {
                    text.push_str(delta);
                }
            }
            AssistantMessageEvent::TextEnd {
                content_index,
                content,
            } => {
                self.put(*content_index, AssistantContent::text(content.clone()));
            }
            AssistantMessageEvent::ThinkingStart { content_index } => {
                self.put(*content_index, thinking(String::new()));
            }
            AssistantMessageEvent::ThinkingDelta {
                content_index,
                delta,
            } => {
                if let Some(AssistantContent::Thinking { thinking, .. }) =
                    self.message.content.get_mut(*content_index)
                {
                    thinking.push_str(delta);
                }
            }
            AssistantMessageEvent::ThinkingEnd {
                content_index,
                content,
            } => {
                self.put(*content_index, thinking(content.clone()));
            }
            AssistantMessageEvent::ToolCallStart {
                content_index,
                id,
                name,
            } => {
                self.put(
                    *content_index,
                    AssistantContent::tool_call(
                        id.clone(),
                        name.clone(),
                        Value::Object(Default::default()),
                    ),
                );
            }
            AssistantMessageEvent::ToolCallDelta { .. } => {}
            AssistantMessageEvent::ToolCallEnd {
                content_index,
                tool_call,
            } => {
                self.put(
                    *content_index,
                    AssistantContent::tool_call(
                        tool_call.id.clone(),
                        tool_call.name.clone(),
                        tool_call.arguments.clone(),
                    ),
                );
            }
            AssistantMessageEvent::Done { message, .. } => {
                self.message = message.clone();
                self.finished = true;
            }
            AssistantMessageEvent::Error { error, .. } => {
                self.message = error.clone();
                self.finished = true;
            }
        }
    }

    /// The final message. A stream that ended without `done` or `error` (a provider bug) gives
    /// the message so far, marked as an error, so the loop still has something to record.
    pub fn finish(mut self) -> AssistantMessage {
        if !self.finished {
            self.message.stop_reason = StopReason::Error;
            self.message.error_message =
                Some("the provider's stream ended without a final event".to_owned());
            self.message.timestamp = now_millis();
        }
        self.message
    }

    fn put(&mut self, index: usize, block: AssistantContent) {
        let content = &mut self.message.content;
        if index < content.len() {
            if let Some(slot) = content.get_mut(index) {
                *slot = block;
            }
        } else {
            // Providers number blocks densely from 0; tolerate gaps by appending.
            content.push(block);
        }
    }
}

fn thinking(text: String) -> AssistantContent {
    AssistantContent::Thinking {
        thinking: text,
        thinking_signature: None,
        redacted: None,
    }
}
