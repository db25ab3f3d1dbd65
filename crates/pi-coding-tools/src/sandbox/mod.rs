//! `bash` under a Linux Landlock ruleset: the shell and everything it starts may read the whole
//! file system but write only inside the workspace's roots, the temporary directory and
//! `/dev/null`, and (when asked) may not open TCP connections.
//!
//! Landlock restricts a thread and the processes it starts. The shell is therefore started from
//! a fresh thread that restricts itself first and ends right after (never a thread of tokio's
//! pools, which would stay restricted), so no `unsafe` `pre_exec` is needed.

use std::path::PathBuf;

use tokio::process::Child;

/// What the shell may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Confinement {
    /// Directories the shell may write in.
    pub(crate) writable: Vec<PathBuf>,
    /// Whether TCP connections and listening are allowed.
    pub(crate) network: bool,
}

/// How far the kernel enforced the confinement, as the result's details say it.
pub(crate) type Enforcement = String;

/// Starts the process `build` makes, confined; says how well.
pub(crate) fn spawn(
    build: impl FnOnce() -> std::io::Result<Child> + Send,
    confinement: &Confinement,
) -> (std::io::Result<Child>, Enforcement) {
    let handle = tokio::runtime::Handle::current();
    std::thread::scope(|scope| {
        let started = scope.spawn(|| {
            let _runtime = handle.enter();
            let enforcement = restrict(confinement);
            (build(), enforcement)
        });
        started.join().unwrap_or_else(|_| {
            (
                Err(std::io::Error::other("the shell could not be started")),
                "none: the sandbox thread failed".to_owned(),
            )
        })
    })
}

/// How far this machine would enforce `confinement`, found by restricting a throwaway thread.
pub(crate) fn probe(confinement: &Confinement) -> Enforcement {
    std::thread::scope(|scope| {
        scope
            .spawn(|| restrict(confinement))
            .join()
            .unwrap_or_else(|_| "none: the sandbox thread failed".to_owned())
    })
}

#[cfg(target_os = "linux")]
fn restrict(confinement: &Confinement) -> Enforcement {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus,
        path_beneath_rules,
    };
    let abi = ABI::V5;
    let attempt = || -> Result<RulesetStatus, landlock::RulesetError> {
        let mut ruleset = Ruleset::default().handle_access(AccessFs::from_all(abi))?;
        if !confinement.network {
            ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
        }
        let status = ruleset
            .create()?
            .add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi)))?
            .add_rules(path_beneath_rules(
                &confinement.writable,
                AccessFs::from_all(abi),
            ))?
            .add_rules(path_beneath_rules(["/dev/null"], AccessFs::from_all(abi)))?
            .restrict_self()?;
        Ok(status.ruleset)
    };
    match attempt() {
        Ok(RulesetStatus::FullyEnforced) => "landlock".to_owned(),
        Ok(RulesetStatus::PartiallyEnforced) => {
            "landlock (partly: this kernel knows only some of the rules)".to_owned()
        }
        Ok(RulesetStatus::NotEnforced) => "none: this kernel has no Landlock".to_owned(),
        Err(error) => format!("none: Landlock failed: {error}"),
    }
}

#[cfg(not(target_os = "linux"))]
fn restrict(_confinement: &Confinement) -> Enforcement {
    "none: Landlock is Linux only".to_owned()
}
