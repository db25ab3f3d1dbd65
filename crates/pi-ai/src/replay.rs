//! A whole assistant message as the event stream a provider would have sent for it.

use pi_tool::{ToolCall, now_millis};

use crate::{AssistantContent, AssistantMessage, AssistantMessageEvent, StopReason};

/// The events that stream a whole `response`: `start`, each block's start, deltas of at most
/// `chunk_chars` characters (tool arguments as JSON text fragments) and end, then `done` (or
/// `error` for a message that ended in `error` or `aborted`). What a custom provider that gets
/// whole messages (a cache, a replay, a non-streaming API) needs to speak the event protocol.
///
/// ```
/// use pi_ai::{AssistantContent, AssistantMessage, AssistantMessageBuilder, ModelInfo, message_events};
///
/// let model = ModelInfo { api: "cache".into(), provider: "me".into(), model: "m".into() };
/// let message = AssistantMessage::new(&model, vec![AssistantContent::text("Hello there")]);
/// let events = message_events(message.clone(), 4);
/// let mut builder = AssistantMessageBuilder::new(message.clone());
/// events.iter().for_each(|event| builder.apply(event));
/// assert_eq!(builder.finish().text(), "Hello there");
/// ```
pub fn message_events(
    response: AssistantMessage,
    chunk_chars: usize,
) -> Vec<AssistantMessageEvent> {
    MessageEvents::new(response, chunk_chars).collect()
}

/// [`message_events`] one event at a time: a replayed response is streamed without first
/// building every event (each would hold its own copy of the text it carries).
#[derive(Debug)]
pub struct MessageEvents {
    /// The whole response, stamped now; moved into the final event.
    response: Option<AssistantMessage>,
    chunk_chars: usize,
    /// The next block to stream, and where in it.
    block: usize,
    step: Step,
}

/// Where the stream is within the current block.
#[derive(Debug)]
enum Step {
    /// Nothing sent yet: `start` comes next.
    Start,
    /// The block's start event comes next.
    BlockStart,
    /// Deltas of the block's text from byte `at`; `arguments` is a tool call's arguments as
    /// JSON text (a text or thinking block is read where it is).
    Deltas {
        arguments: Option<String>,
        at: usize,
    },
    /// The block's end event comes next.
    BlockEnd,
    /// Every event was sent.
    Finished,
}

impl MessageEvents {
    /// The events of `response`, in chunks of at most `chunk_chars` characters (at least 1).
    pub fn new(mut response: AssistantMessage, chunk_chars: usize) -> Self {
        response.timestamp = now_millis();
        Self {
            response: Some(response),
            chunk_chars: chunk_chars.max(1),
            block: 0,
            step: Step::Start,
        }
    }

    /// The message as its `start` announced it (no content), for a stream cut off early.
    pub fn started(&self) -> Option<AssistantMessage> {
        self.response.as_ref().map(without_content)
    }

    fn block(&self) -> Option<&AssistantContent> {
        self.response.as_ref()?.content.get(self.block)
    }

    /// The final event, moving the response into it.
    fn finish(&mut self) -> Option<AssistantMessageEvent> {
        self.step = Step::Finished;
        let response = self.response.take()?;
        let reason = response.stop_reason;
        Some(match reason {
            StopReason::Error | StopReason::Aborted => {
                AssistantMessageEvent::error(reason, response)
            }
            _ => AssistantMessageEvent::done(reason, response),
        })
    }
}

impl Iterator for MessageEvents {
    type Item = AssistantMessageEvent;

    fn next(&mut self) -> Option<AssistantMessageEvent> {
        loop {
            let content_index = self.block;
            match std::mem::replace(&mut self.step, Step::Finished) {
                Step::Finished => return None,
                Step::Start => {
                    self.step = Step::BlockStart;
                    let partial = without_content(self.response.as_ref()?);
                    return Some(AssistantMessageEvent::start(partial));
                }
                Step::BlockStart => {
                    let Some(block) = self.block() else {
                        return self.finish();
                    };
                    let (event, arguments) = match block {
                        AssistantContent::Text { .. } => {
                            (AssistantMessageEvent::TextStart { content_index }, None)
                        }
                        AssistantContent::Thinking { .. } => {
                            (AssistantMessageEvent::ThinkingStart { content_index }, None)
                        }
                        AssistantContent::ToolCall {
                            id,
                            name,
                            arguments,
                            ..
                        } => (
                            AssistantMessageEvent::ToolCallStart {
                                content_index,
                                id: id.clone(),
                                name: name.clone(),
                            },
                            Some(arguments.to_string()),
                        ),
                    };
                    self.step = Step::Deltas { arguments, at: 0 };
                    return Some(event);
                }
                Step::Deltas { arguments, at } => {
                    let text = match (&arguments, self.block()) {
                        (Some(arguments), _) => arguments.as_str(),
                        (None, Some(AssistantContent::Text { text, .. })) => text.as_str(),
                        (None, Some(AssistantContent::Thinking { thinking, .. })) => {
                            thinking.as_str()
                        }
                        _ => "",
                    };
                    let rest = text.get(at..).unwrap_or_default();
                    if rest.is_empty() {
                        self.step = Step::BlockEnd;
                        continue;
                    }
                    let size = rest
                        .char_indices()
                        .nth(self.chunk_chars)
                        .map_or(rest.len(), |(end, _)| end);
                    let delta = rest.get(..size).unwrap_or_default().to_owned();
                    self.step = Step::Deltas {
                        at: at + size,
                        arguments,
                    };
                    return Some(match self.block() {
                        Some(AssistantContent::Text { .. }) => AssistantMessageEvent::TextDelta {
                            content_index,
                            delta,
                        },
                        Some(AssistantContent::Thinking { .. }) => {
                            AssistantMessageEvent::ThinkingDelta {
                                content_index,
                                delta,
                            }
                        }
                        _ => AssistantMessageEvent::ToolCallDelta {
                            content_index,
                            delta,
                        },
                    });
                }
                Step::BlockEnd => {
                    self.step = Step::BlockStart;
                    self.block += 1;
                    return match self.response.as_ref()?.content.get(content_index)? {
                        AssistantContent::Text { text, .. } => {
                            Some(AssistantMessageEvent::TextEnd {
                                content_index,
                                content: text.clone(),
                            })
                        }
                        AssistantContent::Thinking { thinking, .. } => {
                            Some(AssistantMessageEvent::ThinkingEnd {
                                content_index,
                                content: thinking.clone(),
                            })
                        }
                        AssistantContent::ToolCall {
                            id,
                            name,
                            arguments,
                            ..
                        } => Some(AssistantMessageEvent::ToolCallEnd {
                            content_index,
                            tool_call: ToolCall::new(id.clone(), name.clone(), arguments.clone()),
                        }),
                    };
                }
            }
        }
    }
}

/// `message` without its content (what a stream's `start` announces).
fn without_content(message: &AssistantMessage) -> AssistantMessage {
    AssistantMessage {
        content: Vec::new(),
        api: message.api.clone(),
        provider: message.provider.clone(),
        model: message.model.clone(),
        usage: message.usage,
        stop_reason: message.stop_reason,
        error_message: message.error_message.clone(),
        timestamp: message.timestamp,
        response_id: message.response_id.clone(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::{AssistantMessageBuilder, ModelInfo};
    use serde_json::json;

    fn message(content: Vec<AssistantContent>) -> AssistantMessage {
        let model = ModelInfo {
            api: "a".into(),
            provider: "p".into(),
            model: "m".into(),
        };
        AssistantMessage::new(&model, content)
    }

    #[test]
    fn every_block_streams_in_chunks_of_whole_characters_and_rebuilds_the_message() {
        let original = message(vec![
            AssistantContent::Thinking {
                thinking: "hmm…".into(),
                thinking_signature: None,
                redacted: None,
            },
            AssistantContent::text("héllo wörld"),
            AssistantContent::tool_call("c1", "echo", json!({"value": "Pi"})),
        ]);
        let events = message_events(original.clone(), 4);
        let kinds: Vec<String> = events
            .iter()
            .map(|event| {
                serde_json::to_value(event).unwrap()["type"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "start",
                "thinking_start",
                "thinking_delta",
                "thinking_end",
                "text_start",
                "text_delta",
                "text_delta",
                "text_delta",
                "text_end",
                "toolcall_start",
                "toolcall_delta",
                "toolcall_delta",
                "toolcall_delta",
                "toolcall_delta",
                "toolcall_end",
                "done"
            ]
        );
        let deltas: Vec<&str> = events
            .iter()
            .filter_map(|event| match event {
                AssistantMessageEvent::TextDelta { delta, .. } => Some(delta.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(deltas, ["héll", "o wö", "rld"]);
        let mut builder = AssistantMessageBuilder::new(message(Vec::new()));
        events.iter().for_each(|event| builder.apply(event));
        let mut rebuilt = builder.finish();
        rebuilt.timestamp = original.timestamp;
        assert_eq!(rebuilt, original);
    }

    #[test]
    fn a_failed_message_ends_in_error() {
        let failed =
            message(vec![AssistantContent::text("ab")]).with_error(StopReason::Error, "boom");
        let mut events = MessageEvents::new(failed, 1);
        let started = events.started().unwrap();
        assert!(started.content.is_empty());
        assert_eq!(started.model, "m");
        let last = events.by_ref().last().unwrap();
        assert!(
            matches!(last, AssistantMessageEvent::Error { error, .. } if error.error_message.as_deref() == Some("boom"))
        );
        assert!(events.started().is_none());
    }

    #[test]
    fn a_message_without_content_is_start_then_done() {
        let events = message_events(message(Vec::new()), 4);
        assert!(matches!(events[0], AssistantMessageEvent::Start { .. }));
        assert!(matches!(events[1], AssistantMessageEvent::Done { .. }));
        assert_eq!(events.len(), 2);
    }
}
