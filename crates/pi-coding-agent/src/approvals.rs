//! A run's approvals: the mode and rules from the flags and Pi's settings files, the protected
//! paths, the gate its calls pass, and the words that say what would allow a refused call
//! (the rules a person may save, the flag that widens the sandbox). How a person is asked is
//! the front end's: it hands the gate its [`Approver`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pi_approval::settings::{self, SettingsError};
use pi_approval::{
    ApprovalRequest, Approver, LocalPaths, Mode, Permissions, Policy, ProjectTrust, Protected,
    RuleKind, RuleSet, Source, Verdict,
};
use pi_tool::{RefusalKind, SandboxRefusal};
use serde_json::Value;

use crate::runtime_error::RuntimeError;

/// The approval flags: `--approval MODE`, `--allow`, `--ask`, `--deny RULE` (repeatable).
#[derive(Debug, Clone, Default)]
pub struct ApprovalFlags {
    /// The mode asked for; `None`: the settings', else `ask`.
    pub mode: Option<Mode>,
    /// Rules letting matching calls run.
    pub allow: Vec<String>,
    /// Rules asking before matching calls run.
    pub ask: Vec<String>,
    /// Rules refusing matching calls.
    pub deny: Vec<String>,
    /// This run's answer on trusting the project's own files (Pi's `-a` / `-na`); `None`: the
    /// user's settings decide (`permissions.trustedProjects`).
    pub project_trust: Option<bool>,
}

/// The rules and mode of a run, from the flags and the settings files.
#[derive(Debug, Clone)]
pub struct ApprovalSetup {
    /// The mode in force.
    pub mode: Mode,
    /// Every rule in force.
    pub rules: RuleSet,
    /// The user's settings file, where "always" saves its rules.
    pub user_settings: Option<PathBuf>,
    /// The workspace paths resolve against.
    pub cwd: PathBuf,
    /// Whether the user's settings trust the workspace (`permissions.trustedProjects`).
    pub project_trusted: bool,
    /// The coding tools without sandbox or confinement, in modes that ask to run a call the
    /// sandbox refused outside it (`full-auto`); `None` otherwise.
    pub outside_tools: Option<pi_tool::ToolRegistry>,
    /// Paths whose change asks in every mode but `yolo`: besides every `.git/` and `.pi/`,
    /// the agent's directory (settings, keys, sessions) and the run's session file.
    pub protected: Protected,
    /// The flags it was read from, so another directory's approvals are read the same way.
    pub flags: ApprovalFlags,
}

impl ApprovalSetup {
    /// Reads the flags and the settings (`<agent dir>/settings.json`, `<cwd>/.pi/settings.json`).
    /// A malformed rule or file is an error naming it: the run must not start. Allow rules of
    /// an untrusted project's settings are ignored; the second value says which, in words.
    pub fn load(args: &ApprovalFlags, cwd: &Path) -> Result<(Self, Vec<String>), RuntimeError> {
        let mut cli = Permissions::default();
        for (kind, rules) in [
            (RuleKind::Allow, &args.allow),
            (RuleKind::Ask, &args.ask),
            (RuleKind::Deny, &args.deny),
        ] {
            for rule in rules {
                cli.add(kind, rule).map_err(|source| RuntimeError::Rule {
                    flag: kind.as_str(),
                    rule: rule.clone(),
                    source,
                })?;
            }
        }
        cli.mode = args.mode;
        let user_settings = settings::user_settings_path();
        let (user, trust) = match &user_settings {
            Some(path) => (settings::load(path)?, trust(path, cwd)?),
            None => (None, ProjectTrust::Untrusted),
        };
        let trust = match args.project_trust {
            Some(true) => ProjectTrust::Trusted,
            Some(false) => ProjectTrust::Untrusted,
            None => trust,
        };
        let project = settings::load(&settings::project_settings_path(cwd))?;
        let rules = RuleSet::from_sources(&cli, project.as_ref(), user.as_ref(), trust);
        let ignored = rules
            .ignored()
            .iter()
            .map(|ignored| {
                format!(
                    "{}: allow rule {} ignored: this project is not trusted (list it in permissions.trustedProjects of your settings.json)",
                    settings::project_settings_path(cwd).display(),
                    ignored.rule
                )
            })
            .collect();
        let mut protected = Protected::new();
        if let Some(dir) = pi_tool::path::agent_dir() {
            protected.add(&dir);
        }
        if let Some(path) = &user_settings {
            protected.add(path);
        }
        let setup = Self {
            mode: rules.mode().unwrap_or_default(),
            rules,
            user_settings,
            cwd: cwd.to_path_buf(),
            project_trusted: trust == ProjectTrust::Trusted,
            outside_tools: None,
            protected,
            flags: args.clone(),
        };
        Ok((setup, ignored))
    }

    /// The approvals of a session working in `cwd` (an editor's session in another
    /// project): the same flags with that directory's settings (its project's rules, when
    /// trusted: the flags' `-a`/`-na` or the user's `permissions.trustedProjects`); the
    /// allow rules the project's untrusted settings lost, in words. Its own directory gives
    /// back the setup as it is.
    ///
    /// Another directory gets no tools to run outside the sandbox: this setup's were made
    /// for its own directory (relative paths resolve there), so a call let out of the
    /// sandbox would act on the wrong project. The caller sets
    /// [`ApprovalSetup::outside_tools`] made for `cwd`, as it sets the session's tools.
    pub fn in_directory(&self, cwd: &Path) -> Result<(Self, Vec<String>), RuntimeError> {
        if cwd == self.cwd {
            return Ok((self.clone(), Vec::new()));
        }
        Self::load(&self.flags, cwd)
    }

    /// The same approvals read again from the flags and the settings files, for Pi's
    /// `/reload`: rules added, changed or removed in a settings file since take effect (a
    /// `deny` added to tighten a session, above all), as does a change of the project's
    /// trust. The mode the session runs in (perhaps chosen during it), the tools it may run
    /// outside the sandbox and the protected paths stay as they are.
    pub fn reloaded(&self) -> Result<(Self, Vec<String>), RuntimeError> {
        let (mut fresh, ignored) = Self::load(&self.flags, &self.cwd)?;
        fresh.mode = self.mode;
        fresh.outside_tools.clone_from(&self.outside_tools);
        fresh.protected = self.protected.clone();
        Ok((fresh, ignored))
    }

    /// The policy deciding the run's calls.
    pub fn policy(&self) -> Policy {
        Policy::new(self.mode, self.rules.clone(), LocalPaths::new(&self.cwd))
            .with_protected(self.protected.clone())
    }

    /// The run's gate: its policy, and `approver`, whom its asks go to.
    pub fn gate(&self, approver: Arc<dyn Approver>) -> Arc<pi_agent::ApprovalGate> {
        let mut gate = pi_agent::ApprovalGate::new(self.policy(), approver);
        if let Some(outside) = &self.outside_tools {
            gate = gate.with_tools_outside_sandbox(outside.clone());
        }
        Arc::new(gate)
    }
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
pub fn suggested_rules(request: &ApprovalRequest, cwd: &Path) -> Vec<String> {
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
pub fn what_would_allow(request: &ApprovalRequest, cwd: &Path) -> String {
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

/// Why a call that needed approval did not run when nobody could be asked (`why`, e.g. "stdin
/// is not a terminal to ask on"), and what would allow it: the text the model and the user read.
pub fn unanswered_reason(request: &ApprovalRequest, cwd: &Path, why: &str) -> String {
    match &request.outside_sandbox {
        Some(refusal) => format!(
            "the sandbox refused {} ({}) and {why}; {}",
            request.tool,
            refusal.describe(),
            what_would_allow(request, cwd)
        ),
        None => format!(
            "{} needs approval and {why}; {}",
            request.tool,
            what_would_allow(request, cwd)
        ),
    }
}

/// The approver of a front end with nobody to ask (a script, `--json`, stdin not a terminal):
/// every `ask` is refused, saying why and what would allow the call.
#[derive(Debug, Clone)]
pub struct NobodyToAsk {
    /// The workspace, to word path rules.
    pub cwd: PathBuf,
    /// Why nobody can be asked, e.g. "stdin is not a terminal to ask on".
    pub why: &'static str,
}

impl Approver for NobodyToAsk {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> pi_approval::AnswerFuture<'a> {
        let reason = unanswered_reason(request, &self.cwd, self.why);
        Box::pin(async move { pi_approval::Answer::Unanswered { reason } })
    }

    fn what_would_allow(&self, request: &ApprovalRequest) -> Option<String> {
        Some(what_would_allow(request, &self.cwd))
    }
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

    /// The tools offered outside the sandbox resolve relative paths in the directory they
    /// were made for: another directory's approvals must not keep them, or a call let out of
    /// the sandbox in a second project would act on the first.
    #[test]
    fn another_directorys_approvals_keep_no_tools_made_for_this_one() {
        let dirs = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let (first, second) = (dirs.path().join("first"), dirs.path().join("second"));
        for dir in [&first, &second] {
            std::fs::create_dir_all(dir).unwrap_or_else(|error| panic!("{error}"));
        }
        let flags = ApprovalFlags {
            mode: Some(Mode::FullAuto),
            ..ApprovalFlags::default()
        };
        let (mut setup, _) =
            ApprovalSetup::load(&flags, &first).unwrap_or_else(|error| panic!("{error}"));
        setup.outside_tools = Some(pi_tool::ToolRegistry::default());
        let (same, _) = setup
            .in_directory(&first)
            .unwrap_or_else(|error| panic!("{error}"));
        assert!(same.outside_tools.is_some());
        let (other, _) = setup
            .in_directory(&second)
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(other.mode, Mode::FullAuto);
        assert_eq!(other.cwd, second);
        assert!(
            other.outside_tools.is_none(),
            "the first directory's outside tools were kept for the second"
        );
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
