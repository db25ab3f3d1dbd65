//! The warnings about the sandbox a person gets at start, found on a thread of their own.
//!
//! Finding them probes the machine (a `bwrap` trial run, a Landlock ruleset on a scratch
//! thread): 15 to 30 ms that need nothing else. Pi's modes read the session file meanwhile and
//! print the warnings once it is read, before their first output; the other commands print them
//! at once, as before.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::thread::JoinHandle;

/// The start-up warnings, being found or found.
#[derive(Default)]
pub(crate) struct StartNotices {
    /// The warnings, until they are printed.
    pending: Mutex<Option<Pending>>,
}

/// Warnings not printed yet.
enum Pending {
    /// Being found on their own thread.
    Finding(JoinHandle<Vec<String>>),
    /// Found already (no thread could be started).
    Found(Vec<String>),
}

impl StartNotices {
    /// Starts finding what a person should know about the sandbox of `workspace` (the
    /// workspace of `dir`); when no thread can be started, finds it now.
    pub(crate) fn find(&self, workspace: pi_coding_tools::Workspace, dir: &Path) {
        let probe = Probe {
            workspace,
            dir: dir.to_path_buf(),
        };
        let shared = std::sync::Arc::new(probe);
        let on_thread = std::sync::Arc::clone(&shared);
        let pending = match std::thread::Builder::new()
            .name("sandbox-probe".to_owned())
            .spawn(move || on_thread.lines())
        {
            Ok(handle) => Pending::Finding(handle),
            Err(_) => Pending::Found(shared.lines()),
        };
        *self.pending.lock().unwrap_or_else(PoisonError::into_inner) = Some(pending);
    }

    /// Prints the warnings on stderr, waiting for them if they are still being found; only the
    /// first call prints.
    pub(crate) fn report(&self) {
        let pending = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let lines = match pending {
            None => return,
            Some(Pending::Found(lines)) => lines,
            Some(Pending::Finding(handle)) => handle
                .join()
                .unwrap_or_else(|_| vec!["the sandbox probe failed".to_owned()]),
        };
        for line in lines {
            report!("pi-tool: {line}");
        }
    }
}

/// What the probe looks at.
struct Probe {
    /// The coding tools' workspace.
    workspace: pi_coding_tools::Workspace,
    /// Its directory, as the person named it.
    dir: PathBuf,
}

impl Probe {
    /// The warnings: `bash`'s sandbox missing or weaker than wanted, and the kernel unable to
    /// hold the file tools inside the workspace.
    fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(notice) = self.workspace.shell_sandbox_notice() {
            lines.push(notice);
        }
        if let Some(reason) = self
            .workspace
            .file_confinement()
            .and_then(|held| held.strip_prefix("none: "))
        {
            lines.push(format!(
                "the kernel cannot hold the file tools inside {} ({reason}); only the path check does",
                self.dir.display()
            ));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_once_and_nothing_before_finding() {
        let notices = StartNotices::default();
        // Nothing started: nothing to wait for.
        notices.report();
        let dir = tempfile::tempdir().unwrap();
        let workspace = pi_coding_tools::Workspace::new(dir.path());
        notices.find(workspace, dir.path());
        assert!(notices.pending.lock().unwrap().is_some());
        notices.report();
        assert!(notices.pending.lock().unwrap().is_none());
    }
}
