//! Messages queued for a running agent: steering (delivered after the current batch) and
//! follow-ups (delivered when the agent would otherwise stop).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use pi_ai::Message;

/// A queue of messages shared between the agent and whoever steers it. Cheap to clone; clones
/// are the same queue.
#[derive(Debug, Clone, Default)]
pub struct MessageQueue(Arc<Mutex<VecDeque<Message>>>);

impl MessageQueue {
    /// Queues a message.
    pub fn push(&self, message: impl Into<Message>) {
        self.lock().push_back(message.into());
    }

    /// Takes every queued message, oldest first.
    pub fn drain(&self) -> Vec<Message> {
        self.lock().drain(..).collect()
    }

    /// How many messages are queued.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Message>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
