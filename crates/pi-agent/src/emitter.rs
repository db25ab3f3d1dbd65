//! Fan-out of events to subscribers, each through its own unbounded channel.
//!
//! Sending never waits: a slow subscriber only lets its own queue grow, delays nobody and
//! loses nothing. A subscriber that went away is dropped.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::AgentEvent;

#[derive(Debug, Clone, Default)]
pub(crate) struct Emitter {
    subscribers: Arc<Mutex<Vec<Subscriber>>>,
}

/// One subscriber: its channel and which events it wants.
#[derive(Debug)]
struct Subscriber {
    sender: UnboundedSender<AgentEvent>,
    wanted: fn(&AgentEvent) -> bool,
}

impl Emitter {
    pub(crate) fn subscribe(&self) -> UnboundedReceiver<AgentEvent> {
        self.subscribe_to(|_| true)
    }

    pub(crate) fn subscribe_to(
        &self,
        wanted: fn(&AgentEvent) -> bool,
    ) -> UnboundedReceiver<AgentEvent> {
        let (sender, receiver) = unbounded_channel();
        self.lock().push(Subscriber { sender, wanted });
        receiver
    }

    pub(crate) fn emit(&self, event: AgentEvent) {
        let mut subscribers = self.lock();
        // The last subscriber that wants the event takes it itself: only the others that want
        // it get copies.
        let Some(last) = subscribers
            .iter()
            .rposition(|subscriber| (subscriber.wanted)(&event))
        else {
            return;
        };
        let mut event = Some(event);
        let mut index = 0;
        subscribers.retain(|subscriber| {
            let at = index;
            index += 1;
            let Some(current) = event.as_ref() else {
                return !subscriber.sender.is_closed();
            };
            if at > last || !(subscriber.wanted)(current) {
                return !subscriber.sender.is_closed();
            }
            let own = if at == last {
                event.take()
            } else {
                event.clone()
            };
            own.is_some_and(|own| subscriber.sender.send(own).is_ok())
        });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Subscriber>> {
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

    #[test]
    fn a_subscriber_gets_only_the_events_it_wants() {
        let emitter = Emitter::default();
        let mut everything = emitter.subscribe();
        let mut turns = emitter.subscribe_to(|event| matches!(event, AgentEvent::TurnStart));
        emitter.emit(AgentEvent::AgentStart);
        emitter.emit(AgentEvent::TurnStart);
        assert_eq!(drain(&mut everything), ["agent_start", "turn_start"]);
        assert_eq!(drain(&mut turns), ["turn_start"]);
        // A subscriber that wants nothing of an event is kept, not dropped.
        assert_eq!(emitter.lock().len(), 2);
    }
}
