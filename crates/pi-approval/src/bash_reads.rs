//! Where the commands of a `bash` line read and write, following the line's `cd`s: a known
//! read-only command runs without asking only while every path it names leads inside the
//! workspace (after `cd`, `~`, `$HOME`, `..` and symbolic links), as Claude Code checks its
//! read-only commands; `git` only while its repository's configuration names no program; and
//! a command that names a protected path (`.git/`, `.pi/`, the agent's directory) is never
//! allowed without asking, in any mode but `yolo`.

use std::path::{Path, PathBuf};

use crate::git_config;
use crate::paths::PathResolver;
use crate::protected::Protected;

/// A walk through one line's commands, in order, tracking the working directory.
pub(crate) struct LineWalk<'p> {
    paths: &'p dyn PathResolver,
    protected: &'p Protected,
    /// Where the next command runs; `None` once a `cd` went somewhere not known before the
    /// line runs (`cd $X`, `cd -`, `popd`).
    cwd: Option<PathBuf>,
}

impl<'p> LineWalk<'p> {
    /// A walk starting where `bash` starts: the workspace's root (already canonical: no
    /// `realpath` per decision).
    pub(crate) fn new(paths: &'p dyn PathResolver, protected: &'p Protected) -> Self {
        Self {
            cwd: Some(paths.root().to_path_buf()),
            paths,
            protected,
        }
    }

    /// Moves through one simple command; a `cd` changes where the next ones run.
    pub(crate) fn step(&mut self, words: &[String]) {
        let Some((name, arguments)) = words.split_first() else {
            return;
        };
        match name.as_str() {
            "cd" | "pushd" => {
                let target = arguments
                    .iter()
                    .find(|argument| !argument.starts_with('-') || argument.as_str() == "-");
                self.cwd = match (target.map(String::as_str), self.cwd.as_deref()) {
                    (_, None) => None,
                    (Some(target), Some(_)) if target == "-" || !is_literal(target) => None,
                    (Some(target), Some(cwd)) => Some(self.paths.resolve_in(cwd, target)),
                    // `cd` alone goes home.
                    (None, Some(_)) => self.paths.home().map(Path::to_path_buf),
                };
            }
            "popd" => self.cwd = None,
            _ => {}
        }
    }

    /// Why a known read-only command may not run unasked here: it runs after a `cd` outside
    /// the workspace (or to somewhere unknown), names a path leading outside it, or is `git`
    /// in a repository whose configuration names a program. `None` when it reads only inside.
    pub(crate) fn reads_outside(&self, words: &[String]) -> Option<String> {
        let (name, arguments) = words.split_first()?;
        let Some(cwd) = &self.cwd else {
            return Some(format!(
                "{name} runs after a cd to a directory known only when the line runs"
            ));
        };
        if !self.paths.is_inside(cwd) {
            return Some(format!(
                "{name} runs in {}, outside the workspace",
                cwd.display()
            ));
        }
        for argument in arguments {
            let Some(value) = path_like(argument) else {
                continue;
            };
            let resolved = self.paths.resolve_in(cwd, value);
            if !self.paths.is_inside(&resolved) {
                return Some(format!(
                    "{argument} leads outside the workspace ({})",
                    resolved.display()
                ));
            }
        }
        if name == "git"
            && let Some(key) = git_config::program_key(cwd)
        {
            return Some(format!(
                "the repository's configuration makes git run a program ({key})"
            ));
        }
        None
    }

    /// Where each argument of a command that may be a path leads, from where it runs.
    pub(crate) fn paths_named(&self, words: &[String]) -> Vec<PathBuf> {
        let cwd = self.cwd.as_deref().unwrap_or(self.paths.root());
        words
            .iter()
            .skip(1)
            .filter_map(|word| path_like(word))
            .map(|value| self.paths.resolve_in(cwd, value))
            .collect()
    }

    /// The first of a command's words, or of the line's write targets, that leads into a
    /// protected path, from where the command runs.
    pub(crate) fn names_protected<'w>(
        &self,
        words: impl IntoIterator<Item = &'w String>,
    ) -> Option<(String, PathBuf)> {
        let cwd = self.cwd.as_deref().unwrap_or(self.paths.root());
        words.into_iter().find_map(|word| {
            let value = path_like(word)?;
            let resolved = self.paths.resolve_in(cwd, value);
            self.protected
                .contains(&resolved)
                .then(|| (word.clone(), resolved))
        })
    }
}

/// The path an argument may name: the word itself, or the value of `--option=value`;
/// `None` for options and words that cannot be paths.
fn path_like(argument: &str) -> Option<&str> {
    let value = match argument.split_once('=') {
        Some((option, value)) if option.starts_with('-') => value,
        _ if argument.starts_with('-') => return None,
        _ => argument,
    };
    (!value.is_empty()).then_some(value)
}

/// A word with no expansion left in it.
fn is_literal(word: &str) -> bool {
    !word.contains(['$', '`', '*', '?', '[', '{'])
}
