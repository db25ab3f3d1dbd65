//! The session's tree as a person browses it (Pi's `/tree`): every entry of every branch, in
//! tree order, with its depth (one more at each branch point), its label, and the move to one
//! of them; [`TreeFilter`] chooses which are shown, as Pi's filter modes do. Choosing a user
//! message goes to just before it (its text comes back to edit and send again, a new branch);
//! choosing anything else goes on from it.

use pi_ai::{Message, StopReason, UserContent};
use pi_session::Session;
use pi_tool::Content;

/// An entry of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreePoint {
    /// Its entry id.
    pub entry_id: String,
    /// How many branch points lie above it.
    pub depth: usize,
    /// `user`, `assistant` or `tool` for a message (`bash` for a `!command`'s, `message`
    /// for another role); otherwise the entry's type as Pi writes it (`compaction`,
    /// `branch_summary`, `model_change`, `label`, ...).
    pub role: &'static str,
    /// Its text (text blocks joined; an answer with only tool calls names them; a setting's
    /// new value).
    pub text: String,
    /// Whether it is on the branch the session is on.
    pub on_branch: bool,
    /// Whether it is where the session is now (the leaf).
    pub is_leaf: bool,
    /// The label set on it (Pi's `label` entries, the last one winning).
    pub label: Option<String>,
    /// An answer that only calls tools (no text, ended normally): Pi's tree hides it unless
    /// it is the leaf.
    pub calls_only: bool,
}

impl TreePoint {
    /// A bookkeeping entry Pi's default view hides (a label, a model or thinking level
    /// change, a session name, an extension's `custom` data).
    pub fn is_setting(&self) -> bool {
        matches!(
            self.role,
            "label" | "custom" | "model_change" | "thinking_level_change" | "session_info"
        )
    }
}

/// Which entries `/tree` shows: Pi's filter modes, in the order Ctrl+O cycles them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TreeFilter {
    /// Everything but bookkeeping entries.
    #[default]
    Default,
    /// The default view without tool results.
    NoTools,
    /// User messages only.
    UserOnly,
    /// Labelled entries only.
    LabeledOnly,
    /// Every entry.
    All,
}

impl TreeFilter {
    const CYCLE: [TreeFilter; 5] = [
        TreeFilter::Default,
        TreeFilter::NoTools,
        TreeFilter::UserOnly,
        TreeFilter::LabeledOnly,
        TreeFilter::All,
    ];

    /// The mode Pi's `treeFilterMode` setting names (`default`, `no-tools`, `user-only`,
    /// `labeled-only`, `all`).
    pub fn from_setting(name: &str) -> Option<Self> {
        Self::CYCLE.into_iter().find(|mode| mode.name() == name)
    }

    /// Pi's name of the mode.
    pub fn name(self) -> &'static str {
        match self {
            TreeFilter::Default => "default",
            TreeFilter::NoTools => "no-tools",
            TreeFilter::UserOnly => "user-only",
            TreeFilter::LabeledOnly => "labeled-only",
            TreeFilter::All => "all",
        }
    }

    /// The next mode (Ctrl+O), or the one before (Shift+Ctrl+O).
    pub fn cycled(self, forward: bool) -> Self {
        let count = Self::CYCLE.len();
        let at = Self::CYCLE
            .iter()
            .position(|mode| *mode == self)
            .unwrap_or(0);
        let next = if forward {
            (at + 1) % count
        } else {
            (at + count - 1) % count
        };
        Self::CYCLE.get(next).copied().unwrap_or_default()
    }

    /// `mode` when this is not it, else back to the default (Pi's toggle keys).
    pub fn toggled(self, mode: TreeFilter) -> Self {
        if self == mode {
            TreeFilter::Default
        } else {
            mode
        }
    }

    /// Whether `point` is shown. As Pi's, in every mode: an answer that only calls tools is
    /// hidden unless it is the leaf (its calls' results are what to go to).
    pub fn shows(self, point: &TreePoint) -> bool {
        if point.calls_only && !point.is_leaf {
            return false;
        }
        match self {
            TreeFilter::Default => !point.is_setting(),
            TreeFilter::NoTools => !point.is_setting() && point.role != "tool",
            TreeFilter::UserOnly => point.role == "user",
            TreeFilter::LabeledOnly => point.label.is_some(),
            TreeFilter::All => true,
        }
    }
}

/// Every entry of `session`'s tree, depth first, oldest child first.
pub fn tree_points(session: &Session) -> Vec<TreePoint> {
    let view = session.tree();
    let branch: Vec<String> = session
        .branch_entries(None)
        .map(|entries| entries.iter().map(|entry| entry.id().to_owned()).collect())
        .unwrap_or_default();
    let leaf = session.leaf_id();
    let mut points = Vec::new();
    let mut stack: Vec<(&pi_session::Entry, usize)> = view.roots().map(|root| (root, 0)).collect();
    stack.reverse();
    while let Some((entry, depth)) = stack.pop() {
        let (role, text, calls_only) = describe(entry);
        points.push(TreePoint {
            entry_id: entry.id().to_owned(),
            depth,
            role,
            text,
            on_branch: branch.iter().any(|id| id == entry.id()),
            is_leaf: leaf == Some(entry.id()),
            label: session.label_of(entry.id()).map(str::to_owned),
            calls_only,
        });
        let children: Vec<&pi_session::Entry> = view.children(entry.id()).collect();
        let child_depth = if children.len() > 1 { depth + 1 } else { depth };
        stack.extend(children.into_iter().rev().map(|child| (child, child_depth)));
    }
    points
}

/// An entry's role, text, and whether it is an answer that only calls tools.
fn describe(entry: &pi_session::Entry) -> (&'static str, String, bool) {
    let field = |key: &str| {
        entry
            .field(key)
            .ok()
            .flatten()
            .map(|value| match value {
                serde_json::Value::String(text) => text.clone(),
                other => other.to_string(),
            })
            .unwrap_or_default()
    };
    match entry.entry_type() {
        "message" => match entry.message() {
            Ok(Some(Message::User(user))) => ("user", user_text(&user.content), false),
            Ok(Some(Message::Assistant(answer))) => {
                let text = answer.text();
                if !text.trim().is_empty() {
                    return ("assistant", text, false);
                }
                let calls: Vec<String> = answer
                    .content
                    .iter()
                    .filter_map(|block| match block {
                        pi_ai::AssistantContent::ToolCall { name, .. } => Some(name.to_string()),
                        _ => None,
                    })
                    .collect();
                let ended_well =
                    matches!(answer.stop_reason, StopReason::Stop | StopReason::ToolUse);
                let text = match &answer.error_message {
                    Some(error) if !ended_well => format!("({error})"),
                    _ => format!("(calls {})", calls.join(", ")),
                };
                ("assistant", text, ended_well)
            }
            Ok(Some(Message::ToolResult(result))) => {
                let text: String = result
                    .content
                    .iter()
                    .filter_map(Content::as_text)
                    .collect::<Vec<_>>()
                    .join("");
                ("tool", format!("{}: {text}", result.tool_name), false)
            }
            _ => {
                let message = entry.field("message").ok().flatten();
                let role = message
                    .and_then(|message| message.get("role"))
                    .and_then(serde_json::Value::as_str);
                let command = message
                    .and_then(|message| message.get("command"))
                    .and_then(serde_json::Value::as_str);
                match (role, command) {
                    (Some("bashExecution"), Some(command)) => {
                        ("bash", format!("!{command}"), false)
                    }
                    _ => ("message", String::new(), false),
                }
            }
        },
        "compaction" => (
            "compaction",
            format!("{} tokens before", field("tokensBefore")),
            false,
        ),
        "branch_summary" => ("branch_summary", field("summary"), false),
        "custom_message" => ("custom_message", field("content"), false),
        "custom" => ("custom", field("customType"), false),
        "model_change" => (
            "model_change",
            format!("{}/{}", field("provider"), field("modelId")),
            false,
        ),
        "thinking_level_change" => ("thinking_level_change", field("thinkingLevel"), false),
        "label" => ("label", field("label"), false),
        "session_info" => ("session_info", field("name"), false),
        _ => ("entry", String::new(), false),
    }
}

/// Moves `session`'s leaf to the message `entry_id`: before it for a user message (whose text
/// is given back), onto it for an answer.
pub(crate) fn navigate(
    session: &mut Session,
    entry_id: &str,
) -> Result<Option<String>, pi_session::SessionError> {
    let (parent, user) = {
        let entry =
            session
                .entry(entry_id)
                .ok_or_else(|| pi_session::SessionError::UnknownEntry {
                    id: entry_id.to_owned(),
                })?;
        let user = match entry.message()? {
            Some(Message::User(user)) => Some(user_text(&user.content)),
            _ => None,
        };
        (entry.parent_id().map(str::to_owned), user)
    };
    match (&user, parent) {
        (None, _) => session.branch(entry_id)?,
        (Some(_), Some(parent)) => session.branch(&parent)?,
        (Some(_), None) => session.reset_leaf(),
    }
    Ok(user)
}

pub(crate) fn user_text(content: &UserContent) -> String {
    match content {
        UserContent::Text(text) => text.clone(),
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(Content::as_text)
            .collect::<Vec<_>>()
            .join(""),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    fn message(role: &str, text: &str) -> Message {
        let value = if role == "user" {
            json!({"role": "user", "content": text, "timestamp": 1})
        } else {
            json!({"role": "assistant", "content": [{"type": "text", "text": text}], "api": "x",
                "provider": "p", "model": "m", "usage": {"input": 0, "output": 0, "cacheRead": 0,
                "cacheWrite": 0, "totalTokens": 0, "cost": {"input": 0.0, "output": 0.0,
                "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0}}, "stopReason": "stop",
                "timestamp": 2})
        };
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn going_back_to_a_question_branches_the_tree() {
        let dir = tempfile::tempdir().unwrap();
        let mut session = Session::in_memory(dir.path());
        session.append_message(&message("user", "first")).unwrap();
        session
            .append_message(&message("assistant", "one"))
            .unwrap();
        let second = session.append_message(&message("user", "second")).unwrap();
        session
            .append_message(&message("assistant", "two"))
            .unwrap();
        let text = navigate(&mut session, &second).unwrap();
        assert_eq!(text.as_deref(), Some("second"));
        session
            .append_message(&message("user", "other second"))
            .unwrap();
        let points = tree_points(&session);
        let shown: Vec<(usize, &str, bool)> = points
            .iter()
            .map(|point| (point.depth, point.text.as_str(), point.on_branch))
            .collect();
        assert_eq!(
            shown,
            [
                (0, "first", true),
                (0, "one", true),
                (1, "second", false),
                (1, "two", false),
                (1, "other second", true)
            ]
        );
        // An answer: the session goes on from it.
        let two = points[3].entry_id.clone();
        assert_eq!(navigate(&mut session, &two).unwrap(), None);
        assert_eq!(session.leaf_id(), Some(two.as_str()));
    }

    #[test]
    fn labels_show_on_their_entry_and_filters_choose_as_pis() {
        let dir = tempfile::tempdir().unwrap();
        let mut session = Session::in_memory(dir.path());
        let first = session.append_message(&message("user", "first")).unwrap();
        session
            .append_message(&message("assistant", "one"))
            .unwrap();
        session.append_model_change("p", "m2").unwrap();
        session.label(&first, Some("start")).unwrap();
        let points = tree_points(&session);
        let roles: Vec<&str> = points.iter().map(|point| point.role).collect();
        assert_eq!(roles, ["user", "assistant", "model_change", "label"]);
        assert_eq!(points[0].label.as_deref(), Some("start"));
        assert!(points[3].is_leaf);
        let shown = |filter: TreeFilter| -> Vec<&str> {
            points
                .iter()
                .filter(|point| filter.shows(point))
                .map(|point| point.role)
                .collect()
        };
        assert_eq!(shown(TreeFilter::Default), ["user", "assistant"]);
        assert_eq!(shown(TreeFilter::UserOnly), ["user"]);
        assert_eq!(shown(TreeFilter::LabeledOnly), ["user"]);
        assert_eq!(shown(TreeFilter::All).len(), 4);
        // Cleared: a label entry without a label.
        session.label(&first, None).unwrap();
        assert_eq!(tree_points(&session)[0].label, None);
        assert!(shown(TreeFilter::NoTools).contains(&"assistant"));
    }

    #[test]
    fn filter_modes_cycle_and_toggle_with_pis_names() {
        assert_eq!(TreeFilter::Default.cycled(true), TreeFilter::NoTools);
        assert_eq!(TreeFilter::Default.cycled(false), TreeFilter::All);
        assert_eq!(TreeFilter::All.cycled(true), TreeFilter::Default);
        assert_eq!(
            TreeFilter::UserOnly.toggled(TreeFilter::UserOnly),
            TreeFilter::Default
        );
        assert_eq!(
            TreeFilter::from_setting("labeled-only"),
            Some(TreeFilter::LabeledOnly)
        );
        assert_eq!(TreeFilter::from_setting("bogus"), None);
    }
}
