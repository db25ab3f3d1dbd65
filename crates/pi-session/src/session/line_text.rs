//! A typed entry written as its line: long ones into a buffer of their exact size.
//!
//! `serde_json::to_string` grows its buffer by doubling, and each growth copies what is
//! written: while a 256 MiB message is written, 512 MiB are resident at the moment of the last
//! copy. Counting the bytes first (a second pass that allocates nothing) lets the line be
//! written once where it stays. Short lines, nearly every one, are written in one pass: the
//! count is only worth it when the message is long.

use pi_ai::{AssistantContent, Message, UserContent};
use pi_tool::Content;
use serde::Serialize;
use serde_json::Value;

/// From this many bytes of text in a message, its line is counted before it is written.
const COUNTED_FROM: usize = 1 << 20;

/// Whether `message` is long enough for its line to be counted (or streamed) rather than
/// written into a growing buffer.
pub(super) fn is_long(message: &Message) -> bool {
    text_bytes(message) >= COUNTED_FROM
}

/// `line` as JSON text; `message` is the message it holds (for its size).
pub(super) fn line_text<T: Serialize>(line: &T, message: &Message) -> serde_json::Result<String> {
    if !is_long(message) {
        return serde_json::to_string(line);
    }
    // Counting fails where writing would: the write below says why.
    let size = pi_ai::serialized_len(line).unwrap_or_else(|counted| counted);
    let mut bytes = Vec::with_capacity(size);
    serde_json::to_writer(&mut bytes, line)?;
    // serde_json writes UTF-8 only; were that ever not so, the checked conversion says so.
    String::from_utf8(bytes).map_err(|error| serde::ser::Error::custom(error.utf8_error()))
}

/// At least the bytes a message's text takes (text, thinking, result text, and the strings at
/// the top of each call's arguments): cheap, and enough to tell a long message from a short one.
fn text_bytes(message: &Message) -> usize {
    let content = |blocks: &[Content]| -> usize {
        blocks
            .iter()
            .map(|block| match block {
                Content::Text { text, .. } => text.len(),
                Content::Image { data, .. } => data.len(),
            })
            .sum()
    };
    match message {
        Message::User(user) => match &user.content {
            UserContent::Text(text) => text.len(),
            UserContent::Blocks(blocks) => content(blocks),
        },
        Message::Assistant(assistant) => assistant
            .content
            .iter()
            .map(|block| match block {
                AssistantContent::Text { text, .. } => text.len(),
                AssistantContent::Thinking { thinking, .. } => thinking.len(),
                AssistantContent::ToolCall { arguments, .. } => {
                    arguments.as_object().map_or(0, |object| {
                        object
                            .values()
                            .filter_map(Value::as_str)
                            .map(str::len)
                            .sum()
                    })
                }
            })
            .sum(),
        Message::ToolResult(result) => content(&result.content),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_ai::{AssistantMessage, ModelInfo, UserMessage};

    fn model() -> ModelInfo {
        ModelInfo {
            api: "api".into(),
            provider: "provider".into(),
            model: "model".into(),
        }
    }

    #[test]
    fn a_long_message_is_written_at_its_exact_size_and_as_serde_json_writes_it() {
        let long = Message::Assistant(AssistantMessage::new(
            &model(),
            vec![
                AssistantContent::text("x".repeat(COUNTED_FROM)),
                AssistantContent::tool_call(
                    "c1",
                    "echo",
                    serde_json::json!({"value": "\"quoted\"\n"}),
                ),
            ],
        ));
        let text = line_text(&long, &long).unwrap();
        assert_eq!(text, serde_json::to_string(&long).unwrap());
        assert_eq!(text.capacity(), text.len());
        let short = Message::User(UserMessage::text("hi"));
        assert_eq!(
            line_text(&short, &short).unwrap(),
            serde_json::to_string(&short).unwrap()
        );
    }

    #[test]
    fn the_size_counts_text_thinking_results_and_argument_strings() {
        let call = AssistantContent::tool_call(
            "c1",
            "write",
            serde_json::json!({"path": "a", "content": "bcd", "n": 5}),
        );
        let assistant = Message::Assistant(AssistantMessage::new(
            &model(),
            vec![AssistantContent::text("12345"), call],
        ));
        assert_eq!(text_bytes(&assistant), 5 + 1 + 3);
        assert_eq!(text_bytes(&Message::User(UserMessage::text("abc"))), 3);
    }
}
