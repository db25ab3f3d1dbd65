//! Transcripts in Pi's shapes: every message kind round-trips through JSONL unchanged.
#![allow(clippy::unwrap_used, missing_docs)]

use pi_ai::{Message, read_transcript, write_transcript};
use serde_json::{Value, json};

#[test]
fn every_message_kind_round_trips_byte_for_byte() {
    let lines = [
        json!({"role": "user", "content": "Echo Pi please", "timestamp": 1}),
        json!({"role": "user", "content": [{"type": "text", "text": "look"},
               {"type": "image", "data": "AAAA", "mimeType": "image/png"}], "timestamp": 2}),
        json!({"role": "assistant", "content": [
                {"type": "thinking", "thinking": "echo it", "thinkingSignature": "sig"},
                {"type": "text", "text": "Sure."},
                {"type": "toolCall", "id": "c1", "name": "echo", "arguments": {"value": "Pi"}}],
               "api": "faux", "provider": "faux", "model": "faux",
               "usage": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3,
                         "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0}},
               "stopReason": "toolUse", "timestamp": 3}),
        json!({"role": "toolResult", "toolCallId": "c1", "toolName": "echo",
               "content": [{"type": "text", "text": "Pi"}], "details": {"source": "echo"},
               "isError": false, "timestamp": 4}),
        json!({"role": "assistant", "content": [], "api": "faux", "provider": "faux", "model": "faux",
               "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                         "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0}},
               "stopReason": "error", "errorMessage": "boom", "timestamp": 5}),
    ];
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let messages = read_transcript(&text).unwrap();
    assert_eq!(messages.len(), 5);
    assert!(matches!(messages[3], Message::ToolResult(_)));
    assert_eq!(write_transcript(&messages), text);
    let again = read_transcript(&write_transcript(&messages)).unwrap();
    assert_eq!(again, messages);
}

#[test]
fn bad_lines_name_their_number() {
    let error = read_transcript(
        "{\"role\":\"user\",\"content\":\"a\",\"timestamp\":1}\n{\"role\":\"robot\"}\n",
    )
    .unwrap_err();
    assert_eq!(error.line, 2);
    assert!(pi_tool::error_text(&error).contains("unknown role"));
    assert_eq!(error.to_string(), "transcript line 2");
    let missing: Result<Message, _> = serde_json::from_value(Value::Null);
    assert!(missing.is_err());
}
