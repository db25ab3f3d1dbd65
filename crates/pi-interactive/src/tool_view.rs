//! How a tool call reads in the transcript: one line when it starts (the tool and what it
//! works on: the path of a file tool, the command of `bash`, the pattern of a search), a
//! coloured diff for `edit`, and its result collapsed to a few lines, in red when it failed.
//! Everything shown went through [`pi_coding_agent::visible`].

use pi_coding_agent::visible;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;

/// The lines of a result shown before it is cut.
pub(crate) const RESULT_LINES: usize = 4;
/// The lines of a diff shown before it is cut.
pub(crate) const DIFF_LINES: usize = 40;
/// The characters of a summary line.
const SUMMARY_CHARS: usize = 200;

/// What the call works on, in a few words: `notes.txt`, `$ cargo test`, `"TODO" in src`.
pub(crate) fn summary(tool: &str, arguments: &Value) -> String {
    let text = |name: &str| arguments.get(name).and_then(Value::as_str);
    let shown = match tool {
        "bash" => format!("$ {}", text("command").unwrap_or_default()),
        "read" | "write" | "edit" | "ls" => text("path").unwrap_or(".").to_owned(),
        "grep" | "find" => {
            let pattern = text("pattern").unwrap_or_default();
            match text("path") {
                Some(path) => format!("{pattern:?} in {path}"),
                None => format!("{pattern:?}"),
            }
        }
        _ => serde_json::to_string(arguments).unwrap_or_default(),
    };
    one_line(&shown, SUMMARY_CHARS)
}

/// The line a call starts with: `● bash $ sleep 1`.
pub(crate) fn start_line(tool: &str, arguments: &Value) -> Line<'static> {
    Line::from(vec![
        Span::styled("● ", Style::default().fg(Color::Yellow)),
        Span::styled(
            visible(tool).into_owned(),
            Style::default().add_modifier(Modifier::BOLD),
        ),
        Span::raw(" "),
        Span::raw(visible(&summary(tool, arguments)).into_owned()),
    ])
}

/// For `edit`, the coloured diff of each replacement; for `write`, how many lines it writes.
pub(crate) fn preview_lines(tool: &str, arguments: &Value) -> Vec<Line<'static>> {
    match tool {
        "edit" => {
            let mut lines = Vec::new();
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
            lines
        }
        "write" => {
            let count = arguments
                .get("content")
                .and_then(Value::as_str)
                .map_or(0, |content| content.lines().count());
            vec![dim_line(&format!("  ⎿ writes {count} lines"))]
        }
        _ => Vec::new(),
    }
}

/// A unified diff of `old` → `new`, removed lines red, added green, at most [`DIFF_LINES`].
pub(crate) fn diff_lines(old: &str, new: &str) -> Vec<Line<'static>> {
    let diff = similar::TextDiff::from_lines(old, new);
    let unified = diff.unified_diff().context_radius(2).to_string();
    let total = unified.lines().count();
    let mut lines: Vec<Line<'static>> = unified
        .lines()
        .take(DIFF_LINES)
        .map(|line| {
            let style = if line.starts_with('+') {
                Style::default().fg(Color::Green)
            } else if line.starts_with('-') {
                Style::default().fg(Color::Red)
            } else if line.starts_with("@@") {
                Style::default().fg(Color::Cyan)
            } else {
                Style::default().add_modifier(Modifier::DIM)
            };
            Line::from(Span::styled(format!("    {}", visible(line)), style))
        })
        .collect();
    if total > DIFF_LINES {
        lines.push(dim_line(&format!(
            "    … {} more lines",
            total - DIFF_LINES
        )));
    }
    lines
}

/// A result collapsed to [`RESULT_LINES`] lines under its call, red when it is an error.
pub(crate) fn result_lines(text: &str, is_error: bool) -> Vec<Line<'static>> {
    let style = if is_error {
        Style::default().fg(Color::Red)
    } else {
        Style::default().add_modifier(Modifier::DIM)
    };
    let shown = visible(text.trim_end());
    let total = shown.lines().count();
    let mut lines = Vec::new();
    for (index, line) in shown.lines().take(RESULT_LINES).enumerate() {
        let lead = if index == 0 { "  ⎿ " } else { "    " };
        lines.push(Line::from(Span::styled(
            format!("{lead}{}", one_line(line, 400)),
            style,
        )));
    }
    if lines.is_empty() {
        lines.push(Line::from(Span::styled(
            if is_error {
                "  ⎿ (failed, no output)"
            } else {
                "  ⎿ (no output)"
            },
            style,
        )));
    }
    if total > RESULT_LINES {
        lines.push(dim_line(&format!(
            "    … {} more lines (ctrl+o shows the whole result)",
            total - RESULT_LINES
        )));
    }
    lines
}

/// One line for each image in a result: its type and size (a terminal without an image
/// protocol cannot show it; the model still gets the image).
pub(crate) fn image_lines(content: &[pi_tool::Content]) -> Vec<Line<'static>> {
    content
        .iter()
        .filter_map(|block| match block {
            pi_tool::Content::Image { data, mime_type } => Some(dim_line(&format!(
                "    [image: {}, {}]",
                one_line(&visible(mime_type), 60),
                byte_size(decoded_len(data))
            ))),
            pi_tool::Content::Text { .. } => None,
        })
        .collect()
}

/// The bytes that `base64` text decodes to (its padding and line breaks left out).
fn decoded_len(base64: &str) -> usize {
    let digits = base64
        .bytes()
        .filter(|byte| !byte.is_ascii_whitespace() && *byte != b'=')
        .count();
    digits * 3 / 4
}

/// `bytes` as a person reads a size: `512 B`, `12.3 KB`, `4.0 MB`.
fn byte_size(bytes: usize) -> String {
    // Precision loss is irrelevant at a display's one decimal.
    #[allow(clippy::cast_precision_loss)]
    let size = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KB", size / 1024.0)
    } else {
        format!("{:.1} MB", size / (1024.0 * 1024.0))
    }
}

fn dim_line(text: &str) -> Line<'static> {
    Line::from(Span::styled(
        text.to_owned(),
        Style::default().add_modifier(Modifier::DIM),
    ))
}

/// `text` on one line (new lines shown as `⏎`), cut to `limit` characters with `…`.
pub(crate) fn one_line(text: &str, limit: usize) -> String {
    let mut shown: String = text
        .chars()
        .map(|character| if character == '\n' { '⏎' } else { character })
        .take(limit)
        .collect();
    if text.chars().count() > limit {
        shown.push('…');
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_screen::render as screen;
    use crate::wrap::plain;
    use serde_json::json;

    #[test]
    fn a_tool_call_and_its_collapsed_result() {
        let mut lines = vec![start_line("bash", &json!({"command": "seq 1 10"}))];
        lines.extend(result_lines("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", false));
        lines.push(start_line("read", &json!({"path": "missing.txt"})));
        lines.extend(result_lines("ENOENT: no such file", true));
        assert_eq!(
            screen(lines.clone(), 60, 8),
            "● bash $ seq 1 10\n  ⎿ 1\n    2\n    3\n    4\n    … 6 more lines (ctrl+o shows the whole result)\n● read missing.txt\n  ⎿ ENOENT: no such file"
        );
        assert_eq!(lines[7].spans[0].style.fg, Some(Color::Red));
    }

    #[test]
    fn an_image_is_a_line_with_its_type_and_size() {
        let content = vec![
            pi_tool::Content::Text {
                text: "a screenshot".to_owned(),
            },
            pi_tool::Content::Image {
                // 12 bytes: 16 digits, no padding; then 2,000 bytes with one `=`.
                data: "AAAAAAAAAAAAAAAA".to_owned(),
                mime_type: "image/png".to_owned(),
            },
            pi_tool::Content::Image {
                data: format!("{}AA=", "A".repeat(2664)),
                mime_type: "image/jpeg\u{1b}]0;x\u{7}".to_owned(),
            },
        ];
        let lines: Vec<String> = image_lines(&content).iter().map(plain).collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[0], "    [image: image/png, 12 B]");
        assert!(lines[1].starts_with("    [image: image/jpeg"), "{lines:?}");
        assert!(lines[1].ends_with(", 2.0 KB]"), "{lines:?}");
        assert!(!lines[1].contains('\u{1b}'), "{lines:?}");
    }

    #[test]
    fn an_edit_shows_a_coloured_diff() {
        let lines = preview_lines(
            "edit",
            &json!({"path": "a.rs", "edits": [{"oldText": "a\nb\n", "newText": "a\nc\n"}]}),
        );
        let text = screen(lines.clone(), 40, 5);
        assert!(text.contains("    -b\n    +c"), "{text}");
        let removed = lines
            .iter()
            .find(|l| l.spans[0].content.contains("-b"))
            .unwrap();
        assert_eq!(removed.spans[0].style.fg, Some(Color::Red));
    }

    #[test]
    fn summaries_name_what_the_call_works_on_and_show_escapes() {
        assert_eq!(
            summary("grep", &json!({"pattern": "TODO", "path": "src"})),
            "\"TODO\" in src"
        );
        assert_eq!(summary("write", &json!({"path": "x.txt"})), "x.txt");
        let line = start_line("bash", &json!({"command": "echo \u{1b}]0;pwned\u{7}"}));
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, "● bash $ echo \\e]0;pwned\\x07");
    }
}
