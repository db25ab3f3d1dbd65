//! An event as Pi's JSON and RPC modes print it. Our events are Pi's shapes already; what
//! differs is left out or added here, for the front ends that speak to Pi's clients: the
//! stream's `start` and `done` updates are not printed (Pi announces those as `message_start`
//! and `message_end` only), `agent_end` carries no `reason` (Pi's says only `willRetry`), and
//! `tool_execution_end`'s `result` is the tool's (`content`, `details`), not the message.

use pi_agent::AgentEvent;
use pi_ai::AssistantMessageEvent;
use serde_json::Value;

/// The JSON line Pi would print for `event`, or `None` when Pi prints none.
pub fn pi_event_json(event: &AgentEvent) -> Option<Value> {
    if let AgentEvent::MessageUpdate {
        assistant_message_event:
            AssistantMessageEvent::Start { .. } | AssistantMessageEvent::Done { .. },
    } = event
    {
        return None;
    }
    let mut line = serde_json::to_value(event).ok()?;
    if let Some(object) = line.as_object_mut() {
        match event {
            AgentEvent::AgentEnd { .. } => {
                object.remove("reason");
            }
            // Pi's result is the tool's own (`content`, `details`), not the message made of it.
            AgentEvent::ToolExecutionEnd { result, .. } => {
                let result = result.as_tool_result()?;
                let mut own = serde_json::Map::new();
                own.insert(
                    "content".to_owned(),
                    serde_json::to_value(&result.content).ok()?,
                );
                if let Some(details) = &result.details {
                    own.insert("details".to_owned(), details.clone());
                }
                object.insert("result".to_owned(), Value::Object(own));
            }
            _ => {}
        }
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn agent_end_says_whether_it_retries_without_its_reason_and_stream_ends_are_not_printed() {
        let end = AgentEvent::AgentEnd {
            messages: Vec::new(),
            reason: pi_agent::EndReason::Error,
            will_retry: true,
        };
        let line = pi_event_json(&end).unwrap();
        assert_eq!(line["willRetry"], true);
        assert!(line.get("reason").is_none());
        assert!(pi_event_json(&AgentEvent::AgentStart).is_some());
    }

    #[test]
    fn a_tool_end_carries_the_tools_own_result() {
        let result: pi_tool::ToolResultMessage = serde_json::from_value(serde_json::json!({
            "role": "toolResult", "toolCallId": "call_1", "toolName": "read",
            "content": [{"type": "text", "text": "milk"}], "details": {"lines": 1},
            "isError": false, "timestamp": 1
        }))
        .unwrap();
        let end = AgentEvent::ToolExecutionEnd {
            tool_call_id: "call_1".into(),
            tool_name: "read".into(),
            result: std::sync::Arc::new(result.into()),
            is_error: false,
        };
        let line = pi_event_json(&end).unwrap();
        assert_eq!(
            line["result"],
            serde_json::json!({"content": [{"type": "text", "text": "milk"}], "details": {"lines": 1}})
        );
        assert_eq!(line["isError"], false);
        assert_eq!(line["toolCallId"], "call_1");
    }
}
