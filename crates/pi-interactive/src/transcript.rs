//! The transcript's lines: a person's messages, the model's text (headings, lists and code
//! blocks told apart), its thinking dimmed, tool calls and results, notices and errors. Text
//! streams in: each complete line goes to the scrollback as it arrives, the line still being
//! written stays in the viewport ([`Stream`]).

use pi_ai::{AssistantContent, AssistantMessage, Message, StopReason, UserContent};
use pi_coding_agent::visible;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;

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
    /// Inside a fenced code block of the answer.
    in_code: bool,
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
        let in_code = self.in_code;
        Some(match kind {
            BlockKind::Text => answer_line(text, &mut in_code.clone()),
            BlockKind::Thinking => thinking_line(text),
        })
    }

    fn styled(&mut self, kind: BlockKind, line: &str) -> Line<'static> {
        match kind {
            BlockKind::Text => answer_line(line, &mut self.in_code),
            BlockKind::Thinking => thinking_line(line),
        }
    }
}

/// A line of the model's answer, its markdown styled ([`crate::markdown`]).
pub(crate) fn answer_line(line: &str, in_code: &mut bool) -> Line<'static> {
    crate::markdown::line(line, in_code)
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
/// `limit` messages, with a line saying how many came before.
pub(crate) fn history_lines(messages: &[Message], limit: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let skipped = messages.len().saturating_sub(limit);
    if skipped > 0 {
        lines.push(notice(&format!("… {skipped} earlier messages")));
    }
    let mut calls: Vec<(String, String, Value)> = Vec::new();
    for message in messages.iter().skip(skipped) {
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
                let mut in_code = false;
                for block in &answer.content {
                    match block {
                        AssistantContent::Text { text, .. } => {
                            lines.extend(text.lines().map(|line| answer_line(line, &mut in_code)));
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
        assert_eq!(lines[1].spans[0].style.fg, Some(Color::Cyan));
        assert_eq!(lines[3].spans[0].style.fg, None);
        assert_eq!(plain(&lines[3]), "\\e]52;c;eA==\\x07");
    }
}
