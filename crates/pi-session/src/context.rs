//! What the model is sent for a leaf: Pi's `buildSessionContext` followed by its
//! `convertToLlm`, producing the project's own wire messages ([`pi_ai::Message`]).
//!
//! The path from the root to the leaf is walked once. The latest compaction on it comes first
//! (its summary wrapped as Pi wraps it), then the path's entries from its `firstKeptEntryId` up
//! to it, then everything after it. `branch_summary` (non-empty), `custom_message` and the
//! coding agent's `bashExecution` / `custom` message roles become user messages; `custom`,
//! `label`, `session_info` and the change entries are not sent. The last `model_change` or
//! assistant message sets the model, the last `thinking_level_change` the thinking level.

use pi_ai::{Message, UserContent, UserMessage};
use pi_tool::Content;
use serde::Deserialize;
use serde_json::Value;

use crate::entry::{Entry, EntryKind};
use crate::error::{Result, SessionError};
use crate::halves;
use crate::ids::iso_to_millis;
use crate::line;
use crate::line_reader;
use crate::scan::Role;
use crate::tree::Tree;

/// Pi's wrapper around a compaction summary (`COMPACTION_SUMMARY_PREFIX` / `_SUFFIX`).
pub const COMPACTION_SUMMARY_PREFIX: &str = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
/// The end of a wrapped compaction summary.
pub const COMPACTION_SUMMARY_SUFFIX: &str = "\n</summary>";
/// Pi's wrapper around a branch summary (no newline before the closing tag, as in Pi).
pub const BRANCH_SUMMARY_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
/// The end of a wrapped branch summary.
pub const BRANCH_SUMMARY_SUFFIX: &str = "</summary>";

/// The model a session last used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    /// The provider, e.g. `anthropic`.
    pub provider: String,
    /// The model id.
    pub model_id: String,
}

/// What the model is sent for one leaf, and the settings to resume with.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionContext {
    /// The messages, in order.
    pub messages: Vec<Message>,
    /// For each message, the id of the entry it came from (a compaction's summary: the
    /// compaction's id).
    pub entry_ids: Vec<String>,
    /// The last `model_change` or assistant message's model on the path.
    pub model: Option<ModelRef>,
    /// The last `thinking_level_change` on the path; `off` without one.
    pub thinking_level: String,
}

impl SessionContext {
    fn empty() -> Self {
        Self {
            messages: Vec::new(),
            entry_ids: Vec::new(),
            model: None,
            thinking_level: "off".to_owned(),
        }
    }
}

/// The model and thinking level a leaf's context resumes with, without its messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextSettings {
    /// The last `model_change` or assistant message's model on the path.
    pub model: Option<ModelRef>,
    /// The last `thinking_level_change` on the path; `off` without one.
    pub thinking_level: String,
}

/// The settings of `leaf`'s context: reads only the entries that set them (the last model
/// and thinking changes), not every message, so a long session answers at once.
pub(crate) fn settings_of(tree: &Tree, leaf: Option<usize>) -> Result<ContextSettings> {
    let mut context = SessionContext::empty();
    settings(tree, &tree.path(leaf), &mut context)?;
    Ok(ContextSettings {
        model: context.model,
        thinking_level: context.thinking_level,
    })
}

/// Builds the context of `leaf` (`None`: before the first entry, an empty context).
pub(crate) fn build(tree: &Tree, leaf: Option<usize>) -> Result<SessionContext> {
    let mut context = SessionContext::empty();
    let path = tree.path(leaf);
    settings(tree, &path, &mut context)?;
    let (sent, _) = sent_entries(tree, &path, latest_compaction(tree, &path))?;
    let sent: Vec<&Entry> = sent
        .iter()
        .filter_map(|&position| tree.get(position))
        .collect();
    // Each message is read from its own line: big contexts are read on two threads.
    let messages = halves::in_halves(
        &sent,
        |entry| entry.line_len(),
        |part| {
            let mut messages = Vec::with_capacity(part.len());
            line::for_each_text(
                part,
                |entry| entry.stored_line(),
                |entry, line| {
                    if let Some(message) = emit_from(entry, line)? {
                        messages.push((message, entry.id().to_owned()));
                    }
                    Ok(())
                },
            )?;
            Ok(messages)
        },
        |first: Result<Vec<_>>, second| {
            let mut first = first?;
            first.extend(second?);
            Ok(first)
        },
    )?;
    (context.messages, context.entry_ids) = messages.into_iter().unzip();
    Ok(context)
}

/// The positions of the entries that make the context, in order: the whole path; or with a
/// compaction on it, the compaction, the path's entries from its `firstKeptEntryId` up to it,
/// then everything after it. And where in that list the entries after the compaction start
/// (0 without one).
fn sent_entries(
    tree: &Tree,
    path: &[usize],
    latest_compaction: Option<usize>,
) -> Result<(Vec<usize>, usize)> {
    let Some(compaction_step) = latest_compaction else {
        return Ok((path.to_vec(), 0));
    };
    let compaction_position = path.get(compaction_step).copied();
    let Some(compaction) = compaction_position.and_then(|position| tree.get(position)) else {
        return Ok((Vec::new(), 0));
    };
    // Pi finds the compaction on the path by id, so with duplicate ids the first entry
    // carrying that id is where "after the compaction" starts.
    let split = path
        .iter()
        .position(|&position| tree.get(position).map(|e| e.id()) == Some(compaction.id()))
        .unwrap_or(compaction_step);
    let mut sent = Vec::with_capacity(path.len());
    sent.extend(compaction_position);
    let first_kept = match compaction.kind()? {
        EntryKind::Compaction {
            first_kept_entry_id,
            ..
        } => first_kept_entry_id,
        _ => None,
    };
    let before = path.get(..split).unwrap_or_default();
    let kept_from = before
        .iter()
        .position(|&position| tree.get(position).map(|e| Some(e.id())) == Some(first_kept));
    if let Some(from) = kept_from {
        sent.extend_from_slice(before.get(from..).unwrap_or_default());
    }
    let after = sent.len();
    sent.extend_from_slice(path.get(split + 1..).unwrap_or_default());
    Ok((sent, after))
}

/// The messages of a leaf's context from the last one back, each read from its entry only
/// when asked for (see [`crate::Session::context_from_end`]).
#[derive(Debug)]
pub struct ContextFromEnd<'a> {
    tree: &'a Tree,
    /// The positions of the entries that make the context, in order.
    sent: Vec<usize>,
    /// Where in `sent` the entries after the latest compaction start.
    after_compaction: usize,
    /// How many of `sent` are still to be read (from the end).
    left: usize,
}

/// One message of a context, as [`ContextFromEnd`] reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextMessage<'a> {
    /// The message.
    pub message: Message,
    /// The id of the entry it came from (a compaction's summary: the compaction's id).
    pub entry_id: &'a str,
    /// Whether that entry comes after the latest compaction on the path (or the path has
    /// none): a response from before it was sent a context that no longer exists.
    pub after_compaction: bool,
}

impl<'a> ContextFromEnd<'a> {
    /// The context of `leaf`, from its end.
    pub(crate) fn new(tree: &'a Tree, leaf: Option<usize>) -> Result<Self> {
        let path = tree.path(leaf);
        let latest_compaction = latest_compaction(tree, &path);
        let (sent, after_compaction) = sent_entries(tree, &path, latest_compaction)?;
        Ok(Self {
            tree,
            left: sent.len(),
            sent,
            after_compaction,
        })
    }
}

impl<'a> Iterator for ContextFromEnd<'a> {
    type Item = Result<ContextMessage<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        while self.left > 0 {
            self.left -= 1;
            let Some(entry) = self
                .sent
                .get(self.left)
                .and_then(|&position| self.tree.get(position))
            else {
                continue;
            };
            match emit(entry) {
                Ok(Some(message)) => {
                    return Some(Ok(ContextMessage {
                        message,
                        entry_id: entry.id(),
                        after_compaction: self.left >= self.after_compaction,
                    }));
                }
                Ok(None) => {}
                Err(error) => {
                    // A context with an unreadable message has no end to read on to.
                    self.left = 0;
                    return Some(Err(error));
                }
            }
        }
        None
    }
}

/// The step of the path's latest well-formed compaction.
fn latest_compaction(tree: &Tree, path: &[usize]) -> Option<usize> {
    path.iter().rposition(|&position| {
        tree.get(position)
            .is_some_and(|entry| entry.malformed().is_none() && entry.entry_type() == "compaction")
    })
}

/// Sets the context's model (the last `model_change` or assistant message on the path) and
/// thinking level (the last `thinking_level_change`). The path is walked back from the leaf
/// and stops once both are found, so only the entries that decide them are parsed: the types
/// are known from loading.
fn settings(tree: &Tree, path: &[usize], context: &mut SessionContext) -> Result<()> {
    let (mut model, mut thinking) = (None, None);
    for &position in path.iter().rev() {
        if model.is_some() && thinking.is_some() {
            break;
        }
        let Some(entry) = tree.get(position) else {
            continue;
        };
        if entry.malformed().is_some() {
            continue;
        }
        match entry.entry_type() {
            "thinking_level_change" if thinking.is_none() => {
                if let EntryKind::ThinkingLevelChange { thinking_level } = entry.kind()? {
                    thinking = Some(thinking_level);
                }
            }
            "model_change" if model.is_none() => {
                if let EntryKind::ModelChange { provider, model_id } = entry.kind()? {
                    model = Some(ModelRef {
                        provider: provider.to_owned(),
                        model_id: model_id.to_owned(),
                    });
                }
            }
            "message" if model.is_none() && entry.role() == Some(Role::Assistant) => {
                if let EntryKind::Message(message) = entry.kind()? {
                    let text = |key| message.get(key).and_then(Value::as_str).unwrap_or_default();
                    model = Some(ModelRef {
                        provider: text("provider").to_owned(),
                        model_id: text("model").to_owned(),
                    });
                }
            }
            _ => {}
        }
    }
    context.model = model;
    if let Some(thinking_level) = thinking {
        context.thinking_level = thinking_level.to_owned();
    }
    Ok(())
}

/// The message one entry contributes, if any (Pi's `sessionEntryToContextMessages` then
/// `convertToLlm`).
fn emit(entry: &Entry) -> Result<Option<Message>> {
    if entry.malformed().is_some() {
        return Ok(None);
    }
    emit_from(entry, &entry.line()?)
}

/// [`emit`] for an entry whose line, `line`, was read already.
fn emit_from(entry: &Entry, line: &str) -> Result<Option<Message>> {
    if entry.malformed().is_some() {
        return Ok(None);
    }
    let bad_message = |source| SessionError::BadMessage {
        entry_id: entry.id().to_owned(),
        source,
    };
    let entry_millis = || entry.timestamp().and_then(iso_to_millis).map_or(0, clamp);
    Ok(match entry.entry_type() {
        "message" => match entry.role() {
            Some(role @ (Role::User | Role::Assistant | Role::ToolResult)) => {
                match typed_message(line, role) {
                    Some(message) => Some(message),
                    None => stored_message(entry, entry_millis)?,
                }
            }
            _ => stored_message(entry, entry_millis)?,
        },
        // Only these types send anything: the others are not parsed at all.
        "custom_message" | "branch_summary" | "compaction" => match entry.kind()? {
            EntryKind::CustomMessage { content, .. } => {
                let content = content.cloned().unwrap_or_else(|| Value::Array(Vec::new()));
                Some(custom_to_user(content, entry_millis()).map_err(bad_message)?)
            }
            EntryKind::BranchSummary { summary, .. } if !summary.is_empty() => Some(wrapped(
                BRANCH_SUMMARY_PREFIX,
                summary,
                BRANCH_SUMMARY_SUFFIX,
                entry_millis(),
            )),
            EntryKind::Compaction { summary, .. } => Some(wrapped(
                COMPACTION_SUMMARY_PREFIX,
                summary,
                COMPACTION_SUMMARY_SUFFIX,
                entry_millis(),
            )),
            _ => None,
        },
        _ => None,
    })
}

/// A `message` entry's line read straight into its typed message, with no `Value` of it
/// built first (that conversion was most of the old context time). The line was checked as
/// JSON on load. `None` when the message does not read this way (a `content: null`, a repeated
/// key, a missing field): the caller then takes the `Value` path, which accepts what Pi
/// accepts and names what is wrong, so either way the result is the one that path gives.
pub(crate) fn typed_message(line: &str, role: Role) -> Option<Message> {
    /// Only `message` is read; serde skips the other fields of the entry.
    #[derive(Deserialize)]
    struct MessageLine<T> {
        message: T,
    }
    fn read<T: for<'de> Deserialize<'de>>(line: &str) -> Option<T> {
        line_reader::from_line::<MessageLine<T>>(line)
            .ok()
            .map(|line| line.message)
    }
    match role {
        Role::User => read(line).map(Message::User),
        Role::Assistant => read(line).map(Message::Assistant),
        Role::ToolResult => read(line).map(Message::ToolResult),
        Role::Other => None,
    }
}

/// A `message` entry through its parsed `Value` (for the coding agent's own roles, and for
/// user, assistant and tool-result messages the typed read refused).
fn stored_message(entry: &Entry, entry_millis: impl Fn() -> u64) -> Result<Option<Message>> {
    match entry.kind()? {
        EntryKind::Message(message) => {
            message_to_llm(message, entry_millis).map_err(|source| SessionError::BadMessage {
                entry_id: entry.id().to_owned(),
                source,
            })
        }
        _ => Ok(None),
    }
}

/// One stored message as the model gets it; `None` for what Pi does not send (a `!!` bash
/// execution, a role it does not know).
fn message_to_llm(
    message: &Value,
    entry_millis: impl Fn() -> u64,
) -> Result<Option<Message>, serde_json::Error> {
    let timestamp = || {
        message
            .get("timestamp")
            .and_then(Value::as_u64)
            .unwrap_or_else(&entry_millis)
    };
    let text = |key: &str| message.get(key).and_then(Value::as_str).unwrap_or_default();
    match role(message) {
        Some("user" | "assistant" | "toolResult") => {
            // Old or hand-edited files can hold `content: null`; Pi reads it as no blocks.
            if message.get("content").is_none_or(Value::is_null) {
                let mut message = message.clone();
                if let Some(map) = message.as_object_mut() {
                    map.insert("content".into(), Value::Array(Vec::new()));
                }
                return serde_json::from_value(message).map(Some);
            }
            // Read from the stored value in place: no copy of the message first.
            Message::deserialize(message).map(Some)
        }
        Some("bashExecution") => {
            if message.get("excludeFromContext").and_then(Value::as_bool) == Some(true) {
                return Ok(None);
            }
            Ok(Some(user_text(bash_execution_text(message), timestamp())))
        }
        Some("custom") => {
            let content = message.get("content").cloned().unwrap_or(Value::Null);
            custom_to_user(content, timestamp()).map(Some)
        }
        Some("branchSummary") => Ok(Some(wrapped(
            BRANCH_SUMMARY_PREFIX,
            text("summary"),
            BRANCH_SUMMARY_SUFFIX,
            timestamp(),
        ))),
        Some("compactionSummary") => Ok(Some(wrapped(
            COMPACTION_SUMMARY_PREFIX,
            text("summary"),
            COMPACTION_SUMMARY_SUFFIX,
            timestamp(),
        ))),
        _ => Ok(None),
    }
}

/// Pi's `bashExecutionToText`.
fn bash_execution_text(message: &Value) -> String {
    let text = |key: &str| message.get(key).and_then(Value::as_str).unwrap_or_default();
    let flag = |key: &str| message.get(key).and_then(Value::as_bool).unwrap_or(false);
    let mut out = format!("Ran `{}`\n", text("command"));
    let output = text("output");
    if output.is_empty() {
        out.push_str("(no output)");
    } else {
        out.push_str(&format!("```\n{output}\n```"));
    }
    let exit_code = message.get("exitCode").and_then(Value::as_i64);
    if flag("cancelled") {
        out.push_str("\n\n(command cancelled)");
    } else if let Some(code) = exit_code.filter(|&code| code != 0) {
        out.push_str(&format!("\n\nCommand exited with code {code}"));
    }
    let full_output = text("fullOutputPath");
    if flag("truncated") && !full_output.is_empty() {
        out.push_str(&format!(
            "\n\n[Output truncated. Full output: {full_output}]"
        ));
    }
    out
}

/// A custom message's content (a string or text/image blocks) as a user message.
fn custom_to_user(content: Value, timestamp: u64) -> Result<Message, serde_json::Error> {
    let blocks = match content {
        Value::String(text) => vec![Content::Text { text }],
        Value::Null => Vec::new(),
        other => serde_json::from_value(other)?,
    };
    Ok(Message::User(UserMessage {
        content: UserContent::Blocks(blocks),
        timestamp,
    }))
}

fn wrapped(prefix: &str, summary: &str, suffix: &str, timestamp: u64) -> Message {
    user_text(format!("{prefix}{summary}{suffix}"), timestamp)
}

fn user_text(text: String, timestamp: u64) -> Message {
    Message::User(UserMessage {
        content: UserContent::Blocks(vec![Content::Text { text }]),
        timestamp,
    })
}

fn role(message: &Value) -> Option<&str> {
    message.get("role").and_then(Value::as_str)
}

fn clamp(millis: i64) -> u64 {
    u64::try_from(millis).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reading a message straight from its line gives what the `Value` path gives, or
    /// declines and leaves the line to that path.
    #[test]
    fn a_typed_read_equals_the_value_path() {
        let messages = [
            (
                Role::User,
                r#"{"role":"user","content":"hi","timestamp":1}"#,
            ),
            (
                Role::User,
                r#"{"role":"user","content":[{"type":"text","text":"a\"b\u00e9"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"timestamp":2}"#,
            ),
            (
                Role::User,
                r#"{"role":"user","content":null,"timestamp":3}"#,
            ),
            (Role::User, r#"{"role":"user","timestamp":3}"#),
            (
                Role::User,
                r#"{"role":"user","content":"a","content":"b","timestamp":4}"#,
            ),
            (
                Role::Assistant,
                r#"{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"s"},{"type":"text","text":"x","textSignature":"y"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a","n":[1,2.5]}}],"api":"openai-completions","provider":"p","model":"m","usage":{"input":3,"output":4},"stopReason":"toolUse","timestamp":5}"#,
            ),
            (
                Role::Assistant,
                r#"{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","stopReason":"error","errorMessage":"boom","timestamp":6,"extra":{"kept":true}}"#,
            ),
            (
                Role::ToolResult,
                r#"{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"ok"}],"details":{"lines":3},"isError":false,"timestamp":7}"#,
            ),
            (
                Role::ToolResult,
                r#"{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[],"isError":"no","timestamp":8}"#,
            ),
        ];
        let mut typed_reads = 0;
        for (role, message) in messages {
            let line = format!(r#"{{"type":"message","id":"a","message":{message}}}"#);
            let value: Value = serde_json::from_str(message).unwrap();
            let by_value = message_to_llm(&value, || 0);
            match typed_message(&line, role) {
                Some(typed) => {
                    typed_reads += 1;
                    assert_eq!(Some(typed), by_value.unwrap(), "{message}");
                }
                None => assert!(
                    by_value.is_err()
                        || value.get("content").is_none_or(Value::is_null)
                        || message.contains(r#""content":"a","content""#),
                    "the typed read declined a message the value path reads: {message}"
                ),
            }
        }
        assert_eq!(typed_reads, 5);
    }
}
