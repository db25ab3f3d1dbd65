//! The terminal prompt: when the policy says `ask`, a person sees the tool, the arguments
//! (the split commands of a `bash` line, a diff for `edit` and `write`) and why it asks, and
//! answers yes once, yes for this session, always (a rule saved to their settings), no, or no
//! with a reason the model reads. Prompts come one at a time, on stderr (stdout carries the
//! run's own view). Ctrl-C stops the run: the gate then refuses every call still waiting.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use futures::FutureExt;
use pi_approval::{Answer, AnswerFuture, ApprovalRequest, Approver, Rule, RuleKind, settings};
use serde_json::Value;

use pi_coding_agent::suggested_rules;

/// The most lines of a diff or a new file shown at a prompt.
const SHOWN_LINES: usize = 80;

/// Asks on the terminal.
#[derive(Debug)]
pub(crate) struct TerminalPrompt {
    /// The workspace, for paths and rules.
    pub(crate) cwd: PathBuf,
    /// Where "always" saves rules; `None` when there is no agent directory.
    pub(crate) user_settings: Option<PathBuf>,
    /// One prompt at a time: the calls of a parallel batch wait their turn.
    pub(crate) one_at_a_time: tokio::sync::Mutex<()>,
    /// The live view on the same terminal, shown up to the ask before the prompt is.
    pub(crate) view: Option<super::agent_view::CaughtUp>,
}

impl Approver for TerminalPrompt {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> AnswerFuture<'a> {
        async move {
            let _turn = self.one_at_a_time.lock().await;
            if let Some(view) = &self.view {
                view.wait().await;
            }
            match request.outside_sandbox {
                Some(_) => self.converse_outside(request).await,
                None => self.converse(request).await,
            }
        }
        .boxed()
    }

    fn what_would_allow(&self, request: &ApprovalRequest) -> Option<String> {
        Some(pi_coding_agent::what_would_allow(request, &self.cwd))
    }
}

/// One line from stdin, read off the runtime's threads; `None` at end of input.
async fn read_line() -> Option<String> {
    let read = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        match std::io::stdin().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_owned()),
        }
    });
    read.await.ok().flatten()
}

fn say(text: &str) {
    let mut stderr = std::io::stderr().lock();
    // What the model sent, shown, never sent to the terminal: an escape sequence in a
    // command must not repaint the prompt into another command.
    let _ = stderr.write_all(pi_coding_agent::visible(text).as_bytes());
    let _ = stderr.flush();
}

impl TerminalPrompt {
    async fn converse(&self, request: &ApprovalRequest) -> Answer {
        say(&describe(request, &self.cwd));
        let rule = default_rule(request, &self.cwd);
        loop {
            say(
                "Run it? [y] yes once  [s] yes for this session  [a] always  [n] no  [r] no, with a reason: ",
            );
            let Some(line) = read_line().await else {
                return closed();
            };
            match line.trim().to_ascii_lowercase().as_str() {
                "y" | "yes" => return Answer::Once,
                "s" => {
                    say(&format!("Allowed for this session: {rule}\n"));
                    return Answer::ForSession { rule };
                }
                "a" => return self.always(rule).await,
                "n" | "no" => return Answer::Deny { reason: None },
                "r" => {
                    say("Your reason, for the model: ");
                    let Some(reason) = read_line().await else {
                        return closed();
                    };
                    let reason = reason.trim().to_owned();
                    return Answer::Deny {
                        reason: (!reason.is_empty()).then_some(reason),
                    };
                }
                _ => say("Answer y, s, a, n or r.\n"),
            }
        }
    }

    /// A call the sandbox refused: run it outside, this once? Nothing is remembered: the
    /// next refusal asks again.
    async fn converse_outside(&self, request: &ApprovalRequest) -> Answer {
        say(&describe(request, &self.cwd));
        loop {
            say("Run it outside the sandbox, this once? [y] yes  [n] no  [r] no, with a reason: ");
            let Some(line) = read_line().await else {
                return closed();
            };
            match line.trim().to_ascii_lowercase().as_str() {
                "y" | "yes" => return Answer::Once,
                "n" | "no" => return Answer::Deny { reason: None },
                "r" => {
                    say("Your reason, for the model: ");
                    let Some(reason) = read_line().await else {
                        return closed();
                    };
                    let reason = reason.trim().to_owned();
                    return Answer::Deny {
                        reason: (!reason.is_empty()).then_some(reason),
                    };
                }
                _ => say("Answer y, n or r.\n"),
            }
        }
    }

    /// "Always": shows the rule, lets the person change it, saves it to their settings. A
    /// save that fails still allows the call and the rule for the session, and says so.
    async fn always(&self, suggested: String) -> Answer {
        let rule = loop {
            say(&format!(
                "Rule to save to {}: {suggested}\nPress Enter to save it, or type the rule to save instead: ",
                self.user_settings.as_deref().map_or_else(
                    || "your settings".to_owned(),
                    |path| path.display().to_string()
                )
            ));
            let Some(typed) = read_line().await else {
                return closed();
            };
            let typed = typed.trim();
            let rule = if typed.is_empty() {
                suggested.clone()
            } else {
                typed.to_owned()
            };
            match rule.parse::<Rule>() {
                Ok(_) => break rule,
                Err(error) => say(&format!("That rule cannot be read: {error}\n")),
            }
        };
        match &self.user_settings {
            Some(path) => match settings::save_rule(path, RuleKind::Allow, &rule) {
                Ok(()) => say(&format!("Saved {rule} to {}\n", path.display())),
                Err(error) => say(&format!(
                    "Could not save the rule ({}); it holds for this session only.\n",
                    pi_tool::error_text(&error)
                )),
            },
            None => say(
                "No settings directory (set PI_CODING_AGENT_DIR or HOME); the rule holds for this session only.\n",
            ),
        }
        Answer::Always { rule }
    }
}

/// Stdin closed at a prompt: nobody can answer.
fn closed() -> Answer {
    Answer::Unanswered {
        reason: "the terminal's input closed before anyone answered".to_owned(),
    }
}

/// The rule "yes for this session" and "always" offer: the rule for the call's first
/// command or path that is not already harmless.
fn default_rule(request: &ApprovalRequest, cwd: &Path) -> String {
    suggested_rules(request, cwd)
        .into_iter()
        .next()
        .unwrap_or_else(|| request.tool.clone())
}

/// What the person is shown about the call.
fn describe(request: &ApprovalRequest, cwd: &Path) -> String {
    let mut text = match &request.outside_sandbox {
        Some(_) => format!(
            "\n── the sandbox refused {} (call {}) ──\n",
            request.tool, request.call_id
        ),
        None => format!(
            "\n── {} wants to run (call {}) ──\n",
            request.tool, request.call_id
        ),
    };
    let arguments = &request.arguments;
    match request.tool.as_str() {
        "bash" => {
            let line = arguments
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let _ = writeln!(text, "  $ {line}");
            if request.decision.commands.len() > 1 {
                text.push_str("  which runs:\n");
                for (index, command) in request.decision.commands.iter().enumerate() {
                    let _ = writeln!(text, "    {}. {command}", index + 1);
                }
            }
        }
        "edit" => {
            let path = path_of(arguments);
            let _ = writeln!(text, "  {path}");
            let edits = arguments
                .get("edits")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for edit in &edits {
                let old = edit.get("oldText").and_then(Value::as_str).unwrap_or("");
                let new = edit.get("newText").and_then(Value::as_str).unwrap_or("");
                text.push_str(&diff(old, new));
            }
        }
        "write" => {
            let path = path_of(arguments);
            let content = arguments
                .get("content")
                .and_then(Value::as_str)
                .unwrap_or("");
            let existing = std::fs::read_to_string(cwd.join(path)).ok();
            let _ = writeln!(
                text,
                "  {path} ({})",
                if existing.is_some() {
                    "replaces the file"
                } else {
                    "a new file"
                }
            );
            text.push_str(&diff(existing.as_deref().unwrap_or(""), content));
        }
        _ => {
            let shown = serde_json::to_string_pretty(arguments).unwrap_or_default();
            for line in shown.lines().take(SHOWN_LINES) {
                let _ = writeln!(text, "  {line}");
            }
        }
    }
    if let Some(refusal) = &request.outside_sandbox {
        let _ = writeln!(
            text,
            "  it refused {}:\n    {}",
            refusal.describe(),
            refusal.evidence
        );
        return text;
    }
    let why = match (&request.decision.rule, &request.decision.reason) {
        (Some(rule), _) => format!("the {} rule {rule} asks", request.decision.source.as_str()),
        (None, Some(reason)) => reason.clone(),
        (None, None) => "no rule allows it".to_owned(),
    };
    let _ = writeln!(text, "  why asked: {why}");
    text
}

fn path_of(arguments: &Value) -> &str {
    arguments
        .get("path")
        .and_then(Value::as_str)
        .unwrap_or("(no path)")
}

/// A unified diff of `old` → `new`, at most [`SHOWN_LINES`] lines.
fn diff(old: &str, new: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let unified = diff.unified_diff().context_radius(2).to_string();
    let mut shown = String::new();
    let total = unified.lines().count();
    for line in unified.lines().take(SHOWN_LINES) {
        let _ = writeln!(shown, "    {line}");
    }
    if total > SHOWN_LINES {
        let _ = writeln!(shown, "    … {} more lines", total - SHOWN_LINES);
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_approval::{LocalPaths, Mode, Policy, RuleSet};
    use pi_tool::ToolAnnotations;
    use serde_json::json;

    fn request(tool: &str, arguments: Value) -> ApprovalRequest {
        let policy = Policy::new(Mode::Ask, RuleSet::default(), LocalPaths::new("/repo"));
        ApprovalRequest {
            call_id: "c7".into(),
            tool: tool.into(),
            decision: policy.decide(tool, ToolAnnotations::default(), &arguments),
            arguments,
            outside_sandbox: None,
        }
    }

    #[test]
    fn a_bash_line_is_shown_with_its_simple_commands_and_the_rule_offered() {
        let asked = request("bash", json!({"command": "git status && rm -rf build"}));
        let shown = describe(&asked, Path::new("/repo"));
        assert!(shown.contains("bash wants to run (call c7)"), "{shown}");
        assert!(shown.contains("$ git status && rm -rf build"), "{shown}");
        assert!(
            shown.contains("1. git status\n    2. rm -rf build"),
            "{shown}"
        );
        assert_eq!(
            default_rule(&asked, Path::new("/repo")),
            "bash(rm -rf build)"
        );
    }

    #[test]
    fn an_edit_is_shown_as_a_diff() {
        let asked = request(
            "edit",
            json!({"path": "src/lib.rs", "edits": [{"oldText": "a\nb\n", "newText": "a\nc\n"}]}),
        );
        let shown = describe(&asked, Path::new("/repo"));
        assert!(shown.contains("-b\n") && shown.contains("+c\n"), "{shown}");
        assert_eq!(default_rule(&asked, Path::new("/repo")), "edit(src/lib.rs)");
    }
}
