//! The transcript's lines: a person's messages, the model's text (headings, lists and code
//! blocks told apart), its thinking dimmed, tool calls and results, notices and errors. Text
//! streams in: each complete line goes to the scrollback as it arrives, the line still being
//! written stays in the viewport ([`Stream`]).

use pi_ai::{AssistantContent, AssistantMessage, Message, StopReason, UserContent};
use pi_coding_agent::visible;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::markdown::Fence;
use crate::tool_view;

/// What a streamed block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockKind {
    /// The answer's text.
    Text,
    /// The model's reasoning.
    Thinking,
}

/// A block being streamed: complete lines leave, the last partial line stays.
#[derive(Debug, Default)]
pub(crate) struct Stream {
    current: Option<(BlockKind, String)>,
    /// Inside a fenced code block of the answer, and its highlighting.
    fence: Fence,
}

impl Stream {
    /// Adds `delta` to the block of `kind` (a block of another kind is finished first); gives
    /// the lines it completed.
    pub(crate) fn push(&mut self, kind: BlockKind, delta: &str) -> Vec<Line<'static>> {
        let mut done = Vec::new();
        if self.current.as_ref().is_some_and(|(now, _)| *now != kind) {
            done.extend(self.finish());
        }
        let (_, text) = self.current.get_or_insert_with(|| (kind, String::new()));
        text.push_str(delta);
        let mut complete = Vec::new();
        while let Some(end) = text.find('\n') {
            let line: String = text.drain(..=end).collect();
            complete.push(line.trim_end_matches(['\n', '\r']).to_owned());
        }
        for line in complete {
            done.push(self.styled(kind, &line));
        }
        done
    }

    /// Ends the block: its last line, if it has one.
    pub(crate) fn finish(&mut self) -> Vec<Line<'static>> {
        match self.current.take() {
            Some((kind, text)) if !text.is_empty() => vec![self.styled(kind, &text)],
            _ => Vec::new(),
        }
    }

    /// The line being written, for the viewport.
    pub(crate) fn partial(&self) -> Option<Line<'static>> {
        let (kind, text) = self.current.as_ref()?;
        if text.is_empty() {
            return None;
        }
        Some(match kind {
            // Code is highlighted once its line is complete (the grammar reads whole lines).
            BlockKind::Text if self.fence.in_code() => {
                Line::from(crate::markdown::plain_code(text))
            }
            BlockKind::Text => answer_line(text, &mut Fence::plain()),
            BlockKind::Thinking => thinking_line(text),
        })
    }

    fn styled(&mut self, kind: BlockKind, line: &str) -> Line<'static> {
        match kind {
            BlockKind::Text => answer_line(line, &mut self.fence),
            BlockKind::Thinking => thinking_line(line),
        }
    }
}

/// A line of the model's answer, its markdown styled ([`crate::markdown`]).
pub(crate) fn answer_line(line: &str, fence: &mut Fence) -> Line<'static> {
    crate::markdown::line(line, fence)
}

/// A line of thinking: dimmed and in italics.
pub(crate) fn thinking_line(line: &str) -> Line<'static> {
    Line::from(Span::styled(
        visible(line).into_owned(),
        Style::default()
            .add_modifier(Modifier::DIM)
            .add_modifier(Modifier::ITALIC),
    ))
}

/// A message the person sent.
pub(crate) fn user_lines(text: &str) -> Vec<Line<'static>> {
    let style = Style::default()
        .fg(Color::Cyan)
        .add_modifier(Modifier::BOLD);
    let mut lines = vec![Line::default()];
    for (index, line) in visible(text).lines().enumerate() {
        let lead = if index == 0 { "› " } else { "  " };
        lines.push(Line::from(Span::styled(format!("{lead}{line}"), style)));
    }
    lines
}

/// A notice of the program (a model changed, a session started): dim.
pub(crate) fn notice(text: &str) -> Line<'static> {
    Line::from(Span::styled(
        visible(text).into_owned(),
        Style::default().add_modifier(Modifier::DIM),
    ))
}

/// An error: red.
pub(crate) fn error(text: &str) -> Line<'static> {
    Line::from(Span::styled(
        visible(text).into_owned(),
        Style::default().fg(Color::Red),
    ))
}

/// A run the person stopped.
pub(crate) fn aborted() -> Line<'static> {
    Line::from(Span::styled(
        "Aborted",
        Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
    ))
}

/// How an answer ended, when it did not end well: the error in red, or "aborted".
pub(crate) fn answer_end(answer: &AssistantMessage) -> Option<Line<'static>> {
    match answer.stop_reason {
        StopReason::Error => Some(error(&format!(
            "Error: {}",
            answer
                .error_message
                .as_deref()
                .unwrap_or("the request failed")
        ))),
        StopReason::Aborted => Some(aborted()),
        _ => None,
    }
}

/// A whole conversation (a resumed session), as it was shown while it ran; only the last
/// `limit` messages, with a line saying how many came before. The code of the last answers
/// is highlighted, up to [`HISTORY_HIGHLIGHTED_LINES`]; older code is plain.
/// How many lines of answers with code a resumed history highlights, newest first: some
/// 20 ms in a release build (the grammars are regexes, ~50 µs a line), so that start-up
/// stays within its budget however much code the session holds.
const HISTORY_HIGHLIGHTED_LINES: usize = 400;

/// The index of the oldest of `messages` whose code is highlighted: the newest answers whose
/// text with a code fence adds up to [`HISTORY_HIGHLIGHTED_LINES`] lines.
fn highlighted_from(messages: &[Message]) -> usize {
    let mut budget = HISTORY_HIGHLIGHTED_LINES;
    for (index, message) in messages.iter().enumerate().rev() {
        let Message::Assistant(answer) = message else {
            continue;
        };
        let lines: usize = answer
            .content
            .iter()
            .filter_map(|block| match block {
                AssistantContent::Text { text, .. }
                    if text.contains("```") || text.contains("~~~") =>
                {
                    Some(text.lines().count())
                }
                _ => None,
            })
            .sum();
        if lines > budget {
            return index + 1;
        }
        budget -= lines;
    }
    0
}

pub(crate) fn history_lines(messages: &[Message], limit: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let skipped = messages.len().saturating_sub(limit);
    if skipped > 0 {
        lines.push(notice(&format!("… {skipped} earlier messages")));
    }
    let mut calls: Vec<(String, String, Value)> = Vec::new();
    let shown = messages.get(skipped..).unwrap_or_default();
    let highlighted_from = highlighted_from(shown);
    for (index, message) in shown.iter().enumerate() {
        match message {
            Message::User(user) => {
                let text = match &user.content {
                    UserContent::Text(text) => text.clone(),
                    UserContent::Blocks(blocks) => blocks
                        .iter()
                        .filter_map(pi_tool::Content::as_text)
                        .collect::<Vec<_>>()
                        .join(""),
                };
                lines.extend(user_lines(&text));
            }
            Message::Assistant(answer) => {
                lines.push(Line::default());
                let mut fence = if index >= highlighted_from {
                    Fence::new()
                } else {
                    Fence::plain()
                };
                for block in &answer.content {
                    match block {
                        AssistantContent::Text { text, .. } => {
                            lines.extend(text.lines().map(|line| answer_line(line, &mut fence)));
                        }
                        AssistantContent::Thinking { thinking, .. } => {
                            lines.extend(thinking.lines().map(thinking_line));
                        }
                        AssistantContent::ToolCall {
                            id,
                            name,
                            arguments,
                            ..
                        } => calls.push((id.to_string(), name.to_string(), arguments.clone())),
                    }
                }
                lines.extend(answer_end(answer));
            }
            Message::ToolResult(result) => {
                let call = calls
                    .iter()
                    .position(|(id, _, _)| *id == *result.tool_call_id)
                    .map(|at| calls.remove(at));
                let (name, arguments) = call.map_or_else(
                    || (result.tool_name.to_string(), Value::Null),
                    |(_, name, arguments)| (name, arguments),
                );
                lines.push(tool_view::start_line(&name, &arguments));
                lines.extend(tool_view::result_lines(&result.text(), result.is_error));
                lines.extend(tool_view::image_lines(&result.content));
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wrap::plain;

    #[test]
    fn streamed_text_leaves_line_by_line() {
        let mut stream = Stream::default();
        assert!(stream.push(BlockKind::Text, "Hel").is_empty());
        assert_eq!(plain(&stream.partial().unwrap()), "Hel");
        let done = stream.push(BlockKind::Text, "lo\nwor");
        assert_eq!(done.iter().map(plain).collect::<Vec<_>>(), ["Hello"]);
        let done = stream.push(BlockKind::Thinking, "hmm");
        assert_eq!(done.iter().map(plain).collect::<Vec<_>>(), ["wor"]);
        let done = stream.finish();
        assert!(done[0].spans[0].style.add_modifier.contains(Modifier::DIM));
        assert!(stream.partial().is_none());
    }

    #[test]
    fn code_blocks_are_told_apart_and_escapes_shown() {
        let mut stream = Stream::default();
        let lines = stream.push(
            BlockKind::Text,
            "```rust\nlet x = 1;\n```\n\u{1b}]52;c;eA==\u{7}\n",
        );
        assert!(matches!(lines[1].spans[0].style.fg, Some(Color::Rgb(..))));
        assert_eq!(lines[3].spans[0].style.fg, None);
        assert_eq!(plain(&lines[3]), "\\e]52;c;eA==\\x07");
        // A line of code still being written is plain until it is complete.
        stream.push(
            BlockKind::Text,
            "```py
x = 1",
        );
        assert_eq!(
            stream.partial().unwrap().spans[0].style.fg,
            Some(Color::Cyan)
        );
    }

    #[test]
    fn a_long_history_highlights_only_its_last_code() {
        let answer = |text: &str| {
            let model = pi_ai::ModelInfo {
                api: "faux".into(),
                provider: "faux".into(),
                model: "m".into(),
            };
            Message::Assistant(AssistantMessage::new(
                &model,
                vec![AssistantContent::text(text)],
            ))
        };
        let code = format!("```rust\n{}```", "let x = 1;\n".repeat(150));
        let messages = vec![
            answer(&code),
            answer("no code"),
            answer(&code),
            answer(&code),
        ];
        // 152 lines each: the last two fit in 400, the first does not.
        assert_eq!(highlighted_from(&messages), 1);
        assert_eq!(highlighted_from(&messages[..2]), 0);
    }
}
