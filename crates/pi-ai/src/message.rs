//! The messages of a conversation, in Pi's shapes, and transcripts as JSONL.

use pi_tool::{ArcStr, Content, ToolCall, ToolResultMessage, now_millis};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Why an assistant message ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    /// The model finished.
    Stop,
    /// The output token limit cut the message off.
    Length,
    /// The model asked for tools.
    ToolUse,
    /// The request failed.
    Error,
    /// The request was cancelled.
    Aborted,
}

/// What a user says: a plain string or text and image blocks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum UserContent {
    /// `"content": "..."`.
    Text(String),
    /// `"content": [{"type":"text",...}, {"type":"image",...}]`.
    Blocks(Vec<Content>),
}

/// Read by the JSON type it finds (a string or an array), not as serde's `untagged` reads:
/// that first copies the whole value into a buffer and then tries each variant, which copied
/// every user message's text twice when a session was loaded.
impl<'de> Deserialize<'de> for UserContent {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor;

        impl<'de> serde::de::Visitor<'de> for ContentVisitor {
            type Value = UserContent;

            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("a string or an array of content blocks")
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<UserContent, E> {
                Ok(UserContent::Text(text.to_owned()))
            }

            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<UserContent, E> {
                Ok(UserContent::Text(text))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                blocks: A,
            ) -> Result<UserContent, A::Error> {
                let blocks = serde::de::value::SeqAccessDeserializer::new(blocks);
                Vec::deserialize(blocks).map(UserContent::Blocks)
            }
        }

        deserializer.deserialize_any(ContentVisitor)
    }
}

/// `{"role":"user","content":...,"timestamp":...}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename = "user")]
pub struct UserMessage {
    /// What the user says.
    pub content: UserContent,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
}

impl UserMessage {
    /// A user message with plain text, stamped now.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: UserContent::Text(text.into()),
            timestamp: now_millis(),
        }
    }

    /// The text the user wrote: the plain text, or the text blocks joined (images left out).
    pub fn plain_text(&self) -> String {
        match &self.content {
            UserContent::Text(text) => text.clone(),
            UserContent::Blocks(blocks) => blocks.iter().filter_map(Content::as_text).collect(),
        }
    }
}

/// One block of an assistant message, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum AssistantContent {
    /// `{"type":"text","text":...}`.
    #[serde(rename = "text", rename_all = "camelCase")]
    Text {
        /// The text.
        text: String,
        /// Opaque provider metadata.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text_signature: Option<String>,
    },
    /// `{"type":"thinking","thinking":...}`.
    #[serde(rename = "thinking", rename_all = "camelCase")]
    Thinking {
        /// The reasoning text.
        thinking: String,
        /// Opaque provider metadata.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thinking_signature: Option<String>,
        /// Whether the provider redacted it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        redacted: Option<bool>,
    },
    /// `{"type":"toolCall","id","name","arguments"}`.
    #[serde(rename = "toolCall", rename_all = "camelCase")]
    ToolCall {
        /// The provider's call id (shared with the call and its result, not copied).
        id: ArcStr,
        /// The tool's name.
        name: ArcStr,
        /// The arguments, as the model produced them.
        #[serde(default = "empty_object")]
        arguments: Value,
        /// Opaque provider metadata (Gemini).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thought_signature: Option<String>,
    },
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

impl AssistantContent {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text {
            text: text.into(),
            text_signature: None,
        }
    }

    /// A tool-call block.
    pub fn tool_call(id: impl Into<ArcStr>, name: impl Into<ArcStr>, arguments: Value) -> Self {
        Self::ToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
            thought_signature: None,
        }
    }
}

/// Token cost in dollars. A field missing from the JSON is 0: session files written by older
/// Pi versions lack some of them, and their conversations must still load.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Cost {
    /// Input tokens.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Cache reads.
    pub cache_read: f64,
    /// Cache writes.
    pub cache_write: f64,
    /// All of it.
    pub total: f64,
}

/// Token usage of one response. A field missing from the JSON is 0 (the cost: all zeros):
/// older Pi session files have no `totalTokens` or `cost`, and must still load.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Usage {
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Tokens read from the prompt cache.
    pub cache_read: u64,
    /// Tokens written to the prompt cache.
    pub cache_write: u64,
    /// All tokens.
    pub total_tokens: u64,
    /// What they cost.
    pub cost: Cost,
}

/// `{"role":"assistant","content":[...],"api","provider","model","usage","stopReason",...}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename = "assistant", rename_all = "camelCase")]
pub struct AssistantMessage {
    /// Text, thinking and tool-call blocks, in order.
    pub content: Vec<AssistantContent>,
    /// The wire API, e.g. `openai-completions`.
    pub api: String,
    /// The provider, e.g. `openai`.
    pub provider: String,
    /// The model id.
    pub model: String,
    /// Token usage.
    #[serde(default)]
    pub usage: Usage,
    /// Why it ended.
    pub stop_reason: StopReason,
    /// What went wrong, for `error` and `aborted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
    /// The provider's id of this response (`id` of an OpenAI chat completion or response,
    /// Anthropic's message id, Gemini's `responseId`), when the wire gives one. Last, as Pi
    /// writes it: Pi sets it once the stream names it, after the message was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
}

impl AssistantMessage {
    /// A finished message of `model` with `content`, stamped now: `stopReason` is `toolUse`
    /// when it holds tool calls, `stop` otherwise.
    ///
    /// ```
    /// use pi_ai::{AssistantContent, AssistantMessage, ModelInfo, StopReason};
    ///
    /// let model = ModelInfo { api: "faux".into(), provider: "faux".into(), model: "m".into() };
    /// let call = AssistantMessage::new(&model, vec![AssistantContent::tool_call("c1", "echo", serde_json::json!({"value": "Pi"}))]);
    /// assert_eq!(call.stop_reason, StopReason::ToolUse);
    /// let failed = AssistantMessage::new(&model, Vec::new()).with_error(StopReason::Error, "timed out");
    /// assert_eq!(failed.error_message.as_deref(), Some("timed out"));
    /// ```
    pub fn new(model: &crate::ModelInfo, content: Vec<AssistantContent>) -> Self {
        let stop_reason = if content
            .iter()
            .any(|block| matches!(block, AssistantContent::ToolCall { .. }))
        {
            StopReason::ToolUse
        } else {
            StopReason::Stop
        };
        Self {
            content,
            api: model.api.clone(),
            provider: model.provider.clone(),
            model: model.model.clone(),
            usage: Usage::default(),
            stop_reason,
            error_message: None,
            timestamp: now_millis(),
            response_id: None,
        }
    }

    /// The same message ended by a failure (`error` or `aborted`) with `message`.
    #[must_use]
    pub fn with_error(mut self, reason: StopReason, message: impl Into<String>) -> Self {
        self.stop_reason = reason;
        self.error_message = Some(message.into());
        self
    }

    /// The same message with `usage`.
    #[must_use]
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }

    /// The tool calls it holds, in order.
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        self.content
            .iter()
            .filter_map(|block| match block {
                AssistantContent::ToolCall {
                    id,
                    name,
                    arguments,
                    ..
                } => Some(ToolCall::new(id.clone(), name.clone(), arguments.clone())),
                _ => None,
            })
            .collect()
    }

    /// The concatenated text blocks.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|block| match block {
                AssistantContent::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// Any message of a conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// From the user.
    User(UserMessage),
    /// From the model.
    Assistant(AssistantMessage),
    /// A tool's answer to a call.
    ToolResult(ToolResultMessage),
}

impl Message {
    /// The assistant message, when it is one.
    pub fn as_assistant(&self) -> Option<&AssistantMessage> {
        match self {
            Message::Assistant(message) => Some(message),
            _ => None,
        }
    }

    /// The tool result, when it is one.
    pub fn as_tool_result(&self) -> Option<&ToolResultMessage> {
        match self {
            Message::ToolResult(message) => Some(message),
            _ => None,
        }
    }
}

impl Serialize for Message {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Each message type writes its own `role` tag.
        match self {
            Message::User(message) => message.serialize(serializer),
            Message::Assistant(message) => message.serialize(serializer),
            Message::ToolResult(message) => message.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = Value::deserialize(deserializer)?;
        let role = value.get("role").and_then(Value::as_str).map(str::to_owned);
        match role.as_deref() {
            Some("user") => serde_json::from_value(value).map(Message::User),
            Some("assistant") => serde_json::from_value(value).map(Message::Assistant),
            Some("toolResult") => serde_json::from_value(value).map(Message::ToolResult),
            Some(other) => return Err(D::Error::custom(format!("unknown role {other:?}"))),
            None => return Err(D::Error::custom("a message needs a \"role\"")),
        }
        .map_err(D::Error::custom)
    }
}

impl From<UserMessage> for Message {
    fn from(message: UserMessage) -> Self {
        Message::User(message)
    }
}

impl From<AssistantMessage> for Message {
    fn from(message: AssistantMessage) -> Self {
        Message::Assistant(message)
    }
}

impl From<ToolResultMessage> for Message {
    fn from(message: ToolResultMessage) -> Self {
        Message::ToolResult(message)
    }
}

/// A transcript line that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("transcript line {line}")]
pub struct TranscriptError {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong with it.
    #[source]
    pub source: serde_json::Error,
}

/// A transcript as JSONL: one message per line, each line ending in `\n`.
///
/// ```
/// use pi_ai::{Message, UserMessage, read_transcript, write_transcript};
///
/// let messages = vec![Message::from(UserMessage::text("hi"))];
/// let text = write_transcript(&messages);
/// assert_eq!(read_transcript(&text).unwrap(), messages);
/// ```
pub fn write_transcript(messages: &[Message]) -> String {
    let mut out = String::new();
    for message in messages {
        // Serialising these types cannot fail: their maps have string keys.
        if let Ok(line) = serde_json::to_string(message) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// Reads a JSONL transcript; blank lines are skipped.
pub fn read_transcript(text: &str) -> Result<Vec<Message>, TranscriptError> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            serde_json::from_str(line).map_err(|source| TranscriptError {
                line: index + 1,
                source,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn usage_without_total_tokens_or_cost_reads_as_zeros() {
        let usage: Usage =
            serde_json::from_str(r#"{"input":10,"output":5,"cacheRead":0,"cacheWrite":0}"#)
                .unwrap();
        assert_eq!(usage.input, 10);
        assert_eq!(usage.total_tokens, 0);
        assert_eq!(usage.cost, Cost::default());
        let cost: Cost = serde_json::from_str(r#"{"input":0.5,"output":1}"#).unwrap();
        assert_eq!(cost.total, 0.0);
        assert_eq!(cost.input, 0.5);
    }

    #[test]
    fn response_id_is_pis_optional_last_field() {
        let model = crate::ModelInfo {
            api: "a".into(),
            provider: "p".into(),
            model: "m".into(),
        };
        let mut message = AssistantMessage::new(&model, Vec::new());
        let without = serde_json::to_string(&message).unwrap();
        assert!(!without.contains("responseId"), "{without}");
        message.response_id = Some("resp-1".into());
        let with = serde_json::to_string(&message).unwrap();
        assert!(with.ends_with(r#","responseId":"resp-1"}"#), "{with}");
        let back: AssistantMessage = serde_json::from_str(&with).unwrap();
        assert_eq!(back, message);
    }

    #[test]
    fn user_content_reads_a_string_or_blocks_and_names_what_else_it_got() {
        let text: UserContent = serde_json::from_str(r#""hi \"you\"""#).unwrap();
        assert_eq!(text, UserContent::Text("hi \"you\"".into()));
        let blocks: UserContent = serde_json::from_str(
            r#"[{"type":"text","text":"a"},{"mimeType":"image/png","type":"image","data":"AA=="}]"#,
        )
        .unwrap();
        assert_eq!(
            blocks,
            UserContent::Blocks(vec![
                pi_tool::text("a"),
                pi_tool::image("AA==", "image/png")
            ])
        );
        // Through a `Value` too (the session's fallback path reads stored values).
        let value = serde_json::json!([{"type": "text", "text": "b"}]);
        let from_value = UserContent::deserialize(&value).unwrap();
        assert_eq!(from_value, UserContent::Blocks(vec![pi_tool::text("b")]));
        let error = serde_json::from_str::<UserContent>("42").unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid type: integer `42`, expected a string or an array of content blocks at line 1 column 2"
        );
        let error = serde_json::from_str::<UserContent>(r#"[{"type":"audio"}]"#).unwrap_err();
        assert!(
            error.to_string().contains("unknown variant `audio`"),
            "{error}"
        );
    }
}
