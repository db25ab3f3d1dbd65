//! Routing a server's progress notifications to the call each belongs to.
//!
//! rmcp picks a request's progress token while sending it, so the client learns the token only
//! once the request is on its way, and a fast server can report progress before the call has
//! subscribed. rmcp's own dispatcher drops such notifications; this router keeps a bounded
//! backlog of them and hands them over, in order, when the call subscribes.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use tokio::sync::mpsc;

/// How many notifications nobody has subscribed to yet are kept (oldest dropped first):
/// enough for every call in flight to report several times before subscribing.
const BACKLOG_LIMIT: usize = 1024;

/// Shared between the client's notification handler and its calls.
#[derive(Clone, Default)]
pub(crate) struct ProgressRouter {
    state: Arc<Mutex<State>>,
}

#[derive(Default)]
struct State {
    routes: HashMap<ProgressToken, mpsc::UnboundedSender<ProgressNotificationParam>>,
    backlog: VecDeque<ProgressNotificationParam>,
}

impl ProgressRouter {
    /// Delivers a notification to its call, or keeps it for a call still to subscribe.
    pub(crate) fn route(&self, notification: ProgressNotificationParam) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        match state.routes.get(&notification.progress_token) {
            // A closed receiver means the call has ended: nothing left to tell.
            Some(route) => drop(route.send(notification)),
            None => {
                if state.backlog.len() >= BACKLOG_LIMIT {
                    state.backlog.pop_front();
                }
                state.backlog.push_back(notification);
            }
        }
    }

    /// The notifications for `token`: those that came early first, then the rest as they come.
    /// Dropping the subscription ends the route.
    pub(crate) fn subscribe(&self, token: ProgressToken) -> Subscription {
        let (sender, receiver) = mpsc::unbounded_channel();
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let backlog = std::mem::take(&mut state.backlog);
        for notification in backlog {
            if notification.progress_token == token {
                // The receiver is alive here: it is returned below.
                drop(sender.send(notification));
            } else {
                state.backlog.push_back(notification);
            }
        }
        state.routes.insert(token.clone(), sender);
        Subscription {
            token,
            receiver,
            router: self.clone(),
        }
    }
}

/// One call's progress notifications.
pub(crate) struct Subscription {
    token: ProgressToken,
    receiver: mpsc::UnboundedReceiver<ProgressNotificationParam>,
    router: ProgressRouter,
}

impl Subscription {
    /// The next notification; `None` once the route is gone.
    pub(crate) async fn next(&mut self) -> Option<ProgressNotificationParam> {
        self.receiver.recv().await
    }

    /// A notification that has already arrived, without waiting.
    pub(crate) fn try_next(&mut self) -> Option<ProgressNotificationParam> {
        self.receiver.try_recv().ok()
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut state = self
            .router
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let route = state.routes.remove(&self.token);
        // The sender is dropped after the lock is released.
        drop(state);
        drop(route);
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::NumberOrString;

    use super::*;

    fn token(n: i64) -> ProgressToken {
        ProgressToken(NumberOrString::Number(n))
    }

    fn note(n: i64, progress: f64) -> ProgressNotificationParam {
        ProgressNotificationParam::new(token(n), progress)
    }

    #[tokio::test]
    async fn notifications_before_the_subscription_are_delivered_first_and_in_order() {
        let router = ProgressRouter::default();
        router.route(note(1, 1.0));
        router.route(note(2, 9.0));
        router.route(note(1, 2.0));
        let mut subscription = router.subscribe(token(1));
        router.route(note(1, 3.0));
        let mut seen = Vec::new();
        for _ in 0..3 {
            seen.push(subscription.next().await.map(|n| n.progress));
        }
        assert_eq!(seen, [Some(1.0), Some(2.0), Some(3.0)]);
        // The other call's early report waits for its own subscriber.
        let mut other = router.subscribe(token(2));
        assert_eq!(other.next().await.map(|n| n.progress), Some(9.0));
    }

    #[tokio::test]
    async fn a_dropped_subscription_ends_its_route_and_the_backlog_is_bounded() {
        let router = ProgressRouter::default();
        drop(router.subscribe(token(7)));
        for n in 0..(BACKLOG_LIMIT as i64 + 10) {
            router.route(note(n, 0.0));
        }
        let state = router.state.lock().unwrap_or_else(PoisonError::into_inner);
        assert!(state.routes.is_empty());
        assert_eq!(state.backlog.len(), BACKLOG_LIMIT);
        assert_eq!(
            state.backlog.front().map(|n| n.progress_token.clone()),
            Some(token(10))
        );
    }
}
