//! A tool call as a reader wants it: what it did in one line (the command for `bash`, the
//! path for the file tools), the change an `edit` made as a coloured line diff, a `write`'s
//! new content, any other tool's arguments as JSON; then its result.

use std::fmt::Write;

use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use crate::content::{self, str_field};
use crate::escape;

/// Appends the call `name(arguments)` with id `id`, and `result` (a `toolResult` message and
/// its entry id) when the branch holds it.
pub(crate) fn render(
    out: &mut String,
    id: &str,
    name: &str,
    arguments: &Value,
    result: Option<(&str, &Value)>,
) {
    let failed =
        result.is_some_and(|(_, message)| message.get("isError") == Some(&Value::Bool(true)));
    out.push_str("<div class=\"tool-call");
    if failed {
        out.push_str(" failed");
    }
    out.push_str("\" data-call-id=\"");
    escape::attribute(out, id);
    out.push_str("\"><div class=\"tool-head\"><span class=\"tool-name\">");
    escape::text(out, name);
    out.push_str("</span> <code class=\"tool-summary\">");
    escape::text(out, &escape::one_line(&summary(name, arguments), 200));
    out.push_str("</code></div>\n");
    arguments_body(out, name, arguments);
    match result {
        Some((entry_id, message)) => result_body(out, Some(entry_id), message),
        None => out.push_str("<p class=\"note\">no result in this branch</p>\n"),
    }
    out.push_str("</div>\n");
}

/// Appends a `toolResult` message's body; with `entry_id`, it carries the entry's anchor.
pub(crate) fn result_body(out: &mut String, entry_id: Option<&str>, message: &Value) {
    let failed = message.get("isError") == Some(&Value::Bool(true));
    out.push_str("<div class=\"tool-result");
    if failed {
        out.push_str(" error");
    }
    out.push('"');
    if let Some(entry_id) = entry_id {
        out.push_str(" id=\"e-");
        escape::attribute(out, entry_id);
        out.push('"');
    }
    out.push('>');
    if failed {
        out.push_str("<span class=\"badge\">error</span>");
    }
    content::plain_blocks(out, message.get("content"));
    out.push_str("</div>\n");
}

/// The one line that says what a call does.
fn summary(name: &str, arguments: &Value) -> String {
    let field = |key: &str| str_field(arguments, key).to_owned();
    match name {
        "bash" => format!("$ {}", field("command")),
        "read" | "write" | "edit" | "ls" => {
            let mut line = field("path");
            if let Some(offset) = arguments.get("offset").and_then(Value::as_u64) {
                let _ = write!(line, ":{offset}");
            }
            line
        }
        "grep" | "find" => {
            let mut line = field("pattern");
            let path = field("path");
            if !path.is_empty() {
                let _ = write!(line, " in {path}");
            }
            line
        }
        _ => serde_json::to_string(arguments).unwrap_or_default(),
    }
}

/// Appends what a reader needs beyond the summary line.
fn arguments_body(out: &mut String, name: &str, arguments: &Value) {
    match name {
        "bash" | "read" | "ls" | "grep" | "find" => {}
        "edit" => {
            for (old, new) in edits(arguments) {
                diff(out, old, new);
            }
        }
        "write" => content::preformatted(out, str_field(arguments, "content")),
        _ => {
            let pretty = serde_json::to_string_pretty(arguments).unwrap_or_default();
            out.push_str("<details class=\"arguments\"><summary>arguments</summary>");
            content::preformatted(out, &pretty);
            out.push_str("</details>\n");
        }
    }
}

/// An edit call's `(oldText, newText)` pairs: its `edits`, or the older single-edit shape.
fn edits(arguments: &Value) -> Vec<(&str, &str)> {
    match arguments.get("edits").and_then(Value::as_array) {
        Some(edits) => edits
            .iter()
            .map(|edit| (str_field(edit, "oldText"), str_field(edit, "newText")))
            .collect(),
        None => vec![(
            str_field(arguments, "oldText"),
            str_field(arguments, "newText"),
        )],
    }
}

/// Appends the line diff from `old` to `new`: removed lines red, added green.
fn diff(out: &mut String, old: &str, new: &str) {
    out.push_str("<pre class=\"diff\">");
    for change in TextDiff::from_lines(old, new).iter_all_changes() {
        let (class, sign) = match change.tag() {
            ChangeTag::Delete => ("del", '-'),
            ChangeTag::Insert => ("ins", '+'),
            ChangeTag::Equal => ("ctx", ' '),
        };
        let _ = write!(out, "<span class=\"{class}\">{sign}");
        escape::text(out, change.value().trim_end_matches('\n'));
        // Each line is a block of its own (its background spans the width): no newline
        // between them, or the page shows an empty line after each.
        out.push_str("</span>");
    }
    out.push_str("</pre>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_edit_shows_its_diff_and_its_result() {
        let mut out = String::new();
        let result =
            json!({"role": "toolResult", "content": [{"type": "text", "text": "Edited a.rs"}]});
        render(
            &mut out,
            "call_1",
            "edit",
            &json!({"path": "a.rs", "edits": [{"oldText": "let a = 1;\nkeep\n", "newText": "let a = 2;\nkeep\n"}]}),
            Some(("e1", &result)),
        );
        assert!(
            out.contains("<code class=\"tool-summary\">a.rs</code>"),
            "{out}"
        );
        assert!(
            out.contains("<span class=\"del\">-let a = 1;</span>"),
            "{out}"
        );
        assert!(
            out.contains("<span class=\"ins\">+let a = 2;</span>"),
            "{out}"
        );
        assert!(out.contains("<span class=\"ctx\"> keep</span>"), "{out}");
        assert!(
            out.contains("id=\"e-e1\"") && out.contains("Edited a.rs"),
            "{out}"
        );
    }

    #[test]
    fn a_failed_call_and_a_missing_result_say_so() {
        let mut out = String::new();
        let result =
            json!({"isError": true, "content": [{"type": "text", "text": "no such file"}]});
        render(
            &mut out,
            "c",
            "bash",
            &json!({"command": "cat <x>"}),
            Some(("e", &result)),
        );
        assert!(
            out.contains("tool-call failed") && out.contains("$ cat &lt;x&gt;"),
            "{out}"
        );
        let mut out = String::new();
        render(&mut out, "c", "mcp__x", &json!({"q": 1}), None);
        assert!(out.contains("no result in this branch"), "{out}");
        assert!(out.contains("\"q\": 1"), "{out}");
    }
}
