//! Approval modes as data: each mode is one row of verdicts for each kind of call that no rule
//! matched. Rules come first (deny, then ask, then allow); the mode only decides what is left,
//! except that `yolo` also answers what an `ask` rule would have asked.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What a decision says: run, ask a person, or refuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Run it.
    Allow,
    /// Ask a person first.
    Ask,
    /// Never run it.
    Deny,
}

impl Verdict {
    /// The word (`allow`, `ask`, `deny`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How much runs without a person's say (`--approval MODE`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Only read-only tools and known read-only commands run; everything else is refused.
    ReadOnly,
    /// Read-only tools and known read-only commands run; everything else asks.
    #[default]
    Ask,
    /// As `ask`, and `write`/`edit` inside the workspace run too.
    AutoEdit,
    /// Everything runs inside the sandbox; edits outside the workspace and `ask` rules ask,
    /// and what the sandbox refuses asks to run outside it, once.
    FullAuto,
    /// Nothing asks and nothing is sandboxed; only `deny` rules still refuse.
    Yolo,
}

/// One mode's verdicts, by the kind of call no rule matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModeTable {
    /// Tools whose annotations say read-only (`read`, `grep`, `find`, `ls`, ...).
    pub read_only_tools: Verdict,
    /// Shell commands on the built-in read-only list.
    pub read_only_commands: Verdict,
    /// `write`/`edit` of a path inside the workspace.
    pub edits_inside: Verdict,
    /// `write`/`edit` of a path outside it.
    pub edits_outside: Verdict,
    /// Any other shell command the splitter understood.
    pub other_commands: Verdict,
    /// A command line the splitter cannot prove harmless.
    pub unprovable_commands: Verdict,
    /// Any other tool (MCP tools, tools without a read-only annotation).
    pub other_tools: Verdict,
    /// What a matching `ask` rule gives.
    pub ask_rules: Verdict,
    /// Whether `bash` runs in the sandbox.
    pub sandboxed: bool,
    /// Whether a call the sandbox or the workspace's confinement refused asks to run again
    /// outside it, once (`full-auto`); otherwise the refusal stands.
    pub asks_outside_sandbox: bool,
}

impl Mode {
    /// Every mode, mildest first.
    pub const ALL: [Self; 5] = [
        Self::ReadOnly,
        Self::Ask,
        Self::AutoEdit,
        Self::FullAuto,
        Self::Yolo,
    ];

    /// Its name on the command line and in settings.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::Ask => "ask",
            Self::AutoEdit => "auto-edit",
            Self::FullAuto => "full-auto",
            Self::Yolo => "yolo",
        }
    }

    /// Its row of verdicts.
    pub const fn table(self) -> ModeTable {
        use Verdict::{Allow, Ask, Deny};
        // Columns: edits inside, edits outside, other commands, unprovable commands,
        // other tools, ask rules, sandboxed. Read-only tools and commands run in every mode.
        match self {
            Self::ReadOnly => row([Deny, Deny, Deny, Deny, Deny, Ask], true),
            Self::Ask => row([Ask, Ask, Ask, Ask, Ask, Ask], true),
            Self::AutoEdit => row([Allow, Ask, Ask, Ask, Ask, Ask], true),
            Self::FullAuto => ModeTable {
                asks_outside_sandbox: true,
                ..row([Allow, Ask, Allow, Allow, Allow, Ask], true)
            },
            Self::Yolo => row([Allow, Allow, Allow, Allow, Allow, Allow], false),
        }
    }
}

/// One row of the table, in the column order of [`Mode::table`].
const fn row(verdicts: [Verdict; 6], sandboxed: bool) -> ModeTable {
    let [
        edits_inside,
        edits_outside,
        other_commands,
        unprovable_commands,
        other_tools,
        ask_rules,
    ] = verdicts;
    ModeTable {
        read_only_tools: Verdict::Allow,
        read_only_commands: Verdict::Allow,
        edits_inside,
        edits_outside,
        other_commands,
        unprovable_commands,
        other_tools,
        ask_rules,
        sandboxed,
        asks_outside_sandbox: false,
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A mode name that is none of the five.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown approval mode {0:?}: use read-only, ask, auto-edit, full-auto or yolo")]
pub struct UnknownMode(pub String);

impl FromStr for Mode {
    type Err = UnknownMode;

    fn from_str(name: &str) -> Result<Self, UnknownMode> {
        Self::ALL
            .into_iter()
            .find(|mode| mode.as_str() == name)
            .ok_or_else(|| UnknownMode(name.to_owned()))
    }
}
