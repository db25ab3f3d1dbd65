//! Splitting a command line into the simple commands it runs, before any rule sees it.
//!
//! The parser is tree-sitter with the `tree-sitter-bash` grammar, as Codex uses: it is the
//! grammar maintained by the tree-sitter project and used by editors on real-world scripts,
//! it parses every construct bash has (so nothing hides in syntax a smaller parser skips), and
//! it marks what it cannot parse with `ERROR`/missing nodes instead of guessing, which is
//! exactly the signal needed to ask rather than allow. (`brush-parser`, the pure-Rust
//! alternative, is younger and fails the whole line where tree-sitter still shows us the
//! commands inside, which deny rules want to see.)
//!
//! The walk is an allow-list: program, lists (`&&`, `||`, `;`, `&`, newlines), pipelines,
//! subshells, `{ }` groups, `!`, literal words and harmless redirections are understood;
//! everything else is recorded as [`Unprovable`], and a line with anything unprovable is
//! never allowed by a rule or by the list of known read-only commands. Commands found where
//! they cannot be proven (inside `$(...)`, after `xargs`, in `bash -c '...'`, after
//! `find -exec`) are still collected, so that deny and ask rules see them.

mod command;
mod read_only;
mod walk;
mod words;

use std::fmt;

use serde::Serialize;

pub use read_only::is_known_read_only;
pub(crate) use read_only::only_reads;

/// One simple command: its words, unquoted (`'r'm` is `rm`, `\rm` is `rm`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct SimpleCommand {
    words: Vec<String>,
}

impl SimpleCommand {
    pub(crate) fn new(words: Vec<String>) -> Self {
        Self { words }
    }

    /// Its words: the command name, then its arguments.
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// Its words joined by single spaces: what `bash(...)` rules match.
    pub fn text(&self) -> String {
        self.words.join(" ")
    }
}

/// Why a command line cannot be proven to run only what its simple commands say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unprovable {
    /// The parser found text it cannot read (or the command is not a string).
    Unparsable,
    /// `$(...)` or backticks: a command's output becomes part of another command.
    CommandSubstitution,
    /// `<(...)` or `>(...)`.
    ProcessSubstitution,
    /// `$VAR`, `${...}`, `$((...))`, `$'...'`, brace expansion: words known only when run.
    Expansion(String),
    /// `NAME=value` before a command or alone: it changes what later commands do (`PATH`).
    Assignment(String),
    /// A redirection that writes a file.
    WritingRedirect(String),
    /// `eval`, `source`, `.`: runs text as commands.
    Evaluates(String),
    /// `bash -c`, `sh -c`, ...: runs a string as a command line.
    ShellString(String),
    /// A wrapper whose wrapped command cannot be matched as written (`xargs`, `sudo`, a
    /// wrapper with options).
    Wrapper(String),
    /// `find` with `-exec`, `-delete` or an action that writes.
    FindAction(String),
    /// A command named by a path (`/bin/rm`), not by its name.
    CommandPath(String),
    /// Syntax the splitter does not follow (`if`, loops, functions, ...).
    Syntax(String),
    /// Nested deeper than the splitter follows (`bash -c` inside `bash -c` ...).
    TooDeep,
    /// A command whose name is only known when the line runs (`$(printf rm) f`, `rm${IFS}f`,
    /// `/bin/r?`), or commands read from input (`echo rm f | bash`).
    UnknownCommand(String),
    /// `alias`, `hash -p`, `enable`: later names may run other commands than they say.
    Rebinds(String),
}

impl fmt::Display for Unprovable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unparsable => f.write_str("the command line could not be parsed"),
            Self::CommandSubstitution => {
                f.write_str("command substitution ($(...) or backticks) runs hidden commands")
            }
            Self::ProcessSubstitution => f.write_str("process substitution runs hidden commands"),
            Self::Expansion(text) => write!(f, "{text} is only known when the line runs"),
            Self::Assignment(text) => {
                write!(f, "the assignment {text} changes what the commands do")
            }
            Self::WritingRedirect(text) => write!(f, "the redirection {text} writes a file"),
            Self::Evaluates(name) => write!(f, "{name} runs text as commands"),
            Self::ShellString(name) => write!(f, "{name} -c runs a string as a command line"),
            Self::Wrapper(name) => {
                write!(f, "{name} runs a command that cannot be matched as written")
            }
            Self::FindAction(action) => write!(f, "find {action} runs or changes things"),
            Self::CommandPath(name) => write!(f, "the command {name} is named by its path"),
            Self::Syntax(kind) => {
                write!(f, "the shell syntax {kind} is not followed by the splitter")
            }
            Self::TooDeep => f.write_str("the command line nests too deep to follow"),
            Self::UnknownCommand(text) => {
                write!(f, "{text} runs a command known only when the line runs")
            }
            Self::Rebinds(name) => write!(f, "{name} makes names run other commands"),
        }
    }
}

/// What the splitter made of a command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Split {
    /// The simple commands the line runs, in order (wrappers such as `env` or `command`
    /// removed): every one must be allowed for the line to be.
    pub commands: Vec<SimpleCommand>,
    /// Commands found where they cannot be proven to run as written (inside substitutions,
    /// `bash -c` strings, after `xargs`, wrappers as written): deny and ask rules see them too.
    pub hidden: Vec<SimpleCommand>,
    /// Why the line cannot be proven harmless; empty when it can.
    pub unprovable: Vec<Unprovable>,
    /// Commands whose name cannot be known before the line runs (see
    /// [`Unprovable::UnknownCommand`]): any command rule could match them, so a decision takes
    /// the strictest rule that could (a deny rule on the tool, if there is one).
    pub unresolved: Vec<String>,
    /// The files its redirections write (`> out.txt`), as written.
    pub writes: Vec<String>,
}

impl Split {
    /// Every command a deny or ask rule must see: the line's own, then the hidden ones.
    pub fn all_commands(&self) -> impl Iterator<Item = &SimpleCommand> {
        self.commands.iter().chain(&self.hidden)
    }
}

/// Splits a command line.
///
/// ```
/// use pi_approval::shell::split;
///
/// let line = split("git status && rm -rf ~");
/// let texts: Vec<String> = line.commands.iter().map(|c| c.text()).collect();
/// assert_eq!(texts, ["git status", "rm -rf ~"]);
/// assert!(line.unprovable.is_empty());
/// assert!(!split("git status $(rm -rf /)").unprovable.is_empty());
/// ```
pub fn split(command_line: &str) -> Split {
    walk::split(command_line, 0)
}
