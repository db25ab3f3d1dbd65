//! A session as one self-contained HTML page, as Pi's `/export` and `--export` write it: the
//! tree with the current path, every message of every branch, tool calls with their
//! arguments, results and (for `edit`) a coloured diff, images, compactions and branch
//! summaries, and what the session cost.
//!
//! It exists because a session file is for programs: a person reviewing what an agent did,
//! or sharing it, wants a page that opens in any browser. Unlike Pi's export (a page that
//! renders the session with bundled scripts at load time), the page here is rendered ahead of
//! time and holds no script at all: a Content-Security-Policy forbids scripts and every
//! network request, and everything from the session is escaped, so a hostile message (raw
//! HTML, a `javascript:` link, a remote image) shows as text and the page works offline and
//! with scripts turned off. Folding (long outputs, thinking) uses `<details>`.
//!
//! ```
//! let dir = tempfile::tempdir().unwrap();
//! let file = dir.path().join("s.jsonl");
//! std::fs::write(&file, concat!(
//!     r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-12-07T10:00:00.000Z","cwd":"/w"}"#, "\n",
//!     r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-12-07T10:00:01.000Z","message":{"role":"user","content":"hi <b>","timestamp":1}}"#, "\n",
//! )).unwrap();
//! let session = pi_session::Session::load(&file).unwrap();
//! let html = pi_export::session_html(&session);
//! assert!(html.contains("id=\"e-a1\"") && html.contains("hi &lt;b&gt;"));
//! ```

mod content;
mod entry;
mod escape;
mod markdown;
mod page;
mod tool_call;
mod tree;

use std::io::Write;
use std::path::{Path, PathBuf};

use pi_session::Session;

/// Why a page could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The session lives only in memory (nothing was written yet).
    #[error("Cannot export in-memory session to HTML")]
    InMemory,
    /// The session's file is not written yet (Pi writes it with the first answer).
    #[error("Nothing to export yet - start a conversation first")]
    NothingYet,
    /// The session file could not be read.
    #[error("could not read the session {path}")]
    Session {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: pi_session::SessionError,
    },
    /// The page could not be written.
    #[error("could not write {path}")]
    Write {
        /// The page's path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// The page for `session`.
pub fn session_html(session: &Session) -> String {
    page::render(session)
}

/// Where Pi writes a session's page when no path is given: `pi-session-<file name>.html` in
/// the current directory.
pub fn default_output_path(session_file: &Path) -> PathBuf {
    let stem = session_file
        .file_stem()
        .map_or_else(|| "session".into(), |stem| stem.to_string_lossy());
    PathBuf::from(format!("pi-session-{stem}.html"))
}

/// Writes the page for `session` to `output` (default: [`default_output_path`]) and returns
/// the path written. The page is written to a temporary file beside `output` and renamed
/// over it, so a failure leaves any file already there as it was.
pub fn write_session_html(
    session: &Session,
    output: Option<&Path>,
) -> Result<PathBuf, ExportError> {
    let file = session.file_path().ok_or(ExportError::InMemory)?;
    if !file.exists() {
        return Err(ExportError::NothingYet);
    }
    let output = output.map_or_else(|| default_output_path(file), Path::to_path_buf);
    let html = session_html(session);
    let failed = |source| ExportError::Write {
        path: output.clone(),
        source,
    };
    let dir = match output.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut temporary = tempfile::NamedTempFile::new_in(dir).map_err(failed)?;
    temporary.write_all(html.as_bytes()).map_err(failed)?;
    // A temporary file is private (0600); the page gets the mode of the file it replaces, or
    // the usual 0644 of a document a person shares.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let permissions = std::fs::metadata(&output).map_or_else(
            |_| std::fs::Permissions::from_mode(0o644),
            |existing| existing.permissions(),
        );
        temporary
            .as_file()
            .set_permissions(permissions)
            .map_err(failed)?;
    }
    temporary
        .persist(&output)
        .map_err(|error| failed(error.error))?;
    Ok(output)
}

/// Reads the session file `input` (without changing it) and writes its page: Pi's
/// `--export <in> [out]`.
pub fn export_file(input: &Path, output: Option<&Path>) -> Result<PathBuf, ExportError> {
    let session = Session::load(input).map_err(|source| ExportError::Session {
        path: input.to_path_buf(),
        source,
    })?;
    write_session_html(&session, output)
}
