//! One session entry as an `<article>` with the entry's id as its anchor: messages of every
//! role Pi writes, compactions and branch summaries, model and thinking changes, and a note
//! for anything else, so the page has a place for every entry the tree links to.

use std::collections::HashMap;
use std::fmt::Write;

use pi_session::{Entry, EntryKind};
use serde_json::Value;

use crate::content::{self, str_field};
use crate::escape;
use crate::tool_call;

/// The tool results of a run of entries, by call id: a call is shown with its result.
pub(crate) type Results<'a> = HashMap<String, (&'a str, Value)>;

/// Appends `entry`. Tool results found in `results` were shown with their calls and are
/// left out here.
pub(crate) fn render(out: &mut String, entry: &Entry, results: &Results<'_>, label: Option<&str>) {
    let kind = match entry.kind() {
        Ok(kind) => kind,
        Err(error) => {
            open(out, entry, "unreadable", label);
            let _ = write!(
                out,
                "<p class=\"note\">this entry could not be read: {}</p>",
                escape::to_text(&error.to_string())
            );
            out.push_str("</article>\n");
            return;
        }
    };
    match kind {
        EntryKind::Message(message) => message_entry(out, entry, message, results, label),
        EntryKind::Compaction {
            summary,
            tokens_before,
            ..
        } => {
            open(out, entry, "compaction", label);
            out.push_str("<div class=\"role\">Compaction");
            if let Some(tokens) = tokens_before {
                let _ = write!(
                    out,
                    " <span class=\"meta\">({tokens:.0} tokens before)</span>"
                );
            }
            out.push_str("</div>");
            content::markdown_block(out, summary);
            out.push_str("</article>\n");
        }
        EntryKind::BranchSummary {
            from_id, summary, ..
        } => {
            open(out, entry, "branch-summary", label);
            out.push_str("<div class=\"role\">Branch summary <span class=\"meta\">(left from ");
            link(out, from_id);
            out.push_str(")</span></div>");
            content::markdown_block(out, summary);
            out.push_str("</article>\n");
        }
        EntryKind::ModelChange { provider, model_id } => {
            note(out, entry, label, &format!("Model: {provider}/{model_id}"));
        }
        EntryKind::ThinkingLevelChange { thinking_level } => {
            note(
                out,
                entry,
                label,
                &format!("Thinking level: {thinking_level}"),
            );
        }
        EntryKind::SessionInfo { name } => {
            note(
                out,
                entry,
                label,
                &format!("Session named: {}", name.unwrap_or("")),
            );
        }
        EntryKind::Label {
            target_id,
            label: text,
        } => {
            open(out, entry, "note", label);
            out.push_str("<p>Label ");
            escape::text(out, &format!("{:?}", text.unwrap_or("")));
            out.push_str(" on ");
            link(out, target_id);
            out.push_str("</p></article>\n");
        }
        EntryKind::CustomMessage {
            custom_type,
            content,
            display,
            ..
        } => {
            open(out, entry, "custom", label);
            out.push_str("<div class=\"role\">");
            escape::text(out, custom_type);
            if !display {
                out.push_str(" <span class=\"meta\">(hidden in Pi's view)</span>");
            }
            out.push_str("</div>");
            content::blocks(out, content);
            out.push_str("</article>\n");
        }
        EntryKind::Custom { custom_type, .. } => {
            note(out, entry, label, &format!("Extension data: {custom_type}"));
        }
        EntryKind::Unknown(entry_type) => {
            note(
                out,
                entry,
                label,
                &format!("An entry of type {entry_type:?}"),
            );
        }
        EntryKind::Malformed {
            entry_type,
            missing,
        } => note(
            out,
            entry,
            label,
            &format!("A {entry_type} entry without its {missing}"),
        ),
    }
}

fn message_entry(
    out: &mut String,
    entry: &Entry,
    message: &Value,
    results: &Results<'_>,
    label: Option<&str>,
) {
    let role = str_field(message, "role");
    if role == "toolResult" {
        let call = str_field(message, "toolCallId");
        if results.get(call).is_some_and(|(id, _)| *id == entry.id()) {
            return;
        }
        open(out, entry, "tool", label);
        out.push_str("<div class=\"role\">Tool result: ");
        escape::text(out, str_field(message, "toolName"));
        out.push_str(" <span class=\"meta\">(its call is in another branch)</span></div>");
        tool_call::result_body(out, None, message);
        out.push_str("</article>\n");
        return;
    }
    let class = match role {
        "user" => "user",
        "assistant" => "assistant",
        "bashExecution" => "bash",
        _ => "custom",
    };
    open(out, entry, class, label);
    match role {
        "user" => {
            out.push_str("<div class=\"role\">User</div>");
            content::blocks(out, message.get("content"));
        }
        "assistant" => assistant(out, message, results),
        "bashExecution" => {
            out.push_str("<div class=\"role\">Shell <code>$ ");
            escape::text(out, &escape::one_line(str_field(message, "command"), 200));
            out.push_str("</code>");
            if let Some(code) = message.get("exitCode").and_then(Value::as_i64) {
                let _ = write!(out, " <span class=\"meta\">exit {code}</span>");
            }
            if message.get("cancelled") == Some(&Value::Bool(true)) {
                out.push_str(" <span class=\"badge\">cancelled</span>");
            }
            out.push_str("</div>");
            content::preformatted(out, str_field(message, "output"));
        }
        other => {
            out.push_str("<div class=\"role\">");
            escape::text(out, if other.is_empty() { "message" } else { other });
            out.push_str("</div>");
            content::blocks(out, message.get("content"));
        }
    }
    out.push_str("</article>\n");
}

fn assistant(out: &mut String, message: &Value, results: &Results<'_>) {
    out.push_str("<div class=\"role\">Assistant <span class=\"meta\">");
    escape::text(out, str_field(message, "provider"));
    out.push('/');
    escape::text(out, str_field(message, "model"));
    if let Some(usage) = message.get("usage") {
        let number = |key: &str| usage.get(key).and_then(Value::as_f64).unwrap_or(0.0);
        let _ = write!(
            out,
            " · {:.0} in, {:.0} out",
            number("input"),
            number("output")
        );
        if let Some(cost) = usage
            .pointer("/cost/total")
            .and_then(Value::as_f64)
            .filter(|cost| *cost > 0.0)
        {
            let _ = write!(out, " · ${cost:.4}");
        }
    }
    out.push_str("</span></div>");
    let blocks = content::content_blocks(message);
    for block in blocks {
        match str_field(block, "type") {
            "text" => content::markdown_block(out, str_field(block, "text")),
            "thinking" => {
                let thinking = str_field(block, "thinking");
                if !thinking.trim().is_empty() {
                    out.push_str("<details class=\"thinking\"><summary>Thinking</summary>");
                    content::preformatted(out, thinking);
                    out.push_str("</details>\n");
                }
            }
            "toolCall" => {
                let id = str_field(block, "id");
                let result = results.get(id).map(|(entry, message)| (*entry, message));
                let arguments = block.get("arguments").unwrap_or(&Value::Null);
                tool_call::render(out, id, str_field(block, "name"), arguments, result);
            }
            _ => {}
        }
    }
    let stop = str_field(message, "stopReason");
    if matches!(stop, "error" | "aborted") {
        out.push_str("<p class=\"error\">");
        let why = message
            .get("errorMessage")
            .and_then(Value::as_str)
            .unwrap_or(stop);
        escape::text(out, why);
        out.push_str("</p>");
    }
}

/// Opens the entry's `<article>`, its anchor and its label.
fn open(out: &mut String, entry: &Entry, class: &str, label: Option<&str>) {
    let _ = write!(out, "<article class=\"entry {class}\" id=\"e-");
    escape::attribute(out, entry.id());
    out.push_str("\">");
    if let Some(label) = label {
        out.push_str("<span class=\"label\">");
        escape::text(out, label);
        out.push_str("</span>");
    }
}

fn note(out: &mut String, entry: &Entry, label: Option<&str>, text: &str) {
    open(out, entry, "note", label);
    out.push_str("<p>");
    escape::text(out, text);
    out.push_str("</p></article>\n");
}

/// A link to the entry `id`'s anchor.
pub(crate) fn link(out: &mut String, id: &str) {
    out.push_str("<a href=\"#e-");
    escape::attribute(out, id);
    out.push_str("\">");
    escape::text(out, id);
    out.push_str("</a>");
}
