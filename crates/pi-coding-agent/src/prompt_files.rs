//! `SYSTEM.md` and `APPEND_SYSTEM.md`: the project's (in `.pi/` of the working directory, only
//! when the project is trusted) wins over the agent directory's, as in Pi.

use std::path::{Path, PathBuf};

use crate::prompt_text::PromptText;
use crate::warning::PromptWarning;

/// The project's directory of Pi files, under the working directory.
pub const PROJECT_DIR: &str = ".pi";
/// The file that replaces the default part of the system prompt.
pub const SYSTEM_FILE: &str = "SYSTEM.md";
/// The file whose text is added after the default (or replaced) part.
pub const APPEND_SYSTEM_FILE: &str = "APPEND_SYSTEM.md";

/// The text of `name` for a run in `cwd`: `cwd/.pi/<name>` when the project is trusted and has
/// one, else `<agent dir>/<name>`. A project file in an untrusted project is ignored with a
/// warning: it changes how the agent behaves, and a cloned repository must not do that
/// unasked.
pub(crate) fn discover(
    name: &str,
    cwd: &Path,
    agent_dir: Option<&Path>,
    project_trusted: bool,
    warnings: &mut Vec<PromptWarning>,
) -> Option<PromptText> {
    let project = cwd.join(PROJECT_DIR).join(name);
    if project.is_file() {
        if project_trusted {
            if let Some(text) = read(project, warnings) {
                return Some(text);
            }
        } else {
            warnings.push(PromptWarning::Untrusted { path: project });
        }
    }
    let global = agent_dir?.join(name);
    if global.is_file() {
        return read(global, warnings);
    }
    None
}

fn read(path: PathBuf, warnings: &mut Vec<PromptWarning>) -> Option<PromptText> {
    match std::fs::read(&path) {
        Ok(bytes) => Some(PromptText {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            file: Some(path),
        }),
        Err(source) => {
            warnings.push(PromptWarning::Unreadable { path, source });
            None
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let root = tempfile::tempdir().unwrap();
        let cwd = root.path().join("repo");
        let agent = root.path().join("agent");
        std::fs::create_dir_all(cwd.join(PROJECT_DIR)).unwrap();
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::write(cwd.join(PROJECT_DIR).join(SYSTEM_FILE), "project").unwrap();
        std::fs::write(agent.join(SYSTEM_FILE), "global").unwrap();
        (root, cwd, agent)
    }

    #[test]
    fn a_trusted_project_file_wins_over_the_agent_directory() {
        let (_root, cwd, agent) = setup();
        let mut warnings = Vec::new();
        let found = discover(SYSTEM_FILE, &cwd, Some(&agent), true, &mut warnings).unwrap();
        assert_eq!(found.text, "project");
        assert!(warnings.is_empty());
    }

    #[test]
    fn an_untrusted_project_file_is_ignored_with_a_warning() {
        let (_root, cwd, agent) = setup();
        let mut warnings = Vec::new();
        let found = discover(SYSTEM_FILE, &cwd, Some(&agent), false, &mut warnings).unwrap();
        assert_eq!(found.text, "global");
        assert!(matches!(
            warnings.as_slice(),
            [PromptWarning::Untrusted { .. }]
        ));
    }

    #[test]
    fn no_file_anywhere_is_none() {
        let (_root, cwd, agent) = setup();
        assert!(
            discover(
                APPEND_SYSTEM_FILE,
                &cwd,
                Some(&agent),
                true,
                &mut Vec::new()
            )
            .is_none()
        );
    }
}
