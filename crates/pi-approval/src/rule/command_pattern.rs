//! `bash` specifiers, Claude Code's three forms: exact (`git status`), prefix (`git log:*`:
//! the words `git log` and any arguments after them) and glob (`npm run test *`, where `*`
//! stands for any characters). They match one simple command at a time, as the splitter gives
//! it: its words unquoted and joined by single spaces (so `'r'm x` is `rm x`).

use super::RuleErrorKind;

/// A `bash(...)` specifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandPattern {
    /// The whole command, word for word.
    Exact(String),
    /// These words, then anything or nothing (`git log:*`).
    Prefix(String),
    /// `*` stands for any characters; a final ` *` also matches no arguments at all.
    Glob(String),
}

impl CommandPattern {
    /// Reads a specifier; the error carries a byte offset within it.
    pub(crate) fn parse(spec: &str) -> Result<Self, (usize, RuleErrorKind)> {
        let normal = normalise(spec);
        if let Some(prefix) = normal.strip_suffix(":*") {
            if let Some(offset) = spec
                .find(":*")
                .filter(|offset| *offset + 2 < spec.trim_end().len())
            {
                return Err((offset, RuleErrorKind::PrefixNotAtEnd));
            }
            return Ok(Self::Prefix(prefix.trim_end().to_owned()));
        }
        if let Some(offset) = spec.find(":*") {
            return Err((offset, RuleErrorKind::PrefixNotAtEnd));
        }
        if normal.contains('*') {
            Ok(Self::Glob(normal))
        } else {
            Ok(Self::Exact(normal))
        }
    }

    /// Whether one simple command (its words joined by single spaces) matches.
    pub fn matches(&self, command: &str) -> bool {
        match self {
            Self::Exact(exact) => command == exact,
            Self::Prefix(prefix) => {
                prefix.is_empty()
                    || command
                        .strip_prefix(prefix.as_str())
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
            }
            Self::Glob(glob) => {
                crate::wildcard::matches(glob, command)
                    || glob
                        .strip_suffix(" *")
                        .is_some_and(|bare| crate::wildcard::matches(bare, command))
            }
        }
    }
}

/// Runs of white space as one space, none at the ends: how the splitter joins words.
fn normalise(spec: &str) -> String {
    spec.split_whitespace().collect::<Vec<_>>().join(" ")
}
