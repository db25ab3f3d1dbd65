//! Whether a repository's own configuration makes read-only `git` commands run programs.
//!
//! `git status` runs `core.fsmonitor`, `git diff` runs `diff.external` and textconv drivers,
//! `git status` runs clean filters on changed files, `git log --show-signature` (or
//! `log.showSignature`) runs `gpg.program`: a repository's `.git/config` is written by
//! whoever shipped the repository or by a model with an edit tool, so before `git status` is
//! treated as read-only, the repository's configuration is read for every key that names a
//! program. The user's own configuration (`~/.gitconfig`, `/etc/gitconfig`) is theirs and is
//! trusted. Hand-written because no maintained crate reads git's config format without
//! pulling in a whole git implementation (`gix-config` brings most of gitoxide); only the
//! section, subsection and key names are needed here, not the values.

use std::path::{Path, PathBuf};

/// Keys (`section.key`, lower case) whose value is a program git may run.
const PROGRAM_KEYS: &[&str] = &[
    "core.fsmonitor",
    "core.pager",
    "core.editor",
    "core.askpass",
    "core.sshcommand",
    "core.gitproxy",
    "core.alternaterefscommand",
    "core.worktree",
    "diff.external",
    "gpg.program",
    "log.showsignature",
    "sequence.editor",
    "uploadpack.packobjectshook",
];

/// Sections whose every key can run a program or read another file: `include.path` pulls in
/// configuration from anywhere, `pager.<cmd>` is a program. (Hooks and aliases are left out:
/// no read-only command runs a hook, and an alias cannot replace a built-in command.)
const PROGRAM_SECTIONS: &[&str] = &["include", "includeif", "pager"];

/// Keys of a named subsection (`filter.<driver>.clean`, `diff.<driver>.textconv`) that are
/// programs: `(section, key)`.
const DRIVER_KEYS: &[(&str, &str)] = &[
    ("filter", "clean"),
    ("filter", "smudge"),
    ("filter", "process"),
    ("diff", "textconv"),
    ("diff", "command"),
    ("merge", "driver"),
    ("difftool", "cmd"),
    ("mergetool", "cmd"),
    ("gpg", "program"),
    ("remote", "uploadpack"),
    ("remote", "receivepack"),
    ("credential", "helper"),
];

/// A configuration file larger than this is not read: it is treated as naming a program.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The first key of the repository around `dir` that makes git run a program, as
/// `file: section.key`; `None` when its configuration names none (or there is no repository).
pub(crate) fn program_key(dir: &Path) -> Option<String> {
    let git_dir = find_git_dir(dir)?;
    let mut files = vec![git_dir.join("config"), git_dir.join("config.worktree")];
    // A linked worktree keeps the shared configuration in the main repository's directory.
    if let Ok(common) = std::fs::read_to_string(git_dir.join("commondir")) {
        let common = git_dir.join(common.trim());
        files.push(common.join("config"));
        files.push(common.join("config.worktree"));
    }
    files.iter().find_map(|file| {
        let metadata = std::fs::metadata(file).ok()?;
        let shown = file.display();
        if metadata.len() > MAX_CONFIG_BYTES {
            return Some(format!("{shown}: larger than it reads"));
        }
        let text = match std::fs::read(file) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            // There, but unreadable to us: git may read it.
            Err(_) => return Some(format!("{shown}: unreadable")),
        };
        names_program(&text).map(|key| format!("{shown}: {key}"))
    })
}

/// The repository directory git uses from `dir`: the nearest `.git` directory, or the one a
/// `.git` file (`gitdir: ...`, worktrees and submodules) points to.
fn find_git_dir(dir: &Path) -> Option<PathBuf> {
    for ancestor in dir.ancestors() {
        let dot_git = ancestor.join(".git");
        let Ok(metadata) = std::fs::metadata(&dot_git) else {
            continue;
        };
        if metadata.is_dir() {
            return Some(dot_git);
        }
        let text = std::fs::read_to_string(&dot_git).ok()?;
        let target = text.trim().strip_prefix("gitdir:")?.trim();
        return Some(ancestor.join(target));
    }
    None
}

/// The first key in a configuration file's text that names a program (`section.key`, or
/// `section.subsection.key`).
fn names_program(text: &str) -> Option<String> {
    let mut section = String::new();
    let mut subsection: Option<String> = None;
    for raw in text.lines() {
        let mut line = raw.trim_start();
        if let Some(header) = line.strip_prefix('[') {
            let Some((inside, after)) = header.split_once(']') else {
                // A header git would refuse: say so rather than guess what it means.
                return Some(format!("unreadable section header {raw:?}"));
            };
            let (name, sub) = match inside.split_once(|c: char| c.is_whitespace() || c == '"') {
                Some((name, sub)) => (name, Some(sub.trim().trim_matches('"').to_owned())),
                // `[section.subsection]`, the old spelling.
                None => match inside.split_once('.') {
                    Some((name, sub)) => (name, Some(sub.to_owned())),
                    None => (inside, None),
                },
            };
            section = name.trim().to_ascii_lowercase();
            subsection = sub;
            // A key may follow the header on the same line.
            line = after.trim_start();
        }
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        let key: String = line
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect::<String>()
            .to_ascii_lowercase();
        if key.is_empty() {
            continue;
        }
        let runs = PROGRAM_SECTIONS.contains(&section.as_str())
            || match &subsection {
                None => PROGRAM_KEYS.contains(&format!("{section}.{key}").as_str()),
                Some(_) => DRIVER_KEYS.contains(&(section.as_str(), key.as_str())),
            };
        if runs {
            return Some(match &subsection {
                Some(sub) => format!("{section}.{sub}.{key}"),
                None => format!("{section}.{key}"),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_plain_repository_names_no_program() {
        let text = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\
                    [remote \"origin\"]\n\turl = https://example.com/x.git\n\
                    \tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n";
        assert_eq!(names_program(text), None);
    }

    #[test]
    fn keys_that_run_programs_are_found_however_spelled() {
        for (text, key) in [
            ("[core]\n\tfsmonitor = ./evil.sh\n", "core.fsmonitor"),
            ("[CORE]\n  FsMonitor=x\n", "core.fsmonitor"),
            ("[core] fsmonitor = x\n", "core.fsmonitor"),
            ("[diff]\n\texternal = x\n", "diff.external"),
            ("[diff \"bin\"]\n\ttextconv = x\n", "diff.bin.textconv"),
            ("[filter \"lfs\"]\n\tclean = x %f\n", "filter.lfs.clean"),
            ("[filter.x]\n\tsmudge = x\n", "filter.x.smudge"),
            ("[include]\n\tpath = ../x\n", "include.path"),
            ("[includeIf \"gitdir:/\"]\n\tpath = x\n", "includeif./.path"),
            ("[log]\n\tshowSignature = true\n", "log.showsignature"),
            ("[pager]\n\tstatus = x\n", "pager.status"),
        ] {
            let found = names_program(text).unwrap_or_default();
            assert!(
                found.starts_with(key.split('.').next().unwrap()),
                "{text:?}: {found}"
            );
            assert!(names_program(text).is_some(), "{text:?}");
        }
        assert_eq!(
            names_program("[core]\n\tfsmonitor = x\n").as_deref(),
            Some("core.fsmonitor")
        );
    }

    #[test]
    fn the_repository_is_found_from_a_subdirectory_and_through_a_gitdir_file() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        std::fs::write(repo.join(".git/config"), "[core]\n\tbare = false\n").unwrap();
        assert_eq!(program_key(&repo.join("src/deep")), None);
        std::fs::write(repo.join(".git/config"), "[core]\n\tfsmonitor = x\n").unwrap();
        let found = program_key(&repo.join("src/deep")).unwrap();
        assert!(found.ends_with("core.fsmonitor"), "{found}");

        let worktree = dir.path().join("wt");
        std::fs::create_dir_all(&worktree).unwrap();
        let linked = dir.path().join("linked-git");
        std::fs::create_dir_all(&linked).unwrap();
        std::fs::write(
            worktree.join(".git"),
            format!("gitdir: {}\n", linked.display()),
        )
        .unwrap();
        std::fs::write(linked.join("commondir"), "../repo/.git\n").unwrap();
        assert!(program_key(&worktree).unwrap().ends_with("core.fsmonitor"));
    }
}
