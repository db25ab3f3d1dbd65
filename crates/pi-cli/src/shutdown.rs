//! Stopping on SIGINT, SIGTERM and SIGHUP without leaving commands behind.
//!
//! A `bash` call owns its process group and ends it when the call's signal is cancelled or its
//! future is dropped. A signal's default action ends this process before either can happen and
//! leaves the group running, so the signals are caught instead. The first one cancels the token
//! every call was given ([`Shutdown::token`]); the command then answers what it owes, waiting at
//! most [`pi_tool::CANCEL_GRACE`] for each call (the call path's own grace,
//! `PreparedCall::run_within`). `main` stops waiting for
//! the command after [`STOP_LIMIT`], and at once on a second signal; either way the calls'
//! futures are dropped (and their groups killed) before the process exits, and the exit code is
//! the conventional one (128 + the signal's number).

use std::process::ExitCode;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// How long after the first signal `main` waits for the command to finish, at most: the grace,
/// and a second for writing what is owed. Well under the 10 s `docker stop` waits before its
/// SIGKILL.
pub(crate) const STOP_LIMIT: Duration =
    pi_tool::CANCEL_GRACE.saturating_add(Duration::from_secs(1));

/// A signal that asks the program to stop.
#[derive(Debug, Clone, Copy)]
enum Stop {
    Hangup,
    Interrupt,
    Terminate,
}

impl Stop {
    /// The shell's convention: 128 + the signal's number.
    fn exit_code(self) -> u8 {
        match self {
            Self::Hangup => 129,
            Self::Interrupt => 130,
            Self::Terminate => 143,
        }
    }
}

/// The program's answer to stop signals. Cheap to clone; clones watch the same signals.
#[derive(Debug, Clone)]
pub(crate) struct Shutdown {
    /// Cancelled by the first signal.
    requested: CancellationToken,
    /// Cancelled by the second signal.
    forced: CancellationToken,
    /// The first signal.
    received: Arc<OnceLock<Stop>>,
}

impl Shutdown {
    /// Starts catching the stop signals; from now on they no longer end the process by
    /// themselves. Must run inside the runtime.
    pub(crate) fn listen() -> std::io::Result<Self> {
        let shutdown = Self {
            requested: CancellationToken::new(),
            forced: CancellationToken::new(),
            received: Arc::new(OnceLock::new()),
        };
        let mut signals = Signals::new()?;
        let listener = shutdown.clone();
        tokio::spawn(async move {
            while let Some(stop) = signals.next().await {
                if listener.received.set(stop).is_ok() {
                    listener.requested.cancel();
                } else {
                    listener.forced.cancel();
                }
            }
        });
        Ok(shutdown)
    }

    /// Cancelled by the first stop signal: give it (or a child) to every call.
    pub(crate) fn token(&self) -> &CancellationToken {
        &self.requested
    }

    /// Completes on the second stop signal.
    pub(crate) async fn forced(&self) {
        self.forced.cancelled().await;
    }

    /// The exit code the first stop signal calls for, if one came.
    pub(crate) fn exit_code(&self) -> Option<ExitCode> {
        self.received
            .get()
            .map(|stop| ExitCode::from(stop.exit_code()))
    }
}

/// The stop signals as one stream.
#[cfg(unix)]
struct Signals {
    hangup: tokio::signal::unix::Signal,
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Signals {
    fn new() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Self {
            hangup: signal(SignalKind::hangup())?,
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    async fn next(&mut self) -> Option<Stop> {
        tokio::select! {
            Some(()) = self.interrupt.recv() => Some(Stop::Interrupt),
            Some(()) = self.terminate.recv() => Some(Stop::Terminate),
            Some(()) = self.hangup.recv() => Some(Stop::Hangup),
            else => None,
        }
    }
}

/// Elsewhere only Ctrl-C can be caught.
#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    #[expect(clippy::unnecessary_wraps, reason = "the same shape as on Unix")]
    fn new() -> std::io::Result<Self> {
        Ok(Self)
    }

    async fn next(&mut self) -> Option<Stop> {
        tokio::signal::ctrl_c().await.ok().map(|()| Stop::Interrupt)
    }
}
