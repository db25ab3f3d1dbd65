//! Approvals asked through the editor: a call the policy says `ask` for becomes a
//! `session/request_permission` with four choices (allow once, allow always, reject once,
//! reject always). It is a [`pi_approval::Approver`], so the gate records each answer as it
//! records a terminal's, in the session file.
//!
//! "Always" holds for the editor's session: an allow is remembered by the gate as a session
//! rule (the rule the terminal would suggest: the command, the file), a reject by this
//! approver, which refuses calls the same rule would match without asking again.

use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    SessionId, ToolCallUpdate, ToolCallUpdateFields,
};
use pi_approval::{Answer, AnswerFuture, ApprovalRequest, Approver};
use pi_coding_agent::{suggested_rules, unanswered_reason, what_would_allow};

use crate::tool_calls::{kind_of, locations_of, title_of};

/// The ids of the four choices.
const ALLOW_ONCE: &str = "allow_once";
const ALLOW_ALWAYS: &str = "allow_always";
const REJECT_ONCE: &str = "reject_once";
const REJECT_ALWAYS: &str = "reject_always";

/// Asks the editor of one ACP session.
pub struct EditorApprover {
    connection: ConnectionTo<Client>,
    session_id: SessionId,
    cwd: PathBuf,
    /// Rules the person rejected for the whole session.
    rejected: Mutex<Vec<String>>,
}

impl EditorApprover {
    /// An approver asking over `connection` about the calls of `session_id`, working in `cwd`.
    pub fn new(connection: ConnectionTo<Client>, session_id: SessionId, cwd: PathBuf) -> Self {
        Self {
            connection,
            session_id,
            cwd,
            rejected: Mutex::new(Vec::new()),
        }
    }

    fn rejected(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        // Only strings are held: a panic elsewhere leaves the list usable.
        self.rejected.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn question(&self, request: &ApprovalRequest, rule: &str) -> RequestPermissionRequest {
        let title = match &request.outside_sandbox {
            Some(refusal) => format!(
                "{} (outside the sandbox, which refused {})",
                title_of(&request.tool, &request.arguments),
                refusal.describe()
            ),
            None => title_of(&request.tool, &request.arguments),
        };
        let call = ToolCallUpdate::new(
            request.call_id.clone(),
            ToolCallUpdateFields::new()
                .title(title)
                .kind(kind_of(&request.tool))
                .locations(locations_of(&request.tool, &request.arguments, &self.cwd))
                .raw_input(request.arguments.clone()),
        );
        let options = vec![
            PermissionOption::new(ALLOW_ONCE, "Allow once", PermissionOptionKind::AllowOnce),
            PermissionOption::new(
                ALLOW_ALWAYS,
                format!("Allow always in this session ({rule})"),
                PermissionOptionKind::AllowAlways,
            ),
            PermissionOption::new(REJECT_ONCE, "Reject", PermissionOptionKind::RejectOnce),
            PermissionOption::new(
                REJECT_ALWAYS,
                format!("Reject always in this session ({rule})"),
                PermissionOptionKind::RejectAlways,
            ),
        ];
        RequestPermissionRequest::new(self.session_id.clone(), call, options)
    }
}

impl Approver for EditorApprover {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> AnswerFuture<'a> {
        Box::pin(async move {
            let rules = suggested_rules(request, &self.cwd);
            let rule = rules
                .first()
                .cloned()
                .unwrap_or_else(|| request.tool.clone());
            if request.outside_sandbox.is_none()
                && rules.iter().any(|rule| self.rejected().contains(rule))
            {
                return Answer::Deny {
                    reason: Some(format!("the user rejected {rule} for this session")),
                };
            }
            let sent = self
                .connection
                .send_request(self.question(request, &rule))
                .block_task()
                .await;
            let response = match sent {
                Ok(response) => response,
                Err(error) => {
                    let why = format!("the editor did not answer the permission request ({error})");
                    return Answer::Unanswered {
                        reason: unanswered_reason(request, &self.cwd, &why),
                    };
                }
            };
            match response.outcome {
                RequestPermissionOutcome::Selected(selected) => {
                    match &*selected.option_id.0 {
                        ALLOW_ONCE => Answer::Once,
                        ALLOW_ALWAYS => Answer::ForSession { rule },
                        REJECT_ALWAYS => {
                            self.rejected().extend(rules);
                            Answer::Deny { reason: None }
                        }
                        // Reject once, and any id we did not offer: no is the safe answer.
                        _ => Answer::Deny { reason: None },
                    }
                }
                // The turn was cancelled while the editor asked.
                _ => Answer::Unanswered {
                    reason: unanswered_reason(
                        request,
                        &self.cwd,
                        "the editor cancelled the permission request",
                    ),
                },
            }
        })
    }

    fn what_would_allow(&self, request: &ApprovalRequest) -> Option<String> {
        Some(what_would_allow(request, &self.cwd))
    }
}
