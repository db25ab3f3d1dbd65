//! How a call waiting for approval reads: the tool and exactly what it would run (the whole
//! `bash` line and the simple commands it splits into, the diff of an `edit` or `write`, or
//! the arguments), why the policy asks, and the choices. Everything is shown through
//! [`pi_coding_agent::visible`]: an escape sequence in a command cannot repaint the question.

use std::path::Path;

use pi_approval::ApprovalRequest;
use pi_coding_agent::visible;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::tool_view::diff_lines;

/// The lines of JSON arguments shown for other tools.
const ARGUMENT_LINES: usize = 30;

/// The details of the call, for the scrollback.
pub(crate) fn details(request: &ApprovalRequest, cwd: &Path) -> Vec<Line<'static>> {
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let title = match &request.outside_sandbox {
        Some(_) => format!(
            "The sandbox refused {} (call {})",
            request.tool, request.call_id
        ),
        None => format!("{} wants to run (call {})", request.tool, request.call_id),
    };
    let mut lines = vec![Line::from(vec![
        Span::styled("? ", Style::default().fg(Color::Magenta)),
        Span::styled(visible(&title).into_owned(), bold),
    ])];
    let arguments = &request.arguments;
    let text = |name: &str| arguments.get(name).and_then(Value::as_str).unwrap_or("");
    match request.tool.as_str() {
        "bash" => {
            for (index, line) in text("command").lines().enumerate() {
                let lead = if index == 0 { "  $ " } else { "    " };
                lines.push(Line::from(Span::styled(
                    format!("{lead}{}", visible(line)),
                    bold,
                )));
            }
            if request.decision.commands.len() > 1 {
                lines.push(Line::from("  which runs:"));
                for (index, command) in request.decision.commands.iter().enumerate() {
                    lines.push(Line::from(format!(
                        "    {}. {}",
                        index + 1,
                        visible(&command.to_string())
                    )));
                }
            }
        }
        "edit" => {
            lines.push(Line::from(format!("  {}", visible(text("path")))));
            let edits = arguments
                .get("edits")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            for edit in edits {
                let old = edit.get("oldText").and_then(Value::as_str).unwrap_or("");
                let new = edit.get("newText").and_then(Value::as_str).unwrap_or("");
                lines.extend(diff_lines(old, new));
            }
        }
        "write" => {
            let path = text("path");
            let existing = std::fs::read_to_string(cwd.join(path)).ok();
            let what = if existing.is_some() {
                "replaces the file"
            } else {
                "a new file"
            };
            lines.push(Line::from(format!("  {} ({what})", visible(path))));
            lines.extend(diff_lines(
                existing.as_deref().unwrap_or(""),
                text("content"),
            ));
        }
        _ => {
            let shown = serde_json::to_string_pretty(arguments).unwrap_or_default();
            for line in shown.lines().take(ARGUMENT_LINES) {
                lines.push(Line::from(format!("  {}", visible(line))));
            }
        }
    }
    let why = match (
        &request.outside_sandbox,
        &request.decision.rule,
        &request.decision.reason,
    ) {
        (Some(refusal), _, _) => format!("it refused {}: {}", refusal.describe(), refusal.evidence),
        (None, Some(rule), _) => {
            format!("the {} rule {rule} asks", request.decision.source.as_str())
        }
        (None, None, Some(reason)) => reason.clone(),
        (None, None, None) => "no rule allows it".to_owned(),
    };
    lines.push(Line::from(Span::styled(
        format!("  why asked: {}", visible(&why)),
        Style::default().add_modifier(Modifier::DIM),
    )));
    lines
}

/// The choices, in the viewport while the call waits.
pub(crate) fn choices(outside_sandbox: bool) -> Line<'static> {
    let key = Style::default()
        .fg(Color::Magenta)
        .add_modifier(Modifier::BOLD);
    let mut spans = vec![Span::raw("Run it? ")];
    let options: &[(&str, &str)] = if outside_sandbox {
        &[
            ("y", "yes, this once"),
            ("n", "no"),
            ("r", "no, with a reason"),
        ]
    } else {
        &[
            ("y", "yes once"),
            ("s", "this session"),
            ("a", "always"),
            ("n", "no"),
            ("r", "no, with a reason"),
        ]
    };
    for (letter, meaning) in options {
        spans.push(Span::styled(format!("[{letter}]"), key));
        spans.push(Span::raw(format!(" {meaning}  ")));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_screen::render;
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
    fn a_bash_call_shows_its_line_its_commands_and_the_choices() {
        let asked = request("bash", json!({"command": "git status && rm -rf build"}));
        let mut lines = details(&asked, Path::new("/repo"));
        lines.push(choices(false));
        let shown = render(lines, 90, 7);
        assert_eq!(
            shown,
            "? bash wants to run (call c7)\n  $ git status && rm -rf build\n  which runs:\n    1. git status\n    2. rm -rf build\n  why asked: no rule allows it\nRun it? [y] yes once  [s] this session  [a] always  [n] no  [r] no, with a reason"
                .replace("why asked: no rule allows it", &format!("why asked: {}", why(&asked)))
        );
    }

    fn why(asked: &ApprovalRequest) -> String {
        asked
            .decision
            .reason
            .clone()
            .unwrap_or_else(|| "no rule allows it".to_owned())
    }

    #[test]
    fn a_spoofing_command_is_shown_as_it_is() {
        let asked = request(
            "bash",
            json!({"command": "rm -f x \u{1b}[2K\u{1b}[1G$ git status"}),
        );
        let shown = render(details(&asked, Path::new("/repo")), 80, 3);
        assert!(
            shown.contains("$ rm -f x \\e[2K\\e[1G$ git status"),
            "{shown}"
        );
    }

    #[test]
    fn an_edit_shows_its_diff() {
        let asked = request(
            "edit",
            json!({"path": "src/lib.rs", "edits": [{"oldText": "a\nb\n", "newText": "a\nc\n"}]}),
        );
        let shown = render(details(&asked, Path::new("/repo")), 60, 9);
        assert!(shown.contains("  src/lib.rs\n"), "{shown}");
        assert!(shown.contains("    -b\n    +c"), "{shown}");
    }
}
