//! Finding skill and prompt-template files in a directory, as Pi walks one: entries in name
//! order (Node lists a directory sorted), hidden entries and `node_modules` skipped, symbolic
//! links followed, and the `.gitignore`, `.ignore` and `.fdignore` of the directory and its
//! parents below the walk's start honoured.

use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// The ignore files read in each directory, in Pi's order (a later rule wins).
const IGNORE_FILES: [&str; 3] = [".gitignore", ".ignore", ".fdignore"];
/// The file that makes a directory a skill.
pub(crate) const SKILL_FILE: &str = "SKILL.md";

/// Which Markdown files at the top of a skills directory are skills themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RootFiles {
    /// Pi's own directories (`skills/` of the agent directory and `.pi/`, a `--skill` or
    /// settings directory): every root `.md` file is a skill.
    Skills,
    /// The `.agents/skills` directories shared with other harnesses: only `SKILL.md`
    /// directories count.
    Ignored,
}

/// The ignore rules in force in one directory of a walk: each directory's own, deepest first.
#[derive(Clone, Default)]
struct Rules(Vec<Gitignore>);

impl Rules {
    /// These rules and those of `dir`'s ignore files.
    fn with(&self, dir: &Path) -> Self {
        let mut builder = GitignoreBuilder::new(dir);
        let mut any = false;
        for name in IGNORE_FILES {
            let path = dir.join(name);
            if path.is_file() {
                // A file that does not parse adds what it can; Pi also goes on.
                let _ = builder.add(path);
                any = true;
            }
        }
        let mut rules = self.clone();
        if any && let Ok(own) = builder.build() {
            rules.0.insert(0, own);
        }
        rules
    }

    /// Whether `path` is ignored: the deepest directory with a rule about it decides.
    fn ignores(&self, path: &Path, is_dir: bool) -> bool {
        self.0
            .iter()
            .map(|rules| rules.matched(path, is_dir))
            .find(|found| !found.is_none())
            .is_some_and(|found| found.is_ignore())
    }
}

/// A directory entry with what it leads to (links followed).
struct Entry {
    name: String,
    path: PathBuf,
    is_dir: bool,
    is_file: bool,
}

/// `dir`'s entries sorted by name; broken links and unreadable entries left out.
fn entries(dir: &Path) -> Vec<Entry> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut entries: Vec<Entry> = read
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let path = entry.path();
            let metadata = std::fs::metadata(&path).ok()?;
            Some(Entry {
                name: entry.file_name().to_string_lossy().into_owned(),
                path,
                is_dir: metadata.is_dir(),
                is_file: metadata.is_file(),
            })
        })
        .collect();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    entries
}

fn skipped(name: &str) -> bool {
    name.starts_with('.') || name == "node_modules"
}

/// The skill files under `dir`: a directory holding a `SKILL.md` is one skill (nothing below it
/// is looked at); other directories are searched; root `.md` files count as `root` says.
pub(crate) fn skill_files(dir: &Path, root: RootFiles) -> Vec<PathBuf> {
    let mut found = Vec::new();
    walk_skills(dir, root, true, &Rules::default(), &mut found);
    found
}

fn walk_skills(dir: &Path, root: RootFiles, top: bool, rules: &Rules, found: &mut Vec<PathBuf>) {
    let rules = rules.with(dir);
    let entries = entries(dir);
    if let Some(skill) = entries
        .iter()
        .find(|entry| entry.name == SKILL_FILE && entry.is_file)
        .filter(|entry| !rules.ignores(&entry.path, false))
    {
        found.push(skill.path.clone());
        return;
    }
    for entry in entries.iter().filter(|entry| !skipped(&entry.name)) {
        if rules.ignores(&entry.path, entry.is_dir) {
            continue;
        }
        if entry.is_dir {
            walk_skills(&entry.path, root, false, &rules, found);
        } else if top && root == RootFiles::Skills && entry.is_file && entry.name.ends_with(".md") {
            found.push(entry.path.clone());
        }
    }
}

/// The `.md` files directly in `dir` (Pi's `prompts/` directories), ignore rules honoured.
pub(crate) fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let rules = Rules::default().with(dir);
    entries(dir)
        .into_iter()
        .filter(|entry| !skipped(&entry.name) && entry.is_file && entry.name.ends_with(".md"))
        .filter(|entry| !rules.ignores(&entry.path, false))
        .map(|entry| entry.path)
        .collect()
}

/// The `.md` files anywhere under `dir` (a prompts directory named in the settings).
pub(crate) fn markdown_files_deep(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    walk_markdown(dir, &Rules::default(), &mut found);
    found
}

fn walk_markdown(dir: &Path, rules: &Rules, found: &mut Vec<PathBuf>) {
    let rules = rules.with(dir);
    for entry in entries(dir)
        .into_iter()
        .filter(|entry| !skipped(&entry.name))
    {
        if rules.ignores(&entry.path, entry.is_dir) {
            continue;
        }
        if entry.is_dir {
            walk_markdown(&entry.path, &rules, found);
        } else if entry.is_file && entry.name.ends_with(".md") {
            found.push(entry.path);
        }
    }
}

/// Every `.md` file directly in `dir`, hidden ones too (a `--prompt-template` directory, read
/// as Pi's template loader reads it).
pub(crate) fn all_markdown_files(dir: &Path) -> Vec<PathBuf> {
    entries(dir)
        .into_iter()
        .filter(|entry| entry.is_file && entry.name.ends_with(".md"))
        .map(|entry| entry.path)
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn tree(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for file in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        dir
    }

    fn relative(dir: &tempfile::TempDir, found: Vec<PathBuf>) -> Vec<String> {
        found
            .iter()
            .map(|path| path.strip_prefix(dir.path()).unwrap().display().to_string())
            .collect()
    }

    #[test]
    fn skill_directories_stop_the_search_and_root_files_count_in_pi_directories() {
        let dir = tree(&[
            "b.md",
            "a.md",
            "one/SKILL.md",
            "one/inner/SKILL.md",
            "group/two/SKILL.md",
            "group/loose.md",
            ".hidden/SKILL.md",
            "node_modules/dep/SKILL.md",
        ]);
        assert_eq!(
            relative(&dir, skill_files(dir.path(), RootFiles::Skills)),
            ["a.md", "b.md", "group/two/SKILL.md", "one/SKILL.md"]
        );
        assert_eq!(
            relative(&dir, skill_files(dir.path(), RootFiles::Ignored)),
            ["group/two/SKILL.md", "one/SKILL.md"]
        );
    }

    #[test]
    fn ignore_files_leave_entries_out_and_a_deeper_rule_wins() {
        let dir = tree(&[
            "kept/SKILL.md",
            "built/SKILL.md",
            "group/skip/SKILL.md",
            "group/again/SKILL.md",
        ]);
        std::fs::write(dir.path().join(".gitignore"), "built/\nagain/\n").unwrap();
        std::fs::write(dir.path().join("group/.ignore"), "skip/\n!again/\n").unwrap();
        assert_eq!(
            relative(&dir, skill_files(dir.path(), RootFiles::Skills)),
            ["group/again/SKILL.md", "kept/SKILL.md"]
        );
    }

    #[test]
    fn prompt_directories_flat_and_deep() {
        let dir = tree(&["a.md", "b.txt", ".h.md", "sub/c.md"]);
        assert_eq!(relative(&dir, markdown_files(dir.path())), ["a.md"]);
        assert_eq!(
            relative(&dir, markdown_files_deep(dir.path())),
            ["a.md", "sub/c.md"]
        );
        assert_eq!(
            relative(&dir, all_markdown_files(dir.path())),
            [".h.md", "a.md"]
        );
    }
}
