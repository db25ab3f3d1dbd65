//! A whole assistant message as the event stream a provider would have sent for it.

use pi_tool::{ToolCall, now_millis};

use crate::{AssistantContent, AssistantMessage, AssistantMessageEvent, StopReason};

/// Splits text into chunks of `size` characters.
fn chunks(text: &str, size: usize) -> Vec<String> {
    let characters: Vec<char> = text.chars().collect();
    characters
        .chunks(size)
        .map(|chunk| chunk.iter().collect())
        .collect()
}

/// Which kind of text block is streaming.
#[derive(Clone, Copy)]
enum TextKind {
    Text,
    Thinking,
}

/// Start, chunked deltas and end of one text or thinking block.
fn stream_text(
    events: &mut Vec<AssistantMessageEvent>,
    kind: TextKind,
    content_index: usize,
    text: &str,
    size: usize,
) {
    events.push(match kind {
        TextKind::Text => AssistantMessageEvent::TextStart { content_index },
        TextKind::Thinking => AssistantMessageEvent::ThinkingStart { content_index },
    });
    events.extend(chunks(text, size).into_iter().map(|delta| match kind {
        TextKind::Text => AssistantMessageEvent::TextDelta {
            content_index,
            delta,
        },
        TextKind::Thinking => AssistantMessageEvent::ThinkingDelta {
            content_index,
            delta,
        },
    }));
    let content = text.to_owned();
    events.push(match kind {
        TextKind::Text => AssistantMessageEvent::TextEnd {
            content_index,
            content,
        },
        TextKind::Thinking => AssistantMessageEvent::ThinkingEnd {
            content_index,
            content,
        },
    });
}

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
    mut response: AssistantMessage,
    chunk_chars: usize,
) -> Vec<AssistantMessageEvent> {
    let size = chunk_chars.max(1);
    response.timestamp = now_millis();
    let mut partial = response.clone();
    partial.content.clear();
    let mut events = vec![AssistantMessageEvent::Start { partial }];
    for (index, block) in response.content.iter().enumerate() {
        match block {
            AssistantContent::Text { text, .. } => {
                stream_text(&mut events, TextKind::Text, index, text, size)
            }
            AssistantContent::Thinking { thinking, .. } => {
                stream_text(&mut events, TextKind::Thinking, index, thinking, size)
            }
            AssistantContent::ToolCall {
                id,
                name,
                arguments,
                ..
            } => {
                events.push(AssistantMessageEvent::ToolCallStart {
                    content_index: index,
                    id: id.clone(),
                    name: name.clone(),
                });
                events.extend(
                    chunks(&arguments.to_string(), size)
                        .into_iter()
                        .map(|delta| AssistantMessageEvent::ToolCallDelta {
                            content_index: index,
                            delta,
                        }),
                );
                events.push(AssistantMessageEvent::ToolCallEnd {
                    content_index: index,
                    tool_call: ToolCall::new(id.clone(), name.clone(), arguments.clone()),
                });
            }
        }
    }
    let reason = response.stop_reason;
    events.push(match reason {
        StopReason::Error | StopReason::Aborted => AssistantMessageEvent::Error {
            reason,
            error: response,
        },
        _ => AssistantMessageEvent::Done {
            reason,
            message: response,
        },
    });
    events
}
