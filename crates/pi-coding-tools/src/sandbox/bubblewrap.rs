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

/// What every sandboxed shell gets: the root read-only, a fresh `/dev` and `/proc`, its own
/// process and IPC namespaces, killed with its parent, in a session of its own (no
/// `TIOCSTI` into the user's terminal), no capabilities even as root.
const BASE_ARGUMENTS: &[&str] = &[
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
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

/// What a result's `details.sandbox` says of a bubblewrap sandbox.
pub(crate) fn enforcement(confinement: &Confinement) -> Enforcement {
    let network = if confinement.network {
        ""
    } else {
        ", no network"
    };
    format!(
        "bubblewrap (read-only outside the workspace, own process namespace, no capabilities{network})"
    )
}

/// `name` found on `PATH`, as a shell would find it.
pub(crate) fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|directory| directory.join(name))
        .find(|candidate| candidate.is_file())
}
