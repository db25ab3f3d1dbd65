//! Fan-out of events to subscribers, each through its own unbounded channel.
//!
//! Sending never waits: a slow subscriber only lets its own queue grow, delays nobody and
//! loses nothing. A subscriber that went away is dropped.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::AgentEvent;

#[derive(Debug, Clone, Default)]
pub(crate) struct Emitter {
    subscribers: Arc<Mutex<Vec<UnboundedSender<AgentEvent>>>>,
}

impl Emitter {
    pub(crate) fn subscribe(&self) -> UnboundedReceiver<AgentEvent> {
        let (sender, receiver) = unbounded_channel();
        self.lock().push(sender);
        receiver
    }

    pub(crate) fn emit(&self, event: AgentEvent) {
        let mut subscribers = self.lock();
        // The last subscriber takes the event itself: only the others need copies.
        let last = subscribers.len().saturating_sub(1);
        let mut event = Some(event);
        let mut index = 0;
        subscribers.retain(|subscriber| {
            let own = if index == last {
                event.take()
            } else {
                event.clone()
            };
            index += 1;
            own.is_some_and(|own| subscriber.send(own).is_ok())
        });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<UnboundedSender<AgentEvent>>> {
        self.subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(receiver: &mut UnboundedReceiver<AgentEvent>) -> Vec<&'static str> {
        let mut kinds = Vec::new();
        while let Ok(event) = receiver.try_recv() {
            kinds.push(event.kind());
        }
        kinds
    }

    #[test]
    fn every_subscriber_gets_every_event_and_the_gone_are_dropped() {
        let emitter = Emitter::default();
        let mut first = emitter.subscribe();
        let gone = emitter.subscribe();
        let mut last = emitter.subscribe();
        emitter.emit(AgentEvent::AgentStart);
        drop(gone);
        emitter.emit(AgentEvent::TurnStart);
        assert_eq!(drain(&mut first), ["agent_start", "turn_start"]);
        assert_eq!(drain(&mut last), ["agent_start", "turn_start"]);
        assert_eq!(emitter.lock().len(), 2);
        // The last subscriber gone: the one before it still gets the event.
        drop(last);
        emitter.emit(AgentEvent::TurnStart);
        assert_eq!(drain(&mut first), ["turn_start"]);
        assert_eq!(emitter.lock().len(), 1);
    }
}
