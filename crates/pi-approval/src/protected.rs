//! Paths whose change would change what later runs are allowed to do: a repository's `.git/`
//! (its configuration and hooks run programs), a project's `.pi/` (its settings grant
//! permissions once trusted), the agent's directory (the user's settings, keys and sessions)
//! and the session file in use (its approval records are read back on resume). A change to
//! one asks in every mode but `yolo`, whatever the rules allow: a model in `auto-edit` must
//! not be able to grant itself `yolo` for the next run.

use std::path::{Component, Path, PathBuf};

/// Directory names that are protected wherever they appear.
const PROTECTED_NAMES: &[&str] = &[".git", ".pi"];

/// The protected paths of one run: every `.git/` and `.pi/`, plus the paths a front end
/// adds (the agent's directory, the session file).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Protected {
    extra: Vec<PathBuf>,
}

impl Protected {
    /// Every `.git/` and `.pi/` directory, and nothing else yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Protects `path` and everything under it (resolved as a tool's path would be, so a
    /// link to it is protected too).
    pub fn add(&mut self, path: &Path) {
        let canonical = pi_tool::path::canonical(path);
        if !self.extra.contains(&canonical) {
            self.extra.push(canonical);
        }
    }

    /// The paths added (besides `.git/` and `.pi/` everywhere).
    pub fn extra(&self) -> &[PathBuf] {
        &self.extra
    }

    /// Whether a resolved path is protected.
    pub fn contains(&self, path: &Path) -> bool {
        path.components().any(|component| match component {
            Component::Normal(name) => PROTECTED_NAMES
                .iter()
                .any(|protected| name.eq_ignore_ascii_case(protected)),
            _ => false,
        }) || self.extra.iter().any(|extra| path.starts_with(extra))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_and_pi_directories_are_protected_anywhere_and_in_any_case() {
        let protected = Protected::new();
        for path in [
            "/repo/.git/config",
            "/repo/sub/.git/hooks/pre-commit",
            "/repo/.pi/settings.json",
            "/repo/.GIT/config",
        ] {
            assert!(protected.contains(Path::new(path)), "{path}");
        }
        for path in [
            "/repo/src/git.rs",
            "/repo/.github/workflows/x.yml",
            "/repo/.gitignore",
            "/repo/pi/x",
        ] {
            assert!(!protected.contains(Path::new(path)), "{path}");
        }
    }

    #[test]
    fn added_paths_cover_what_is_under_them() {
        let mut protected = Protected::new();
        protected.add(Path::new("/no-such-agent-dir/agent"));
        assert!(protected.contains(Path::new("/no-such-agent-dir/agent/settings.json")));
        assert!(!protected.contains(Path::new("/no-such-agent-dir/agent2")));
    }
}
