//! Turns of one role in a row, joined: the Anthropic and Gemini wires take a transcript as
//! alternating turns. Consecutive turns of one role may be merged by the APIs themselves, but
//! nothing promises that of every model version or of a proxy in front of them, so a user
//! prompt that follows a batch of tool results joins the results' turn instead of opening a
//! second `user` turn.

use serde_json::{Value, json};

/// Appends a turn of `role` whose blocks are under `key` (`content` or `parts`), or joins it to
/// the last turn when that has the same role. Text given as a plain string (Anthropic's short
/// form) becomes a text block when joined.
pub(crate) fn push_turn(turns: &mut Vec<Value>, role: &str, key: &str, content: Value) {
    let last = turns
        .last_mut()
        .filter(|turn| turn.get("role").and_then(Value::as_str) == Some(role))
        .and_then(|turn| turn.get_mut(key));
    match last {
        Some(blocks) => {
            let mut joined = as_blocks(blocks.take());
            joined.extend(as_blocks(content));
            *blocks = Value::Array(joined);
        }
        None => turns.push(json!({"role": role, key: content})),
    }
}

fn as_blocks(content: Value) -> Vec<Value> {
    match content {
        Value::Array(blocks) => blocks,
        Value::String(text) => vec![json!({"type": "text", "text": text})],
        other => vec![other],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_of_the_same_role_joins_the_last_one() {
        let mut turns = Vec::new();
        push_turn(&mut turns, "user", "content", json!("Hi"));
        push_turn(
            &mut turns,
            "assistant",
            "content",
            json!([{"type": "text", "text": "Yes?"}]),
        );
        push_turn(
            &mut turns,
            "user",
            "content",
            json!([{"type": "tool_result"}]),
        );
        push_turn(&mut turns, "user", "content", json!("And Tokyo?"));
        assert_eq!(
            turns,
            [
                json!({"role": "user", "content": "Hi"}),
                json!({"role": "assistant", "content": [{"type": "text", "text": "Yes?"}]}),
                json!({"role": "user", "content": [
                    {"type": "tool_result"},
                    {"type": "text", "text": "And Tokyo?"}
                ]}),
            ]
        );
    }

    #[test]
    fn parts_join_as_they_are() {
        let mut turns = vec![json!({"role": "user", "parts": [{"functionResponse": {}}]})];
        push_turn(&mut turns, "user", "parts", json!([{"text": "And Tokyo?"}]));
        push_turn(&mut turns, "model", "parts", json!([{"text": "Sunny."}]));
        assert_eq!(
            turns,
            [
                json!({"role": "user", "parts": [{"functionResponse": {}}, {"text": "And Tokyo?"}]}),
                json!({"role": "model", "parts": [{"text": "Sunny."}]}),
            ]
        );
    }
}
