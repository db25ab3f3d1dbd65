//! The session tree as a flat list: one line per entry, a branch's entries indented one step
//! deeper than the entry it left from, the current path marked. Flat (each line carries its
//! depth) so that 20,000 nested branches make 20,000 lines, not 20,000 nested elements, and
//! the indentation stops growing past [`MAX_INDENT`] (the depth is written as a number).

use std::collections::HashSet;
use std::fmt::Write;

use pi_session::{Entry, EntryKind, Session};

use crate::content::{joined_text, str_field};
use crate::escape;

/// The deepest indentation drawn; deeper branches show their depth as a number.
pub(crate) const MAX_INDENT: usize = 16;

/// Appends the tree of `session` as a `<nav>`; `on_path` holds the current path's ids.
pub(crate) fn render(out: &mut String, session: &Session, on_path: &HashSet<&str>) {
    let view = session.tree();
    let leaf = session.leaf_id();
    out.push_str("<nav class=\"tree\" aria-label=\"Session tree\"><h2>Tree</h2><ol>\n");
    // Depth-first, iteratively: children pushed newest first so the oldest comes out first;
    // the flag marks the first entry of a branch (a child of an entry with several).
    let mut stack: Vec<(&Entry, usize, bool)> = view.roots().map(|root| (root, 0, false)).collect();
    stack.reverse();
    while let Some((entry, depth, starts)) = stack.pop() {
        let place = Place {
            depth,
            starts,
            on_path: on_path.contains(entry.id()),
            leaf: leaf == Some(entry.id()),
        };
        line(out, entry, &place, view.label(entry.id()));
        let children: Vec<&Entry> = view.children(entry.id()).collect();
        let fork = children.len() > 1;
        let child_depth = if fork { depth + 1 } else { depth };
        stack.extend(
            children
                .into_iter()
                .rev()
                .map(|child| (child, child_depth, fork)),
        );
    }
    out.push_str("</ol></nav>\n");
}

/// Where an entry's line sits in the tree.
struct Place {
    depth: usize,
    /// The first entry of a branch.
    starts: bool,
    on_path: bool,
    leaf: bool,
}

fn line(out: &mut String, entry: &Entry, place: &Place, label: Option<&str>) {
    let _ = write!(out, "<li style=\"--depth:{}\"", place.depth.min(MAX_INDENT));
    if place.on_path {
        out.push_str(" class=\"on-path\"");
    }
    out.push('>');
    if place.depth > MAX_INDENT {
        let _ = write!(out, "<span class=\"depth\">{}</span>", place.depth);
    }
    if place.starts {
        out.push_str("<span class=\"branch-start\">↳</span>");
    }
    out.push_str("<a href=\"#e-");
    escape::attribute(out, entry.id());
    out.push_str("\">");
    escape::text(out, &escape::one_line(&describe(entry), 80));
    out.push_str("</a>");
    if let Some(label) = label {
        out.push_str(" <span class=\"label\">");
        escape::text(out, label);
        out.push_str("</span>");
    }
    if place.leaf {
        out.push_str(" <span class=\"badge\">current</span>");
    }
    out.push_str("</li>\n");
}

/// What an entry is, in a few words.
fn describe(entry: &Entry) -> String {
    let Ok(kind) = entry.kind() else {
        return format!("{} (unreadable)", entry.entry_type());
    };
    match kind {
        EntryKind::Message(message) => {
            let role = str_field(message, "role");
            match role {
                "user" => format!("user: {}", joined_text(message.get("content"))),
                "assistant" => {
                    let blocks = crate::content::content_blocks(message);
                    let text = joined_text(message.get("content"));
                    let calls: Vec<&str> = blocks
                        .iter()
                        .filter(|block| str_field(block, "type") == "toolCall")
                        .map(|block| str_field(block, "name"))
                        .collect();
                    if !text.trim().is_empty() {
                        format!("assistant: {text}")
                    } else if !calls.is_empty() {
                        format!("assistant → {}", calls.join(", "))
                    } else {
                        format!("assistant ({})", str_field(message, "stopReason"))
                    }
                }
                "toolResult" => format!("result: {}", str_field(message, "toolName")),
                "bashExecution" => format!("$ {}", str_field(message, "command")),
                other => other.to_owned(),
            }
        }
        EntryKind::Compaction { .. } => "compaction".to_owned(),
        EntryKind::BranchSummary { .. } => "branch summary".to_owned(),
        EntryKind::ModelChange { provider, model_id } => format!("model: {provider}/{model_id}"),
        EntryKind::ThinkingLevelChange { thinking_level } => format!("thinking: {thinking_level}"),
        EntryKind::SessionInfo { name } => format!("name: {}", name.unwrap_or("")),
        EntryKind::Label { .. } => "label".to_owned(),
        EntryKind::Custom { custom_type, .. } | EntryKind::CustomMessage { custom_type, .. } => {
            custom_type.to_owned()
        }
        EntryKind::Unknown(entry_type) | EntryKind::Malformed { entry_type, .. } => {
            entry_type.to_owned()
        }
    }
}
