//! Calls started in call order, each behind the earlier calls on the same thing (its ordering
//! key, see [`pi_tool::Tool::ordering_key`]): the loop's batches and `pi-tool run` both start
//! their calls here, so one file's calls keep their order whoever runs them.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::sync::oneshot;

/// Starts calls on the runtime in the order they are given; a call with an ordering key waits
/// for the end of every call given before it with the same key. Calls without a key, or with
/// different keys, run side by side.
#[derive(Debug, Default)]
pub struct CallOrder {
    /// For each ordering key, the end of the last call started on it.
    last: HashMap<String, oneshot::Receiver<()>>,
    /// The size at which ended keys are forgotten next, so a long stream of calls keeps a map
    /// as small as the keys still in use (amortised constant time per call).
    prune_at: usize,
}

impl CallOrder {
    /// No call started yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Spawns `run` on the current tokio runtime, to begin once every call spawned earlier on
    /// `key` has ended (finished, failed, or been dropped). Dropping the returned task aborts
    /// the call.
    pub fn spawn<T, F>(&mut self, key: Option<String>, run: F) -> CallTask<T>
    where
        T: Send + 'static,
        F: Future<Output = T> + Send + 'static,
    {
        let (done, finished) = oneshot::channel::<()>();
        let earlier = key.and_then(|key| {
            self.prune();
            self.last.insert(key, finished)
        });
        CallTask(tokio::spawn(async move {
            if let Some(earlier) = earlier {
                // Ended (or dropped with its task): either way it is our turn.
                let _ = earlier.await;
            }
            let output = run.await;
            drop(done);
            output
        }))
    }

    fn prune(&mut self) {
        if self.last.len() < self.prune_at {
            return;
        }
        self.last
            .retain(|_, end| !matches!(end.try_recv(), Err(oneshot::error::TryRecvError::Closed)));
        self.prune_at = (self.last.len() * 2).max(64);
    }
}

/// A call running on its own task, owned by whoever started it: dropping it (a batch or a
/// program given up on) aborts the call, so no tool keeps running for nobody.
#[derive(Debug)]
pub struct CallTask<T>(tokio::task::JoinHandle<T>);

impl<T> Future for CallTask<T> {
    type Output = Result<T, tokio::task::JoinError>;

    fn poll(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.0).poll(context)
    }
}

impl<T> Drop for CallTask<T> {
    fn drop(&mut self) {
        // Aborting a finished task does nothing.
        self.0.abort();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn calls_on_one_key_run_in_call_order_and_others_do_not_wait() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mut order = CallOrder::new();
        let mut tasks = Vec::new();
        for index in 0..20_u64 {
            let seen = Arc::clone(&seen);
            // Later calls are quicker: only the ordering keeps them behind earlier ones.
            let pause = Duration::from_millis(20 - index);
            tasks.push(order.spawn(Some("file".to_owned()), async move {
                tokio::time::sleep(pause).await;
                seen.lock().unwrap_or_else(|e| e.into_inner()).push(index);
            }));
        }
        let free = order.spawn(None, async { "free" });
        assert_eq!(free.await.ok(), Some("free"));
        for task in tasks {
            assert!(task.await.is_ok());
        }
        let seen = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
        assert_eq!(seen, (0..20).collect::<Vec<_>>());
    }

    #[tokio::test]
    async fn ended_keys_are_forgotten() {
        let mut order = CallOrder::new();
        for index in 0..200 {
            let task = order.spawn(Some(format!("file-{index}")), async {});
            assert!(task.await.is_ok());
        }
        assert!(order.last.len() <= 64, "{} keys kept", order.last.len());
    }
}
