//! Context files: the `AGENTS.md` (or `CLAUDE.md`) of the agent directory, then of every
//! directory from the filesystem root down to the working directory, as Pi finds them.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::warning::PromptWarning;

/// The names looked for in each directory, in Pi's order: the first one present is the
/// directory's context file, the rest are not read.
pub const CONTEXT_FILE_NAMES: [&str; 4] = ["AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"];

/// The most of one context file that goes into the prompt (64 KiB). Pi sends files whole; a
/// forgotten generated file of megabytes would then fill the model's window on every turn, so
/// past this size only the start is sent, with a note saying so.
pub const MAX_CONTEXT_FILE_BYTES: usize = 64 * 1024;

/// One context file as it goes into the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFile {
    /// Where it was found (the path shown to the model).
    pub path: PathBuf,
    /// Its text, at most [`MAX_CONTEXT_FILE_BYTES`] (invalid UTF-8 replaced).
    pub content: String,
    /// Its size on disk when it was cut, `None` when it is whole.
    pub cut_from: Option<u64>,
}

/// The context files for a run in `cwd`: the agent directory's first, then the ancestors' from
/// the root down to `cwd`, each file once (the agent directory may be one of the ancestors).
/// A file that cannot be read is skipped with a warning, and the next name of its directory
/// is tried, as Pi does.
pub fn discover(
    agent_dir: Option<&Path>,
    cwd: &Path,
    warnings: &mut Vec<PromptWarning>,
) -> Vec<ContextFile> {
    let mut found = Vec::new();
    // Compared by their real paths: a symlinked agent directory inside the project is the
    // same file and must not be sent twice.
    let mut seen = Vec::new();
    let dirs = agent_dir
        .into_iter()
        .chain(cwd.ancestors().collect::<Vec<_>>().into_iter().rev());
    for dir in dirs {
        if let Some(file) = from_dir(dir, warnings) {
            let real = std::fs::canonicalize(&file.path).unwrap_or_else(|_| file.path.clone());
            if !seen.contains(&real) {
                seen.push(real);
                found.push(file);
            }
        }
    }
    found
}

/// The context file of one directory, if it has one that can be read.
fn from_dir(dir: &Path, warnings: &mut Vec<PromptWarning>) -> Option<ContextFile> {
    for name in CONTEXT_FILE_NAMES {
        let path = dir.join(name);
        let Ok(metadata) = std::fs::metadata(&path) else {
            continue;
        };
        // A pipe named AGENTS.md would block the run forever on its first read.
        if !metadata.is_file() {
            warnings.push(PromptWarning::NotAFile { path });
            continue;
        }
        match read_capped(&path, MAX_CONTEXT_FILE_BYTES) {
            Ok((content, size)) => {
                let cut_from = (size > content.len() as u64).then_some(size);
                if let Some(size) = cut_from {
                    warnings.push(PromptWarning::Cut {
                        path: path.clone(),
                        size,
                        kept: content.len(),
                    });
                }
                return Some(ContextFile {
                    path,
                    content,
                    cut_from,
                });
            }
            Err(source) => warnings.push(PromptWarning::Unreadable { path, source }),
        }
    }
    None
}

/// At most `limit` bytes of the file's text, ending on a whole character, and the file's size.
pub(crate) fn read_capped(path: &Path, limit: usize) -> std::io::Result<(String, u64)> {
    let file = File::open(path)?;
    let size = file.metadata()?.len();
    let mut bytes = Vec::new();
    file.take(limit as u64).read_to_end(&mut bytes)?;
    let whole = bytes.len() < limit || size <= limit as u64;
    if !whole {
        // A character split by the cut is dropped rather than shown as a replacement mark.
        if let Err(error) = std::str::from_utf8(&bytes)
            && error.error_len().is_none()
        {
            bytes.truncate(error.valid_up_to());
        }
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let size = if whole {
        size.max(text.len() as u64)
    } else {
        size
    };
    Ok((text, size))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn names(files: &[ContextFile], root: &Path) -> Vec<String> {
        files
            .iter()
            .map(|file| file.path.strip_prefix(root).unwrap().display().to_string())
            .collect()
    }

    #[test]
    fn the_agent_directory_comes_first_then_ancestors_from_the_top_down() {
        let root = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(root.path()).unwrap();
        write(&root.join("agent/AGENTS.md"), "global");
        write(&root.join("repo/AGENTS.md"), "repo");
        write(&root.join("repo/sub/CLAUDE.md"), "sub");
        let cwd = root.join("repo/sub/deeper");
        std::fs::create_dir_all(&cwd).unwrap();
        let mut warnings = Vec::new();
        let files = discover(Some(&root.join("agent")), &cwd, &mut warnings);
        assert_eq!(
            names(&files, &root),
            ["agent/AGENTS.md", "repo/AGENTS.md", "repo/sub/CLAUDE.md"]
        );
        assert_eq!(files[0].content, "global");
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn agents_md_wins_over_claude_md_in_one_directory() {
        let root = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(root.path()).unwrap();
        write(&root.join("CLAUDE.md"), "claude");
        write(&root.join("AGENTS.MD"), "upper");
        let files = discover(None, &root, &mut Vec::new());
        let ours: Vec<_> = files.iter().filter(|f| f.path.starts_with(&root)).collect();
        assert_eq!(ours.len(), 1);
        // On a case-insensitive filesystem `AGENTS.md` answers for `AGENTS.MD`: either way
        // the AGENTS file is the one read.
        assert_eq!(ours[0].content, "upper");
    }

    #[test]
    fn an_agent_directory_that_is_also_an_ancestor_is_read_once() {
        let root = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(root.path()).unwrap();
        write(&root.join("AGENTS.md"), "once");
        let cwd = root.join("work");
        std::fs::create_dir_all(&cwd).unwrap();
        let files = discover(Some(&root), &cwd, &mut Vec::new());
        let ours: Vec<_> = files.iter().filter(|f| f.path.starts_with(&root)).collect();
        assert_eq!(ours.len(), 1);
        // It keeps the agent directory's place: first.
        assert_eq!(files[0].path, root.join("AGENTS.md"));
    }

    #[test]
    fn a_big_file_is_cut_on_a_character_boundary_with_a_warning() {
        let root = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(root.path()).unwrap();
        // "é" is two bytes: the limit falls inside one.
        let text = format!("a{}", "é".repeat(MAX_CONTEXT_FILE_BYTES));
        write(&root.join("AGENTS.md"), &text);
        let mut warnings = Vec::new();
        let files = discover(None, &root, &mut warnings);
        let file = files.iter().find(|f| f.path.starts_with(&root)).unwrap();
        assert_eq!(file.content.len(), MAX_CONTEXT_FILE_BYTES - 1);
        assert!(file.content.ends_with('é'));
        assert_eq!(file.cut_from, Some(text.len() as u64));
        assert!(matches!(warnings[..], [PromptWarning::Cut { .. }]));
    }

    #[test]
    fn a_file_of_exactly_the_limit_is_whole() {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join("AGENTS.md");
        write(&path, &"x".repeat(MAX_CONTEXT_FILE_BYTES));
        let (text, size) = read_capped(&path, MAX_CONTEXT_FILE_BYTES).unwrap();
        assert_eq!(text.len(), MAX_CONTEXT_FILE_BYTES);
        assert_eq!(size, MAX_CONTEXT_FILE_BYTES as u64);
    }

    #[test]
    fn a_directory_named_agents_md_warns_and_the_next_name_is_tried() {
        let root = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(root.path()).unwrap();
        std::fs::create_dir(root.join("AGENTS.md")).unwrap();
        write(&root.join("CLAUDE.md"), "claude");
        let mut warnings = Vec::new();
        let files = discover(None, &root, &mut warnings);
        let file = files.iter().find(|f| f.path.starts_with(&root)).unwrap();
        assert_eq!(file.content, "claude");
        assert!(
            warnings
                .iter()
                .any(|w| matches!(w, PromptWarning::NotAFile { .. }))
        );
    }

    #[cfg(unix)]
    #[test]
    fn an_unreadable_file_warns_and_does_not_fail() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(root.path()).unwrap();
        let path = root.join("AGENTS.md");
        write(&path, "secret");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
        if File::open(&path).is_ok() {
            return; // running as root: every file can be read
        }
        let mut warnings = Vec::new();
        let files = discover(None, &root, &mut warnings);
        assert!(files.iter().all(|f| !f.path.starts_with(&root)));
        assert!(
            warnings
                .iter()
                .any(|w| matches!(w, PromptWarning::Unreadable { .. }))
        );
    }
}
