//! Where a run's skills and prompt templates come from, in Pi's order of precedence: the
//! project's settings entries, the project's own directories (`.pi/skills`, `.agents/skills`
//! of the working directory and its ancestors up to the git root, `.pi/prompts`), the user's
//! settings entries, then the user's directories (`<agent dir>/skills`, `~/.agents/skills`,
//! `<agent dir>/prompts`). Project ones only in a trusted project. A file found twice (through
//! a link too) counts once, at its first place.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde_json::Value;

use crate::resource_patterns::{apply, enabled_by_overrides, is_pattern};
use crate::resource_walk::{RootFiles, markdown_files, markdown_files_deep, skill_files};
use crate::settings::SettingsFiles;

/// The kinds of files resolved here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Skills (`skills` in the settings).
    Skills,
    /// Prompt templates (`prompts` in the settings).
    Prompts,
}

impl Kind {
    fn key(self) -> &'static str {
        match self {
            Self::Skills => "skills",
            Self::Prompts => "prompts",
        }
    }
}

/// The directories the search starts from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Places<'a> {
    /// The working directory.
    pub cwd: &'a Path,
    /// The agent directory, if known.
    pub agent_dir: Option<&'a Path>,
    /// The home directory (for `~/.agents/skills` and `~` in settings), if known.
    pub home: Option<&'a Path>,
    /// Whether the project's own files count.
    pub trusted: bool,
}

/// One settings file's entries of a kind and the directory they are relative to.
struct Scope<'a> {
    entries: Vec<String>,
    base: PathBuf,
    places: Places<'a>,
}

/// The settings' entries of `kind` in one settings file: a list of text (Pi's old object form
/// `{"customDirectories": [...]}` is read too).
fn entries(values: &serde_json::Map<String, Value>, kind: Kind) -> Vec<String> {
    let list = match values.get(kind.key()) {
        Some(Value::Array(list)) => list.as_slice(),
        Some(Value::Object(old)) => match old.get("customDirectories") {
            Some(Value::Array(list)) => list.as_slice(),
            _ => &[],
        },
        _ => &[],
    };
    list.iter()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// The enabled files of `kind`, most important first.
pub(crate) fn resolve(kind: Kind, settings: &SettingsFiles, places: Places<'_>) -> Vec<PathBuf> {
    // The rank of each file (lower wins), in the order found; the first finding of a path
    // keeps its rank and whether it is on.
    let mut found: IndexMap<PathBuf, (u8, bool)> = IndexMap::new();
    let mut add = |path: PathBuf, rank: u8, enabled: bool| {
        found.entry(path).or_insert((rank, enabled));
    };
    let project = Scope {
        entries: settings
            .project
            .as_ref()
            .filter(|_| places.trusted)
            .map(|file| entries(&file.values, kind))
            .unwrap_or_default(),
        base: places.cwd.join(".pi"),
        places,
    };
    let user = places.agent_dir.map(|agent_dir| Scope {
        entries: settings
            .global
            .as_ref()
            .map(|file| entries(&file.values, kind))
            .unwrap_or_default(),
        base: agent_dir.to_path_buf(),
        places,
    });
    for (file, enabled) in project.listed(kind) {
        add(file, 0, enabled);
    }
    if let Some(user) = &user {
        for (file, enabled) in user.listed(kind) {
            add(file, 2, enabled);
        }
    }
    let user_agents = places.home.map(|home| home.join(".agents"));
    if places.trusted {
        let own = project.base.join(kind.key());
        for file in auto_files(kind, &own) {
            let on = enabled_by_overrides(&file, &project.entries, &project.base);
            add(file, 1, on);
        }
    }
    if kind == Kind::Skills && places.trusted {
        for agents in agents_dirs(places.cwd) {
            if Some(&agents) == user_agents.as_ref() {
                continue;
            }
            for file in skill_files(&agents.join("skills"), RootFiles::Ignored) {
                let on = enabled_by_overrides(&file, &project.entries, &agents);
                add(file, 1, on);
            }
        }
    }
    if let Some(user) = &user {
        for file in auto_files(kind, &user.base.join(kind.key())) {
            let on = enabled_by_overrides(&file, &user.entries, &user.base);
            add(file, 3, on);
        }
        if kind == Kind::Skills
            && let Some(agents) = &user_agents
        {
            for file in skill_files(&agents.join("skills"), RootFiles::Ignored) {
                let on = enabled_by_overrides(&file, &user.entries, agents);
                add(file, 3, on);
            }
        }
    }
    let mut ranked: Vec<(PathBuf, u8, bool)> = found
        .into_iter()
        .map(|(path, (rank, enabled))| (path, rank, enabled))
        .collect();
    ranked.sort_by_key(|(_, rank, _)| *rank);
    let mut seen = Vec::new();
    ranked
        .into_iter()
        .filter(|(path, _, _)| {
            let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
            let first = !seen.contains(&real);
            seen.push(real);
            first
        })
        .filter(|(_, _, enabled)| *enabled)
        .map(|(path, _, _)| path)
        .collect()
}

impl Scope<'_> {
    /// The files the plain entries name (a directory searched as its kind is), each with
    /// whether the patterns keep it on.
    fn listed(&self, kind: Kind) -> Vec<(PathBuf, bool)> {
        let (patterns, plain): (Vec<&str>, Vec<&str>) = self
            .entries
            .iter()
            .map(String::as_str)
            .partition(|entry| is_pattern(entry));
        let mut files = Vec::new();
        for entry in plain {
            let path = resolve_entry(entry, &self.base, self.places.home);
            if path.is_file() {
                files.push(path);
            } else if path.is_dir() {
                files.extend(match kind {
                    Kind::Skills => skill_files(&path, RootFiles::Skills),
                    Kind::Prompts => markdown_files_deep(&path),
                });
            }
        }
        let kept = apply(&files, &patterns, &self.base);
        files
            .iter()
            .map(|file| (file.clone(), kept.contains(&file)))
            .collect()
    }
}

fn auto_files(kind: Kind, dir: &Path) -> Vec<PathBuf> {
    match kind {
        Kind::Skills => skill_files(dir, RootFiles::Skills),
        Kind::Prompts => markdown_files(dir),
    }
}

/// The `.agents` directories of `cwd` and its ancestors, up to the git repository's root (or
/// the filesystem's root outside a repository).
fn agents_dirs(cwd: &Path) -> Vec<PathBuf> {
    let git_root = cwd.ancestors().find(|dir| dir.join(".git").exists());
    let mut dirs = Vec::new();
    for dir in cwd.ancestors() {
        dirs.push(dir.join(".agents"));
        if Some(dir) == git_root {
            break;
        }
    }
    dirs
}

/// A path as Pi reads one from the settings or the command line: trimmed, `~` the home
/// directory, `file://` URLs as paths, relative to `base`, `.` and `..` resolved by hand.
pub(crate) fn resolve_entry(entry: &str, base: &Path, home: Option<&Path>) -> PathBuf {
    let entry = crate::frontmatter::js_trim(entry);
    let entry = entry.strip_prefix("file://").unwrap_or(entry);
    let path = match (entry, home) {
        ("~", Some(home)) => home.to_path_buf(),
        (_, Some(home)) if entry.starts_with("~/") => home.join(entry.get(2..).unwrap_or_default()),
        _ => base.join(entry),
    };
    normalize(&path)
}

/// `path` with `.` and `..` resolved without the filesystem, as Node's `path.resolve`.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::settings::SettingsFile;

    fn write(root: &Path, relative: &str) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x").unwrap();
    }

    fn names(root: &Path, paths: &[PathBuf]) -> Vec<String> {
        paths
            .iter()
            .map(|path| path.strip_prefix(root).unwrap().display().to_string())
            .collect()
    }

    fn settings(global: Value, project: Value) -> SettingsFiles {
        let file = |value: Value| match value {
            Value::Object(values) => Some(SettingsFile {
                path: PathBuf::new(),
                values,
            }),
            _ => None,
        };
        SettingsFiles {
            global: file(global),
            project: file(project),
        }
    }

    #[test]
    fn skills_in_pi_precedence_with_trust_and_the_git_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for file in [
            "agent/skills/user-a/SKILL.md",
            "agent/skills/root.md",
            "home/.agents/skills/shared/SKILL.md",
            "home/.agents/skills/ignored-root.md",
            "outside/.agents/skills/above-git/SKILL.md",
            "outside/repo/.agents/skills/repo-level/SKILL.md",
            "outside/repo/sub/.pi/skills/project/SKILL.md",
            "outside/repo/sub/.pi/listed/SKILL.md",
            "extra/x/SKILL.md",
        ] {
            write(&root, file);
        }
        std::fs::create_dir_all(root.join("outside/repo/.git")).unwrap();
        let cwd = root.join("outside/repo/sub");
        let settings = settings(
            serde_json::json!({"skills": ["../extra", "!skills/root.md"]}),
            serde_json::json!({"skills": ["listed"]}),
        );
        let (agent, home) = (root.join("agent"), root.join("home"));
        let mut places = Places {
            cwd: &cwd,
            agent_dir: Some(&agent),
            home: Some(&home),
            trusted: true,
        };
        assert_eq!(
            names(&root, &resolve(Kind::Skills, &settings, places)),
            [
                "outside/repo/sub/.pi/listed/SKILL.md",
                "outside/repo/sub/.pi/skills/project/SKILL.md",
                "outside/repo/.agents/skills/repo-level/SKILL.md",
                "extra/x/SKILL.md",
                "agent/skills/user-a/SKILL.md",
                "home/.agents/skills/shared/SKILL.md",
            ]
        );
        places.trusted = false;
        assert_eq!(
            names(&root, &resolve(Kind::Skills, &settings, places)),
            [
                "extra/x/SKILL.md",
                "agent/skills/user-a/SKILL.md",
                "home/.agents/skills/shared/SKILL.md",
            ]
        );
    }

    #[test]
    fn prompts_from_the_project_settings_and_the_agent_directory() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for file in [
            "agent/prompts/a.md",
            "agent/prompts/deep/no.md",
            "repo/.pi/prompts/b.md",
            "lib/deep/c.md",
        ] {
            write(&root, file);
        }
        let cwd = root.join("repo");
        let agent = root.join("agent");
        let settings = settings(Value::Null, serde_json::json!({"prompts": ["../../lib"]}));
        let places = Places {
            cwd: &cwd,
            agent_dir: Some(&agent),
            home: None,
            trusted: true,
        };
        assert_eq!(
            names(&root, &resolve(Kind::Prompts, &settings, places)),
            [
                "lib/deep/c.md",
                "repo/.pi/prompts/b.md",
                "agent/prompts/a.md"
            ]
        );
    }

    #[test]
    fn entries_resolve_like_node() {
        let home = Path::new("/home/u");
        assert_eq!(
            resolve_entry(" ~/s ", Path::new("/b"), Some(home)),
            Path::new("/home/u/s")
        );
        assert_eq!(
            resolve_entry("../x/./y", Path::new("/b/c"), None),
            Path::new("/b/x/y")
        );
        assert_eq!(
            resolve_entry("/abs", Path::new("/b"), None),
            Path::new("/abs")
        );
    }
}
