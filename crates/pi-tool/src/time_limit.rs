//! A call's time limit and its caller's signal, with the one grace: when either ends the wait,
//! the tool's signal is cancelled and it has [`CANCEL_GRACE`] to answer before the call is
//! answered for it (timed out, or aborted). The agent loop, the MCP server and the CLI all wait
//! this way.

use std::task::Poll;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::call::failed;
use crate::model_text;
use crate::{CallContext, ExecutedCall, FailureKind, PreparedCall};

/// How long a call whose signal was cancelled (its time limit passed, or its caller stopped
/// it) may take to answer before it is answered as timed out or aborted. Longer than `bash`'s
/// two seconds between `SIGTERM` and `SIGKILL`, so a stopped command's own result (its output
/// so far) normally arrives; short enough that a stop never waits long for a tool that ignores
/// its signal.
pub const CANCEL_GRACE: Duration = Duration::from_secs(3);

impl PreparedCall {
    /// Runs the call within `limit` (none: no time limit) and the signal of `context`. Never
    /// fails, never panics; needs a tokio runtime when there is a limit or a signal.
    ///
    /// - the signal already cancelled: the tool never runs, the call is [`FailureKind::Aborted`];
    /// - the limit passes: the tool's signal (its own, a child of the caller's) is cancelled, it has
    ///   `grace` to clean up, and the call is [`FailureKind::Timeout`] whatever it answers;
    /// - the caller's signal is cancelled: the tool's own answer if it comes within `grace`
    ///   (a command's output so far), else [`FailureKind::Aborted`].
    ///
    /// `grace` is [`CANCEL_GRACE`] unless the caller has a reason of its own.
    pub async fn run_within(
        self,
        mut context: CallContext,
        limit: Option<Duration>,
        grace: Duration,
    ) -> ExecutedCall {
        let caller = context.signal.take();
        let (id, name, wording) = (self.id.clone(), self.name.clone(), self.wording);
        if caller.as_ref().is_some_and(CancellationToken::is_cancelled) {
            return failed(
                id,
                name,
                wording,
                FailureKind::Aborted,
                model_text::aborted(wording),
            );
        }
        if limit.is_none() && caller.is_none() {
            return self.run(context).await;
        }
        // Under a time limit the tool gets a signal of its own (a child of the caller's), which
        // the limit cancels without cancelling the caller's; without one it gets the caller's
        // (a child token costs an allocation and a lock on every call).
        let token = match (limit, &caller) {
            (Some(_), Some(caller)) => caller.child_token(),
            (Some(_), None) => CancellationToken::new(),
            (None, caller) => caller.clone().unwrap_or_default(),
        };
        context.signal = Some(token.clone());
        let running = self.run(context);
        tokio::pin!(running);
        // Most tools answer on their first poll: such a call sets up no race. (The race below is
        // biased towards the tool, so it would have taken the same answer.)
        if let Poll::Ready(executed) = futures::poll!(&mut running) {
            return executed;
        }
        let time_limit = async {
            match limit {
                Some(limit) => tokio::time::sleep(limit).await,
                None => std::future::pending().await,
            }
        };
        let stopped = async {
            match &caller {
                Some(caller) => caller.cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            executed = &mut running => executed,
            () = time_limit => {
                token.cancel();
                // The tool sees its signal and may clean up; the call has failed either way.
                let _ = tokio::time::timeout(grace, &mut running).await;
                let reason = model_text::timed_out_in(wording, limit.unwrap_or_default());
                failed(id, name, wording, FailureKind::Timeout, &reason)
            }
            () = stopped => match tokio::time::timeout(grace, &mut running).await {
                Ok(executed) => executed,
                Err(_) => failed(id, name, wording, FailureKind::Aborted, model_text::aborted(wording)),
            },
        }
    }
}
