//! Walking a directory as ripgrep and fd do: `.gitignore`, `.ignore` and the tool's own ignore
//! file (`.rgignore` for `grep`, `.fdignore` for `find`) respected, hidden files included, `.git`
//! itself skipped.
//!
//! `.gitignore` rules stop where git's stop: inside a repository only the repository's own
//! rules apply, so an outer directory's `.gitignore` never hides a file that a nested
//! repository tracks. Outside any repository `.gitignore` is still honoured (as Pi's explicit
//! `--ignore-file`s make it), and a repository met during the walk is walked with its own rules.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use ignore::overrides::Override;
use ignore::{DirEntry, WalkBuilder};
use pi_tool::ToolError;
use tokio_util::sync::CancellationToken;

/// What a model is told when its call is cancelled mid-walk.
pub(crate) const ABORTED: &str = "Operation aborted";

/// How to walk below one directory.
pub(crate) struct Walker {
    root: PathBuf,
    /// A `--glob`-style filter (`grep`'s `glob`), matched relative to `root`.
    overrides: Option<Override>,
    /// The ignore file of the tool upstream runs (`.rgignore`, `.fdignore`).
    own_ignore_file: &'static str,
    /// Files a rule denies reading, left out of the walk; with the root's canonical path,
    /// which entries' paths are made from (one `realpath` per walk, not per file).
    unreadable: Option<(crate::workspace::Unreadable, PathBuf)>,
}

/// Repositories met by a walk outside any repository, set aside to be walked with their own
/// rules; they come out in the order the walk met them.
type SetAside = Arc<Mutex<Vec<DirEntry>>>;

impl Walker {
    /// A walk below `root`, optionally narrowed by a `--glob`-style pattern, honouring
    /// `own_ignore_file` beside `.gitignore` and `.ignore` (it wins over both, as in ripgrep).
    pub(crate) fn new(
        root: &Path,
        glob: Option<&str>,
        own_ignore_file: &'static str,
    ) -> Result<Self, ToolError> {
        let overrides = glob
            .map(|glob| {
                ignore::overrides::OverrideBuilder::new(root)
                    .add(glob)
                    .and_then(|builder| builder.build())
                    .map_err(|error| {
                        ToolError::with_source(format!("Invalid glob {glob}: {error}"), error)
                    })
            })
            .transpose()?;
        Ok(Self {
            root: root.to_path_buf(),
            overrides,
            own_ignore_file,
            unreadable: None,
        })
    }

    /// Leaves out the files `unreadable` says a rule denies reading.
    pub(crate) fn hiding(mut self, unreadable: Option<crate::workspace::Unreadable>) -> Self {
        self.unreadable =
            unreadable.map(|unreadable| (unreadable, pi_tool::path::canonical(&self.root)));
        self
    }

    /// Whether an entry is a file a rule denies reading.
    fn hidden(&self, entry: &DirEntry) -> bool {
        let Some((unreadable, canonical_root)) = &self.unreadable else {
            return false;
        };
        if entry.file_type().is_some_and(|kind| kind.is_dir()) {
            return false;
        }
        let path = entry.path();
        match path.strip_prefix(&self.root) {
            Ok(relative) => unreadable.denies(&canonical_root.join(relative)),
            Err(_) => unreadable.denies(&pi_tool::path::canonical(path)),
        }
    }

    /// The entries below the root (not the root itself), in path order, until `visit` says
    /// stop or the call is cancelled. Unreadable entries are skipped.
    pub(crate) fn each_entry(
        &self,
        signal: &CancellationToken,
        mut visit: impl FnMut(&DirEntry) -> bool,
    ) -> Result<(), ToolError> {
        let in_repository = self.root.ancestors().any(is_repository);
        self.walk(&self.root, in_repository, signal, &mut visit)
            .map(|_| ())
    }

    /// Walks below `root`; `Ok(false)` once `visit` said stop.
    fn walk(
        &self,
        root: &Path,
        in_repository: bool,
        signal: &CancellationToken,
        visit: &mut dyn FnMut(&DirEntry) -> bool,
    ) -> Result<bool, ToolError> {
        // Inside a repository the `ignore` crate itself stops `.gitignore` rules at every
        // repository root (nested ones included); outside one it cannot tell where a
        // repository starts, so repositories are set aside and walked on their own.
        let set_aside = (!in_repository).then(SetAside::default);
        let builder = self.builder(root, in_repository, set_aside.clone());
        for entry in builder.build().filter_map(Result::ok) {
            if signal.is_cancelled() {
                return Err(ToolError::new(ABORTED));
            }
            if entry.depth() == 0 {
                continue;
            }
            // The filter sees entries in walk order, so a repository it set aside comes
            // before this entry.
            if let Some(set_aside) = &set_aside
                && !self.walk_set_aside(set_aside, signal, visit)?
            {
                return Ok(false);
            }
            if self.hidden(&entry) {
                continue;
            }
            if !visit(&entry) {
                return Ok(false);
            }
        }
        match &set_aside {
            Some(set_aside) => self.walk_set_aside(set_aside, signal, visit),
            None => Ok(true),
        }
    }

    /// Each repository set aside so far: the directory itself, then what is below it.
    fn walk_set_aside(
        &self,
        set_aside: &Mutex<Vec<DirEntry>>,
        signal: &CancellationToken,
        visit: &mut dyn FnMut(&DirEntry) -> bool,
    ) -> Result<bool, ToolError> {
        let repositories =
            std::mem::take(&mut *set_aside.lock().unwrap_or_else(PoisonError::into_inner));
        for repository in repositories {
            if !visit(&repository) || !self.walk(repository.path(), true, signal, visit)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn builder(
        &self,
        root: &Path,
        in_repository: bool,
        set_aside: Option<SetAside>,
    ) -> WalkBuilder {
        let mut builder = WalkBuilder::new(root);
        builder
            .hidden(false)
            .require_git(in_repository)
            .add_custom_ignore_filename(self.own_ignore_file)
            .sort_by_file_path(Path::cmp);
        if let Some(overrides) = &self.overrides {
            builder.overrides(overrides.clone());
        }
        match set_aside {
            Some(set_aside) => builder.filter_entry(move |entry| {
                if entry.file_name() == ".git" {
                    return false;
                }
                let is_dir = entry.file_type().is_some_and(|kind| kind.is_dir());
                if entry.depth() > 0 && is_dir && is_repository(entry.path()) {
                    set_aside
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(entry.clone());
                    return false;
                }
                true
            }),
            None => builder.filter_entry(|entry| entry.file_name() != ".git"),
        };
        builder
    }
}

/// Whether `directory` is the root of a git repository (a `.git` directory, or the `.git` file
/// of a worktree or submodule).
fn is_repository(directory: &Path) -> bool {
    directory.join(".git").symlink_metadata().is_ok()
}

/// `path` relative to `root`, with `/` separators whatever the platform.
pub(crate) fn relative(root: &Path, path: &Path) -> String {
    let relative: PathBuf = path.strip_prefix(root).unwrap_or(path).to_path_buf();
    relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}
