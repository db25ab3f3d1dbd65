//! Messages queued for a running agent: steering (delivered after the current batch) and
//! follow-ups (delivered when the agent would otherwise stop).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use pi_ai::Message;

/// A queue of messages shared between the agent and whoever steers it. Cheap to clone; clones
/// are the same queue.
#[derive(Debug, Clone, Default)]
pub struct MessageQueue {
    messages: Arc<Mutex<VecDeque<Message>>>,
    /// Pi's queue mode: deliver one message each time (`one-at-a-time`) instead of all.
    one_at_a_time: Arc<AtomicBool>,
}

impl MessageQueue {
    /// Queues a message.
    pub fn push(&self, message: impl Into<Message>) {
        self.lock().push_back(message.into());
    }

    /// Takes every queued message, oldest first.
    pub fn drain(&self) -> Vec<Message> {
        self.lock().drain(..).collect()
    }

    /// Takes what is due now: the oldest message in `one-at-a-time` mode, else every one.
    pub fn take_due(&self) -> Vec<Message> {
        if self.is_one_at_a_time() {
            self.lock().pop_front().into_iter().collect()
        } else {
            self.drain()
        }
    }

    /// Sets Pi's queue mode: `true` for `one-at-a-time`, `false` for `all` (the default).
    pub fn set_one_at_a_time(&self, one: bool) {
        self.one_at_a_time.store(one, Ordering::Relaxed);
    }

    /// Whether the queue delivers one message at a time.
    pub fn is_one_at_a_time(&self) -> bool {
        self.one_at_a_time.load(Ordering::Relaxed)
    }

    /// How many messages are queued.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// The text of each queued message, oldest first (Pi's `queue_update` lists these); a
    /// message that is not a user's has none.
    pub fn texts(&self) -> Vec<String> {
        self.lock()
            .iter()
            .map(|message| match message {
                Message::User(user) => user.plain_text(),
                _ => String::new(),
            })
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Message>> {
        self.messages.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_ai::UserMessage;

    #[test]
    fn one_at_a_time_delivers_the_oldest_only() {
        let queue = MessageQueue::default();
        for text in ["a", "b", "c"] {
            queue.push(UserMessage::text(text));
        }
        queue.set_one_at_a_time(true);
        assert_eq!(queue.take_due().len(), 1);
        assert_eq!(queue.len(), 2);
        queue.set_one_at_a_time(false);
        assert_eq!(queue.take_due().len(), 2);
        assert!(queue.is_empty());
    }

    #[test]
    fn texts_are_the_queued_messages_words_oldest_first() {
        let queue = MessageQueue::default();
        queue.push(UserMessage::text("first"));
        queue.push(UserMessage::text("second"));
        assert_eq!(queue.texts(), ["first", "second"]);
        queue.set_one_at_a_time(true);
        queue.take_due();
        assert_eq!(queue.texts(), ["second"]);
    }
}
