//! What a tool says about its own effects, as MCP's `ToolAnnotations` hints, so a policy can
//! decide whether a call needs a person's say without knowing the tool.
//!
//! The hints are read as MCP reads them: a hint a tool does not give takes MCP's default
//! (not read-only, destructive, not idempotent, open-world), so a tool that says nothing is
//! treated as the riskiest kind. They are hints from the tool's author, never a guarantee: a
//! server imported over MCP can claim anything, which is why rules and the sandbox still apply.

use serde::{Deserialize, Serialize};

/// MCP-style hints about a tool's effects (`readOnlyHint`, `destructiveHint`,
/// `idempotentHint`, `openWorldHint`); `None` means the tool did not say.
///
/// ```
/// use pi_tool::ToolAnnotations;
///
/// let unknown = ToolAnnotations::default();
/// assert!(!unknown.is_read_only() && unknown.is_destructive() && unknown.is_open_world());
/// assert!(!unknown.is_idempotent());
/// let read = ToolAnnotations::read_only();
/// assert!(read.is_read_only() && !read.is_destructive() && read.is_idempotent());
/// assert_eq!(
///     serde_json::to_string(&read).unwrap(),
///     r#"{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}"#
/// );
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// The tool does not modify its environment.
    #[serde(
        rename = "readOnlyHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub read_only: Option<bool>,
    /// The tool may destroy or overwrite (meaningful only when not read-only).
    #[serde(
        rename = "destructiveHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub destructive: Option<bool>,
    /// Calling it again with the same arguments has no further effect.
    #[serde(
        rename = "idempotentHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub idempotent: Option<bool>,
    /// It reaches beyond a closed world (the network, any program).
    #[serde(
        rename = "openWorldHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub open_world: Option<bool>,
}

impl ToolAnnotations {
    /// A tool that only reads what is already there (`read`, `grep`, `find`, `ls`).
    pub const fn read_only() -> Self {
        Self {
            read_only: Some(true),
            destructive: Some(false),
            idempotent: Some(true),
            open_world: Some(false),
        }
    }

    /// A tool that changes files in a closed world (`write`, `edit`).
    pub const fn destructive() -> Self {
        Self {
            read_only: Some(false),
            destructive: Some(true),
            idempotent: Some(false),
            open_world: Some(false),
        }
    }

    /// A tool that can do anything the machine can (`bash`).
    pub const fn open() -> Self {
        Self {
            read_only: Some(false),
            destructive: Some(true),
            idempotent: Some(false),
            open_world: Some(true),
        }
    }

    /// Whether the tool says it changes nothing (MCP's default: no).
    pub fn is_read_only(&self) -> bool {
        self.read_only.unwrap_or(false)
    }

    /// Whether its changes may destroy (MCP's default: yes, unless it is read-only).
    pub fn is_destructive(&self) -> bool {
        !self.is_read_only() && self.destructive.unwrap_or(true)
    }

    /// Whether calling it twice is the same as once (MCP's default: no).
    pub fn is_idempotent(&self) -> bool {
        self.idempotent.unwrap_or(false)
    }

    /// Whether it reaches beyond the workspace (MCP's default: yes).
    pub fn is_open_world(&self) -> bool {
        self.open_world.unwrap_or(true)
    }
}
