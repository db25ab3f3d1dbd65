//! Anthropic's prompt-cache marks on a Chat Completions request, for servers in front of
//! Claude that take them (compat `cacheControlFormat: "anthropic"`, detected for OpenRouter's
//! `anthropic/` models), placed as Pi 0.80.6 places them: on the system prompt, on the last
//! tool, and on the last user or assistant message that has text.

use serde_json::{Map, Value, json};

use crate::CacheRetention;

/// The mark to place; `None` when nothing is cached.
pub(crate) fn mark(retention: CacheRetention, long_allowed: bool) -> Option<Value> {
    match retention {
        CacheRetention::None => None,
        CacheRetention::Long if long_allowed => Some(json!({"type": "ephemeral", "ttl": "1h"})),
        _ => Some(json!({"type": "ephemeral"})),
    }
}

/// Marks the body's first system (or developer) message, its last tool and its last user or
/// assistant message with text.
pub(crate) fn apply(body: &mut Map<String, Value>, mark: &Value) {
    if let Some(Value::Array(messages)) = body.get_mut("messages") {
        if let Some(system) = messages.iter_mut().find(|message| {
            matches!(
                message.get("role").and_then(Value::as_str),
                Some("system" | "developer")
            )
        }) {
            mark_text(system, mark);
        }
        for message in messages.iter_mut().rev() {
            let conversation = matches!(
                message.get("role").and_then(Value::as_str),
                Some("user" | "assistant")
            );
            if conversation && mark_text(message, mark) {
                break;
            }
        }
    }
    if let Some(Value::Object(tool)) = body
        .get_mut("tools")
        .and_then(Value::as_array_mut)
        .and_then(|tools| tools.last_mut())
    {
        tool.insert("cache_control".into(), mark.clone());
    }
}

/// Marks a message's text: a non-empty string becomes one marked text part; in a list the
/// last text part is marked. `false` when the message has no text to mark.
fn mark_text(message: &mut Value, mark: &Value) -> bool {
    let Some(content) = message.get_mut("content") else {
        return false;
    };
    match content {
        Value::String(text) if !text.is_empty() => {
            let text = std::mem::take(text);
            *content = json!([{"type": "text", "text": text, "cache_control": mark}]);
            true
        }
        Value::Array(parts) => {
            let last_text = parts
                .iter_mut()
                .rev()
                .find(|part| part.get("type").and_then(Value::as_str) == Some("text"));
            match last_text.and_then(Value::as_object_mut) {
                Some(part) => {
                    part.insert("cache_control".into(), mark.clone());
                    true
                }
                None => false,
            }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(body: Value) -> Value {
        let mut body = body.as_object().cloned().unwrap_or_default();
        let mark = mark(CacheRetention::Short, true).unwrap_or_default();
        apply(&mut body, &mark);
        Value::Object(body)
    }

    #[test]
    fn system_last_tool_and_last_message_with_text_are_marked() {
        let body = marked(json!({
            "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": [{"type": "text", "text": "look"},
                    {"type": "image_url", "image_url": {"url": "data:"}}]},
                {"role": "assistant", "content": null, "tool_calls": []},
                {"role": "tool", "content": "out", "tool_call_id": "c"}
            ],
            "tools": [{"type": "function"}, {"type": "function"}]
        }));
        let mark = json!({"type": "ephemeral"});
        assert_eq!(
            body["messages"][0]["content"],
            json!([{"type": "text", "text": "be brief", "cache_control": mark}])
        );
        // The assistant message has no text and tool results are not conversation: the
        // user's text part is the last one marked.
        assert_eq!(body["messages"][1]["content"][0]["cache_control"], mark);
        assert!(
            body["messages"][1]["content"][1]
                .get("cache_control")
                .is_none()
        );
        assert_eq!(body["messages"][3]["content"], "out");
        assert!(body["tools"][0].get("cache_control").is_none());
        assert_eq!(body["tools"][1]["cache_control"], mark);
    }

    #[test]
    fn the_hour_only_when_long_and_allowed_and_nothing_when_off() {
        assert_eq!(
            mark(CacheRetention::Long, true),
            Some(json!({"type": "ephemeral", "ttl": "1h"}))
        );
        assert_eq!(
            mark(CacheRetention::Long, false),
            Some(json!({"type": "ephemeral"}))
        );
        assert_eq!(mark(CacheRetention::None, true), None);
    }
}
