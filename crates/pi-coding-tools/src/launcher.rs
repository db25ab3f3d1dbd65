//! A command run by someone else (an editor's terminal) under our own sandbox: the runner is
//! handed our binary and [`ShellLaunch::arguments`] instead of `bash -c COMMAND`, and our
//! binary, started with them, calls [`launch`], which applies exactly the sandbox and the
//! environment filtering a local `bash` run gets and then *becomes* the shell (`exec`).
//!
//! Why `exec` rather than a child: the runner owns the process it started; killing it (a
//! cancel, a time limit) must kill the command, with no launcher left in between to die alone
//! and leave the shell running. Landlock, the dropped capabilities, `no_new_privs`, the seccomp
//! filter and `RLIMIT_NPROC` all survive `exec`; under bubblewrap the process becomes `bwrap`,
//! whose `--die-with-parent` ends the sandbox with it.

use std::ffi::OsString;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::sandbox::{Confinement, ShellSandbox};

/// The hidden subcommand a program serving [`launch`] answers to: its first argument, before
/// the rest of [`ShellLaunch::arguments`].
pub const LAUNCHER_SUBCOMMAND: &str = "__confined-shell";

/// Everything a launcher needs to run one command as a local `bash` call would: the shell and
/// the command, the directory, the sandbox (none when the workspace is unconfined) and the
/// variables let through on purpose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShellLaunch {
    /// The shell, run as `shell -c command`.
    pub shell: PathBuf,
    /// The command line, as the model wrote it.
    pub command: String,
    /// Where it runs.
    pub cwd: PathBuf,
    /// The sandbox; `None`: unconfined (only the secrets are withheld).
    sandbox: Option<LaunchSandbox>,
    /// Secret-looking variables let through on purpose (`--pass-env`).
    passed: Vec<String>,
}

/// The [`Confinement`] of a launch, in a form that travels as an argument.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct LaunchSandbox {
    writable: Vec<PathBuf>,
    /// The shell's private temporary directory (its `TMPDIR`), or why there is none.
    temporary: Result<PathBuf, String>,
    network: bool,
    sandbox: LaunchChoice,
}

/// [`ShellSandbox`], as it travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum LaunchChoice {
    Strongest,
    Landlock,
    Bubblewrap,
}

/// Why [`launch`] did not become the shell.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// The arguments are not what [`ShellLaunch::arguments`] makes.
    #[error("pi-tool {LAUNCHER_SUBCOMMAND}: bad arguments ({0}); it is started by pi-tool itself")]
    Arguments(String),
    /// The sandbox refused to run the shell (`--sandbox bubblewrap` without bubblewrap).
    #[error("{0}")]
    Refused(String),
    /// Starting the shell (or `bwrap`) failed.
    #[error("could not start the shell")]
    Exec(#[source] std::io::Error),
}

impl ShellLaunch {
    /// `shell -c command` in `cwd` as `workspace`'s `bash` would run it.
    pub(crate) fn new(
        workspace: &crate::Workspace,
        shell: PathBuf,
        command: String,
        cwd: PathBuf,
    ) -> Self {
        let sandbox = workspace
            .shell_confinement()
            .map(|confinement| LaunchSandbox {
                writable: confinement.writable,
                temporary: confinement.temporary,
                network: confinement.network,
                sandbox: match confinement.sandbox {
                    ShellSandbox::Strongest => LaunchChoice::Strongest,
                    ShellSandbox::Landlock => LaunchChoice::Landlock,
                    ShellSandbox::Bubblewrap => LaunchChoice::Bubblewrap,
                },
            });
        Self {
            shell,
            command,
            cwd,
            sandbox,
            passed: workspace.environment().passed().to_vec(),
        }
    }

    /// Whether the command runs sandboxed.
    pub fn is_confined(&self) -> bool {
        self.sandbox.is_some()
    }

    /// The arguments our binary takes to run this launch: [`LAUNCHER_SUBCOMMAND`], the launch
    /// as JSON, and the command line again last, so a person looking at the terminal sees it.
    pub fn arguments(&self) -> Vec<String> {
        // A struct of strings, paths and booleans always serialises.
        let launch = serde_json::to_string(self).unwrap_or_default();
        vec![LAUNCHER_SUBCOMMAND.to_owned(), launch, self.command.clone()]
    }

    /// How far this machine holds the sandbox, as a local run's `details.sandbox` says it;
    /// `None` when unconfined.
    pub(crate) fn enforcement(&self) -> Option<String> {
        self.confinement()
            .map(|confinement| crate::sandbox::probe(&confinement))
    }

    fn confinement(&self) -> Option<Confinement> {
        self.sandbox.as_ref().map(|sandbox| Confinement {
            writable: sandbox.writable.clone(),
            temporary: sandbox.temporary.clone(),
            network: sandbox.network,
            sandbox: match sandbox.sandbox {
                LaunchChoice::Strongest => ShellSandbox::Strongest,
                LaunchChoice::Landlock => ShellSandbox::Landlock,
                LaunchChoice::Bubblewrap => ShellSandbox::Bubblewrap,
            },
        })
    }
}

/// Runs the launch the `arguments` after [`LAUNCHER_SUBCOMMAND`] describe: confines this
/// process as a local `bash` call's shell is confined, withholds the same variables of its
/// environment, and replaces it with the shell. Returns only when that failed.
///
/// Call it first thing in `main`, before any thread is started: the sandbox is put on the
/// calling thread, which is the one `exec` keeps.
pub fn launch(arguments: &[OsString]) -> LaunchError {
    let [launch, command] = arguments else {
        return LaunchError::Arguments(format!("two expected, {} given", arguments.len()));
    };
    let Some(launch) = launch.to_str() else {
        return LaunchError::Arguments("the launch is not UTF-8".to_owned());
    };
    let launch: ShellLaunch = match serde_json::from_str(launch) {
        Ok(launch) => launch,
        Err(error) => return LaunchError::Arguments(error.to_string()),
    };
    // The command shown last is only for people: the launch's own is the one that runs.
    if command.to_str() != Some(launch.command.as_str()) {
        return LaunchError::Arguments("the command differs from the launch's".to_owned());
    }
    let environment = launch.passed.iter().fold(
        pi_tool::environment::ToolEnvironment::new(),
        |environment, name| environment.passing(name.clone()),
    );
    let withheld = environment.withheld();
    crate::sandbox::exec_shell(
        &launch.shell,
        &launch.command,
        &launch.cwd,
        launch.confinement().as_ref(),
        &withheld,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_travels_as_its_arguments() {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let workspace = crate::Workspace::new(dir.path())
            .without_network()
            .with_environment(pi_tool::environment::ToolEnvironment::new().passing("GH_TOKEN"));
        let launch = ShellLaunch::new(
            &workspace,
            PathBuf::from("/bin/bash"),
            "echo hi".to_owned(),
            dir.path().to_path_buf(),
        );
        assert!(launch.is_confined());
        let arguments = launch.arguments();
        assert_eq!(
            arguments.first().map(String::as_str),
            Some(LAUNCHER_SUBCOMMAND)
        );
        assert_eq!(arguments.last().map(String::as_str), Some("echo hi"));
        let json = arguments.get(1).map_or("", String::as_str);
        let back: ShellLaunch =
            serde_json::from_str(json).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(back, launch);
        assert_eq!(back.passed, ["GH_TOKEN"]);
        let sandbox = back.sandbox.unwrap_or_else(|| panic!("confined"));
        assert!(!sandbox.network);
        assert!(
            sandbox.writable.len() >= 2,
            "the root and the temporary directory"
        );
        let unconfined = ShellLaunch::new(
            &crate::Workspace::unconfined(dir.path()),
            PathBuf::from("/bin/bash"),
            "true".to_owned(),
            dir.path().to_path_buf(),
        );
        assert!(!unconfined.is_confined());
    }

    #[test]
    fn bad_arguments_are_refused_with_the_reason() {
        let refused = |arguments: &[&str]| {
            let arguments: Vec<OsString> = arguments.iter().map(OsString::from).collect();
            launch(&arguments).to_string()
        };
        assert!(refused(&[]).contains("two expected, 0 given"));
        assert!(refused(&["{", "true"]).contains("bad arguments"));
        let launch = ShellLaunch::new(
            &crate::Workspace::unconfined("."),
            PathBuf::from("/bin/sh"),
            "true".to_owned(),
            PathBuf::from("."),
        );
        let json = serde_json::to_string(&launch).unwrap_or_default();
        assert!(refused(&[&json, "false"]).contains("the command differs"));
    }
}
