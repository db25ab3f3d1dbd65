//! Where the tools' paths lead, and the per-file queue that keeps writers from interleaving.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// The working directory a set of tools was made for, shared by all of them.
///
/// Paths resolve as Pi resolves them: `~` is the home directory, a leading `@` (models copy it
/// from file mentions) is dropped, relative paths join the working directory, absolute paths
/// stay as they are. Like Pi, this is not a sandbox.
///
/// ```
/// use pi_coding_tools::Workspace;
/// use std::path::Path;
///
/// let workspace = Workspace::new("/repo");
/// assert_eq!(workspace.resolve("src/lib.rs"), Path::new("/repo/src/lib.rs"));
/// assert_eq!(workspace.resolve("@src/lib.rs"), Path::new("/repo/src/lib.rs"));
/// assert_eq!(workspace.resolve("/etc/hosts"), Path::new("/etc/hosts"));
/// ```
#[derive(Debug, Clone)]
pub struct Workspace {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    cwd: PathBuf,
    /// One lock per file being written: parallel edits of one file run one after another
    /// (upstream lost edits to this race, earendil-works/pi#2327).
    writers: Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>,
}

impl Workspace {
    /// Tools working in `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            inner: Arc::new(Inner {
                cwd: cwd.into(),
                writers: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// The working directory.
    pub fn cwd(&self) -> &Path {
        &self.inner.cwd
    }

    /// The path a tool argument names.
    pub fn resolve(&self, path: &str) -> PathBuf {
        let path = path.strip_prefix('@').unwrap_or(path);
        let home = || std::env::var_os("HOME").map(PathBuf::from);
        let under_home = match path {
            "~" => Some(""),
            _ => path.strip_prefix("~/"),
        };
        match (under_home, home()) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => self.inner.cwd.join(path),
        }
    }

    /// Holds the write queue of `path` until the guard is dropped.
    pub(crate) async fn lock_for_writing(&self, path: &Path) -> tokio::sync::OwnedMutexGuard<()> {
        let lock = {
            let mut writers = self
                .inner
                .writers
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            // Forget locks nobody holds or waits for, so the map stays as small as the work.
            writers.retain(|_, lock| Arc::strong_count(lock) > 1);
            Arc::clone(writers.entry(path.to_path_buf()).or_default())
        };
        lock.lock_owned().await
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn writers_of_one_file_queue_and_others_do_not() {
        let workspace = Workspace::new("/repo");
        let (a, b) = (Path::new("/repo/a"), Path::new("/repo/b"));
        let held = workspace.lock_for_writing(a).await;
        let queued = workspace.lock_for_writing(a);
        tokio::pin!(queued);
        // Cannot complete while `held` lives, however long it is given.
        assert!(
            tokio::time::timeout(Duration::from_millis(50), queued.as_mut())
                .await
                .is_err()
        );
        let other = tokio::time::timeout(Duration::from_secs(5), workspace.lock_for_writing(b));
        assert!(other.await.is_ok(), "another file must not wait");
        drop(held);
        let next = tokio::time::timeout(Duration::from_secs(5), queued).await;
        assert!(
            next.is_ok(),
            "the queued writer goes once the first is done"
        );
    }
}
