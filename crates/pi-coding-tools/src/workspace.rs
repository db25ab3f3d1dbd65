//! Where the tools' paths lead, and the per-file queue that keeps writers from interleaving.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// The working directory a set of tools was made for, shared by all of them.
///
/// Paths resolve as Pi resolves them: `~` is the home directory, a leading `@` (models copy it
/// from file mentions) is dropped, relative paths join the working directory, absolute paths
/// stay as they are.
///
/// Unlike Pi, the file tools (`read`, `write`, `edit`, `ls`, `find`, `grep`) are confined by
/// default: every path is canonicalised (symbolic links and `..` followed) and one that ends
/// outside the working directory, or the extra roots granted with
/// [`Workspace::with_root`], is refused with a clear error, never read or written.
/// [`Workspace::unconfined`] opts out. `bash` is confined by a Landlock ruleset instead (Linux):
/// it may write only inside the same roots and a private temporary directory of its own (its
/// `TMPDIR`, never the system's `/tmp`), and with
/// [`Workspace::without_network`] may open no socket but a Unix one; each result's details say
/// how far the kernel enforced that. `bash` never gets this process's secrets (see
/// [`Workspace::with_environment`]).
///
/// ```
/// use pi_coding_tools::Workspace;
/// use std::path::Path;
///
/// let workspace = Workspace::new("/repo");
/// assert_eq!(workspace.resolve("src/lib.rs"), Path::new("/repo/src/lib.rs"));
/// assert_eq!(workspace.resolve("@src/lib.rs"), Path::new("/repo/src/lib.rs"));
/// assert_eq!(workspace.resolve("/etc/hosts"), Path::new("/etc/hosts"));
/// assert!(workspace.confined_path("/etc/hosts").is_err());
/// assert!(Workspace::unconfined("/repo").confined_path("/etc/hosts").is_ok());
/// ```
#[derive(Debug, Clone)]
pub struct Workspace {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    cwd: PathBuf,
    /// Canonical directories paths must stay inside; `None` when unconfined.
    roots: Option<Vec<PathBuf>>,
    /// Whether a confined `bash` may use the network.
    network: bool,
    /// Which sandbox a confined `bash` runs in.
    shell_sandbox: crate::ShellSandbox,
    /// Whether `bash`'s full-output files outlive the workspace.
    keep_output_files: bool,
    /// Which variables `bash` does not get (the secrets, but those passed on purpose).
    environment: pi_tool::environment::ToolEnvironment,
    /// One lock per file being written: parallel edits of one file run one after another
    /// (upstream lost edits to this race, earendil-works/pi#2327).
    writers: Mutex<HashMap<FileKey, Arc<tokio::sync::Mutex<()>>>>,
    /// `bash`'s full-output files, removed when the last clone of the workspace goes.
    output_files: Mutex<Vec<PathBuf>>,
    /// Files a rule denies reading: the walking tools leave them out.
    unreadable: Option<Unreadable>,
    /// A confined `bash`'s private temporary directory (its `TMPDIR`), made at its first use;
    /// why it could not be made otherwise.
    shell_temporary: OnceLock<Result<tempfile::TempDir, String>>,
    /// Who reads and writes the file tools' text files; `None`: the local disk.
    file_access: Option<Arc<dyn crate::FileAccess>>,
    /// Who runs `bash`'s commands; `None`: the local sandbox.
    command_runner: Option<Arc<dyn crate::CommandRunner>>,
}

/// Says whether a rule denies reading a file (its canonical path): `grep`, `find` and `ls`
/// leave such files out of what they show, as `read` would refuse them.
#[derive(Clone)]
pub struct Unreadable(Arc<dyn Fn(&Path) -> bool + Send + Sync>);

impl Unreadable {
    /// From a test on a file's canonical path (true: a rule denies reading it).
    pub fn new(denies: impl Fn(&Path) -> bool + Send + Sync + 'static) -> Self {
        Self(Arc::new(denies))
    }

    /// Whether a rule denies reading the file at `path` (canonical).
    pub(crate) fn denies(&self, path: &Path) -> bool {
        (self.0)(path)
    }
}

impl std::fmt::Debug for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Unreadable(..)")
    }
}

impl Inner {
    fn new(cwd: PathBuf, roots: Option<Vec<PathBuf>>) -> Self {
        // Read now, unconfined: a confined file tool's thread may not read it.
        let _ = crate::atomic::umask();
        Self {
            cwd,
            roots,
            network: true,
            shell_sandbox: crate::ShellSandbox::Strongest,
            keep_output_files: false,
            environment: pi_tool::environment::ToolEnvironment::new(),
            writers: Mutex::new(HashMap::new()),
            output_files: Mutex::new(Vec::new()),
            unreadable: None,
            shell_temporary: OnceLock::new(),
            file_access: None,
            command_runner: None,
        }
    }

    /// The same settings, with no queue or file of this one's.
    fn settings(&self) -> Self {
        let mut settings = Self::new(self.cwd.clone(), self.roots.clone());
        settings.network = self.network;
        settings.shell_sandbox = self.shell_sandbox;
        settings.keep_output_files = self.keep_output_files;
        settings.unreadable.clone_from(&self.unreadable);
        settings.environment = self.environment.clone();
        settings.file_access.clone_from(&self.file_access);
        settings.command_runner.clone_from(&self.command_runner);
        settings
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let files = self
            .output_files
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        if self.keep_output_files {
            // The full-output files live in the private temporary directory: it stays with
            // them when there are any (a person will open them), and goes otherwise.
            if !files.is_empty()
                && let Some(Ok(directory)) = self.shell_temporary.take()
            {
                let _kept = directory.keep();
            }
            return;
        }
        for file in files.drain(..) {
            // Already gone (the user removed it) is fine.
            let _ = std::fs::remove_file(file);
        }
    }
}

impl Workspace {
    /// Tools working in `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        let cwd = cwd.into();
        let root = std::fs::canonicalize(&cwd).unwrap_or_else(|_| cwd.clone());
        Self {
            inner: Arc::new(Inner::new(cwd, Some(vec![root]))),
        }
    }

    /// A workspace whose tools may reach any path the process can (Pi's behaviour).
    pub fn unconfined(cwd: impl Into<PathBuf>) -> Self {
        Self {
            inner: Arc::new(Inner::new(cwd.into(), None)),
        }
    }

    /// The same workspace with `root` (and everything below it) reachable too.
    #[must_use]
    pub fn with_root(self, root: impl AsRef<Path>) -> Self {
        let root = root.as_ref();
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let mut inner = self.inner.settings();
        if let Some(roots) = &mut inner.roots {
            roots.push(root);
        }
        Self {
            inner: Arc::new(inner),
        }
    }

    /// What `bash` may do: write inside the roots and its private temporary directory (and
    /// nowhere else); `None` when unconfined.
    pub(crate) fn shell_confinement(&self) -> Option<crate::sandbox::Confinement> {
        let roots = self.inner.roots.as_ref()?;
        let mut writable = roots.clone();
        let temporary = self.shell_temporary();
        if let Ok(directory) = &temporary {
            writable.push(directory.clone());
        }
        Some(crate::sandbox::Confinement {
            writable,
            temporary,
            network: self.inner.network,
            sandbox: self.inner.shell_sandbox,
        })
    }

    /// The confined shell's private temporary directory (mode 0700, in the system's, removed
    /// with the workspace), made at the first call; why it could not be made otherwise.
    ///
    /// A private one rather than the system's: the whole of `/tmp` writable let a command
    /// rewrite other programs' files there (a build tree, a binary kept there).
    fn shell_temporary(&self) -> Result<PathBuf, String> {
        let made = self.inner.shell_temporary.get_or_init(|| {
            tempfile::Builder::new()
                .prefix("pi-bash-tmp-")
                .tempdir()
                .map_err(|error| error.to_string())
        });
        match made {
            Ok(directory) => Ok(canonical_root(directory.path())),
            Err(error) => Err(error.clone()),
        }
    }

    /// Where `bash`'s full-output files go: the confined shell's private temporary directory
    /// (so that the shell can read them under any sandbox), the system's otherwise.
    pub(crate) fn output_directory(&self) -> PathBuf {
        if self.inner.roots.is_some()
            && let Ok(directory) = self.shell_temporary()
        {
            return directory;
        }
        std::env::temp_dir()
    }

    /// The same workspace with `bash` kept off the network (when confined): no socket but Unix
    /// ones under Landlock; under bubblewrap no network at all, nor any path-based Unix socket
    /// outside the workspace.
    #[must_use]
    pub fn without_network(self) -> Self {
        let mut inner = self.inner.settings();
        inner.network = false;
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The same workspace with a confined `bash` in `sandbox` (by default the strongest this
    /// machine allows).
    #[must_use]
    pub fn with_shell_sandbox(self, sandbox: crate::ShellSandbox) -> Self {
        let mut inner = self.inner.settings();
        inner.shell_sandbox = sandbox;
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The same workspace with `bash`'s full-output files (`pi-bash-*.log` in the shell's
    /// private temporary directory, which then stays too) kept after it is gone. By default they are removed when the last clone of
    /// the workspace (the last tool made from it) is dropped, so finished runs leave nothing
    /// behind; a one-shot command that shows their path to a person keeps them.
    #[must_use]
    pub fn keeping_output_files(self) -> Self {
        let mut inner = self.inner.settings();
        inner.keep_output_files = true;
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The same workspace with `bash` started in `environment`: by default every secret of
    /// this process withheld (see [`pi_tool::environment`]), sandboxed or not.
    #[must_use]
    pub fn with_environment(self, environment: pi_tool::environment::ToolEnvironment) -> Self {
        let mut inner = self.inner.settings();
        inner.environment = environment;
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The same workspace with `read`, `write` and `edit` reading and writing text files
    /// through `access` (an editor's buffers) instead of the local disk; the path checks
    /// still come first, and images and binary files are still read from disk.
    #[must_use]
    pub fn with_file_access(self, access: Arc<dyn crate::FileAccess>) -> Self {
        let mut inner = self.inner.settings();
        inner.file_access = Some(access);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The same workspace with `bash` running its commands through `runner` (an editor's
    /// terminal) whenever the runner takes them, instead of the local sandbox.
    #[must_use]
    pub fn with_command_runner(self, runner: Arc<dyn crate::CommandRunner>) -> Self {
        let mut inner = self.inner.settings();
        inner.command_runner = Some(runner);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// Who reads and writes text files in place of the disk, if anyone.
    pub(crate) fn file_access(&self) -> Option<&Arc<dyn crate::FileAccess>> {
        self.inner.file_access.as_ref()
    }

    /// Who runs `bash`'s commands in place of the local sandbox, if anyone.
    pub(crate) fn command_runner(&self) -> Option<&Arc<dyn crate::CommandRunner>> {
        self.inner.command_runner.as_ref()
    }

    /// Which variables `bash` does not get.
    pub(crate) fn environment(&self) -> &pi_tool::environment::ToolEnvironment {
        &self.inner.environment
    }

    /// What a person should be told once at start about `bash`'s sandbox here: bubblewrap
    /// wanted but missing (what Landlock alone leaves open, how to get the stronger sandbox,
    /// or, with [`crate::ShellSandbox::Bubblewrap`], that `bash` will refuse to run); `None`
    /// when nothing is missing, Landlock alone was chosen, or the workspace is unconfined.
    pub fn shell_sandbox_notice(&self) -> Option<String> {
        crate::sandbox::notice(&self.shell_confinement()?)
    }

    /// How far the kernel holds the file tools inside the roots: `Some("landlock")` where each
    /// call runs under a Landlock ruleset (a path swapped for a link mid-call is refused),
    /// `Some("none: why")` where only the path check does; `None` when unconfined.
    pub fn file_confinement(&self) -> Option<&'static str> {
        self.inner
            .roots
            .as_ref()
            .map(|_| crate::sandbox::files::enforcement())
    }

    /// Notes a full-output file to remove with the workspace.
    pub(crate) fn remember_output_file(&self, path: &Path) {
        self.inner
            .output_files
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(path.to_path_buf());
    }

    /// The path a tool argument names, canonicalised, if the workspace lets tools reach it;
    /// otherwise the error the model reads.
    pub fn confined_path(&self, path: &str) -> Result<PathBuf, pi_tool::ToolError> {
        let resolved = self.resolve(path);
        let Some(roots) = &self.inner.roots else {
            return Ok(resolved);
        };
        let canonical = canonical(&resolved);
        if roots.iter().any(|root| canonical.starts_with(root)) {
            return Ok(canonical);
        }
        let message = format!(
            "Path {path} is outside the workspace ({}): the tools may only reach files inside it",
            roots
                .iter()
                .map(|root| root.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        // Said for the program too: an agent loop may offer to run the call outside.
        let refusal = pi_tool::SandboxRefusal {
            kind: pi_tool::RefusalKind::OutsideWorkspace,
            path: Some(canonical.display().to_string()),
            evidence: message.clone(),
        };
        Err(refusal.into_error(message))
    }

    /// The same workspace (directory, sandbox choice, network, output files) with nothing
    /// confined: what a call the sandbox refused runs in once a person lets it run outside.
    #[must_use]
    pub fn without_confinement(&self) -> Self {
        let mut inner = self.inner.settings();
        inner.roots = None;
        Self {
            inner: Arc::new(inner),
        }
    }

    /// Whether `path` (absolute, or relative to the working directory) is somewhere a
    /// confined `bash` may write: inside the roots or its private temporary directory. Always true
    /// when unconfined.
    pub(crate) fn shell_may_write(&self, path: &Path) -> bool {
        let Some(confinement) = self.shell_confinement() else {
            return true;
        };
        let canonical = canonical(&self.inner.cwd.join(path));
        confinement
            .writable
            .iter()
            .any(|root| canonical.starts_with(root) || canonical.starts_with(canonical_root(root)))
    }

    /// The same workspace, with `grep`, `find` and `ls` leaving out the files `unreadable`
    /// says a rule denies reading (an approval policy's `read` deny rules, which `read`
    /// itself is refused by before it runs).
    #[must_use]
    pub fn with_unreadable(self, unreadable: Unreadable) -> Self {
        let mut inner = self.inner.settings();
        inner.unreadable = Some(unreadable);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// What says which files a rule denies reading, if anything does.
    pub(crate) fn unreadable(&self) -> Option<Unreadable> {
        self.inner.unreadable.clone()
    }

    /// The canonical directories the tools are confined to; `None` when unconfined.
    pub(crate) fn roots(&self) -> Option<&[PathBuf]> {
        self.inner.roots.as_deref()
    }

    /// The working directory.
    pub fn cwd(&self) -> &Path {
        &self.inner.cwd
    }

    /// The path a tool argument names.
    ///
    /// When the path as typed does not exist, other spellings of it are tried, as upstream Pi
    /// tries them: models type a plain space and a straight apostrophe where macOS names
    /// have a narrow no-break space (`shot 10.00.00\u{202f}AM.png`), a no-break space or a
    /// curly apostrophe (`Capture d\u{2019}écran`), and composed accents where the name has
    /// decomposed ones. A missing name is looked up in its directory among the names that
    /// read the same once those differences are set aside, and taken when exactly one does.
    /// Only directories the workspace may reach are listed; whatever is found is confined as
    /// any other path. A name found in no spelling is a new one: its Unicode spaces are plain
    /// spaces, as upstream Pi names a new file ([`pi_tool::path::spelled_as_new`]).
    pub fn resolve(&self, path: &str) -> PathBuf {
        let typed = self.resolve_as_typed(path);
        pi_tool::path::respelled(&typed, |directory| self.may_list(directory))
            .unwrap_or_else(|| pi_tool::path::spelled_as_new(&typed))
    }

    fn resolve_as_typed(&self, path: &str) -> PathBuf {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        pi_tool::path::resolve_argument(&self.inner.cwd, home.as_deref(), path)
    }

    /// Whether the tools may see what `directory` holds: it is inside the roots (or the
    /// workspace is unconfined).
    fn may_list(&self, directory: &Path) -> bool {
        let Some(roots) = &self.inner.roots else {
            return true;
        };
        let canonical = canonical(directory);
        roots.iter().any(|root| canonical.starts_with(root))
    }

    /// The one name of the file a tool argument names, whatever its spelling: what its
    /// write queue and its place in a batch are keyed by.
    pub(crate) fn queue_key_of(&self, path: &str) -> FileKey {
        queue_key(&self.resolve(path))
    }

    /// Holds the write queue of the file `path` names until the guard is dropped. `a`, `./a`,
    /// `dir/../a` and a link to `a` share one queue.
    pub(crate) async fn lock_for_writing(&self, path: &Path) -> tokio::sync::OwnedMutexGuard<()> {
        let lock = {
            let mut writers = self
                .inner
                .writers
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            // Forget locks nobody holds or waits for, so the map stays as small as the work.
            writers.retain(|_, lock| Arc::strong_count(lock) > 1);
            Arc::clone(writers.entry(queue_key(path)).or_default())
        };
        lock.lock_owned().await
    }
}

/// Where `path` really leads (the one function approval rules use too, so both agree on
/// where `src/../.env` or a link leads).
pub(crate) fn canonical(path: &Path) -> PathBuf {
    pi_tool::path::canonical(path)
}

/// A writable root as the kernel sees it (the temporary directory may be a link).
fn canonical_root(root: &Path) -> PathBuf {
    std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf())
}

/// What one file's write queue and its place in a batch are keyed by.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum FileKey {
    /// An existing file with several (hard-linked) names: its device and inode, which every
    /// name shares.
    Inode { device: u64, inode: u64 },
    /// Any other file, there or not yet: where its path really leads (see [`canonical`]).
    Path(PathBuf),
}

impl std::fmt::Display for FileKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Inode { device, inode } => write!(f, "inode {device}:{inode}"),
            Self::Path(path) => write!(f, "path {}", path.display()),
        }
    }
}

/// One key per file, whatever its name: `a`, `./a`, `dir/../a`, a symbolic link to `a` and a
/// hard link to `a` share one.
fn queue_key(path: &Path) -> FileKey {
    use std::os::unix::fs::MetadataExt;
    let canonical = canonical(path);
    match std::fs::metadata(&canonical) {
        // Only a file with several names needs its inode to be known by each of them; any
        // other keeps the key of its path, the key it had before it existed, so a batch that
        // creates a file and then edits it keeps one queue for both (a key taken after the
        // creation would differ from the one the creating write holds).
        Ok(metadata) if metadata.is_file() && metadata.nlink() > 1 => FileKey::Inode {
            device: metadata.dev(),
            inode: metadata.ino(),
        },
        _ => FileKey::Path(canonical),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_new_file_keeps_the_key_it_had_before_it_existed() {
        let dir = tempfile::tempdir().unwrap();
        let fresh = dir.path().join("fresh.txt");
        let before = queue_key(&fresh);
        std::fs::write(&fresh, "x").unwrap();
        assert_eq!(queue_key(&fresh), before);
        assert_eq!(queue_key(&dir.path().join("./fresh.txt")), before);
    }

    #[test]
    fn hard_linked_names_share_one_key_and_other_files_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            dir.path().join("a"),
            dir.path().join("b"),
            dir.path().join("c"),
        );
        std::fs::write(&a, "x").unwrap();
        std::fs::hard_link(&a, &b).unwrap();
        std::fs::write(&c, "x").unwrap();
        assert_eq!(queue_key(&a), queue_key(&b));
        assert_ne!(queue_key(&a), queue_key(&c));
        // A file not there yet is keyed by where its path leads.
        let fresh = dir.path().join("fresh");
        assert_eq!(queue_key(&fresh), FileKey::Path(canonical(&fresh)));
    }
    use pi_tool::path::respelled;

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

    #[test]
    fn a_name_is_respelled_only_where_its_directory_may_be_listed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a\u{a0}b"), "x").unwrap();
        let typed = dir.path().join("a b");
        assert_eq!(
            respelled(&typed, |_| true),
            Some(dir.path().join("a\u{a0}b"))
        );
        assert_eq!(respelled(&typed, |_| false), None);
        assert_eq!(respelled(&dir.path().join("a\u{a0}b"), |_| true), None);
    }

    #[tokio::test]
    async fn every_spelling_of_one_file_shares_its_queue() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        std::fs::write(dir.path().join("a"), "x").unwrap();
        let workspace = Workspace::new(dir.path());
        let held = workspace.lock_for_writing(&workspace.resolve("a")).await;
        for spelling in ["./a", "d/../a", "@a"] {
            let path = workspace.resolve(spelling);
            let queued = workspace.lock_for_writing(&path);
            assert!(
                tokio::time::timeout(Duration::from_millis(30), queued)
                    .await
                    .is_err(),
                "{spelling} took another queue"
            );
        }
        // A file that does not exist yet: its directory is canonical, its name kept.
        let new = workspace
            .lock_for_writing(&workspace.resolve("d/../new"))
            .await;
        let path = workspace.resolve("./new");
        let again = workspace.lock_for_writing(&path);
        assert!(
            tokio::time::timeout(Duration::from_millis(30), again)
                .await
                .is_err()
        );
        drop((held, new));
    }
}
