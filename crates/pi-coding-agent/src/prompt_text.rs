//! `--system-prompt TEXT|FILE` and `--append-system-prompt TEXT|FILE`: a value naming an
//! existing file stands for the file's text, any other value is the text itself (as Pi reads
//! them).

use std::path::{Path, PathBuf};

use crate::warning::PromptWarning;

/// A piece of prompt text and the file it came from, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptText {
    /// The text.
    pub text: String,
    /// The file it was read from.
    pub file: Option<PathBuf>,
}

/// The text `value` stands for: the contents of the file it names when there is one (relative
/// paths against the process's directory, where the user typed them), else `value` itself. A
/// file that exists but cannot be read warns, and the value is taken as text, as Pi does.
pub fn resolve_text(value: &str, warnings: &mut Vec<PromptWarning>) -> PromptText {
    let path = Path::new(value);
    if !value.is_empty() && path.exists() {
        match std::fs::read(path) {
            Ok(bytes) => {
                return PromptText {
                    text: String::from_utf8_lossy(&bytes).into_owned(),
                    file: Some(path.to_path_buf()),
                };
            }
            Err(source) => warnings.push(PromptWarning::Unreadable {
                path: path.to_path_buf(),
                source,
            }),
        }
    }
    PromptText {
        text: value.to_owned(),
        file: None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_file_stands_for_its_text_and_anything_else_is_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prompt.md");
        std::fs::write(&path, "from the file").unwrap();
        let mut warnings = Vec::new();
        let read = resolve_text(path.to_str().unwrap(), &mut warnings);
        assert_eq!(read.text, "from the file");
        assert_eq!(read.file.as_deref(), Some(path.as_path()));
        let plain = resolve_text("Be terse.", &mut warnings);
        assert_eq!(plain.text, "Be terse.");
        assert_eq!(plain.file, None);
        assert!(warnings.is_empty());
    }

    #[test]
    fn a_directory_warns_and_is_taken_as_text() {
        let dir = tempfile::tempdir().unwrap();
        let value = dir.path().to_str().unwrap();
        let mut warnings = Vec::new();
        let read = resolve_text(value, &mut warnings);
        assert_eq!(read.text, value);
        assert_eq!(warnings.len(), 1);
    }
}
