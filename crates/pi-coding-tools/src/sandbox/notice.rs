//! The one warning a person gets at start when `bash` cannot have the sandbox it was meant to.

use super::{Confinement, ShellSandbox, bubblewrap, probe};

/// What a person should know at start about `bash`'s sandbox on this machine, once: where
/// bubblewrap is wanted but missing, what Landlock alone leaves open and how to get the
/// stronger sandbox, or that `bash` will refuse to run; `None` when nothing is missing (or
/// Landlock alone was chosen).
pub(crate) fn notice(confinement: &Confinement) -> Option<String> {
    if confinement.sandbox == ShellSandbox::Landlock {
        return None;
    }
    let missing = bubblewrap::missing()?;
    let install = "install bubblewrap (`apt-get install bubblewrap`, `dnf install bubblewrap`) \
                   for the stronger sandbox";
    if confinement.sandbox == ShellSandbox::Bubblewrap {
        return Some(format!(
            "bubblewrap is {missing}: with --sandbox bubblewrap, bash will refuse to run; {install}"
        ));
    }
    let landlock = probe(confinement);
    if let Some(reason) = landlock.strip_prefix("none: ") {
        return Some(format!(
            "bubblewrap is {missing} and Landlock does not hold ({reason}): bash runs \
             unsandboxed and can write anywhere this user can; {install}"
        ));
    }
    Some(format!(
        "bubblewrap is {missing}: bash runs under Landlock alone, which leaves open the \
         metadata (mode, owner, times) of files outside the workspace that this user owns (as \
         root: every file), path-based Unix sockets outside the workspace (a Docker socket, a \
         session bus) even with --no-network, and jobs that leave the process group where \
         the kernel is older than 6.12; {install}, or pass --sandbox landlock to accept this"
    ))
}
