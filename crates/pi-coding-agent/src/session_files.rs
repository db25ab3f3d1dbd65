//! Changes to a session file that is not the one open (Pi's `/resume` picker): naming it
//! (a `session_info` entry appended, as `/name` writes one) and deleting it.

use std::path::Path;

use pi_session::Session;

use crate::runtime_error::RuntimeError;

/// Names the session kept at `path`; the file must be a session (it is read first).
pub fn rename_session_file(path: &Path, name: &str) -> Result<(), RuntimeError> {
    let session_error = |source| RuntimeError::Session {
        what: format!("naming {}", path.display()),
        source,
    };
    let mut session = Session::open(path).map_err(session_error)?;
    session.set_name(name).map_err(session_error)?;
    Ok(())
}

/// Deletes the session file at `path`, after reading it as a session (a file that is not one
/// is refused and left as it is).
pub fn delete_session_file(path: &Path) -> Result<(), RuntimeError> {
    Session::load(path).map_err(|source| RuntimeError::Session {
        what: format!("deleting {}", path.display()),
        source,
    })?;
    std::fs::remove_file(path).map_err(|source| RuntimeError::Io {
        what: format!("deleting {}", path.display()),
        source,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use pi_ai::{Message, UserMessage};

    #[test]
    fn names_and_deletes_a_session_file_and_refuses_other_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut session = Session::create(dir.path(), dir.path());
        session
            .append_message(&Message::from(UserMessage::text("hello")))
            .unwrap();
        let path = session.file_path().unwrap().to_path_buf();
        drop(session);
        rename_session_file(&path, "the refactor").unwrap();
        assert_eq!(Session::load(&path).unwrap().name(), Some("the refactor"));
        let notes = dir.path().join("notes.jsonl");
        std::fs::write(&notes, "just words\n").unwrap();
        assert!(delete_session_file(&notes).is_err());
        assert!(rename_session_file(&notes, "x").is_err());
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), "just words\n");
        delete_session_file(&path).unwrap();
        assert!(!path.exists());
    }
}
