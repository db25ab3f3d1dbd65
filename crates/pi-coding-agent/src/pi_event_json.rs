//! An event as Pi's JSON and RPC modes print it. Our events are Pi's shapes already; what
//! differs is left out or added here, for the front ends that speak to Pi's clients: the
//! stream's `start` and `done` updates are not printed (Pi announces those as `message_start`
//! and `message_end` only), and `agent_end` carries no `reason` (Pi's says only `willRetry`).

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
    if matches!(event, AgentEvent::AgentEnd { .. })
        && let Some(object) = line.as_object_mut()
    {
        object.remove("reason");
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
}
