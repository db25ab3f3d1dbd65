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

pub(crate) use Sandbox::{Bubblewrap, Landlock};

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
    orders: Option<mpsc::Sender<Order>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Warden {
    /// Waits for the thread to end (at once: it only waits for orders), so that the call's
    /// cgroup, which it is in, can be removed right after.
    fn drop(&mut self) {
        drop(self.orders.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Warden {
    /// Sends `signal` to every process the command started, whatever session or group it is
    /// in; returns once it is sent (or after a second, if the warden is gone).
    pub(crate) fn signal_all(&self, signal: Signal) {
        let (done, sent) = mpsc::channel();
        let sent_order = self
            .orders
            .as_ref()
            .is_some_and(|orders| orders.send(Order { signal, done }).is_ok());
        if sent_order {
            let _ = sent.recv_timeout(ORDER_LIMIT);
        }
    }
}

/// How the warden's thread confines the shell before starting it.
pub(crate) enum Sandbox {
    /// Landlock (and seccomp, and no capabilities) on the thread itself.
    Landlock(Confinement),
    /// Nothing on the thread: `bwrap` does it all. The thread is still kept for the call:
    /// bubblewrap's `--die-with-parent` ends the sandbox when the *thread* that started it
    /// ends, as `PR_SET_PDEATHSIG` does.
    Bubblewrap,
}

/// Starts `process` (the shell, or `bwrap`, with everything but its sandbox set) from a fresh
/// thread (never a thread of tokio's pools, which would stay restricted and in the call's
/// cgroup; and no `unsafe` `pre_exec`) that joins the call's process limit, restricts itself
/// as `sandbox` says, starts it, and is kept for the call as its warden.
pub(crate) fn start(process: Command, sandbox: Sandbox) -> Started {
    let handle = tokio::runtime::Handle::current();
    let (started_sender, started) = mpsc::channel();
    let (orders, received) = mpsc::channel::<Order>();
    let thread = std::thread::Builder::new()
        .name("pi-bash-warden".to_owned())
        .spawn(move || {
            let mut process = process;
            // Before Landlock, which would refuse writing the cgroup's files.
            let mut limit = super::limits::enter();
            let restricted = match &sandbox {
                Sandbox::Landlock(confinement) => Some(restrict_shell(confinement)),
                Sandbox::Bubblewrap => None,
            };
            let child: std::io::Result<Child> = {
                let _runtime = handle.enter();
                process.spawn()
            };
            // It holds the parent's copies of the output pipe, which must close for the call
            // to see the output end.
            drop(process);
            if let Some(pid) = child.as_ref().ok().and_then(Child::id) {
                limit.apply_to(pid);
            }
            // Belt and braces before anything may signal "every process": the kernel must
            // refuse this thread a signal to a process outside its domain that it could
            // signal before (pi-tool's parent, as a rule of the same user).
            let restricted = restricted.map(|restricted| super::Restricted {
                signals_scoped: restricted.signals_scoped && !reaches_parent(),
                ..restricted
            });
            let scoped = restricted
                .as_ref()
                .is_some_and(|restricted| restricted.signals_scoped);
            let _ = started_sender.send((child, restricted, limit));
            serve(&received, scoped);
        });
    let failed = |why: &str| Started {
        child: Err(std::io::Error::other(format!(
            "the shell could not be started: {why}"
        ))),
        enforcement: "none: the sandbox thread failed".to_owned(),
        warden: None,
        limit: None,
    };
    let thread = match thread {
        Ok(thread) => thread,
        Err(error) => return failed(&error.to_string()),
    };
    let Ok((child, restricted, limit)) = started.recv() else {
        return failed("its thread ended");
    };
    let mut enforcement = String::new();
    if let Some(restricted) = restricted {
        enforcement = restricted.enforcement;
        if !enforcement.starts_with("none") {
            enforcement.push_str(&format!("; {}", limit.description));
            if !restricted.signals_scoped {
                enforcement
                    .push_str("; not covered: a job that leaves the process group outlives a stop");
            }
        }
    }
    Started {
        child,
        enforcement,
        warden: Some(Warden {
            orders: Some(orders),
            thread: Some(thread),
        }),
        limit: Some(limit),
    }
}

/// Whether this thread may signal pi-tool's parent process (signal 0: nothing is sent).
fn reaches_parent() -> bool {
    nix::sys::signal::kill(nix::unistd::getppid(), None).is_ok()
}

/// Carries out the orders until the warden is dropped: signals them only when this thread's
/// signals are `scoped` to the command's processes (otherwise "every process" could be the
/// whole machine's), and says each is done.
fn serve(orders: &mpsc::Receiver<Order>, scoped: bool) {
    while let Ok(order) = orders.recv() {
        if scoped {
            // Some may be gone already, and none may be left: nothing to do then.
            let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(-1), order.signal);
        }
        let _ = order.done.send(());
    }
}
