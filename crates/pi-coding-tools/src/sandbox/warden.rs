//! The thread a Landlock-confined shell is started from, kept for the whole call: the one thing
//! that can end every process the command started.
//!
//! A stop signalled the shell's process group, and a job that called `setsid` (its own session
//! and group) outlived it. The Landlock ruleset belongs to the thread that made it and to every
//! process started after, through any `fork`, `setsid` or double fork, and (on Linux 6.12+) its
//! signal scope lets them signal only each other. So this thread, restricted by that same
//! ruleset before it starts the shell, may signal exactly the command's processes: a signal to
//! "every process it may signal" (`kill(-1)`) reaches all of them, and no other (pi-tool's own
//! process is never among them). That holds only where the kernel enforced the scope; elsewhere
//! there is no warden, and the process group alone is signalled.

use std::sync::mpsc;
use std::time::Duration;

use nix::sys::signal::Signal;
use tokio::process::{Child, Command};

use super::{Confinement, Started, restrict_shell};

/// How long a stop waits for the warden to have signalled.
const ORDER_LIMIT: Duration = Duration::from_secs(1);

/// A signal to send, and where to say it was sent.
struct Order {
    signal: Signal,
    done: mpsc::Sender<()>,
}

/// The running warden of one shell; it ends when this is dropped.
#[derive(Debug)]
pub(crate) struct Warden {
    orders: mpsc::Sender<Order>,
}

impl Warden {
    /// Sends `signal` to every process the command started, whatever session or group it is
    /// in; returns once it is sent (or after a second, if the warden is gone).
    pub(crate) fn signal_all(&self, signal: Signal) {
        let (done, sent) = mpsc::channel();
        if self.orders.send(Order { signal, done }).is_ok() {
            let _ = sent.recv_timeout(ORDER_LIMIT);
        }
    }
}

/// Starts `process` (the shell, with everything but its sandbox set) from a fresh thread that
/// restricts itself first (never a thread of tokio's pools, which would stay restricted; and
/// no `unsafe` `pre_exec`), and keeps that thread as the shell's warden when signals are
/// scoped.
pub(crate) fn start(process: Command, confinement: Confinement) -> Started {
    let handle = tokio::runtime::Handle::current();
    let (started_sender, started) = mpsc::channel();
    let (orders, received) = mpsc::channel::<Order>();
    let thread = std::thread::Builder::new()
        .name("pi-bash-warden".to_owned())
        .spawn(move || {
            let mut process = process;
            let restricted = restrict_shell(&confinement);
            let child: std::io::Result<Child> = {
                let _runtime = handle.enter();
                process.spawn()
            };
            // Belt and braces before anything may signal "every process": the kernel must
            // refuse this thread a signal to a process outside its domain that it could
            // signal before (pi-tool's parent, as a rule of the same user).
            let scoped = restricted.signals_scoped && !reaches_parent();
            let restricted = super::Restricted {
                signals_scoped: scoped,
                ..restricted
            };
            let keep = child.is_ok() && scoped;
            let _ = started_sender.send((child, restricted));
            if keep {
                serve(&received);
            }
        });
    let failed = |why: &str| Started {
        child: Err(std::io::Error::other(format!(
            "the shell could not be started: {why}"
        ))),
        enforcement: "none: the sandbox thread failed".to_owned(),
        warden: None,
    };
    if let Err(error) = thread {
        return failed(&error.to_string());
    }
    let Ok((child, restricted)) = started.recv() else {
        return failed("its thread ended");
    };
    let mut enforcement = restricted.enforcement;
    let warden = if restricted.signals_scoped {
        Some(Warden { orders })
    } else {
        if !enforcement.starts_with("none") {
            enforcement
                .push_str("; not covered: a job that leaves the process group outlives a stop");
        }
        None
    };
    Started {
        child,
        enforcement,
        warden,
    }
}

/// Whether this thread may signal pi-tool's parent process (signal 0: nothing is sent).
fn reaches_parent() -> bool {
    nix::sys::signal::kill(nix::unistd::getppid(), None).is_ok()
}

/// Carries out the orders until the warden is dropped.
fn serve(orders: &mpsc::Receiver<Order>) {
    while let Ok(order) = orders.recv() {
        // Some may be gone already, and none may be left: nothing to do then.
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(-1), order.signal);
        let _ = order.done.send(());
    }
}
