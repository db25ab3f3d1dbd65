//! Where a rule or a decision comes from, as `policy check` and the audit trail name it.

use serde::{Deserialize, Serialize};

/// Where a decision comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// `--allow`, `--ask`, `--deny` on the command line.
    Cli,
    /// The user's settings (`~/.pi/agent/settings.json`).
    User,
    /// The project's settings (`<cwd>/.pi/settings.json`).
    Project,
    /// No rule matched: the approval mode decided.
    Mode,
    /// The splitter or the built-in list of read-only commands decided.
    Builtin,
    /// A rule the person allowed "for this session" (or "always", for the rest of the run).
    Session,
}

impl Source {
    /// Its name (`cli`, `user`, `project`, `mode`, `builtin`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cli => "cli",
            Self::User => "user",
            Self::Project => "project",
            Self::Mode => "mode",
            Self::Builtin => "builtin",
            Self::Session => "session",
        }
    }
}
