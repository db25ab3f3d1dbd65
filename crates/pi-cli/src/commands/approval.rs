//! The approval flags shared by `agent` and `policy check` (`--approval MODE`, `--allow`,
//! `--ask`, `--deny RULE`), read into the runtime's [`ApprovalSetup`]; whom the gate asks (the
//! terminal prompt, or nobody); and how `session approvals` prints a decision.

use std::path::Path;
use std::sync::Arc;

use clap::Args;
use futures::FutureExt;
use pi_approval::{Answer, AnswerFuture, ApprovalRequest, Approver, Mode};
use pi_coding_agent::{ApprovalFlags, ApprovalSetup, NobodyToAsk, unanswered_reason};

/// `--approval`, `--allow`, `--ask`, `--deny`.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct ApprovalArgs {
    /// How much runs without asking: `read-only`, `ask` (the default: read-only tools and
    /// known read-only commands run, the rest asks), `auto-edit` (edits inside the workspace
    /// run too), `full-auto` (everything runs, inside the sandbox), `yolo` (nothing asks,
    /// no sandbox: as `--unconfined-file-tools`). Settings may set it (`permissions.mode`).
    #[arg(long, value_name = "MODE", value_parser = parse_mode)]
    pub(crate) approval: Option<Mode>,
    /// Let calls matching RULE run (`bash(git log:*)`, `edit(src/**)`, `mcp_github_*`);
    /// repeatable.
    #[arg(long = "allow", value_name = "RULE")]
    pub(crate) allow: Vec<String>,
    /// Ask before calls matching RULE run; repeatable.
    #[arg(long = "ask", value_name = "RULE")]
    pub(crate) ask: Vec<String>,
    /// Never run calls matching RULE (a bare tool name also hides the tool); repeatable.
    #[arg(long = "deny", value_name = "RULE")]
    pub(crate) deny: Vec<String>,
}

fn parse_mode(text: &str) -> Result<Mode, String> {
    text.parse()
        .map_err(|error: pi_approval::UnknownMode| error.to_string())
}

impl ApprovalArgs {
    /// Whether any approval flag was given.
    pub(crate) fn any_given(&self) -> bool {
        self.approval.is_some()
            || !self.allow.is_empty()
            || !self.ask.is_empty()
            || !self.deny.is_empty()
    }

    /// Reads the flags and the settings into the run's approvals; a malformed rule or file
    /// ends the command. Allow rules an untrusted project's settings ignore are said on stderr.
    pub(crate) fn load(&self, cwd: &Path) -> anyhow::Result<ApprovalSetup> {
        self.load_trusting(cwd, None)
    }

    /// As [`ApprovalArgs::load`], with this run's answer on trusting the project (`-a`/`-na`).
    pub(crate) fn load_trusting(
        &self,
        cwd: &Path,
        project_trust: Option<bool>,
    ) -> anyhow::Result<ApprovalSetup> {
        let flags = ApprovalFlags {
            mode: self.approval,
            allow: self.allow.clone(),
            ask: self.ask.clone(),
            deny: self.deny.clone(),
            project_trust,
        };
        let (setup, ignored) = ApprovalSetup::load(&flags, cwd)?;
        for line in ignored {
            report!("pi-tool: {line}");
        }
        Ok(setup)
    }
}

/// Whom the run's gate asks: the terminal prompt, or, with `--json` or when stdin is not a
/// terminal, nobody (every ask is refused, saying what would allow it). `view` is the live
/// view the prompt waits for, so a prompt never lands inside text still being shown.
pub(crate) fn approver(
    setup: &ApprovalSetup,
    json: bool,
    view: Option<super::agent_view::CaughtUp>,
) -> Arc<dyn Approver> {
    use std::io::IsTerminal as _;
    let why = if json {
        Some("--json leaves no terminal to ask on")
    } else if !std::io::stdin().is_terminal() {
        Some("stdin is not a terminal to ask on")
    } else {
        None
    };
    match why {
        Some(why) => Arc::new(NoTerminal(NobodyToAsk {
            cwd: setup.cwd.clone(),
            why,
        })),
        None => Arc::new(super::approval_prompt::TerminalPrompt {
            cwd: setup.cwd.clone(),
            user_settings: setup.user_settings.clone(),
            one_at_a_time: tokio::sync::Mutex::new(()),
            view,
        }),
    }
}

/// The approver with no one to ask (`--json`, stdin not a terminal): the runtime's
/// [`NobodyToAsk`], saying each refusal on stderr too.
#[derive(Debug)]
pub(crate) struct NoTerminal(pub(crate) NobodyToAsk);

impl Approver for NoTerminal {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> AnswerFuture<'a> {
        let reason = unanswered_reason(request, &self.0.cwd, self.0.why);
        report!("pi-tool: not run: {reason}");
        async move { Answer::Unanswered { reason } }.boxed()
    }

    fn what_would_allow(&self, request: &ApprovalRequest) -> Option<String> {
        self.0.what_would_allow(request)
    }
}

/// One decision as `session approvals` prints it: time (UTC), decision, tool, call id, who
/// decided (and for how long a yes holds), the rule and its source, why.
pub(crate) fn record_line(record: &pi_approval::ApprovalRecord) -> String {
    let when = i64::try_from(record.timestamp)
        .ok()
        .and_then(pi_session::millis_to_iso)
        .unwrap_or_default();
    let who = match record.scope {
        Some(scope) => format!("{}/{}", json_word(&record.decided_by), json_word(&scope)),
        None => json_word(&record.decided_by),
    };
    let mut line = format!(
        "{when}  {:<5}  {}  {}  {who}  {}",
        record.decision.as_str(),
        record.tool,
        record.tool_call_id,
        record.source.as_str()
    );
    if let Some(rule) = &record.rule {
        line.push_str("  ");
        line.push_str(rule);
    }
    if let Some(refusal) = &record.outside_sandbox {
        line.push_str("  outside the sandbox: ");
        line.push_str(&refusal.describe());
    }
    if let Some(reason) = &record.reason {
        line.push_str("  (");
        line.push_str(reason);
        line.push(')');
    }
    line
}

/// A unit enum's serde name (`user`, `session`).
fn json_word(value: &impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|value| value.as_str().map(str::to_owned))
        .unwrap_or_default()
}
