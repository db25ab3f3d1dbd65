//! The approval gate: the last step before a call runs. The loop validates a call, lets
//! `before_tool_call` rewrite it, validates the rewrite, and only then asks the gate about
//! the final arguments; the gate's [`Approved`] ticket carries those arguments and their
//! fingerprint, and the call runs exactly them, checked once more just before it starts.
//!
//! A policy's `ask` goes to the [`Approver`] (a terminal, an editor, a test); a denied or
//! unanswered call never runs and gets its paired error result saying who refused it and why.
//! Every decision is announced as [`AgentEvent::ApprovalDecision`].

use std::sync::{Arc, Mutex, PoisonError};

use pi_approval::{
    Answer, ApprovalRecord, ApprovalRequest, Approver, DecidedBy, Decision, Fingerprint,
    FingerprintMismatch, Policy, RuleError, RuleKind, RuleSet, Scope, Source, Verdict,
};
use pi_tool::{
    PreparedCall, SandboxRefusal, ToolAnnotations, ToolCall, ToolRegistry, ToolResultMessage,
    now_millis, prepare_tool_call,
};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::AgentEvent;
use crate::emitter::Emitter;

/// A policy and the approver its `ask`s go to, plus the rules the person allowed for the
/// rest of the session. Shared by every run of an agent (and by a resumed session's runs).
pub struct ApprovalGate {
    policy: Policy,
    approver: Arc<dyn Approver>,
    session: Mutex<SessionRules>,
    /// The same tools without sandbox or confinement: what a call the sandbox refused runs
    /// with once a person lets it run outside (in modes that ask that).
    outside: Option<Arc<ToolRegistry>>,
}

/// The "yes for this session" rules, and a policy of only those (rebuilt when one is added,
/// which happens only when a person answers).
#[derive(Default)]
struct SessionRules {
    rules: RuleSet,
    policy: Option<Arc<Policy>>,
}

impl std::fmt::Debug for ApprovalGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApprovalGate")
            .field("policy", &self.policy)
            .field("session_rules", &self.session_rules())
            .finish_non_exhaustive()
    }
}

/// The gate's yes: the arguments the call may run with and the decision on them, which
/// carries their fingerprint (taken once, at the decision).
#[derive(Debug, Clone)]
pub struct Approved {
    arguments: Value,
    /// The decision that let it run (shown again if the call asks to run outside the sandbox).
    decision: Decision,
}

impl Approved {
    /// The arguments decided on; the call runs these and nothing else.
    pub fn arguments(&self) -> &Value {
        &self.arguments
    }

    /// The fingerprint taken at the decision.
    pub fn fingerprint(&self) -> &Fingerprint {
        &self.decision.fingerprint
    }

    /// Whether `arguments` (what is about to run) are the ones decided on.
    pub fn check(&self, tool: &str, arguments: &Value) -> Result<(), FingerprintMismatch> {
        self.decision.fingerprint.check(tool, arguments)
    }
}

/// What the gate says about a call the sandbox refused.
#[derive(Debug)]
pub(crate) enum Outside {
    /// Run it again outside the sandbox: the same arguments, checked, on the unconfined tools.
    Run(Box<PreparedCall>),
    /// The refusal stands; the model and the user read this after it.
    Stand(String),
}

/// What the gate says about one call.
#[derive(Debug)]
pub(crate) enum GateOutcome {
    /// Run it, with exactly these arguments.
    Run(Approved),
    /// Do not run it; the model reads this.
    Refuse(String),
}

impl ApprovalGate {
    /// A gate deciding with `policy` and asking `approver`.
    pub fn new(policy: Policy, approver: Arc<dyn Approver>) -> Self {
        Self {
            policy,
            approver,
            session: Mutex::new(SessionRules::default()),
            outside: None,
        }
    }

    /// The same gate with `tools` to run, once a person says yes, a call the sandbox or the
    /// workspace's confinement refused: the same tools, made without either. Only modes
    /// that ask it (`full-auto`) use them.
    #[must_use]
    pub fn with_tools_outside_sandbox(mut self, tools: ToolRegistry) -> Self {
        self.outside = Some(Arc::new(tools));
        self
    }

    /// The refusal of the sandbox `result` reports, when this gate would ask to run the call
    /// outside it.
    pub(crate) fn refusal_to_ask_about(
        &self,
        result: &ToolResultMessage,
    ) -> Option<SandboxRefusal> {
        if !self.policy.mode().table().asks_outside_sandbox || self.outside.is_none() {
            return None;
        }
        SandboxRefusal::of(result)
    }

    /// Asks whether the approved call the sandbox refused may run again outside it, once.
    /// Yes: the same arguments (checked against the fingerprint) prepared on the tools
    /// outside. No, nobody to ask, or the run cancelled: the refusal stands, with why and what
    /// would allow it. Announces the decision.
    pub(crate) async fn ask_outside(
        &self,
        call: &ToolCall,
        approved: &Approved,
        refusal: SandboxRefusal,
        signal: &CancellationToken,
        emitter: &Emitter,
    ) -> Outside {
        let request = ApprovalRequest {
            call_id: call.id.to_string(),
            tool: call.name.to_string(),
            arguments: approved.arguments.clone(),
            decision: approved.decision.clone(),
            outside_sandbox: Some(refusal.clone()),
        };
        let answer = tokio::select! {
            biased;
            () = signal.cancelled() => Answer::Unanswered {
                reason: "the run was cancelled before anyone answered".to_owned(),
            },
            answer = self.approver.ask(&request) => answer,
        };
        let mut record = ApprovalRecord {
            tool: call.name.to_string(),
            tool_call_id: call.id.to_string(),
            fingerprint: approved.fingerprint().clone(),
            decision: Verdict::Deny,
            policy: Verdict::Ask,
            rule: None,
            source: Source::Mode,
            mode: self.policy.mode(),
            decided_by: DecidedBy::User,
            scope: None,
            reason: Some(refusal.evidence.clone()),
            timestamp: 0,
            outside_sandbox: Some(refusal.clone()),
            seal: None,
        };
        let outcome = match answer {
            // A yes to running outside the sandbox holds for this call only, whatever scope
            // was answered.
            Answer::Once | Answer::ForSession { .. } | Answer::Always { .. } => {
                record.decision = Verdict::Allow;
                record.scope = Some(Scope::Once);
                self.prepare_outside(call, approved)
            }
            Answer::Deny { reason } => {
                let mut text = format!(
                    "The sandbox refused {}; the user did not let it run outside the sandbox.",
                    refusal.describe()
                );
                if let Some(reason) = reason.as_deref().map(str::trim).filter(|r| !r.is_empty()) {
                    text.push_str(" Their reason: ");
                    text.push_str(reason);
                    record.reason = Some(reason.to_owned());
                }
                if let Some(allow) = self.approver.what_would_allow(&request) {
                    text.push(' ');
                    text.push_str(&allow);
                }
                Outside::Stand(text)
            }
            Answer::Unanswered { reason } => {
                record.decided_by = DecidedBy::Unanswered;
                let text = format!("Not run outside the sandbox: {reason}");
                record.reason = Some(reason);
                Outside::Stand(text)
            }
        };
        record.timestamp = now_millis();
        emitter.emit(AgentEvent::ApprovalDecision(std::sync::Arc::new(record)));
        outcome
    }

    /// The approved call, prepared on the tools outside the sandbox with exactly the
    /// arguments decided on.
    fn prepare_outside(&self, call: &ToolCall, approved: &Approved) -> Outside {
        let Some(tools) = &self.outside else {
            return Outside::Stand("Not run outside the sandbox: no tools outside it".into());
        };
        if let Err(mismatch) = approved.check(&call.name, approved.arguments()) {
            return Outside::Stand(format!("Not run outside the sandbox: {mismatch}"));
        }
        let again = ToolCall::new(
            call.id.clone(),
            call.name.clone(),
            approved.arguments.clone(),
        );
        match prepare_tool_call(&again, tools) {
            Ok(prepared) => Outside::Run(Box::new(prepared)),
            Err(failed) => Outside::Stand(format!(
                "Not run outside the sandbox: {}",
                failed.message().text()
            )),
        }
    }

    /// The policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Whether the model must not be shown `tool` (a bare tool name in `deny`).
    pub fn hides_tool(&self, tool: &str) -> bool {
        self.policy.hides_tool(tool)
    }

    /// Allows calls matching `rule` for the rest of the session, as a person's "yes for this
    /// session" does (a resumed session restores its rules through this). A session rule
    /// turns an `ask` into an allow; it never overrides a `deny`.
    pub fn remember_for_session(&self, rule: &str) -> Result<(), RuleError> {
        let parsed = rule.parse()?;
        let mut session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        if session
            .rules
            .entries()
            .iter()
            .any(|entry| entry.rule.text() == rule)
        {
            return Ok(());
        }
        session.rules.push(RuleKind::Allow, parsed, Source::Session);
        session.policy = Some(Arc::new(
            Policy::with_resolver(
                self.policy.mode(),
                session.rules.clone(),
                self.policy.resolver(),
            )
            .with_protected(self.policy.protected().clone()),
        ));
        Ok(())
    }

    /// The rules remembered for this session, in the order they were given.
    pub fn session_rules(&self) -> Vec<String> {
        let session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        session
            .rules
            .entries()
            .iter()
            .map(|entry| entry.rule.text().to_owned())
            .collect()
    }

    /// Decides one call on its final, validated `arguments`, asking the approver when the
    /// policy says so (a cancelled run answers for nobody: the call is refused). Announces
    /// the decision.
    pub(crate) async fn decide(
        &self,
        call: &ToolCall,
        hints: Hints,
        arguments: Value,
        signal: &CancellationToken,
        emitter: &Emitter,
    ) -> GateOutcome {
        let decision = hints.decide(&self.policy, &call.name, &arguments);
        let mut record = ApprovalRecord {
            tool: call.name.to_string(),
            tool_call_id: call.id.to_string(),
            fingerprint: decision.fingerprint.clone(),
            decision: decision.decision,
            policy: decision.decision,
            rule: decision.rule.clone(),
            source: decision.source,
            mode: self.policy.mode(),
            decided_by: decided_by_policy(&decision),
            scope: None,
            reason: decision.reason.clone(),
            timestamp: 0,
            outside_sandbox: None,
            seal: None,
        };
        let outcome = match decision.decision {
            Verdict::Allow => Self::run(decision, arguments),
            Verdict::Deny => GateOutcome::Refuse(denied_by_policy(&decision, &record)),
            Verdict::Ask => {
                if let Some(allowed) = self.session_allows(&call.name, hints, &arguments) {
                    record.decision = Verdict::Allow;
                    record.rule = allowed.rule;
                    record.source = Source::Session;
                    record.decided_by = DecidedBy::Rule;
                    record.reason = None;
                    Self::run(decision, arguments)
                } else {
                    self.ask(call, decision, arguments, signal, &mut record)
                        .await
                }
            }
        };
        record.timestamp = now_millis();
        emitter.emit(AgentEvent::ApprovalDecision(std::sync::Arc::new(record)));
        outcome
    }

    fn run(decision: Decision, arguments: Value) -> GateOutcome {
        GateOutcome::Run(Approved {
            arguments,
            decision,
        })
    }

    /// The session policy's allow, when one of the session's rules (not the mode) gives it.
    fn session_allows(&self, tool: &str, hints: Hints, arguments: &Value) -> Option<Decision> {
        let policy = {
            let session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
            session.policy.clone()?
        };
        let decision = hints.decide(&policy, tool, arguments);
        (decision.decision == Verdict::Allow && decision.source == Source::Session)
            .then_some(decision)
    }

    async fn ask(
        &self,
        call: &ToolCall,
        decision: Decision,
        arguments: Value,
        signal: &CancellationToken,
        record: &mut ApprovalRecord,
    ) -> GateOutcome {
        let request = ApprovalRequest {
            call_id: call.id.to_string(),
            tool: call.name.to_string(),
            arguments,
            decision,
            outside_sandbox: None,
        };
        let answer = tokio::select! {
            biased;
            () = signal.cancelled() => Answer::Unanswered {
                reason: "the run was cancelled before anyone answered".to_owned(),
            },
            answer = self.approver.ask(&request) => answer,
        };
        record.decided_by = DecidedBy::User;
        let (scope, rule) = match answer {
            Answer::Once => (Scope::Once, None),
            Answer::ForSession { rule } => (Scope::Session, Some(rule)),
            Answer::Always { rule } => (Scope::Always, Some(rule)),
            Answer::Deny { reason } => {
                record.decision = Verdict::Deny;
                record.reason.clone_from(&reason);
                let mut text = format!("Not run: the user denied this {} call.", call.name);
                if let Some(reason) = reason.filter(|reason| !reason.trim().is_empty()) {
                    text.push_str(" Their reason: ");
                    text.push_str(reason.trim());
                }
                return GateOutcome::Refuse(text);
            }
            Answer::Unanswered { reason } => {
                record.decision = Verdict::Deny;
                record.decided_by = DecidedBy::Unanswered;
                let text = format!("Not run: {reason}");
                record.reason = Some(reason);
                return GateOutcome::Refuse(text);
            }
        };
        record.decision = Verdict::Allow;
        record.scope = Some(scope);
        if let Some(rule) = rule {
            // A rule that does not parse still lets this one call run (the person said yes),
            // but nothing is remembered; the record says why.
            match self.remember_for_session(&rule) {
                Ok(()) => record.reason = None,
                Err(error) => {
                    record.reason =
                        Some(format!("not remembered: {}", pi_tool::error_text(&error)));
                    record.scope = Some(Scope::Once);
                }
            }
            record.rule = Some(rule);
        } else {
            record.reason = None;
        }
        Self::run(request.decision, request.arguments)
    }
}

fn decided_by_policy(decision: &Decision) -> DecidedBy {
    if decision.rule.is_some() {
        DecidedBy::Rule
    } else {
        DecidedBy::Mode
    }
}

/// What the model reads when a rule or the mode refused the call.
fn denied_by_policy(decision: &Decision, record: &ApprovalRecord) -> String {
    match &decision.rule {
        Some(rule) => format!(
            "Not run: the approval rule {rule} (from {}) denies it.",
            describe_source(decision.source)
        ),
        None => format!(
            "Not run: approval mode {} denies it ({}).",
            record.mode,
            decision.reason.as_deref().unwrap_or("no rule allows it")
        ),
    }
}

fn describe_source(source: Source) -> &'static str {
    match source {
        Source::Cli => "the command line",
        Source::User => "the user's settings",
        Source::Project => "the project's settings",
        Source::Session => "this session",
        Source::Mode | Source::Builtin => "the built-in checks",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_ticket_refuses_arguments_other_than_the_approved_ones() {
        let policy = Policy::new(
            pi_approval::Mode::Ask,
            RuleSet::default(),
            pi_approval::LocalPaths::new("/repo"),
        );
        let decision = policy.decide("bash", ToolAnnotations::open(), &json!({"command": "ls"}));
        let approved = Approved {
            arguments: json!({"command": "ls"}),
            decision,
        };
        assert_eq!(
            approved.fingerprint(),
            &Fingerprint::of("bash", &json!({"command": "ls"}))
        );
        assert!(approved.check("bash", approved.arguments()).is_ok());
        assert!(
            approved
                .check("bash", &json!({"command": "rm -rf ~"}))
                .is_err()
        );
        assert!(approved.check("write", approved.arguments()).is_err());
    }
}

/// What a policy may believe of the tool called: the hints of a tool compiled into this
/// program, or nothing of an imported one (an MCP server's name and hints are its claims).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Hints {
    /// A tool of this program, with what it says of its effects.
    Trusted(ToolAnnotations),
    /// A tool from another program: judged as an unknown tool.
    Imported,
}

impl Hints {
    /// The hints of a registered tool.
    pub(crate) fn of(tool: &pi_tool::RegisteredTool) -> Self {
        if tool.is_imported() {
            Self::Imported
        } else {
            Self::Trusted(tool.annotations())
        }
    }

    fn decide(self, policy: &Policy, tool: &str, arguments: &Value) -> Decision {
        match self {
            Self::Trusted(annotations) => policy.decide(tool, annotations, arguments),
            Self::Imported => policy.decide_imported(tool, arguments),
        }
    }
}
