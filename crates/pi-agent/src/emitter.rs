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
        subscribers.retain(|subscriber| subscriber.send(event.clone()).is_ok());
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<UnboundedSender<AgentEvent>>> {
        self.subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}
