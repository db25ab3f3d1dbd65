//! The messages on both sides of a tool call, in Pi's JSON shapes.
//!
//! A model proposes a [`ToolCall`]; the program answers with exactly one [`ToolResultMessage`]
//! carrying the same id and name. [`ToolDefinition`] is what the model is shown beforehand.

use std::time::{SystemTime, UNIX_EPOCH};

use arcstr::ArcStr;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Content;

/// A tool call proposed by a model: `{"type":"toolCall","id","name","arguments"}`.
///
/// `arguments` is whatever JSON the model produced; nothing about it is trusted until the
/// tool's schema has parsed it.
///
/// ```
/// use pi_tool::ToolCall;
///
/// let call: ToolCall = serde_json::from_str(
///     r#"{"type":"toolCall","id":"call-1","name":"echo","arguments":{"value":"Pi"}}"#,
/// ).unwrap();
/// assert_eq!(call.name, "echo");
/// assert_eq!(call, ToolCall::new("call-1", "echo", serde_json::json!({"value": "Pi"})));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "toolCall", try_from = "WireToolCall")]
pub struct ToolCall {
    /// The provider's id for this call; the result answers with the same id. Shared, not
    /// copied: the tool's context and its result hold the same string.
    pub id: ArcStr,
    /// The tool the model asked for, exactly as it spelled it.
    pub name: ArcStr,
    /// The model's arguments, unvalidated. Missing on the wire means `{}`.
    pub arguments: Value,
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

impl ToolCall {
    /// A call with the given id, tool name and arguments.
    pub fn new(id: impl Into<ArcStr>, name: impl Into<ArcStr>, arguments: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments,
        }
    }
}

/// The one answer to a [`ToolCall`]:
/// `{"role":"toolResult","toolCallId","toolName","content","details"?,"isError","timestamp"}`.
///
/// `content` is for the model; `details` is for the program (UI, logs) and is omitted from the
/// JSON when absent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "role",
    rename = "toolResult",
    rename_all = "camelCase",
    try_from = "WireToolResult"
)]
pub struct ToolResultMessage {
    /// The id of the call this result answers.
    pub tool_call_id: ArcStr,
    /// The tool name as the call requested it (also when no such tool exists).
    pub tool_name: ArcStr,
    /// What the model reads.
    pub content: Vec<Content>,
    /// Structured data for the program; never parsed out of `content`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Whether the call failed (or the tool reported a domain error).
    pub is_error: bool,
    /// Milliseconds since the Unix epoch when the result was made.
    pub timestamp: u64,
}

impl ToolResultMessage {
    /// The concatenated text of all text blocks, for logs and assertions.
    pub fn text(&self) -> String {
        self.content.iter().filter_map(Content::as_text).collect()
    }
}

/// Checks a `type`/`role` tag on the way in: serde's struct tags are written but never checked
/// when reading. A missing tag is accepted (hand-written input often leaves it out); a wrong
/// one is not.
fn check_tag(found: Option<&str>, field: &str, expected: &str) -> Result<(), String> {
    match found {
        None => Ok(()),
        Some(tag) if tag == expected => Ok(()),
        Some(tag) => Err(format!("{field} must be \"{expected}\", found \"{tag}\"")),
    }
}

#[derive(Deserialize)]
struct WireToolCall {
    #[serde(rename = "type")]
    tag: Option<String>,
    id: ArcStr,
    name: ArcStr,
    #[serde(default = "empty_object")]
    arguments: Value,
}

impl TryFrom<WireToolCall> for ToolCall {
    type Error = String;

    fn try_from(wire: WireToolCall) -> Result<Self, String> {
        check_tag(wire.tag.as_deref(), "type", "toolCall")?;
        Ok(Self::new(wire.id, wire.name, wire.arguments))
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireToolResult {
    role: Option<String>,
    tool_call_id: ArcStr,
    tool_name: ArcStr,
    content: Vec<Content>,
    #[serde(default)]
    details: Option<Value>,
    is_error: bool,
    timestamp: u64,
}

impl TryFrom<WireToolResult> for ToolResultMessage {
    type Error = String;

    fn try_from(wire: WireToolResult) -> Result<Self, String> {
        check_tag(wire.role.as_deref(), "role", "toolResult")?;
        Ok(Self {
            tool_call_id: wire.tool_call_id,
            tool_name: wire.tool_name,
            content: wire.content,
            details: wire.details,
            is_error: wire.is_error,
            timestamp: wire.timestamp,
        })
    }
}

/// What a provider is shown of a tool: name, description and the JSON Schema of its parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    /// The name the model calls the tool by.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// The JSON Schema of the arguments.
    pub parameters: Value,
}

/// Milliseconds since the Unix epoch, as Pi's `Date.now()`.
///
/// A clock before 1970 reads as 0 rather than failing: a result must always be produced.
pub fn now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text;
    use serde_json::json;

    #[test]
    fn tool_call_serialises_with_its_type_tag() {
        let call = ToolCall::new("call-1", "echo", json!({"value": "Pi"}));
        assert_eq!(
            serde_json::to_string(&call).unwrap(),
            r#"{"type":"toolCall","id":"call-1","name":"echo","arguments":{"value":"Pi"}}"#
        );
    }

    #[test]
    fn tool_call_without_arguments_reads_as_empty_object() {
        let call: ToolCall =
            serde_json::from_value(json!({"type": "toolCall", "id": "a", "name": "ls"})).unwrap();
        assert_eq!(call.arguments, json!({}));
    }

    #[test]
    fn tool_call_with_another_type_tag_is_rejected() {
        let wrong = json!({"type": "text", "id": "a", "name": "ls", "arguments": {}});
        assert!(serde_json::from_value::<ToolCall>(wrong).is_err());
    }

    #[test]
    fn result_with_another_role_is_rejected() {
        let wrong = json!({"role": "user", "toolCallId": "a", "toolName": "ls", "content": [],
                           "isError": false, "timestamp": 1});
        assert!(serde_json::from_value::<ToolResultMessage>(wrong).is_err());
    }

    #[test]
    fn result_omits_absent_details_and_round_trips() {
        let message = ToolResultMessage {
            tool_call_id: "call-1".into(),
            tool_name: "echo".into(),
            content: vec![text("Pi")],
            details: None,
            is_error: false,
            timestamp: 1_764_669_600_000,
        };
        let line = serde_json::to_string(&message).unwrap();
        assert_eq!(
            line,
            r#"{"role":"toolResult","toolCallId":"call-1","toolName":"echo","content":[{"type":"text","text":"Pi"}],"isError":false,"timestamp":1764669600000}"#
        );
        let back: ToolResultMessage = serde_json::from_str(&line).unwrap();
        assert_eq!(back, message);
    }

    #[test]
    fn now_is_after_2025() {
        assert!(now_millis() > 1_735_689_600_000);
    }
}
