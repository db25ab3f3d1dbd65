//! How big the context is, as Pi measures it against the model's window: the last response's
//! usage plus an estimate of what came after it.

use std::collections::HashSet;

use pi_ai::{Message, StopReason};
use pi_session::{Session, SessionContext, SessionError};

use super::estimate_tokens;

/// The context size of the session at its leaf, as [`context_tokens`] counts it, ignoring the
/// usage of responses from before the latest compaction (their context no longer exists).
///
/// The context is read from its end and only as far back as the last usable response: the
/// check after a run usually reads one or two entries instead of building the whole context
/// again (`agent --session` on the benchmark's 10,000-entry, 55 MB session: 0.13 s -> 0.10 s).
pub fn session_context_tokens(session: &Session) -> Result<u64, SessionError> {
    let mut trailing = 0;
    for item in session.context_from_end()? {
        let item = item?;
        if item.after_compaction
            && let Some(tokens) = usable_usage(&item.message)
        {
            return Ok(tokens + trailing);
        }
        trailing += estimate_tokens(&item.message);
    }
    Ok(trailing)
}

/// [`session_context_tokens`] for `context`, the context of `session` at its leaf already
/// built (a resume has just built it to send it: a second build costs as much again).
pub fn session_context_tokens_of(
    session: &Session,
    context: &SessionContext,
) -> Result<u64, SessionError> {
    let path = session.branch_entries(None)?;
    let previous = path.iter().rposition(|entry| entry.is_compaction());
    Ok(fresh_context_tokens(&path, previous, context))
}

pub(super) fn fresh_context_tokens(
    path: &[&pi_session::Entry],
    previous_compaction: Option<usize>,
    context: &SessionContext,
) -> u64 {
    let fresh: HashSet<&str> = path
        .get(previous_compaction.unwrap_or(0)..)
        .unwrap_or_default()
        .iter()
        .map(|entry| entry.id())
        .collect();
    let is_fresh: Vec<bool> = context
        .entry_ids
        .iter()
        .map(|id| fresh.contains(id.as_str()))
        .collect();
    context_tokens(&context.messages, Some(&is_fresh))
}

/// The context size Pi compares with the window: the last successful response's usage
/// (`totalTokens`, or the sum of its parts; all-zero usage is ignored) plus a chars/4 estimate
/// of the messages after it; without one, the estimate of every message. `usable` says which
/// messages' usage counts (`None`: all).
pub fn context_tokens(messages: &[Message], usable: Option<&[bool]>) -> u64 {
    let last_usage = messages
        .iter()
        .enumerate()
        .rev()
        .filter(|(index, _)| usable.is_none_or(|usable| usable.get(*index) == Some(&true)))
        .find_map(|(index, message)| Some((index, usable_usage(message)?)));
    match last_usage {
        Some((index, tokens)) => {
            let trailing: u64 = messages
                .get(index + 1..)
                .unwrap_or_default()
                .iter()
                .map(estimate_tokens)
                .sum();
            tokens + trailing
        }
        None => messages.iter().map(estimate_tokens).sum(),
    }
}

/// The tokens a response's usage counts (`totalTokens`, or the sum of its parts), when it is a
/// response that ended well and reported a usage at all.
fn usable_usage(message: &Message) -> Option<u64> {
    let Message::Assistant(assistant) = message else {
        return None;
    };
    if matches!(
        assistant.stop_reason,
        StopReason::Error | StopReason::Aborted
    ) {
        return None;
    }
    let usage = assistant.usage;
    let tokens = if usage.total_tokens > 0 {
        usage.total_tokens
    } else {
        usage.input + usage.output + usage.cache_read + usage.cache_write
    };
    (tokens > 0).then_some(tokens)
}
