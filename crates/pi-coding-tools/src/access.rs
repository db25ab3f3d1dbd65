//! The two seams through which a front end may take over the tools' work on files and
//! commands: an editor that serves its own buffers ([`FileAccess`]) and runs commands in its
//! own terminals ([`CommandRunner`]). By default there is neither: `read`, `write` and `edit`
//! use the local filesystem (each call on a kernel-confined thread) and `bash` runs in the
//! local sandbox, exactly as before these seams existed.
//!
//! What never moves behind a seam: the path checks ([`crate::Workspace::confined_path`]) run
//! before a [`FileAccess`] is asked, the approvals before the tool runs at all, and images
//! and binary files are always read from disk (an editor serves text).

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::time::Duration;

use pi_tool::{ToolContext, ToolError};

use crate::ShellLaunch;
use serde_json::{Map, Value};

/// What a seam's work gives back, later.
pub type AccessFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, ToolError>> + Send + 'a>>;

/// Reads and writes text files for `read`, `write` and `edit` in place of the local disk.
///
/// Every path is absolute and already confined to the workspace. An error's text is what the
/// model reads, after `Could not read <path>: ` (or `write`).
pub trait FileAccess: Send + Sync {
    /// The whole text of the file at `path` as its holder has it (an editor: its buffer,
    /// unsaved changes included).
    fn read_text<'a>(&'a self, path: &'a Path) -> AccessFuture<'a, String>;

    /// Makes `text` the whole content of the file at `path`, creating it if it is missing.
    ///
    /// `write` and `edit` read the file through [`FileAccess::read_text`] just before (a
    /// failed read: the file is new), under the file's queue: what that read gave is what
    /// this write replaces.
    fn write_text<'a>(&'a self, path: &'a Path, text: &'a str) -> AccessFuture<'a, ()>;
}

/// A command `bash` asks a [`CommandRunner`] to run.
#[derive(Debug, Clone)]
pub struct CommandRequest {
    /// The shell that runs it as `shell -c command`: `bash` where installed, `sh` otherwise.
    pub shell: std::path::PathBuf,
    /// The command line, as the model wrote it.
    pub command: String,
    /// The directory it runs in: the workspace's.
    pub cwd: std::path::PathBuf,
    /// The call's time limit, if the model gave one: the runner stops the command then and
    /// answers [`CommandEnd::TimedOut`].
    pub timeout: Option<Duration>,
    /// The most output worth keeping: what is written beyond it may be dropped from the
    /// start (the tool shows a tail of at most this much).
    pub output_limit: usize,
    /// The same command under the workspace's own sandbox and environment filtering: a
    /// runner outside our sandbox runs our binary with [`ShellLaunch::arguments`] rather
    /// than the bare shell, so the command stays confined (see [`crate::launcher`]).
    pub launch: ShellLaunch,
}

/// How a command run by a [`CommandRunner`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandEnd {
    /// It exited with this code.
    Exited(i32),
    /// A signal ended it (the signal's name, when known).
    Signalled(Option<String>),
    /// The time limit ran out and it was stopped.
    TimedOut,
    /// The call was cancelled and it was stopped.
    Aborted,
}

/// What a [`CommandRunner`] saw of a command.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandRun {
    /// Its output (stdout and stderr as the runner mixes them), possibly only the tail.
    pub output: String,
    /// Whether the start of the output was dropped (over [`CommandRequest::output_limit`]).
    pub truncated: bool,
    /// How it ended.
    pub end: CommandEnd,
    /// Added to the result's details as they are (an editor's terminal id, so the call's
    /// update can show the terminal).
    pub details: Map<String, Value>,
}

/// Runs `bash`'s commands somewhere else than this process's children (an editor's
/// terminal). A runner outside our sandbox must run [`CommandRequest::launch`] (our binary as
/// the launcher), never the bare shell, so the command stays as confined as a local run.
///
/// The runner owns the command's life: it stops it on the time limit and when the call's
/// signal ([`ToolContext::signal`]) is cancelled, and answers only once it is stopped.
pub trait CommandRunner: Send + Sync {
    /// Whether this call goes to the runner now; `false`: it runs locally, sandboxed, as
    /// without a runner.
    fn takes_commands(&self) -> bool {
        true
    }

    /// Runs `request` to its end.
    fn run<'a>(
        &'a self,
        request: CommandRequest,
        context: &'a ToolContext,
    ) -> AccessFuture<'a, CommandRun>;
}

impl std::fmt::Debug for dyn FileAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FileAccess(..)")
    }
}

impl std::fmt::Debug for dyn CommandRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CommandRunner(..)")
    }
}
