//! What the kernel holds, not a check: the confinement of `bash` and of the file tools.
//!
//! `bash` runs in one of two sandboxes, the strongest this machine allows:
//! - **bubblewrap** (when `bwrap` is installed and user or mount namespaces work): the whole
//!   file system is mounted read-only for the shell and everything it starts, except the
//!   workspace's roots and the shell's private temporary directory, which are bound writable.
//!   Nothing outside can be written, created, renamed, `chmod`ed, `chown`ed, touched or given
//!   attributes, by root too; `/proc/sys` and the rest of `/proc` that writes the host are
//!   read-only. `/dev` is a fresh minimal one, the shell has its own process, IPC and host-name
//!   namespaces (it can signal only its own processes; they all end when the shell does), no
//!   capabilities at all, and with no network its own empty network namespace (TCP and UDP
//!   both gone) and no path-based Unix socket outside the workspace ([`sockets`]).
//! - **Landlock** otherwise (Linux 5.13+): the shell may read anything but write only inside
//!   the same directories (device nodes never), may not signal processes or reach abstract
//!   sockets outside its own sandbox (Linux 6.12+), runs with no capabilities (as root:
//!   `CAP_MKNOD`, `CAP_SYS_ADMIN`, ... gone from every set) and `no_new_privs`, and with no
//!   network may open no socket but Unix ones (TCP by Landlock, the rest by [`seccomp`]). Landlock
//!   does not cover metadata (`chmod`, `chown`, `utimensat`, extended attributes, inode flags)
//!   nor path-based Unix sockets: a file outside that this user owns can still have its mode or
//!   times changed. Each result's `details.sandbox` says so.
//!
//! In both, the shell's `TMPDIR` is a private directory, a command runs at most
//! [`limits::MAX_PROCESSES`] processes ([`limits`]), and a stop ends every process it started
//! ([`warden`]). [`ShellSandbox::Landlock`] chooses the second where bubblewrap misbehaves;
//! [`ShellSandbox::Bubblewrap`] refuses to run the shell without the first.
//!
//! The file tools run every call on a fresh thread restricted by Landlock to the roots (see
//! [`files`]): a path checked and then swapped for a symbolic link to the outside is refused
//! by the kernel at open time.

pub(crate) mod bubblewrap;
pub(crate) mod denial;
pub(crate) mod files;
pub(crate) mod limits;
mod notice;
#[cfg(target_os = "linux")]
mod rules;
#[cfg(target_os = "linux")]
mod seccomp;
mod sockets;
pub(crate) mod warden;

pub(crate) use notice::notice;

use std::path::{Path, PathBuf};

use tokio::process::{Child, Command};

/// What the shell may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Confinement {
    /// Directories the shell may write in.
    pub(crate) writable: Vec<PathBuf>,
    /// The shell's private temporary directory (also in `writable`), or why there is none.
    pub(crate) temporary: Result<PathBuf, String>,
    /// Whether the network may be used.
    pub(crate) network: bool,
    /// Which sandbox the shell runs in.
    pub(crate) sandbox: ShellSandbox,
}

/// Which sandbox a confined `bash` runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShellSandbox {
    /// Bubblewrap where it is installed and works, Landlock otherwise.
    #[default]
    Strongest,
    /// Landlock alone, for machines where bubblewrap misbehaves (it then also leaves the
    /// shell's background jobs running after it exits, as an unsandboxed shell does).
    Landlock,
    /// Bubblewrap only: where it is missing or does not work, `bash` refuses to run rather than
    /// fall back to the weaker Landlock.
    Bubblewrap,
}

/// How far the kernel enforced the confinement, as the result's details say it.
pub(crate) type Enforcement = String;

/// A confined shell, started.
pub(crate) struct Started {
    /// The shell (or the `bwrap` process that runs it).
    pub(crate) child: std::io::Result<Child>,
    /// How far the sandbox holds, as the result's details say it.
    pub(crate) enforcement: Enforcement,
    /// The thread that started it, kept for the call: under Landlock, where the kernel scopes
    /// signals, what can end every process the command started (under bubblewrap its process
    /// namespace does).
    pub(crate) warden: Option<warden::Warden>,
    /// The command's process limit, kept for the call.
    pub(crate) limit: Option<limits::ProcessLimit>,
}

/// Starts `shell -c command` in `cwd`, confined; says how well. `configure` sets what every
/// shell gets (pipes, process group, environment); the sandbox adds its own wrapping.
pub(crate) fn spawn_shell(
    shell: &Path,
    command: &str,
    cwd: &Path,
    confinement: &Confinement,
    configure: impl Fn(&mut Command),
) -> Started {
    if confinement.sandbox == ShellSandbox::Bubblewrap
        && let Some(missing) = bubblewrap::missing()
    {
        return Started {
            child: Err(std::io::Error::other(format!(
                "bash refused: the sandbox must be bubblewrap (--sandbox bubblewrap), and \
                 bubblewrap is {missing}; install it, or choose --sandbox strongest"
            ))),
            enforcement: format!("none: bubblewrap is {missing}"),
            warden: None,
            limit: None,
        };
    }
    let use_bubblewrap = confinement.sandbox != ShellSandbox::Landlock;
    if let Some(bwrap) = bubblewrap::available().filter(|_| use_bubblewrap) {
        let mut process = bubblewrap::command(bwrap, confinement, shell, command, cwd);
        configure(&mut process);
        set_temporary(&mut process, confinement);
        let mut started = warden::start(process, warden::Bubblewrap);
        started.enforcement = bubblewrap::enforcement(confinement);
        if let Some(limit) = &started.limit {
            started
                .enforcement
                .push_str(&format!(", {}", limit.description));
        }
        started
            .enforcement
            .push_str(&temporary_problem(confinement));
        return started;
    }
    let mut process = Command::new(shell);
    process.arg("-c").arg(command).current_dir(cwd);
    configure(&mut process);
    set_temporary(&mut process, confinement);
    let mut started = warden::start(process, warden::Landlock(confinement.clone()));
    started
        .enforcement
        .push_str(&temporary_problem(confinement));
    started
}

/// Points the shell's `TMPDIR` at its private temporary directory; without one, at nothing
/// (the system's is not writable in the sandbox).
fn set_temporary(process: &mut Command, confinement: &Confinement) {
    match &confinement.temporary {
        Ok(directory) => process.env("TMPDIR", directory),
        Err(_) => process.env_remove("TMPDIR"),
    };
}

/// What the enforcement adds when the shell has no temporary directory.
fn temporary_problem(confinement: &Confinement) -> String {
    match &confinement.temporary {
        Ok(_) => String::new(),
        Err(error) => format!("; no temporary directory ({error})"),
    }
}

/// How far this machine would enforce `confinement`, found without running a command
/// (`refused: why` when the shell will not run at all).
pub(crate) fn probe(confinement: &Confinement) -> Enforcement {
    if confinement.sandbox == ShellSandbox::Bubblewrap
        && let Some(missing) = bubblewrap::missing()
    {
        return format!("refused: bubblewrap is {missing} (--sandbox bubblewrap)");
    }
    if confinement.sandbox != ShellSandbox::Landlock && bubblewrap::available().is_some() {
        return bubblewrap::enforcement(confinement) + &temporary_problem(confinement);
    }
    std::thread::scope(|scope| {
        scope
            .spawn(|| restrict_shell(confinement).enforcement + &temporary_problem(confinement))
            .join()
            .unwrap_or_else(|_| "none: the sandbox thread failed".to_owned())
    })
}

/// What restricting a thread for the shell achieved.
pub(crate) struct Restricted {
    /// How far the sandbox holds.
    pub(crate) enforcement: Enforcement,
    /// Whether the kernel confines this thread's signals, and those of whatever it starts, to
    /// their own Landlock domain: then a signal to every process this thread may reach is a
    /// signal to every process the shell started, and to no other.
    pub(crate) signals_scoped: bool,
}

#[cfg(target_os = "linux")]
fn restrict_shell(confinement: &Confinement) -> Restricted {
    rules::restrict_shell(confinement)
}

#[cfg(not(target_os = "linux"))]
fn restrict_shell(_confinement: &Confinement) -> Restricted {
    Restricted {
        enforcement: "none: the sandbox is Linux only".to_owned(),
        signals_scoped: false,
    }
}

/// Replaces this process with `shell -c command` in `cwd`, confined as `confinement` says
/// (`None`: unconfined), without the `withheld` variables, its `TMPDIR` the private one: what a
/// local run's shell gets, for a launcher whose parent (an editor's terminal) owns the process.
/// Returns only when that failed. The calling thread is restricted: call it before any other.
pub(crate) fn exec_shell(
    shell: &Path,
    command: &str,
    cwd: &Path,
    confinement: Option<&Confinement>,
    withheld: &[std::ffi::OsString],
) -> crate::launcher::LaunchError {
    use std::os::unix::process::CommandExt;

    use crate::launcher::LaunchError;

    let mut process = match confinement {
        None => {
            let mut process = std::process::Command::new(shell);
            process.arg("-c").arg(command).current_dir(cwd);
            process
        }
        Some(confinement) => {
            if confinement.sandbox == ShellSandbox::Bubblewrap
                && let Some(missing) = bubblewrap::missing()
            {
                return LaunchError::Refused(format!(
                    "bash refused: the sandbox must be bubblewrap (--sandbox bubblewrap), and \
                     bubblewrap is {missing}; install it, or choose --sandbox strongest"
                ));
            }
            // Joined before Landlock, which would refuse writing the cgroup's files; kept for
            // the life of the process (the shell this becomes stays in it).
            let mut limit = limits::enter();
            let bwrap =
                bubblewrap::available().filter(|_| confinement.sandbox != ShellSandbox::Landlock);
            let mut process = match bwrap {
                Some(bwrap) => {
                    bubblewrap::command(bwrap, confinement, shell, command, cwd).into_std()
                }
                None => {
                    let restricted = restrict_shell(confinement);
                    if let Some(reason) = restricted.enforcement.strip_prefix("none: ") {
                        // Said where the person watching the terminal reads it, as a local
                        // run's details say it.
                        eprintln!("pi-tool: not sandboxed on this machine ({reason})");
                    }
                    let mut process = std::process::Command::new(shell);
                    process.arg("-c").arg(command).current_dir(cwd);
                    process
                }
            };
            match &confinement.temporary {
                Ok(directory) => process.env("TMPDIR", directory),
                Err(_) => process.env_remove("TMPDIR"),
            };
            limit.apply_to(std::process::id());
            std::mem::forget(limit);
            process
        }
    };
    for name in withheld {
        process.env_remove(name);
    }
    LaunchError::Exec(process.exec())
}
