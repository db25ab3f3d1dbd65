//! Where a tool's path argument really leads, as one function that both confinement (which
//! refuses paths outside the workspace) and approval rules (which match paths) use.
//!
//! It lives here, in the contract crate, because it is the one crate both the coding tools
//! and the approval policy depend on, and it needs nothing but `std`: if the two computed "where
//! does `src/../.env` lead" differently, a rule could approve one file while the tool wrote
//! another.

use std::path::{Component, Path, PathBuf};

/// The path a tool argument names, as Pi reads it: a leading `@` (models copy it from file
/// mentions) is dropped, `~` and `~/...` are under `home`, a relative path joins `cwd`, an
/// absolute path stays. Nothing is touched on disk; see [`canonical`] for where it leads.
///
/// ```
/// use pi_tool::path::resolve_argument;
/// use std::path::Path;
///
/// let home = Some(Path::new("/home/u"));
/// assert_eq!(resolve_argument(Path::new("/repo"), home, "@src/a.rs"), Path::new("/repo/src/a.rs"));
/// assert_eq!(resolve_argument(Path::new("/repo"), home, "~/.ssh/id"), Path::new("/home/u/.ssh/id"));
/// assert_eq!(resolve_argument(Path::new("/repo"), home, "/etc/hosts"), Path::new("/etc/hosts"));
/// ```
pub fn resolve_argument(cwd: &Path, home: Option<&Path>, path: &str) -> PathBuf {
    let path = path.strip_prefix('@').unwrap_or(path);
    let under_home = match path {
        "~" => Some(""),
        _ => path.strip_prefix("~/"),
    };
    match (under_home, home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => cwd.join(path),
    }
}

/// The environment variable that moves Pi's agent directory (default `~/.pi/agent`).
pub const AGENT_DIR_ENV: &str = "PI_CODING_AGENT_DIR";

/// Pi's agent directory, where its settings, sessions and keys live: `PI_CODING_AGENT_DIR`
/// (a leading `~` is the home directory, as Pi reads it) or `~/.pi/agent`. `None` when neither
/// that variable nor a home directory is known. The one definition every crate uses: the
/// sessions and the approval settings once disagreed on `PI_CODING_AGENT_DIR='~/pi'`.
pub fn agent_dir() -> Option<PathBuf> {
    let home = std::env::home_dir();
    match std::env::var_os(AGENT_DIR_ENV).filter(|dir| !dir.is_empty()) {
        Some(dir) => Some(expand_tilde(Path::new(&dir), home.as_deref())),
        None => home.map(|home| home.join(".pi").join("agent")),
    }
}

/// `path` with a leading `~` (alone or as `~/...`) made the home directory; unchanged without
/// a home directory or a leading `~`.
///
/// ```
/// use pi_tool::path::expand_tilde;
/// use std::path::Path;
///
/// let home = Some(Path::new("/home/u"));
/// assert_eq!(expand_tilde(Path::new("~/pi"), home), Path::new("/home/u/pi"));
/// assert_eq!(expand_tilde(Path::new("~"), home), Path::new("/home/u"));
/// assert_eq!(expand_tilde(Path::new("/abs"), home), Path::new("/abs"));
/// ```
pub fn expand_tilde(path: &Path, home: Option<&Path>) -> PathBuf {
    let Some(home) = home else {
        return path.to_path_buf();
    };
    match path.strip_prefix("~") {
        Ok(rest) => home.join(rest),
        Err(_) => path.to_path_buf(),
    }
}

/// Where `path` really leads: the canonical path when it exists; a symbolic link whose target
/// does not exist yet leads where its target would be (a write through it creates that file);
/// otherwise its longest existing ancestor, canonicalised, with the rest appended (`..` in the
/// rest resolved by hand).
///
/// ```
/// use pi_tool::path::canonical;
/// use std::path::Path;
///
/// // Nothing below `/` exists here: `..` is still resolved, by hand.
/// let path = Path::new("/no-such-pi-dir/src/../.env");
/// assert_eq!(canonical(path), Path::new("/no-such-pi-dir/.env"));
/// ```
pub fn canonical(path: &Path) -> PathBuf {
    canonical_within(path, 0)
}

/// Links followed before giving up, as the kernel's own limit.
const MAX_LINKS: usize = 40;

fn canonical_within(path: &Path, links: usize) -> PathBuf {
    if let Ok(canonical) = std::fs::canonicalize(path) {
        return canonical;
    }
    if links < MAX_LINKS
        && let Ok(target) = std::fs::read_link(path)
    {
        let base = path.parent().unwrap_or_else(|| Path::new("/"));
        return canonical_within(&base.join(target), links + 1);
    }
    let components: Vec<Component<'_>> = path.components().collect();
    for split in (0..components.len()).rev() {
        let (Some(base), Some(rest)) = (components.get(..split), components.get(split..)) else {
            continue;
        };
        let base: PathBuf = base.iter().collect();
        if let Ok(mut result) = std::fs::canonicalize(&base) {
            for component in rest {
                match component {
                    Component::ParentDir => {
                        result.pop();
                    }
                    Component::CurDir => {}
                    other => result.push(other),
                }
            }
            return result;
        }
    }
    path.to_path_buf()
}

/// `path` with each name that does not exist replaced by the one name in its directory that
/// reads the same once spaces, apostrophes and accents are [`folded`]; `None` when `path`
/// exists, cannot be spelled otherwise, or no such name (or more than one) is there.
/// `may_list` says which directories may be listed to look.
pub fn respelled(path: &Path, may_list: impl Fn(&Path) -> bool) -> Option<PathBuf> {
    let text = path.to_str()?;
    // Only these can be spelled otherwise; most missing paths (a file about to be written)
    // cost one `lstat`.
    if text.is_ascii() && !text.contains([' ', '\'']) || path.symlink_metadata().is_ok() {
        return None;
    }
    let mut found = PathBuf::new();
    for component in path.components() {
        let std::path::Component::Normal(name) = component else {
            found.push(component);
            continue;
        };
        let next = found.join(name);
        if next.symlink_metadata().is_ok() {
            found = next;
            continue;
        }
        if !may_list(&found) {
            return None;
        }
        let wanted = folded(name.to_str()?);
        let mut alike = std::fs::read_dir(&found)
            .ok()?
            .filter_map(Result::ok)
            .map(|entry| entry.file_name())
            .filter(|entry| entry.to_str().is_some_and(|entry| folded(entry) == wanted));
        let (Some(only), None) = (alike.next(), alike.next()) else {
            return None;
        };
        found.push(only);
    }
    (found != path).then_some(found)
}

/// `path` as a new file is named, as upstream Pi names it: in each name from the first that
/// does not exist on, every Unicode space (a no-break space a model or a person typed, U+00A0,
/// U+2000–U+200A, U+202F, U+205F, U+3000) a plain space. What exists keeps its spelling.
pub fn spelled_as_new(path: &Path) -> PathBuf {
    let Some(text) = path.to_str() else {
        return path.to_path_buf();
    };
    // Most paths have no such space: nothing to look at on disk.
    if !text.chars().any(is_unicode_space) {
        return path.to_path_buf();
    }
    let mut spelled = PathBuf::new();
    let mut missing = false;
    for component in path.components() {
        let std::path::Component::Normal(name) = component else {
            spelled.push(component);
            continue;
        };
        let next = spelled.join(name);
        missing = missing || next.symlink_metadata().is_err();
        match name.to_str() {
            Some(name) if missing => spelled.push(name.replace(is_unicode_space, " ")),
            _ => spelled = next,
        }
    }
    spelled
}

/// A space other than the plain one that upstream Pi reads as a plain space in a path.
fn is_unicode_space(character: char) -> bool {
    matches!(
        character,
        '\u{a0}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

/// `name` as it reads: composed (NFC), every Unicode space a plain space, curly apostrophes
/// straight.
pub fn folded(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    name.nfc()
        .map(|character| match character {
            space if is_unicode_space(space) => ' ',
            '\u{2018}' | '\u{2019}' => '\'',
            other => other,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_names_unicode_spaces_are_plain_and_what_exists_keeps_its_spelling() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("old\u{a0}dir")).unwrap();
        std::fs::write(root.join("kept\u{202f}AM.png"), "x").unwrap();
        // A new file: every Unicode space plain, as upstream writes it.
        assert_eq!(
            spelled_as_new(&root.join("a\u{a0}b\u{3000}c.txt")),
            root.join("a b c.txt")
        );
        // An existing directory keeps its no-break space; the new names below it do not.
        assert_eq!(
            spelled_as_new(&root.join("old\u{a0}dir/new\u{a0}dir/f\u{2009}g")),
            root.join("old\u{a0}dir/new dir/f g")
        );
        // An existing file is left as it is named.
        assert_eq!(
            spelled_as_new(&root.join("kept\u{202f}AM.png")),
            root.join("kept\u{202f}AM.png")
        );
        // Nothing to change: given back.
        assert_eq!(
            spelled_as_new(Path::new("plain name.txt")),
            Path::new("plain name.txt")
        );
    }
}
