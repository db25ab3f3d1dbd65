//! The shell under bubblewrap (`bwrap`, the sandbox Flatpak is built on): a read-only view of
//! the whole file system with only the writable directories bound writable, in its own mount,
//! process and IPC namespaces, with no capabilities.
//!
//! Mount namespaces are what holds metadata (`chmod`, `chown`, times, attributes, inode flags)
//! outside the workspace: Landlock cannot. They cannot be made from a thread of a
//! multi-threaded process without `unsafe` code in the child, so the well-kept setuid-free
//! program that does exactly this is used where it is installed and works.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tokio::process::Command;

use super::{Confinement, Enforcement};

/// The `bwrap` program when it is installed and can make its namespaces here (containers
/// often forbid them); probed once per process.
pub(crate) fn available() -> Option<&'static Path> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let program = find_program("bwrap")?;
            // The same namespaces a real call uses, on a command that does nothing.
            let works = std::process::Command::new(&program)
                .args(BASE_ARGUMENTS)
                .args(["--unshare-net", "--", "true"])
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|status| status.success());
            works.then_some(program)
        })
        .as_deref()
}

/// Why bubblewrap cannot be used here (`not installed`, or installed but unable to make its
/// namespaces); `None` when it works.
pub(crate) fn missing() -> Option<&'static str> {
    if available().is_some() {
        return None;
    }
    Some(if find_program("bwrap").is_some() {
        "installed but cannot make its namespaces here"
    } else {
        "not installed"
    })
}

/// What every sandboxed shell gets: the root read-only, a fresh `/dev` and `/proc`, the parts
/// of `/proc` that write the host read-only, its own process, IPC and host-name namespaces,
/// killed with its parent, in a session of its own (no `TIOCSTI` into the user's terminal), no
/// capabilities even as root.
///
/// Root needs no capability to write a sysctl (`/proc/sys/kernel/core_pattern` is mode 0644,
/// owned by root): only a read-only mount stops it. Bubblewrap 0.8 covers `sysrq-trigger`,
/// `irq` and `bus` itself but skips `sys`, whose `access(W_OK)` fails for root, so each is
/// bound here, after `--proc` (bwrap applies its arguments in order). The sources are the
/// host's entries: the global sysctls read the same, only per-namespace ones show the host's.
const BASE_ARGUMENTS: &[&str] = &[
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--ro-bind-try",
    "/proc/sys",
    "/proc/sys",
    "--ro-bind-try",
    "/proc/sysrq-trigger",
    "/proc/sysrq-trigger",
    "--ro-bind-try",
    "/proc/irq",
    "/proc/irq",
    "--ro-bind-try",
    "/proc/bus",
    "/proc/bus",
    "--ro-bind-try",
    "/proc/fs",
    "/proc/fs",
    "--ro-bind-try",
    "/proc/mtrr",
    "/proc/mtrr",
    "--ro-bind-try",
    "/proc/pressure",
    "/proc/pressure",
    "--ro-bind-try",
    "/proc/acpi",
    "/proc/acpi",
    "--ro-bind-try",
    "/proc/scsi",
    "/proc/scsi",
    "--ro-bind-try",
    "/proc/driver",
    "/proc/driver",
    "--ro-bind-try",
    "/proc/tty",
    "/proc/tty",
    "--ro-bind-try",
    "/proc/latency_stats",
    "/proc/latency_stats",
    "--ro-bind-try",
    "/proc/timer_stats",
    "/proc/timer_stats",
    "--unshare-uts",
    "--unshare-pid",
    "--unshare-ipc",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
];

/// `shell -c command` in `cwd` under bubblewrap.
pub(crate) fn command(
    bwrap: &Path,
    confinement: &Confinement,
    shell: &Path,
    command: &str,
    cwd: &Path,
) -> Command {
    let mut process = Command::new(bwrap);
    process.args(BASE_ARGUMENTS);
    if !confinement.network {
        hide_unix_sockets(&mut process, confinement);
    }
    // After the fresh file systems above: a writable directory inside one of them is bound
    // onto it.
    for directory in &confinement.writable {
        // A root that does not exist cannot be bound (bwrap would refuse to start).
        if directory.is_dir() {
            process.arg("--bind").arg(directory).arg(directory);
        }
    }
    if !confinement.network {
        process.arg("--unshare-net");
    }
    // Inside the sandbox a relative directory would be taken from `/`: give bwrap the real one.
    let cwd = std::path::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    process
        .arg("--chdir")
        .arg(&cwd)
        .arg("--")
        .arg(shell)
        .arg("-c")
        .arg(command)
        .current_dir(&cwd);
    process
}

/// Keeps the shell from every path-based Unix socket outside its writable directories: fresh
/// empty file systems on the runtime directories, and each other listening socket covered by
/// `/dev/null` (connecting to it is then refused).
fn hide_unix_sockets(process: &mut Command, confinement: &Confinement) {
    let runtime = super::sockets::runtime_directories();
    for directory in &runtime {
        process.arg("--tmpfs").arg(directory);
    }
    let mut reachable = runtime;
    reachable.extend(confinement.writable.iter().cloned());
    for socket in super::sockets::listening_outside(&reachable) {
        process.arg("--ro-bind").arg("/dev/null").arg(socket);
    }
}

/// What a result's `details.sandbox` says of a bubblewrap sandbox.
pub(crate) fn enforcement(confinement: &Confinement) -> Enforcement {
    let network = if confinement.network {
        ""
    } else {
        ", no network, no Unix socket outside the workspace"
    };
    format!(
        "bubblewrap (read-only outside the workspace and in /proc/sys, own process namespace, no capabilities{network})"
    )
}

/// `name` found on `PATH`, as a shell would find it.
pub(crate) fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|directory| directory.join(name))
        .find(|candidate| candidate.is_file())
}

/// The processes running inside the sandbox that the `bwrap` process `id` started: every
/// descendant but bubblewrap's own (its namespace's init).
///
/// A stopped command must get `SIGTERM` and a grace, as it does outside bubblewrap, but
/// bubblewrap neither passes signals on nor shares its process group with the command (it
/// starts a new session inside): signalling its group would end the sandbox, and with it every
/// process, at once. Found by reading `/proc` (no maintained crate gives a process's children
/// without `CONFIG_PROC_CHILDREN`, and the whole need is one parent field per process).
/// Empty when `id` is not a bubblewrap process.
pub(crate) fn processes_inside(id: u32) -> Vec<u32> {
    if command_name(id).as_deref() != Some("bwrap") {
        return Vec::new();
    }
    let mut children: std::collections::HashMap<u32, Vec<u32>> = std::collections::HashMap::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|name| name.parse().ok())
            else {
                continue;
            };
            if let Some(parent) = parent_of(pid) {
                children.entry(parent).or_default().push(pid);
            }
        }
    }
    let mut inside = Vec::new();
    let mut waiting = vec![id];
    while let Some(parent) = waiting.pop() {
        for &child in children.get(&parent).map(Vec::as_slice).unwrap_or_default() {
            waiting.push(child);
            if command_name(child).as_deref() != Some("bwrap") {
                inside.push(child);
            }
        }
    }
    inside
}

/// The parent of process `pid`, from `/proc/PID/stat` (the field after the command name,
/// which is in parentheses and may itself hold spaces and parentheses).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, after_name) = stat.rsplit_once(')')?;
    after_name.split_whitespace().nth(1)?.parse().ok()
}

/// The command name of process `pid` (`/proc/PID/comm`).
fn command_name(pid: u32) -> Option<String> {
    let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
    Some(name.trim_end().to_owned())
}
