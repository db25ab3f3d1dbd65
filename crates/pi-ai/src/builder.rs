//! Assembling a streamed response into its message, in linear time.

use pi_tool::now_millis;
use serde_json::Value;

use crate::{AssistantContent, AssistantMessage, AssistantMessageEvent, StopReason};

/// What [`AssistantMessageBuilder::take`] keeps of a response's text, thinking and arguments
/// before its final event: only a stream that ends without one (a provider bug) needs it, and
/// the final event brings the whole message, so a long answer is not held a second time here.
pub const PARTIAL_KEPT_BYTES: usize = 1 << 20;

/// Folds [`AssistantMessageEvent`]s into the message they describe.
///
/// Tool-call argument fragments are not parsed here: the provider's `toolcall_end` carries the
/// call its [`StreamAssembler`](crate::StreamAssembler) parsed once, and the builder takes it
/// from there (the deltas are for display).
#[derive(Debug, Clone)]
pub struct AssistantMessageBuilder {
    message: AssistantMessage,
    finished: bool,
    /// Bytes of text, thinking and arguments [`Self::take`] kept so far.
    kept: usize,
    /// Whether [`Self::take`] let some go (past [`PARTIAL_KEPT_BYTES`]).
    cut: bool,
}

impl AssistantMessageBuilder {
    /// Starts from a `start` event's partial message.
    pub fn new(partial: AssistantMessage) -> Self {
        Self {
            message: partial,
            finished: false,
            kept: 0,
            cut: false,
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
            AssistantMessageEvent::Start { partial } => {
                self.message = AssistantMessage::clone(partial)
            }
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
                // The deltas already built this text: a second copy of a long answer is only
                // made when they did not.
                let same = matches!(
                    self.message.content.get(*content_index),
                    Some(AssistantContent::Text { text, .. }) if text == content
                );
                if !same {
                    self.put(*content_index, AssistantContent::text(content.clone()));
                }
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
                let same = matches!(
                    self.message.content.get(*content_index),
                    Some(AssistantContent::Thinking { thinking, .. }) if thinking == content
                );
                if !same {
                    self.put(*content_index, thinking(content.clone()));
                }
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
            // The final message replaces everything: what was built is let go before the copy
            // is made, so a long response is not held three times at once.
            AssistantMessageEvent::Done { message, .. } => {
                self.message.content = Vec::new();
                self.message = AssistantMessage::clone(message);
                self.finished = true;
            }
            AssistantMessageEvent::Error { error, .. } => {
                self.message.content = Vec::new();
                self.message = AssistantMessage::clone(error);
                self.finished = true;
            }
        }
    }

    /// Applies an event the builder may keep: `done` and `error` carry the final message, which
    /// is taken as it is instead of copied (a long answer is then never held twice); any other
    /// event is applied and handed back, for the caller to pass on.
    pub fn take(&mut self, event: AssistantMessageEvent) -> Option<AssistantMessageEvent> {
        match event {
            AssistantMessageEvent::Done { message, .. }
            | AssistantMessageEvent::Error { error: message, .. } => {
                self.message = *message;
                self.finished = true;
                None
            }
            AssistantMessageEvent::Start { partial } => {
                self.message = *partial;
                None
            }
            other => {
                self.keep(&other);
                Some(other)
            }
        }
    }

    /// [`Self::apply`] within [`PARTIAL_KEPT_BYTES`]: text, thinking and arguments past it are
    /// let go (the final event brings them).
    fn keep(&mut self, event: &AssistantMessageEvent) {
        let size = match event {
            AssistantMessageEvent::TextDelta { delta, .. }
            | AssistantMessageEvent::ThinkingDelta { delta, .. } => delta.len(),
            AssistantMessageEvent::TextEnd {
                content_index,
                content,
            } => match self.message.content.get(*content_index) {
                Some(AssistantContent::Text { text, .. }) if text == content => 0,
                _ => content.len(),
            },
            AssistantMessageEvent::ThinkingEnd {
                content_index,
                content,
            } => match self.message.content.get(*content_index) {
                Some(AssistantContent::Thinking { thinking, .. }) if thinking == content => 0,
                _ => content.len(),
            },
            AssistantMessageEvent::ToolCallEnd { tool_call, .. } => {
                crate::json_size::json_len(&tool_call.arguments)
            }
            _ => 0,
        };
        if self.cut || self.kept.saturating_add(size) > PARTIAL_KEPT_BYTES {
            self.cut |= size > 0;
            // Blocks still open and close where they would, so the indexes stay right.
            match event {
                AssistantMessageEvent::TextDelta { .. }
                | AssistantMessageEvent::ThinkingDelta { .. }
                | AssistantMessageEvent::TextEnd { .. }
                | AssistantMessageEvent::ThinkingEnd { .. } => {}
                AssistantMessageEvent::ToolCallEnd {
                    content_index,
                    tool_call,
                } => self.put(
                    *content_index,
                    AssistantContent::tool_call(
                        tool_call.id.clone(),
                        tool_call.name.clone(),
                        Value::Object(Default::default()),
                    ),
                ),
                other => self.apply(other),
            }
            return;
        }
        self.kept += size;
        self.apply(event);
    }

    /// The final message. A stream that ended without `done` or `error` (a provider bug) gives
    /// the message so far, marked as an error, so the loop still has something to record (with
    /// [`Self::take`], its first [`PARTIAL_KEPT_BYTES`], and the error says so).
    pub fn finish(mut self) -> AssistantMessage {
        if !self.finished {
            self.message.stop_reason = StopReason::Error;
            let cut = if self.cut {
                " (what arrived past the first 1 MiB was not kept)"
            } else {
                ""
            };
            self.message.error_message = Some(format!(
                "the provider's stream ended without a final event{cut}"
            ));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AssistantMessage, Usage};

    fn empty() -> AssistantMessage {
        AssistantMessage {
            content: Vec::new(),
            api: "api".into(),
            provider: "p".into(),
            model: "m".into(),
            usage: Usage::default(),
            stop_reason: StopReason::Stop,
            error_message: None,
            timestamp: 0,
            response_id: None,
        }
    }

    #[test]
    fn a_block_end_wins_over_deltas_that_disagree_and_done_replaces_all() {
        let mut builder = AssistantMessageBuilder::new(empty());
        builder.apply(&AssistantMessageEvent::TextStart { content_index: 0 });
        builder.apply(&AssistantMessageEvent::TextDelta {
            content_index: 0,
            delta: "ab".into(),
        });
        builder.apply(&AssistantMessageEvent::TextEnd {
            content_index: 0,
            content: "ab".into(),
        });
        assert_eq!(builder.message().text(), "ab");
        builder.apply(&AssistantMessageEvent::ThinkingStart { content_index: 1 });
        builder.apply(&AssistantMessageEvent::ThinkingDelta {
            content_index: 1,
            delta: "h".into(),
        });
        builder.apply(&AssistantMessageEvent::ThinkingEnd {
            content_index: 1,
            content: "hmm".into(),
        });
        assert!(matches!(
            &builder.message().content[1],
            AssistantContent::Thinking { thinking, .. } if thinking == "hmm"
        ));
        let mut done = empty();
        done.content.push(AssistantContent::text("final"));
        builder.apply(&AssistantMessageEvent::done(StopReason::Stop, done.clone()));
        assert!(builder.is_finished());
        assert_eq!(builder.finish(), done);
    }

    #[test]
    fn take_keeps_the_final_message_and_hands_back_the_rest() {
        let mut builder = AssistantMessageBuilder::new(empty());
        let mut started = empty();
        started.model = "started".into();
        assert!(
            builder
                .take(AssistantMessageEvent::start(started))
                .is_none()
        );
        assert_eq!(builder.message().model, "started");
        let delta = builder.take(AssistantMessageEvent::TextStart { content_index: 0 });
        assert_eq!(
            delta,
            Some(AssistantMessageEvent::TextStart { content_index: 0 })
        );
        assert!(!builder.is_finished());
        let failed = empty().with_error(StopReason::Error, "boom");
        assert!(
            builder
                .take(AssistantMessageEvent::error(
                    StopReason::Error,
                    failed.clone()
                ))
                .is_none()
        );
        assert_eq!(builder.finish(), failed);
    }

    fn text_events(builder: &mut AssistantMessageBuilder, text: &str) {
        builder.take(AssistantMessageEvent::TextStart { content_index: 0 });
        for piece in text.as_bytes().chunks(64 << 10) {
            let delta = String::from_utf8(piece.to_vec()).unwrap();
            builder.take(AssistantMessageEvent::TextDelta {
                content_index: 0,
                delta,
            });
        }
        builder.take(AssistantMessageEvent::TextEnd {
            content_index: 0,
            content: text.to_owned(),
        });
    }

    #[test]
    fn take_keeps_no_second_copy_of_a_long_answer_and_done_brings_all_of_it() {
        let text = "x".repeat(4 * PARTIAL_KEPT_BYTES);
        let mut builder = AssistantMessageBuilder::new(empty());
        text_events(&mut builder, &text);
        let kept: usize = builder
            .message()
            .content
            .iter()
            .map(|block| match block {
                AssistantContent::Text { text, .. } => text.len(),
                _ => 0,
            })
            .sum();
        assert!(
            kept <= PARTIAL_KEPT_BYTES,
            "{kept} bytes kept before the final event"
        );
        let mut done = empty();
        done.content = vec![AssistantContent::text(text.clone())];
        builder.take(AssistantMessageEvent::done(StopReason::Stop, done.clone()));
        assert_eq!(builder.finish(), done);
    }

    #[test]
    fn a_stream_without_a_final_event_keeps_its_first_mebibyte_and_says_so() {
        let mut builder = AssistantMessageBuilder::new(empty());
        text_events(&mut builder, &"y".repeat(2 * PARTIAL_KEPT_BYTES));
        let message = builder.finish();
        assert_eq!(message.stop_reason, StopReason::Error);
        assert!(
            matches!(&message.content[..], [AssistantContent::Text { text, .. }]
            if text.len() == PARTIAL_KEPT_BYTES)
        );
        let error = message.error_message.unwrap();
        assert!(
            error.contains("without a final event") && error.contains("1 MiB"),
            "{error}"
        );
        // Short: kept whole, and nothing said about a cut.
        let mut builder = AssistantMessageBuilder::new(empty());
        text_events(&mut builder, "short");
        let message = builder.finish();
        assert!(
            matches!(&message.content[..], [AssistantContent::Text { text, .. }] if text == "short")
        );
        assert!(!message.error_message.unwrap().contains("MiB"));
    }
}
