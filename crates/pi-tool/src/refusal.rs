//! A call its tool's sandbox or confinement stopped, said in a way a program can recognise:
//! the tool puts a [`SandboxRefusal`] in its result's details (under
//! [`SandboxRefusal::DETAILS_KEY`]) and an agent loop reads it back with
//! [`SandboxRefusal::of`], so it can offer to run the same call outside, never guessing
//! from the text the model reads.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{ToolError, ToolResultMessage};

/// What the sandbox refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RefusalKind {
    /// A file tool's path leads outside the directories the tools may reach.
    OutsideWorkspace,
    /// A command tried to write where the sandbox lets it only read.
    WriteOutsideSandbox,
    /// A command tried to use the network the sandbox keeps it off.
    Network,
}

/// Why a call's sandbox or confinement stopped it.
///
/// ```
/// use pi_tool::{RefusalKind, SandboxRefusal, ToolCall, failed_result};
/// use serde_json::json;
///
/// let refusal = SandboxRefusal {
///     kind: RefusalKind::OutsideWorkspace,
///     path: Some("/etc/hosts".into()),
///     evidence: "Path /etc/hosts is outside the workspace".into(),
/// };
/// let error = refusal.clone().into_error("Path /etc/hosts is outside the workspace");
/// assert_eq!(SandboxRefusal::of_error(&error), Some(refusal));
/// // A failure without one says nothing.
/// let plain = failed_result(&ToolCall::new("c1", "read", json!({})), "no such file");
/// assert_eq!(SandboxRefusal::of(&plain), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxRefusal {
    /// What was refused.
    pub kind: RefusalKind,
    /// The path refused, when there is one (as the tool resolved it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// What the tool saw: its own refusal, or the line of the command's output that shows
    /// the sandbox stopped it.
    pub evidence: String,
}

impl SandboxRefusal {
    /// The key of a result's details that holds the refusal.
    pub const DETAILS_KEY: &'static str = "sandboxRefusal";

    /// The refusal a result reports, if any.
    pub fn of(result: &ToolResultMessage) -> Option<Self> {
        Self::of_details(result.details.as_ref())
    }

    /// The refusal details hold, if any.
    pub fn of_details(details: Option<&Value>) -> Option<Self> {
        let value = details?.get(Self::DETAILS_KEY)?;
        serde_json::from_value(value.clone()).ok()
    }

    /// The refusal a tool's failure carries, if any.
    pub fn of_error(error: &ToolError) -> Option<Self> {
        let value = error.details()?.get(Self::DETAILS_KEY)?;
        serde_json::from_value(value.clone()).ok()
    }

    /// The tool's failure `message`, carrying this refusal into the result's details.
    pub fn into_error(self, message: impl Into<String>) -> ToolError {
        let value = serde_json::to_value(&self).unwrap_or(Value::Null);
        ToolError::new(message).with_detail(Self::DETAILS_KEY, value)
    }

    /// One line for a person: what was refused, and where.
    pub fn describe(&self) -> String {
        let what = match self.kind {
            RefusalKind::OutsideWorkspace => "a path outside the workspace",
            RefusalKind::WriteOutsideSandbox => {
                "a write outside the sandbox's writable directories"
            }
            RefusalKind::Network => "the network",
        };
        match &self.path {
            Some(path) => format!("{what} ({path})"),
            None => what.to_owned(),
        }
    }
}
