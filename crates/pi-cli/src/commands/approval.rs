//! The approval flags shared by `agent` and `policy check` (`--approval MODE`, `--allow`,
//! `--ask`, `--deny RULE`), the policy they make with Pi's settings files, and the answer
//! given when nobody can be asked.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use futures::FutureExt;
use pi_approval::settings::{self, SettingsError};
use pi_approval::{
    Answer, AnswerFuture, ApprovalRequest, Approver, LocalPaths, Mode, Permissions, Policy,
    ProjectTrust, Protected, RuleKind, RuleSet, Source, Verdict,
};
use pi_tool::{RefusalKind, SandboxRefusal};
use serde_json::Value;

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

/// The rules and mode of a run, from the flags and the settings files.
#[derive(Debug)]
pub(crate) struct ApprovalSetup {
    /// The mode in force.
    pub(crate) mode: Mode,
    /// Every rule in force.
    pub(crate) rules: RuleSet,
    /// The user's settings file, where "always" saves its rules.
    pub(crate) user_settings: Option<PathBuf>,
    /// The workspace paths resolve against.
    pub(crate) cwd: PathBuf,
    /// Whether the user's settings trust the workspace (`permissions.trustedProjects`).
    pub(crate) project_trusted: bool,
    /// The coding tools without sandbox or confinement, in modes that ask to run a call the
    /// sandbox refused outside it (`full-auto`); `None` otherwise.
    pub(crate) outside_tools: Option<pi_tool::ToolRegistry>,
    /// Paths whose change asks in every mode but `yolo`: besides every `.git/` and `.pi/`,
    /// the agent's directory (settings, keys, sessions) and the run's session file.
    pub(crate) protected: Protected,
}

impl ApprovalSetup {
    /// Reads the flags and the settings (`<agent dir>/settings.json`, `<cwd>/.pi/settings.json`).
    /// A malformed rule or file is an error naming it: the run must not start.
    pub(crate) fn load(args: &ApprovalArgs, cwd: &Path) -> anyhow::Result<Self> {
        let mut cli = Permissions::default();
        for (kind, rules) in [
            (RuleKind::Allow, &args.allow),
            (RuleKind::Ask, &args.ask),
            (RuleKind::Deny, &args.deny),
        ] {
            for rule in rules {
                cli.add(kind, rule)
                    .with_context(|| format!("--{} {rule:?}", kind.as_str()))?;
            }
        }
        cli.mode = args.approval;
        let user_settings = settings::user_settings_path();
        let (user, trust) = match &user_settings {
            Some(path) => (settings::load(path)?, trust(path, cwd)?),
            None => (None, ProjectTrust::Untrusted),
        };
        let project = settings::load(&settings::project_settings_path(cwd))?;
        let rules = RuleSet::from_sources(&cli, project.as_ref(), user.as_ref(), trust);
        for ignored in rules.ignored() {
            report!(
                "pi-tool: {}: allow rule {} ignored: this project is not trusted (list it in permissions.trustedProjects of your settings.json)",
                settings::project_settings_path(cwd).display(),
                ignored.rule
            );
        }
        let mut protected = Protected::new();
        if let Some(dir) = pi_tool::path::agent_dir() {
            protected.add(&dir);
        }
        if let Some(path) = &user_settings {
            protected.add(path);
        }
        Ok(Self {
            mode: rules.mode().unwrap_or_default(),
            rules,
            user_settings,
            cwd: cwd.to_path_buf(),
            project_trusted: trust == ProjectTrust::Trusted,
            outside_tools: None,
            protected,
        })
    }

    /// The policy deciding the run's calls.
    pub(crate) fn policy(&self) -> Policy {
        Policy::new(self.mode, self.rules.clone(), LocalPaths::new(&self.cwd))
            .with_protected(self.protected.clone())
    }
}

/// The run's gate: its policy, and the approver its asks go to: the terminal prompt, or,
/// with `--json` or when stdin is not a terminal, nobody (every ask is refused, saying what
/// would allow it).
pub(crate) fn gate(setup: &ApprovalSetup, json: bool) -> std::sync::Arc<pi_agent::ApprovalGate> {
    use std::io::IsTerminal as _;
    let why = if json {
        Some("--json leaves no terminal to ask on")
    } else if !std::io::stdin().is_terminal() {
        Some("stdin is not a terminal to ask on")
    } else {
        None
    };
    let approver: std::sync::Arc<dyn Approver> = match why {
        Some(why) => std::sync::Arc::new(NoTerminal {
            cwd: setup.cwd.clone(),
            why,
        }),
        None => std::sync::Arc::new(super::approval_prompt::TerminalPrompt {
            cwd: setup.cwd.clone(),
            user_settings: setup.user_settings.clone(),
            one_at_a_time: tokio::sync::Mutex::new(()),
        }),
    };
    let mut gate = pi_agent::ApprovalGate::new(setup.policy(), approver);
    if let Some(outside) = &setup.outside_tools {
        gate = gate.with_tools_outside_sandbox(outside.clone());
    }
    std::sync::Arc::new(gate)
}

/// Whether the user's settings trust the project in `cwd`.
fn trust(user_settings: &Path, cwd: &Path) -> Result<ProjectTrust, SettingsError> {
    let text = match std::fs::read_to_string(user_settings) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(ProjectTrust::Untrusted);
        }
        Err(source) => {
            return Err(SettingsError::Read {
                path: user_settings.to_owned(),
                source,
            });
        }
    };
    Ok(if settings::trusts_project(user_settings, &text, cwd)? {
        ProjectTrust::Trusted
    } else {
        ProjectTrust::Untrusted
    })
}

/// The rules that would allow a call like this one: for `bash`, one exact rule for each of
/// its simple commands that is not a known read-only one; for a file tool, its path (relative to the
/// workspace when inside it); otherwise the tool's name.
pub(crate) fn suggested_rules(request: &ApprovalRequest, cwd: &Path) -> Vec<String> {
    let tool = &request.tool;
    match tool.as_str() {
        "bash" => {
            let line = request
                .arguments
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let split = pi_approval::shell::split(line);
            // The commands that already run unasked need no rule.
            let needed: Vec<String> = split
                .commands
                .iter()
                .filter(|command| !pi_approval::shell::is_known_read_only(command.words()))
                .map(|command| format!("bash({})", command.text()))
                .collect();
            if needed.is_empty() {
                request
                    .decision
                    .commands
                    .iter()
                    .map(|command| format!("bash({command})"))
                    .collect()
            } else {
                needed
            }
        }
        "read" | "write" | "edit" | "ls" | "find" | "grep" => {
            let path = request
                .arguments
                .get("path")
                .and_then(Value::as_str)
                .unwrap_or(".");
            let absolute = pi_tool::path::canonical(&cwd.join(path));
            let root = pi_tool::path::canonical(cwd);
            let shown = absolute.strip_prefix(&root).map_or_else(
                |_| absolute.display().to_string(),
                |relative| relative.display().to_string(),
            );
            let rule_tool = if tool == "write" {
                "edit"
            } else {
                tool.as_str()
            };
            vec![format!("{rule_tool}({shown})")]
        }
        _ => vec![tool.clone()],
    }
}

/// What would let the call run without asking, in words for the model and the user.
pub(crate) fn what_would_allow(request: &ApprovalRequest, cwd: &Path) -> String {
    if let Some(refusal) = &request.outside_sandbox {
        return outside_hint(refusal);
    }
    let decision = &request.decision;
    if decision.source == Source::Builtin && decision.decision == Verdict::Ask {
        return format!(
            "no rule can allow it ({}); --approval full-auto runs it",
            decision
                .reason
                .as_deref()
                .unwrap_or("it cannot be proven harmless")
        );
    }
    let flags: Vec<String> = suggested_rules(request, cwd)
        .into_iter()
        .map(|rule| format!("--allow '{rule}'"))
        .collect();
    let mode = match request.tool.as_str() {
        "write" | "edit" => "auto-edit",
        _ => "full-auto",
    };
    let by = match &decision.rule {
        Some(rule) => format!(" (the {} rule {rule} asks)", decision.source.as_str()),
        None => String::new(),
    };
    format!("allow it with {} or --approval {mode}{by}", flags.join(" "))
}

/// What would let a call the sandbox refused run: the flag that widens the sandbox.
fn outside_hint(refusal: &SandboxRefusal) -> String {
    match (refusal.kind, &refusal.path) {
        (RefusalKind::Network, _) => {
            "run without --no-network to let it reach the network (or --approval yolo)".to_owned()
        }
        (_, Some(path)) => {
            let path = Path::new(path);
            // A directory is reached as it is; a file through the directory holding it.
            let dir = if path.is_dir() {
                path
            } else {
                path.parent().unwrap_or(path)
            };
            format!(
                "--allow-dir {} lets the tools reach it (or --unconfined-file-tools, --approval yolo)",
                dir.display()
            )
        }
        (_, None) => {
            "--unconfined-file-tools or --approval yolo runs it outside the sandbox".to_owned()
        }
    }
}

/// The approver with no one to ask (`--json`, stdin not a terminal): every `ask` is refused,
/// saying which flag or rule would allow it.
#[derive(Debug)]
pub(crate) struct NoTerminal {
    /// The workspace, to word path rules.
    pub(crate) cwd: PathBuf,
    /// Why nobody can be asked.
    pub(crate) why: &'static str,
}

impl Approver for NoTerminal {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> AnswerFuture<'a> {
        let reason = match &request.outside_sandbox {
            Some(refusal) => format!(
                "the sandbox refused {} ({}) and {}; {}",
                request.tool,
                refusal.describe(),
                self.why,
                what_would_allow(request, &self.cwd)
            ),
            None => format!(
                "{} needs approval and {}; {}",
                request.tool,
                self.why,
                what_would_allow(request, &self.cwd)
            ),
        };
        report!("pi-tool: not run: {reason}");
        async move { Answer::Unanswered { reason } }.boxed()
    }

    fn what_would_allow(&self, request: &ApprovalRequest) -> Option<String> {
        Some(what_would_allow(request, &self.cwd))
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

#[cfg(test)]
mod tests {
    use super::*;
    use pi_approval::{Permissions, Policy};
    use pi_tool::ToolAnnotations;
    use serde_json::json;

    fn request(tool: &str, arguments: Value) -> ApprovalRequest {
        let policy = Policy::new(
            Mode::Ask,
            RuleSet::from_sources(&Permissions::default(), None, None, ProjectTrust::Untrusted),
            LocalPaths::new("/repo"),
        );
        let decision = policy.decide(tool, ToolAnnotations::default(), &arguments);
        ApprovalRequest {
            call_id: "c1".into(),
            tool: tool.into(),
            arguments,
            decision,
            outside_sandbox: None,
        }
    }

    #[test]
    fn the_refusal_names_the_flag_that_would_allow_the_call() {
        let cwd = Path::new("/repo");
        let rm = request("bash", json!({"command": "git status && rm important.txt"}));
        assert_eq!(
            what_would_allow(&rm, cwd),
            "allow it with --allow 'bash(rm important.txt)' or --approval full-auto"
        );
        let edit = request("edit", json!({"path": "src/../lib.rs"}));
        assert_eq!(suggested_rules(&edit, cwd), ["edit(lib.rs)"]);
        let sub = request("bash", json!({"command": "echo $(rm x)"}));
        assert!(what_would_allow(&sub, cwd).starts_with("no rule can allow it"));
    }
}
