//! A transcript made ready for the model it is sent to, whichever model wrote it.
//!
//! - Thinking another model wrote becomes plain text (its signature means nothing here), and
//!   foreign signatures on text and tool calls are dropped.
//! - A tool call without a result (a run cut short) gets an `isError` result saying so: every
//!   wire refuses a call left unanswered.
//!
//! Messages that need no change are borrowed, not copied: a transcript can hold hundreds of MiB
//! of tool-call arguments and results, and a request already writes it out once.

use std::borrow::Cow;

use pi_ai::{AssistantContent, Message, ModelInfo};
use pi_tool::{ArcStr, ToolResultMessage, text};

/// What the model reads about a call that never got a result.
pub(crate) const NO_RESULT: &str = "No result provided";

/// `messages` ready for `model` (its signatures are valid only for the same model of the same
/// provider on the same wire, as Pi judges it).
pub(crate) fn prepare<'a>(messages: &'a [Message], model: &ModelInfo) -> Vec<Cow<'a, Message>> {
    let mut out: Vec<Cow<'a, Message>> = Vec::with_capacity(messages.len());
    let mut waiting: Vec<(ArcStr, ArcStr)> = Vec::new();
    for message in messages {
        match message {
            Message::Assistant(assistant) => {
                answer_missing(&mut out, &mut waiting);
                waiting = assistant
                    .content
                    .iter()
                    .filter_map(|block| match block {
                        AssistantContent::ToolCall { id, name, .. } => {
                            Some((id.clone(), name.clone()))
                        }
                        _ => None,
                    })
                    .collect();
                if assistant.api == model.api
                    && assistant.provider == model.provider
                    && assistant.model == model.model
                {
                    out.push(Cow::Borrowed(message));
                    continue;
                }
                let mut foreign = assistant.clone();
                foreign.content = foreign
                    .content
                    .into_iter()
                    .map(|block| match block {
                        AssistantContent::Thinking { thinking, .. } => {
                            AssistantContent::text(thinking)
                        }
                        AssistantContent::Text { text, .. } => AssistantContent::text(text),
                        AssistantContent::ToolCall {
                            id,
                            name,
                            arguments,
                            ..
                        } => AssistantContent::tool_call(id, name, arguments),
                    })
                    .collect();
                out.push(Cow::Owned(Message::Assistant(foreign)));
            }
            Message::ToolResult(result) => {
                waiting.retain(|(id, _)| id != &result.tool_call_id);
                out.push(Cow::Borrowed(message));
            }
            Message::User(_) => {
                answer_missing(&mut out, &mut waiting);
                out.push(Cow::Borrowed(message));
            }
        }
    }
    answer_missing(&mut out, &mut waiting);
    out
}

fn answer_missing(out: &mut Vec<Cow<'_, Message>>, waiting: &mut Vec<(ArcStr, ArcStr)>) {
    for (id, name) in waiting.drain(..) {
        out.push(Cow::Owned(Message::ToolResult(ToolResultMessage {
            tool_call_id: id,
            tool_name: name,
            content: vec![text(NO_RESULT)],
            details: None,
            is_error: true,
            timestamp: pi_tool::now_millis(),
        })));
    }
}

#[cfg(test)]
mod tests {
    use pi_ai::{AssistantMessage, StopReason, Usage, UserMessage};
    use serde_json::json;

    use super::*;

    #[test]
    fn foreign_thinking_becomes_text_and_unanswered_calls_are_answered() {
        let assistant = AssistantMessage {
            content: vec![
                AssistantContent::Thinking {
                    thinking: "hmm".into(),
                    thinking_signature: Some("sig".into()),
                    redacted: None,
                },
                AssistantContent::tool_call("c1", "f", json!({})),
            ],
            api: "anthropic-messages".into(),
            provider: "anthropic".into(),
            model: "m".into(),
            usage: Usage::default(),
            stop_reason: StopReason::ToolUse,
            error_message: None,
            timestamp: 0,
            response_id: None,
        };
        let messages = vec![
            Message::User(UserMessage::text("go")),
            Message::Assistant(assistant),
            Message::User(UserMessage::text("again")),
        ];
        let model = ModelInfo {
            api: "openai-completions".into(),
            provider: "openai".into(),
            model: "m".into(),
        };
        let prepared = prepare(&messages, &model);
        assert_eq!(prepared.len(), 4);
        let Message::Assistant(first) = &*prepared[1] else {
            panic!()
        };
        assert_eq!(first.content[0], AssistantContent::text("hmm"));
        let Message::ToolResult(result) = &*prepared[2] else {
            panic!()
        };
        assert_eq!(
            (result.tool_call_id.as_str(), result.is_error),
            ("c1", true)
        );
    }
}
