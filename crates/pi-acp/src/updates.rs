//! The agent's events of one prompt turn as ACP session updates: text and thinking as
//! `agent_message_chunk` / `agent_thought_chunk`, each tool call as a `tool_call` (when the
//! model has finished writing it) then `tool_call_update`s (running, progress, the result).
//! [`TurnUpdates::finish`] answers every call still open when the turn ends, so an editor
//! never keeps a spinner for a call that was cancelled before it ran.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, Diff, SessionUpdate, Terminal, ToolCall as AcpToolCall,
    ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields,
};
use pi_agent::AgentEvent;
use pi_ai::AssistantMessageEvent;
use pi_tool::{ToolCall, ToolResultMessage};

use crate::EditorFiles;
use crate::tool_calls::{
    absolute_path, content_of, diffs_of, kind_of, locations_of, text_content, title_of,
};

/// A call announced to the editor and not answered yet.
struct OpenCall {
    /// The diffs shown when it was announced, kept beside the result's text.
    diffs: Vec<ToolCallContent>,
    /// The file a `write` or `edit` changes, when its change goes through the editor.
    changes: Option<PathBuf>,
}

/// Turns one prompt's events into session updates.
pub struct TurnUpdates {
    cwd: PathBuf,
    open: HashMap<String, OpenCall>,
    /// Announced calls in order, so the end answers them in the order they came.
    order: Vec<String>,
    /// The editor's files, when the file tools go through them.
    files: Option<Arc<EditorFiles>>,
}

impl TurnUpdates {
    /// Updates for a session working in `cwd` (tool paths are shown absolute).
    pub fn new(cwd: PathBuf) -> Self {
        Self {
            cwd,
            open: HashMap::new(),
            order: Vec::new(),
            files: None,
        }
    }

    /// The same, for a session whose file tools go through the editor's `files`: a `write`
    /// or `edit` shows its change against the editor's buffer (the text the editor gave the
    /// tool), not against the disk.
    #[must_use]
    pub fn with_editor_files(mut self, files: Option<Arc<EditorFiles>>) -> Self {
        self.files = files;
        self
    }

    /// The updates one event gives (none for most).
    pub fn on_event(&mut self, event: &AgentEvent) -> Vec<SessionUpdate> {
        match event {
            AgentEvent::MessageUpdate {
                assistant_message_event,
            } => match assistant_message_event {
                AssistantMessageEvent::TextDelta { delta, .. } if !delta.is_empty() => {
                    vec![SessionUpdate::AgentMessageChunk(chunk(delta))]
                }
                AssistantMessageEvent::ThinkingDelta { delta, .. } if !delta.is_empty() => {
                    vec![SessionUpdate::AgentThoughtChunk(chunk(delta))]
                }
                AssistantMessageEvent::ToolCallEnd { tool_call, .. } => {
                    self.announce(tool_call, ToolCallStatus::Pending)
                }
                _ => Vec::new(),
            },
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
            } => {
                if self.open.contains_key(tool_call_id.as_str()) {
                    vec![status_update(tool_call_id, ToolCallStatus::InProgress)]
                } else {
                    let call = ToolCall::new(tool_call_id.clone(), tool_name.clone(), args.clone());
                    self.announce(&call, ToolCallStatus::InProgress)
                }
            }
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                partial_result,
                ..
            } => {
                // A command in the editor's terminal shows that terminal, live.
                let mut content: Vec<ToolCallContent> =
                    terminal_of(partial_result.details.as_ref())
                        .into_iter()
                        .collect();
                content.extend(content_of(&partial_result.content));
                if content.is_empty() || !self.open.contains_key(tool_call_id.as_str()) {
                    return Vec::new();
                }
                vec![SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                    tool_call_id.to_string(),
                    ToolCallUpdateFields::new().content(content),
                ))]
            }
            // A call that never ran (refused, cancelled before it started) is answered by its
            // result message alone.
            AgentEvent::ToolExecutionEnd {
                result: message, ..
            }
            | AgentEvent::MessageEnd { message } => match message.as_tool_result() {
                Some(result) => self.answer(result),
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// The updates that answer every call still open: the turn ended without their result
    /// (cancelled, or the run stopped), so each is marked failed, saying so.
    pub fn finish(&mut self) -> Vec<SessionUpdate> {
        if let Some(files) = &self.files {
            files.forget();
        }
        let order = std::mem::take(&mut self.order);
        order
            .into_iter()
            .filter_map(|id| {
                self.open.remove(&id)?;
                Some(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                    id,
                    ToolCallUpdateFields::new()
                        .status(ToolCallStatus::Failed)
                        .content(vec![text_content(
                            "The turn ended before this call ran (cancelled).",
                        )]),
                )))
            })
            .collect()
    }

    fn announce(&mut self, call: &ToolCall, status: ToolCallStatus) -> Vec<SessionUpdate> {
        if self.open.contains_key(call.id.as_str()) {
            return Vec::new();
        }
        let changes = self
            .files
            .as_ref()
            .filter(|_| matches!(call.name.as_str(), "write" | "edit"))
            .and_then(|_| absolute_path(&call.arguments, &self.cwd));
        let mut diffs = diffs_of(&call.name, &call.arguments, &self.cwd, true);
        // A write about to replace a buffer the editor gave this turn: against that text.
        if call.name == "write"
            && let (Some(path), Some(files)) = (&changes, &self.files)
            && let Some(buffer) = files.last_served(&canonical(path))
        {
            for diff in &mut diffs {
                if let ToolCallContent::Diff(diff) = diff {
                    diff.old_text = Some(buffer.clone());
                }
            }
        }
        let update = AcpToolCall::new(call.id.to_string(), title_of(&call.name, &call.arguments))
            .kind(kind_of(&call.name))
            .status(status)
            .locations(locations_of(&call.name, &call.arguments, &self.cwd))
            .raw_input(call.arguments.clone())
            .content(diffs.clone());
        self.open
            .insert(call.id.to_string(), OpenCall { diffs, changes });
        self.order.push(call.id.to_string());
        vec![SessionUpdate::ToolCall(update)]
    }

    fn answer(&mut self, result: &ToolResultMessage) -> Vec<SessionUpdate> {
        let Some(open) = self.open.remove(result.tool_call_id.as_str()) else {
            return Vec::new();
        };
        // A command run in the editor's terminal keeps showing it beside the result (live
        // only: a replayed session's terminals are gone).
        // The change as the editor was handed it: the whole buffer before and after.
        let handed = open
            .changes
            .zip(self.files.as_ref())
            .and_then(|(path, files)| {
                let path = canonical(&path);
                let change = files.take_change(&path)?;
                Some(vec![ToolCallContent::Diff(
                    Diff::new(path, change.new_text).old_text(change.old_text),
                )])
            });
        let mut update = result_update(result, handed.unwrap_or(open.diffs));
        if let Some(terminal) = terminal_of(result.details.as_ref()) {
            update
                .fields
                .content
                .get_or_insert_with(Vec::new)
                .insert(0, terminal);
        }
        vec![SessionUpdate::ToolCallUpdate(update)]
    }
}

/// `path` as the tools name it to the editor: canonical, or for a file not there yet, its
/// canonical directory joined with its name.
fn canonical(path: &Path) -> PathBuf {
    if let Ok(canonical) = std::fs::canonicalize(path) {
        return canonical;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => std::fs::canonicalize(parent)
            .map_or_else(|_| path.to_path_buf(), |parent| parent.join(name)),
        _ => path.to_path_buf(),
    }
}

/// The editor's terminal a call's details name, as content to show.
fn terminal_of(details: Option<&serde_json::Value>) -> Option<ToolCallContent> {
    let id = details?
        .get(crate::editor_terminal::TERMINAL_ID)?
        .as_str()?;
    Some(ToolCallContent::Terminal(Terminal::new(id.to_owned())))
}

/// The final update of a call from its result: completed or failed, with the result's
/// content after `diffs` (an edit keeps showing its change).
pub fn result_update(result: &ToolResultMessage, diffs: Vec<ToolCallContent>) -> ToolCallUpdate {
    let status = if result.is_error {
        ToolCallStatus::Failed
    } else {
        ToolCallStatus::Completed
    };
    let mut content = if result.is_error { Vec::new() } else { diffs };
    content.extend(content_of(&result.content));
    let mut fields = ToolCallUpdateFields::new().status(status).content(content);
    if let Some(details) = &result.details {
        fields = fields.raw_output(details.clone());
    }
    ToolCallUpdate::new(result.tool_call_id.to_string(), fields)
}

fn status_update(id: &str, status: ToolCallStatus) -> SessionUpdate {
    SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
        id.to_owned(),
        ToolCallUpdateFields::new().status(status),
    ))
}

/// A chunk of text.
pub(crate) fn chunk(text: &str) -> ContentChunk {
    ContentChunk::new(ContentBlock::from(text.to_owned()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use serde_json::{Value, json};

    fn json_of(updates: &[SessionUpdate]) -> Vec<Value> {
        updates
            .iter()
            .map(|update| serde_json::to_value(update).unwrap())
            .collect()
    }

    fn result(id: &str, text: &str, is_error: bool) -> ToolResultMessage {
        ToolResultMessage {
            tool_call_id: id.into(),
            tool_name: "read".into(),
            content: vec![pi_tool::text(text)],
            details: None,
            is_error,
            timestamp: 0,
        }
    }

    #[test]
    fn text_thinking_and_a_call_stream_in_order() {
        let mut turn = TurnUpdates::new(PathBuf::from("/work"));
        let delta = |event| AgentEvent::MessageUpdate {
            assistant_message_event: event,
        };
        let mut updates = turn.on_event(&delta(AssistantMessageEvent::ThinkingDelta {
            content_index: 0,
            delta: "hmm".to_owned(),
        }));
        updates.extend(turn.on_event(&delta(AssistantMessageEvent::TextDelta {
            content_index: 1,
            delta: "Reading.".to_owned(),
        })));
        updates.extend(turn.on_event(&delta(AssistantMessageEvent::ToolCallEnd {
            content_index: 2,
            tool_call: ToolCall::new("c1", "read", json!({"path": "a.txt"})),
        })));
        updates.extend(turn.on_event(&AgentEvent::ToolExecutionStart {
            tool_call_id: "c1".into(),
            tool_name: "read".into(),
            args: json!({"path": "a.txt"}),
        }));
        updates.extend(turn.on_event(&AgentEvent::ToolExecutionEnd {
            tool_call_id: "c1".into(),
            tool_name: "read".into(),
            result: std::sync::Arc::new(result("c1", "contents", false).into()),
            is_error: false,
        }));
        let seen = json_of(&updates);
        assert_eq!(seen[0]["sessionUpdate"], "agent_thought_chunk");
        assert_eq!(seen[0]["content"]["text"], "hmm");
        assert_eq!(seen[1]["sessionUpdate"], "agent_message_chunk");
        assert_eq!(seen[2]["sessionUpdate"], "tool_call");
        assert_eq!(seen[2]["toolCallId"], "c1");
        assert_eq!(seen[2]["kind"], "read");
        // `pending` is ACP's default status, which the schema leaves out.
        assert!(matches!(seen[2]["status"].as_str(), None | Some("pending")));
        assert_eq!(seen[2]["title"], "Read a.txt");
        assert_eq!(seen[2]["locations"][0]["path"], "/work/a.txt");
        assert_eq!(seen[2]["rawInput"], json!({"path": "a.txt"}));
        assert_eq!(seen[3]["sessionUpdate"], "tool_call_update");
        assert_eq!(seen[3]["status"], "in_progress");
        assert_eq!(seen[4]["status"], "completed");
        assert_eq!(seen[4]["content"][0]["content"]["text"], "contents");
        assert!(turn.finish().is_empty());
    }

    /// A command in the editor's terminal: its progress shows the terminal, and its result
    /// keeps it first, a failed command's too.
    #[test]
    fn a_command_in_the_editors_terminal_shows_the_terminal() {
        let mut turn = TurnUpdates::new(PathBuf::from("/work"));
        turn.on_event(&AgentEvent::ToolExecutionStart {
            tool_call_id: "c1".into(),
            tool_name: "bash".into(),
            args: json!({"command": "make"}),
        });
        let progress = turn.on_event(&AgentEvent::ToolExecutionUpdate {
            tool_call_id: "c1".into(),
            tool_name: "bash".into(),
            partial_result: pi_tool::ToolUpdate::new(Vec::new())
                .with_details(json!({"terminalId": "t-1"})),
        });
        let seen = json_of(&progress);
        assert_eq!(
            seen[0]["content"],
            json!([{"type": "terminal", "terminalId": "t-1"}])
        );
        let mut failed = result("c1", "make: *** Error 2", true);
        failed.details = Some(json!({"terminalId": "t-1"}));
        let answered = turn.on_event(&AgentEvent::ToolExecutionEnd {
            tool_call_id: "c1".into(),
            tool_name: "bash".into(),
            result: std::sync::Arc::new(failed.into()),
            is_error: true,
        });
        let seen = json_of(&answered);
        assert_eq!(seen[0]["status"], "failed");
        assert_eq!(
            seen[0]["content"][0],
            json!({"type": "terminal", "terminalId": "t-1"})
        );
        assert_eq!(
            seen[0]["content"][1]["content"]["text"],
            "make: *** Error 2"
        );
    }

    #[test]
    fn calls_without_a_result_are_answered_failed_at_the_end() {
        let mut turn = TurnUpdates::new(PathBuf::from("/work"));
        turn.on_event(&AgentEvent::MessageUpdate {
            assistant_message_event: AssistantMessageEvent::ToolCallEnd {
                content_index: 0,
                tool_call: ToolCall::new("c1", "bash", json!({"command": "sleep 9"})),
            },
        });
        let refused = turn.on_event(&AgentEvent::MessageEnd {
            message: std::sync::Arc::new(result("c2", "never announced", true).into()),
        });
        assert!(refused.is_empty());
        let end = json_of(&turn.finish());
        assert_eq!(end.len(), 1);
        assert_eq!(end[0]["toolCallId"], "c1");
        assert_eq!(end[0]["status"], "failed");
        assert!(turn.finish().is_empty());
    }
}
