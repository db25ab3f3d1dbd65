//! A served call's progress notifications: sent in the order the tool reported them, through
//! one task per call, and drained before the call's result goes out.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use pi_tool::ProgressCallback;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use serde_json::Value;
use tokio::sync::mpsc;

/// One call's progress notifications, sent in the order the tool reported them through one
/// task, and drained before the call's result goes out (MCP: progress increases, and stops at
/// completion).
pub(crate) struct ProgressSender {
    token: ProgressToken,
    queue: mpsc::UnboundedSender<Report>,
    step: Arc<AtomicU64>,
    sending: AbortOnDrop,
}

enum Report {
    Progress(ProgressNotificationParam),
    Done,
}

/// Aborts the task when dropped: a call whose future is dropped leaves no sender behind.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl ProgressSender {
    pub(crate) fn start(peer: Peer<RoleServer>, token: ProgressToken) -> Self {
        let (queue, mut reports) = mpsc::unbounded_channel::<Report>();
        let sending = tokio::spawn(async move {
            while let Some(Report::Progress(progress)) = reports.recv().await {
                // A client that went away cannot be told; the call still answers.
                if peer.notify_progress(progress).await.is_err() {
                    break;
                }
            }
        });
        Self {
            token,
            queue,
            step: Arc::new(AtomicU64::new(0)),
            sending: AbortOnDrop(sending),
        }
    }

    /// The callback the tool reports through. A tool's update becomes `progress` (its own
    /// `details.progress`, or a count of updates), `total` (from `details.total`) and
    /// `message` (its text).
    pub(crate) fn callback(&self) -> ProgressCallback {
        let (token, queue, step) = (
            self.token.clone(),
            self.queue.clone(),
            Arc::clone(&self.step),
        );
        ProgressCallback::new(move |update| {
            let count = step.fetch_add(1, Ordering::SeqCst) + 1;
            let details = update.details.as_ref();
            let number = |key: &str| details.and_then(|d| d.get(key)).and_then(Value::as_f64);
            #[expect(
                clippy::cast_precision_loss,
                reason = "a step count, not a measurement"
            )]
            let progress = number("progress").unwrap_or(count as f64);
            let mut notification = ProgressNotificationParam::new(token.clone(), progress);
            if let Some(total) = number("total") {
                notification = notification.with_total(total);
            }
            let message = update.text();
            if !message.is_empty() {
                notification = notification.with_message(message);
            }
            // Fails only once the call has finished: progress after completion is not sent.
            let _ = queue.send(Report::Progress(notification));
        })
    }

    /// Sends everything reported so far, then stops.
    pub(crate) async fn finish(self) {
        let _ = self.queue.send(Report::Done);
        let mut sending = self.sending;
        let _ = (&mut sending.0).await;
    }
}
