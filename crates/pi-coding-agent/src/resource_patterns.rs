//! The patterns of the settings' `skills` and `prompts` arrays, as Pi applies them: a plain
//! glob keeps only what it matches, `!glob` leaves out, `+path` puts back an exact path and
//! `-path` leaves one out whatever else says. A path matches by its place under the settings
//! file's directory, its name or its whole path; a `SKILL.md` also by its directory's.

use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};

/// Whether `entry` of a settings array is a pattern rather than a path to load.
pub(crate) fn is_pattern(entry: &str) -> bool {
    is_override(entry) || entry.contains('*') || entry.contains('?')
}

/// Whether `entry` is `!`, `+` or `-` pattern: these also apply to what is found on its own.
pub(crate) fn is_override(entry: &str) -> bool {
    entry.starts_with(['!', '+', '-'])
}

/// The files of `files` the patterns keep (Pi's `applyPatterns`).
pub(crate) fn apply<'a>(
    files: &'a [std::path::PathBuf],
    patterns: &[&str],
    base: &Path,
) -> Vec<&'a std::path::PathBuf> {
    let (mut includes, mut excludes, mut force_in, mut force_out) =
        (vec![], vec![], vec![], vec![]);
    for pattern in patterns {
        if let Some(rest) = pattern.strip_prefix('+') {
            force_in.push(rest);
        } else if let Some(rest) = pattern.strip_prefix('-') {
            force_out.push(rest);
        } else if let Some(rest) = pattern.strip_prefix('!') {
            excludes.push(rest);
        } else {
            includes.push(*pattern);
        }
    }
    let includes = globs(&includes);
    let excludes = globs(&excludes);
    let mut kept: Vec<&std::path::PathBuf> = files
        .iter()
        .filter(|file| includes.is_empty() || matches_any(file, &includes, base))
        .filter(|file| !matches_any(file, &excludes, base))
        .collect();
    for file in files {
        if !kept.contains(&file) && matches_exact(file, &force_in, base) {
            kept.push(file);
        }
    }
    kept.retain(|file| !matches_exact(file, &force_out, base));
    kept
}

/// Whether a file found on its own stays on by the override patterns among `entries` (Pi's
/// `isEnabledByOverrides`).
pub(crate) fn enabled_by_overrides(file: &Path, entries: &[String], base: &Path) -> bool {
    let strip = |prefix: char| -> Vec<&str> {
        entries
            .iter()
            .filter_map(|entry| entry.strip_prefix(prefix))
            .collect()
    };
    let mut enabled = !matches_any(file, &globs(&strip('!')), base);
    if matches_exact(file, &strip('+'), base) {
        enabled = true;
    }
    if matches_exact(file, &strip('-'), base) {
        enabled = false;
    }
    enabled
}

fn globs(patterns: &[&str]) -> Vec<GlobMatcher> {
    patterns
        .iter()
        .filter_map(|pattern| {
            GlobBuilder::new(&posix(pattern))
                .literal_separator(true)
                .build()
                .ok()
        })
        .map(|glob| glob.compile_matcher())
        .collect()
}

fn posix(text: &str) -> String {
    text.replace(std::path::MAIN_SEPARATOR, "/")
}

fn relative(path: &Path, base: &Path) -> String {
    posix(&path.strip_prefix(base).map_or_else(
        |_| path.display().to_string(),
        |rest| rest.display().to_string(),
    ))
}

/// The spellings of `file` a pattern is tried on.
fn spellings(file: &Path, base: &Path, with_name: bool) -> Vec<String> {
    let mut names = vec![relative(file, base), posix(&file.display().to_string())];
    if with_name {
        names.push(name(file));
    }
    if file.file_name().is_some_and(|name| name == "SKILL.md")
        && let Some(dir) = file.parent()
    {
        names.push(relative(dir, base));
        names.push(posix(&dir.display().to_string()));
        if with_name {
            names.push(name(dir));
        }
    }
    names
}

fn name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn matches_any(file: &Path, globs: &[GlobMatcher], base: &Path) -> bool {
    !globs.is_empty()
        && spellings(file, base, true)
            .iter()
            .any(|spelling| globs.iter().any(|glob| glob.is_match(spelling)))
}

fn matches_exact(file: &Path, patterns: &[&str], base: &Path) -> bool {
    if patterns.is_empty() {
        return false;
    }
    let spellings = spellings(file, base, false);
    patterns.iter().any(|pattern| {
        let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
        spellings.contains(&posix(pattern))
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn files() -> Vec<PathBuf> {
        [
            "/b/skills/a/SKILL.md",
            "/b/skills/b/SKILL.md",
            "/b/skills/c.md",
        ]
        .map(PathBuf::from)
        .to_vec()
    }

    #[test]
    fn includes_excludes_and_forced_paths_in_pi_order() {
        let files = files();
        let base = Path::new("/b");
        let kept = |patterns: &[&str]| -> Vec<String> {
            apply(&files, patterns, base)
                .iter()
                .map(|path| path.display().to_string())
                .collect()
        };
        assert_eq!(kept(&[]).len(), 3);
        assert_eq!(kept(&["skills/*.md"]), ["/b/skills/c.md"]);
        // A skill directory's name matches its SKILL.md.
        assert_eq!(kept(&["!a"]), ["/b/skills/b/SKILL.md", "/b/skills/c.md"]);
        assert_eq!(kept(&["!*", "+skills/a"]), ["/b/skills/a/SKILL.md"]);
        assert_eq!(kept(&["+./skills/c.md", "-skills/c.md"]).len(), 2);
    }

    #[test]
    fn overrides_turn_found_files_off_and_on() {
        let entries = ["!skills/*".to_owned(), "+skills/b".to_owned()];
        let base = Path::new("/b");
        assert!(!enabled_by_overrides(
            Path::new("/b/skills/a/SKILL.md"),
            &entries,
            base
        ));
        assert!(enabled_by_overrides(
            Path::new("/b/skills/b/SKILL.md"),
            &entries,
            base
        ));
        assert!(enabled_by_overrides(
            Path::new("/b/skills/c.md"),
            &["plain".to_owned()],
            base
        ));
        assert!(is_pattern("a*") && is_pattern("!a") && !is_pattern("dir/x"));
    }
}
