//! The approver of the interactive mode: a call the policy asks about is handed to the
//! screen, which shows it and the choices in the viewport; the gate waits for the person's
//! answer. Calls of a parallel batch queue and are asked one at a time.

use std::path::PathBuf;

use futures::FutureExt;
use pi_approval::{Answer, AnswerFuture, ApprovalRequest, Approver};
use tokio::sync::{mpsc, oneshot};

/// A call waiting for the person, and where the answer goes.
#[derive(Debug)]
pub struct ApprovalAsk {
    /// The call, its arguments and why the policy asks.
    pub request: ApprovalRequest,
    /// The answer (dropped unanswered: the call is refused).
    pub answer: oneshot::Sender<Answer>,
}

/// Asks in the terminal, through the running interactive mode.
#[derive(Debug)]
pub struct TuiApprover {
    cwd: PathBuf,
    asks: mpsc::UnboundedSender<ApprovalAsk>,
}

/// The receiving end: the interactive mode reads the calls to ask about here.
#[derive(Debug)]
pub struct ApprovalInbox(pub(crate) mpsc::UnboundedReceiver<ApprovalAsk>);

impl TuiApprover {
    /// An approver for the workspace `cwd`, and the inbox the interactive mode reads.
    pub fn new(cwd: PathBuf) -> (Self, ApprovalInbox) {
        let (asks, inbox) = mpsc::unbounded_channel();
        (Self { cwd, asks }, ApprovalInbox(inbox))
    }
}

impl Approver for TuiApprover {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> AnswerFuture<'a> {
        async move {
            let (answer, answered) = oneshot::channel();
            let ask = ApprovalAsk {
                request: request.clone(),
                answer,
            };
            if self.asks.send(ask).is_err() {
                return Answer::Unanswered {
                    reason: "the interactive mode has ended; nobody can answer".to_owned(),
                };
            }
            answered.await.unwrap_or_else(|_| Answer::Unanswered {
                reason: "the question was dismissed (the run was stopped)".to_owned(),
            })
        }
        .boxed()
    }

    fn what_would_allow(&self, request: &ApprovalRequest) -> Option<String> {
        Some(pi_coding_agent::what_would_allow(request, &self.cwd))
    }
}
