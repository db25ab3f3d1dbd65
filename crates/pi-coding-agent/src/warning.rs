//! What went wrong while gathering the prompt's files: never a reason to stop a run (Pi warns
//! and goes on), so these are returned beside the prompt for the front end to show.

use std::path::PathBuf;

/// A file the prompt would have used was left out or cut.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PromptWarning {
    /// A context file or prompt file exists but could not be read.
    #[error("could not read {}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A context file name that is not a regular file (a directory, a pipe).
    #[error("{} is not a regular file; skipped", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// A context file larger than [`crate::MAX_CONTEXT_FILE_BYTES`]: only its start is sent.
    #[error(
        "{} is {size} bytes; only its first {kept} go into the system prompt",
        path.display()
    )]
    Cut {
        /// The file.
        path: PathBuf,
        /// Its size on disk.
        size: u64,
        /// How many bytes were kept.
        kept: usize,
    },
    /// A project `.pi/SYSTEM.md` or `.pi/APPEND_SYSTEM.md` in a project that is not trusted:
    /// it would change how the agent behaves, so it is ignored (as Pi does).
    #[error(
        "{} is ignored: this project is not trusted (list it in permissions.trustedProjects of your settings.json)",
        path.display()
    )]
    Untrusted {
        /// The file.
        path: PathBuf,
    },
}
