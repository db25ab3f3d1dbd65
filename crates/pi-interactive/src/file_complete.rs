//! `@` completes file paths of the workspace, as Pi's editor does: the word being typed after
//! `@` is matched against the project's files (`.gitignore` respected, hidden files and
//! directories left out) by fuzzy subsequence, best matches first (a match in the file name,
//! then shorter paths). The list is read once, on the first `@`.

use std::path::Path;

/// The most files listed from the workspace.
const MOST_FILES: usize = 20_000;

/// The workspace's files, relative to it, `/`-separated.
pub(crate) fn workspace_files(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for entry in ignore::WalkBuilder::new(root).build().flatten() {
        if files.len() >= MOST_FILES {
            break;
        }
        if entry.file_type().is_some_and(|kind| kind.is_file())
            && let Ok(relative) = entry.path().strip_prefix(root)
        {
            files.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
    files.sort();
    files
}

/// The files matching `typed`, best first, at most `limit`.
pub(crate) fn matches<'a>(files: &'a [String], typed: &str, limit: usize) -> Vec<&'a str> {
    let typed = typed.to_lowercase();
    let mut scored: Vec<(u8, usize, &str)> = files
        .iter()
        .filter_map(|file| {
            let lower = file.to_lowercase();
            if !is_subsequence(&typed, &lower) {
                return None;
            }
            let name = lower.rsplit('/').next().unwrap_or(&lower);
            let rank = if lower.starts_with(&typed) {
                0
            } else if name.contains(&typed) {
                1
            } else if lower.contains(&typed) {
                2
            } else {
                3
            };
            Some((rank, file.len(), file.as_str()))
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(limit)
        .map(|(_, _, file)| file)
        .collect()
}

fn is_subsequence(needle: &str, haystack: &str) -> bool {
    let mut rest = haystack.chars();
    needle
        .chars()
        .all(|wanted| rest.any(|found| found == wanted))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_of_the_workspace_without_ignored_ones() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/deep")).unwrap();
        std::fs::create_dir_all(dir.path().join("target")).unwrap();
        std::fs::write(dir.path().join("src/main.rs"), "").unwrap();
        std::fs::write(dir.path().join("src/deep/mod.rs"), "").unwrap();
        std::fs::write(dir.path().join("target/out.rs"), "").unwrap();
        std::fs::write(dir.path().join(".gitignore"), "target/\n").unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        let files = workspace_files(dir.path());
        assert_eq!(files, ["src/deep/mod.rs", "src/main.rs"]);
    }

    #[test]
    fn fuzzy_matches_best_first() {
        let files: Vec<String> = [
            "README.md",
            "src/main.rs",
            "src/domain.rs",
            "docs/maintainers.md",
        ]
        .iter()
        .map(|f| (*f).to_owned())
        .collect();
        assert_eq!(
            matches(&files, "main", 5),
            ["src/main.rs", "src/domain.rs", "docs/maintainers.md"]
        );
        assert_eq!(matches(&files, "srmn", 5), ["src/main.rs", "src/domain.rs"]);
        assert_eq!(matches(&files, "src", 1), ["src/main.rs"]);
        assert!(matches(&files, "zzz", 5).is_empty());
    }
}
