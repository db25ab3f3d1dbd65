//! The audit trail of one decision: what the loop announces as an event and the CLI keeps as
//! a `custom` session entry (`customType` [`RECORD_CUSTOM_TYPE`]), so a resumed session can
//! restore its "yes for this session" rules and `pi-tool session approvals` can list them.

use pi_tool::SandboxRefusal;
use serde::{Deserialize, Serialize};

use crate::{Fingerprint, Mode, Source, Verdict};

/// The `customType` of the session entries that hold [`ApprovalRecord`]s.
pub const RECORD_CUSTOM_TYPE: &str = "pi-tool.approval";

/// Who settled a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DecidedBy {
    /// A rule (command line, settings, or one remembered this session).
    Rule,
    /// The approval mode or the built-in checks, no rule matching.
    Mode,
    /// The person asked.
    User,
    /// Nobody could be asked (no terminal, the run cancelled at the prompt).
    Unanswered,
}

/// How long a person's "yes" holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// This call only.
    Once,
    /// Calls matching the rule, until the session ends.
    Session,
    /// Calls matching the rule, saved to the user's settings.
    Always,
}

/// One decision, as it was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRecord {
    /// The tool.
    pub tool: String,
    /// The call's id.
    pub tool_call_id: String,
    /// The fingerprint of the arguments decided on.
    pub fingerprint: Fingerprint,
    /// What happened to the call: allow (it ran) or deny (it did not); a call that asked
    /// ends as one of the two, with [`DecidedBy::User`] or [`DecidedBy::Unanswered`].
    pub decision: Verdict,
    /// What the policy said before anyone was asked (`ask` when a person was asked).
    pub policy: Verdict,
    /// The rule that decided, as written (the person's rule for session/always answers).
    #[serde(default)]
    pub rule: Option<String>,
    /// Where that rule comes from, or `mode` / `builtin`.
    pub source: Source,
    /// The approval mode of the run.
    pub mode: Mode,
    /// Who settled it.
    pub decided_by: DecidedBy,
    /// How long a person's yes holds; `None` when nobody said yes.
    #[serde(default)]
    pub scope: Option<Scope>,
    /// Why: the policy's words, or the person's reason for a no.
    #[serde(default)]
    pub reason: Option<String>,
    /// When, in milliseconds since the Unix epoch.
    pub timestamp: u64,
    /// Set on the decision whether to run outside the sandbox a call the sandbox refused:
    /// what it refused. `decision` says whether the call then ran outside.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside_sandbox: Option<SandboxRefusal>,
    /// The record's seal ([`crate::SealKey`]): the proof that this program wrote it, for
    /// this session. A record read back without a valid one restores nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seal: Option<String>,
}

impl ApprovalRecord {
    /// The rule a resumed session should allow again: the rule of a "yes for this session"
    /// (or "always": saved to settings, but this keeps it when that write failed).
    pub fn session_rule(&self) -> Option<&str> {
        // A yes to running outside the sandbox holds for that one call only.
        if self.outside_sandbox.is_some() {
            return None;
        }
        match (self.decided_by, self.scope) {
            (DecidedBy::User, Some(Scope::Session | Scope::Always)) => self.rule.as_deref(),
            _ => None,
        }
    }
}
