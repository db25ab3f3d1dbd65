//! The asking side, declared here so any front end (the terminal, an editor over ACP, a test)
//! can answer the calls a policy says `ask` for, and the loop's gate can wait on it without
//! knowing which.

use std::future::Future;
use std::pin::Pin;

use pi_tool::SandboxRefusal;
use serde_json::Value;

use crate::Decision;

/// A call waiting for a person's answer.
#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    /// The call's id (its paired result carries the same).
    pub call_id: String,
    /// The tool.
    pub tool: String,
    /// The final arguments, exactly as they will run.
    pub arguments: Value,
    /// The policy's decision (`ask`), with the split commands for `bash`; for a call that
    /// asks to run outside the sandbox, the decision that let it run inside.
    pub decision: Decision,
    /// Set when the call already ran in the sandbox (or the workspace's confinement) and was
    /// refused: the question is then whether to run the same arguments again outside it,
    /// this once.
    pub outside_sandbox: Option<SandboxRefusal>,
}

/// What the person answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Run this call.
    Once,
    /// Run this call and calls that match `rule` until the session ends.
    ForSession {
        /// The rule remembered for the session.
        rule: String,
    },
    /// Run it, and save `rule` to the user's settings (shown and editable before saving).
    Always {
        /// The rule to save.
        rule: String,
    },
    /// Do not run it; the model reads the reason when one is given.
    Deny {
        /// The person's words for the model.
        reason: Option<String>,
    },
    /// No one could be asked (no terminal, `--json`, the run cancelled at the prompt): the
    /// call does not run and the model and the user read `reason` (which flag or rule would
    /// allow it).
    Unanswered {
        /// Why nobody answered, and what would allow the call.
        reason: String,
    },
}

/// A future an [`Approver`] returns.
pub type AnswerFuture<'a> = Pin<Box<dyn Future<Output = Answer> + Send + 'a>>;

/// Something that can ask a person about a call. With no one to ask (no terminal, `--json`),
/// a front end answers [`Answer::Unanswered`] saying which flag or rule would allow the call.
pub trait Approver: Send + Sync {
    /// Asks about one call; a cancelled run drops the future (which must then deny).
    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> AnswerFuture<'a>;

    /// What would let a call like this run without asking, in the front end's own words
    /// (its flags and rules), for the model and the user to read when the answer is no.
    /// `None` (the default) says nothing more.
    fn what_would_allow(&self, request: &ApprovalRequest) -> Option<String> {
        let _ = request;
        None
    }
}
