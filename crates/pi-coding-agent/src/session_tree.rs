//! The session's tree as a person browses it (Pi's `/tree`): every user and assistant message
//! of every branch, in tree order, with its depth (one more at each branch point), and the
//! move to one of them. Choosing a user message goes to just before it (its text comes back
//! to edit and send again, a new branch); choosing an answer goes on from it.

use pi_ai::{Message, UserContent};
use pi_session::Session;
use pi_tool::Content;

/// A message of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreePoint {
    /// Its entry id.
    pub entry_id: String,
    /// How many branch points lie above it.
    pub depth: usize,
    /// `user` or `assistant`.
    pub role: &'static str,
    /// Its text (text blocks joined; an answer with only tool calls names them).
    pub text: String,
    /// Whether it is on the branch the session is on.
    pub on_branch: bool,
}

/// The user and assistant messages of `session`'s tree, depth first, oldest child first.
pub fn tree_points(session: &Session) -> Vec<TreePoint> {
    let view = session.tree();
    let branch: Vec<String> = session
        .branch_entries(None)
        .map(|entries| entries.iter().map(|entry| entry.id().to_owned()).collect())
        .unwrap_or_default();
    let mut points = Vec::new();
    let mut stack: Vec<(&pi_session::Entry, usize)> = view.roots().map(|root| (root, 0)).collect();
    stack.reverse();
    while let Some((entry, depth)) = stack.pop() {
        if let Ok(Some(message)) = entry.message() {
            let described = match &message {
                Message::User(user) => Some(("user", user_text(&user.content))),
                Message::Assistant(answer) => {
                    let text = answer.text();
                    let text = if text.trim().is_empty() {
                        let calls: Vec<String> = answer
                            .content
                            .iter()
                            .filter_map(|block| match block {
                                pi_ai::AssistantContent::ToolCall { name, .. } => {
                                    Some(name.to_string())
                                }
                                _ => None,
                            })
                            .collect();
                        format!("(calls {})", calls.join(", "))
                    } else {
                        text
                    };
                    Some(("assistant", text))
                }
                Message::ToolResult(_) => None,
            };
            if let Some((role, text)) = described {
                points.push(TreePoint {
                    entry_id: entry.id().to_owned(),
                    depth,
                    role,
                    text,
                    on_branch: branch.iter().any(|id| id == entry.id()),
                });
            }
        }
        let children: Vec<&pi_session::Entry> = view.children(entry.id()).collect();
        let child_depth = if children.len() > 1 { depth + 1 } else { depth };
        stack.extend(children.into_iter().rev().map(|child| (child, child_depth)));
    }
    points
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
}
