//! Every way opening, reading or writing a session can fail. Each error names the file and,
//! for I/O, keeps the operating system's error as its source; none leaves the file changed.

use std::io;
use std::path::PathBuf;

/// Why a file is not accepted as a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotASessionReason {
    /// The file has no bytes (Pi would write a header into it; we never touch a file we did
    /// not create).
    Empty,
    /// The first JSON line is not `{"type":"session","id":<string>,...}`.
    NoHeader,
    /// No line of the file is JSON.
    NoJson,
    /// The path is a directory, device, FIFO or socket.
    NotARegularFile,
}

impl std::fmt::Display for NotASessionReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Empty => "the file is empty",
            Self::NoHeader => {
                "its first JSON line is not a session header ({\"type\":\"session\",\"id\":...})"
            }
            Self::NoJson => "no line of it is JSON",
            Self::NotARegularFile => "it is not a regular file",
        })
    }
}

/// An error of this crate.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// A system call failed.
    #[error("cannot {op} {}", path.display())]
    Io {
        /// What was being done (`open`, `read`, `append to`, ...).
        op: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// The file is not a Pi session; it was left exactly as it was.
    #[error("{} is not a valid Pi session file: {reason}; it was left untouched", path.display())]
    NotASession {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: NotASessionReason,
    },
    /// A line of the file is longer than [`crate::MAX_LINE_BYTES`]; the file was left as it was.
    #[error("{}: line {line} is longer than the limit of {} MiB for a session line; the file was left untouched", path.display(), limit >> 20)]
    LineTooLong {
        /// The file.
        path: PathBuf,
        /// The line's 1-based number.
        line: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// Parent links loop; building a context would never reach a root.
    #[error("{}: parent links form a cycle through entries {}", path.display(), ids.join(" -> "))]
    Cycle {
        /// The file (empty for a session in memory).
        path: PathBuf,
        /// The entries on the cycle, each followed by its parent.
        ids: Vec<String>,
    },
    /// The session file was deleted while the session was open.
    #[error("{} was deleted while the session was open; the entry was not written (no headless file is recreated)", path.display())]
    FileDeleted {
        /// The file.
        path: PathBuf,
    },
    /// Another file now stands at the session's path.
    #[error("{} was replaced by another file while the session was open; the entry was not written", path.display())]
    FileReplaced {
        /// The file.
        path: PathBuf,
    },
    /// Someone else wrote to the file (or cut it) since this session last wrote.
    #[error("{} changed outside this session (expected {expected} bytes, found {found}); the entry was not written", path.display())]
    ChangedElsewhere {
        /// The file.
        path: PathBuf,
        /// The length this session left it at.
        expected: u64,
        /// The length found.
        found: u64,
    },
    /// Another process has the session open for writing.
    #[error("{} is open for writing in another process", path.display())]
    Locked {
        /// The file.
        path: PathBuf,
    },
    /// A new session's file name is already taken; nothing was overwritten.
    #[error("{} already exists; it was not overwritten", path.display())]
    AlreadyExists {
        /// The file.
        path: PathBuf,
    },
    /// No entry has this id.
    #[error("no entry {id} in the session")]
    UnknownEntry {
        /// The id asked for.
        id: String,
    },
    /// The session was opened read-only.
    #[error("the session {} is open read-only", path.display())]
    ReadOnly {
        /// The file.
        path: PathBuf,
    },
    /// A message entry on the context path does not have the shape of its role.
    #[error("entry {entry_id}: its message cannot be read")]
    BadMessage {
        /// The entry.
        entry_id: String,
        /// What serde found wrong.
        #[source]
        source: serde_json::Error,
    },
    /// The file was changed in place since it was loaded: a line loaded from it is no longer
    /// there (a file only appended to, renamed or deleted stays readable).
    #[error("{} changed on disk since it was loaded: the entry read at byte {offset} is no longer there; load the session again", path.display())]
    ChangedOnDisk {
        /// The file.
        path: PathBuf,
        /// Where the line was.
        offset: u64,
    },
    /// A value to be written cannot be turned into JSON.
    #[error("cannot write the entry as JSON")]
    Encode {
        /// What serde found wrong.
        #[source]
        source: serde_json::Error,
    },
}

impl SessionError {
    /// The error for lines of `path` that could not be read.
    pub(crate) fn lines(path: impl Into<PathBuf>, error: crate::text_file::ReadLinesError) -> Self {
        match error {
            crate::text_file::ReadLinesError::Io(source) => Self::io("read", path, source),
            crate::text_file::ReadLinesError::LineTooLong(line) => Self::LineTooLong {
                path: path.into(),
                line,
                limit: crate::MAX_LINE_BYTES,
            },
        }
    }

    pub(crate) fn io(op: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        Self::Io {
            op,
            path: path.into(),
            source,
        }
    }
}

/// This crate's result.
pub type Result<T, E = SessionError> = std::result::Result<T, E>;
