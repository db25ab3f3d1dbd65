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

use crate::entry::EntryKind;
use crate::error::{Result, SessionError};
use crate::ids::iso_to_millis;
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

/// Builds the context of `leaf` (`None`: before the first entry, an empty context).
pub(crate) fn build(tree: &Tree, leaf: Option<usize>) -> Result<SessionContext> {
    let mut context = SessionContext::empty();
    let path = tree.path(leaf);
    let mut latest_compaction = None;
    for (step, &position) in path.iter().enumerate() {
        let Some(entry) = tree.get(position) else {
            continue;
        };
        match entry.kind() {
            EntryKind::ThinkingLevelChange { thinking_level } => {
                context.thinking_level = thinking_level.to_owned();
            }
            EntryKind::ModelChange { provider, model_id } => {
                context.model = Some(ModelRef {
                    provider: provider.to_owned(),
                    model_id: model_id.to_owned(),
                });
            }
            EntryKind::Message(message) if role(message) == Some("assistant") => {
                let text = |key| message.get(key).and_then(Value::as_str).unwrap_or_default();
                context.model = Some(ModelRef {
                    provider: text("provider").to_owned(),
                    model_id: text("model").to_owned(),
                });
            }
            EntryKind::Compaction { .. } => latest_compaction = Some(step),
            _ => {}
        }
    }

    let Some(compaction_step) = latest_compaction else {
        for &position in &path {
            emit(tree, position, &mut context)?;
        }
        return Ok(context);
    };
    let compaction_position = path.get(compaction_step).copied();
    let Some(compaction) = compaction_position.and_then(|position| tree.get(position)) else {
        return Ok(context);
    };
    // Pi finds the compaction on the path by id, so with duplicate ids the first entry
    // carrying that id is where "after the compaction" starts.
    let split = path
        .iter()
        .position(|&position| tree.get(position).map(|e| e.id()) == Some(compaction.id()))
        .unwrap_or(compaction_step);
    if let Some(position) = compaction_position {
        emit(tree, position, &mut context)?;
    }
    let first_kept = match compaction.kind() {
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
        for &position in before.get(from..).unwrap_or_default() {
            emit(tree, position, &mut context)?;
        }
    }
    for &position in path.get(split + 1..).unwrap_or_default() {
        emit(tree, position, &mut context)?;
    }
    Ok(context)
}

/// Adds the messages one entry contributes (Pi's `sessionEntryToContextMessages` then
/// `convertToLlm`).
fn emit(tree: &Tree, position: usize, context: &mut SessionContext) -> Result<()> {
    let Some(entry) = tree.get(position) else {
        return Ok(());
    };
    let entry_millis = || entry.timestamp().and_then(iso_to_millis).map_or(0, clamp);
    let message = match entry.kind() {
        EntryKind::Message(message) => {
            message_to_llm(message, entry_millis).map_err(|source| SessionError::BadMessage {
                entry_id: entry.id().to_owned(),
                source,
            })?
        }
        EntryKind::CustomMessage { content, .. } => {
            let content = content.cloned().unwrap_or_else(|| Value::Array(Vec::new()));
            Some(custom_to_user(content, entry_millis()).map_err(|source| {
                SessionError::BadMessage {
                    entry_id: entry.id().to_owned(),
                    source,
                }
            })?)
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
    };
    if let Some(message) = message {
        context.messages.push(message);
        context.entry_ids.push(entry.id().to_owned());
    }
    Ok(())
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
