//! Compaction, Pi's algorithm: when the context nears the model's window, the older part of the
//! conversation is replaced by a structured summary the model writes, and the newest
//! `keepRecentTokens` stay verbatim. The session file keeps everything; a `compaction` entry
//! says where the kept part starts.
//!
//! Three steps, usable one by one: [`prepare`] picks the cut ([`cut_point`]) and gathers what
//! to summarise, [`summarize`] asks the model, [`apply`] checks the result and appends the entry.
//! [`compact_session`] does all three; [`Agent::compact`](crate::Agent::compact) does them
//! with `compaction_start` / `compaction_end` events.
//!
//! Guardrails Pi lacks: a summary that is empty or misses Pi's headings is refused; a
//! compaction that would not make the context smaller is refused (and reported) instead of
//! written; a compaction right after a compaction is refused; the estimated size after
//! compacting is in the entry's `details.tokensAfter` and in the event.
//!
//! ```
//! use pi_agent::compaction::{CompactionSettings, compact_session};
//! use pi_ai::{AssistantContent, AssistantMessage, FauxProvider, Message, ModelInfo, UserMessage};
//! use pi_session::Session;
//! use tokio_util::sync::CancellationToken;
//!
//! let model = ModelInfo { api: "faux".into(), provider: "faux".into(), model: "m".into() };
//! let mut session = Session::in_memory(std::path::Path::new("/work"));
//! for turn in 0..4 {
//!     session.append_message(&UserMessage::text(format!("step {turn}: {}", "x".repeat(400))).into()).unwrap();
//!     let answer = AssistantMessage::new(&model, vec![AssistantContent::text("done")]);
//!     session.append_message(&Message::Assistant(answer)).unwrap();
//! }
//! // The model that writes the summary (here scripted), in Pi's format.
//! let summary = ["## Goal", "## Constraints & Preferences", "## Progress", "## Key Decisions",
//!                "## Next Steps", "## Critical Context"].join("\n- noted\n");
//! let writer = FauxProvider::new([AssistantMessage::new(&model, vec![AssistantContent::text(summary)])]);
//! let settings = CompactionSettings { keep_recent_tokens: 100, ..CompactionSettings::default() };
//!
//! let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! let compacted = runtime
//!     .block_on(compact_session(&mut session, &writer, &settings, Some("the steps"), &CancellationToken::new()))
//!     .unwrap();
//! assert!(compacted.tokens_after < compacted.tokens_before);
//! // The model is now sent the wrapped summary, then the last turn kept verbatim.
//! let context = session.context().unwrap();
//! assert_eq!(context.messages.len(), 3);
//! assert_eq!(context.entry_ids[0], compacted.entry_id);
//! ```

mod context_size;
mod context_window;
pub mod cut_point;
mod overflow;
mod settings;
mod summarize;
mod summary_prompt;

use std::collections::HashMap;
use std::sync::Arc;

use pi_ai::{Message, Provider};
use pi_session::{
    COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX, EntryKind, Session, SessionError,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use context_size::fresh_context_tokens;
pub use context_size::{context_tokens, session_context_tokens, session_context_tokens_of};
pub use context_window::{
    ModelsFile, ModelsFileError, built_in_context_window, resolve_context_window,
};
pub use cut_point::{CutPoint, estimate_tokens, find_cut_point};
pub use overflow::{is_context_overflow, is_overflow_text};
pub use settings::{
    CompactionConfig, CompactionSettings, DEFAULT_KEEP_RECENT_TOKENS, DEFAULT_RESERVE_TOKENS,
    SettingsError, SettingsPatch,
};
pub use summarize::summarize;
pub use summary_prompt::{
    FileOps, SUMMARY_HEADINGS, SUMMARY_SYSTEM_PROMPT, TOOL_RESULT_MAX_CHARS, TURN_PREFIX_HEADINGS,
    history_prompt, missing_headings, serialize_conversation, turn_prefix_prompt,
};

pub use crate::compaction_outcome::{Compacted, CompactionReason};
use crate::{Agent, AgentEvent};

/// Why a compaction did not happen. Nothing was written to the session in any of these cases.
#[derive(Debug, thiserror::Error)]
pub enum CompactionError {
    /// The last entry is a compaction already: compacting again would only summarise a
    /// summary (Pi's "Already compacted" loop).
    #[error("the session was just compacted; nothing new to compact")]
    AlreadyCompacted,
    /// Nothing older than the kept part to summarise.
    #[error("nothing to compact: the whole conversation fits in the part kept verbatim")]
    NothingToCompact,
    /// The session could not be read or written.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The summary request failed.
    #[error("the summary request failed: {0}")]
    Summarize(String),
    /// The model answered with no text.
    #[error("the model's summary was empty")]
    EmptySummary,
    /// The model's summary lacks some of the required headings.
    #[error("the model's summary lacks the headings {}", .missing.join(", "))]
    MissingHeadings {
        /// The headings not found.
        missing: Vec<String>,
    },
    /// The summary and the kept part would be no smaller than the context now.
    #[error(
        "compacting would not reduce the context (about {before} tokens before, {after} after); nothing was written"
    )]
    NoReduction {
        /// The estimated context now.
        before: u64,
        /// The estimated context with this summary.
        after: u64,
    },
    /// The session moved on while the summary was written.
    #[error("the session changed while the summary was being written")]
    LeafMoved,
}

/// What [`prepare`] decided: the cut and the messages to summarise.
#[derive(Debug, Clone, PartialEq)]
pub struct Preparation {
    /// The leaf the preparation was made at.
    pub leaf_id: Option<String>,
    /// The first entry kept verbatim.
    pub first_kept_entry_id: String,
    /// The messages the summary replaces.
    pub messages_to_summarize: Vec<Message>,
    /// With a split turn: the turn's messages before the cut, summarised on their own.
    pub turn_prefix: Vec<Message>,
    /// Pi's `tokensBefore`: the last response's usage plus an estimate of what came after.
    pub tokens_before: u64,
    /// The chars/4 estimate of the whole context now.
    pub estimate_before: u64,
    /// The chars/4 estimate of the kept messages.
    pub kept_estimate: u64,
    /// The latest compaction's summary, for Pi's UPDATE prompt.
    pub previous_summary: Option<String>,
    /// Files read and modified by the summarised calls and earlier compactions.
    pub files: FileOps,
}

/// The summary the model wrote, with the file lists appended as Pi appends them.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The text stored in the entry.
    pub text: String,
}

/// Picks the cut for the session's leaf and gathers what to summarise.
pub fn prepare(
    session: &Session,
    settings: &CompactionSettings,
) -> Result<Preparation, CompactionError> {
    let path = session.branch_entries(None)?;
    if path.last().is_some_and(|entry| entry.is_compaction()) {
        return Err(CompactionError::AlreadyCompacted);
    }
    let previous = path.iter().rposition(|entry| entry.is_compaction());
    let boundary = previous.map_or(0, |index| index + 1);
    let items: Vec<cut_point::PathItem> = path
        .iter()
        .map(|entry| cut_point::PathItem::of(entry))
        .collect::<Result<_, _>>()?;
    let cut = find_cut_point(&items, boundary, items.len(), settings.keep_recent_tokens);
    let Some(first_kept) = path.get(cut.first_kept) else {
        return Err(CompactionError::NothingToCompact);
    };

    let context = session.context()?;
    // The figures that read the whole context come first; then the messages to summarise
    // move out of it instead of being copied (a copy held the summarised text twice: 50 MB
    // more for a 55 MB session). The ranges taken below never overlap.
    let tokens_before = fresh_context_tokens(&path, previous, &context);
    let estimate_before = context.messages.iter().map(estimate_tokens).sum();
    let index_of: HashMap<&str, usize> = context
        .entry_ids
        .iter()
        .enumerate()
        .map(|(index, id)| (id.as_str(), index))
        .collect();
    let indices_of = |from: usize, to: usize| {
        path.get(from..to)
            .unwrap_or_default()
            .iter()
            .filter_map(|entry| index_of.get(entry.id()).copied())
    };
    let kept_estimate = indices_of(cut.first_kept, path.len())
        .filter_map(|index| context.messages.get(index))
        .map(estimate_tokens)
        .sum();
    let mut messages: Vec<Option<Message>> = context.messages.into_iter().map(Some).collect();
    let mut messages_of = |from: usize, to: usize| -> Vec<Message> {
        indices_of(from, to)
            .filter_map(|index| messages.get_mut(index).and_then(Option::take))
            .collect()
    };
    let history_end = cut.split_turn_start.unwrap_or(cut.first_kept);
    let previous_kind = previous
        .and_then(|index| path.get(index))
        .map(|entry| entry.kind())
        .transpose()?;
    // What the previous compaction kept verbatim leaves the context now: it is summarised too
    // (Pi drops it unsummarised).
    let previously_kept = previous.map_or(Vec::new(), |index| {
        let first_kept = match &previous_kind {
            Some(EntryKind::Compaction {
                first_kept_entry_id: Some(id),
                ..
            }) => path
                .get(..index)
                .unwrap_or_default()
                .iter()
                .position(|entry| entry.id() == *id),
            _ => None,
        };
        first_kept.map_or(Vec::new(), |start| messages_of(start, index))
    });
    let mut messages_to_summarize = previously_kept;
    messages_to_summarize.extend(messages_of(boundary, history_end));
    let turn_prefix = match cut.split_turn_start {
        Some(start) => messages_of(start, cut.first_kept),
        None => Vec::new(),
    };
    if messages_to_summarize.is_empty() && turn_prefix.is_empty() {
        return Err(CompactionError::NothingToCompact);
    }

    let mut files = FileOps::default();
    let mut previous_summary = None;
    if let Some(EntryKind::Compaction {
        summary,
        details,
        from_hook,
        ..
    }) = previous_kind
    {
        previous_summary = Some(summary.to_owned());
        if let Some(details) = details.filter(|_| !from_hook) {
            files.collect_details(details);
        }
    }
    for message in messages_to_summarize.iter().chain(&turn_prefix) {
        files.collect(message);
    }

    Ok(Preparation {
        leaf_id: session.leaf_id().map(str::to_owned),
        first_kept_entry_id: first_kept.id().to_owned(),
        messages_to_summarize,
        turn_prefix,
        tokens_before,
        estimate_before,
        kept_estimate,
        previous_summary,
        files,
    })
}

/// Checks that the summary makes the context smaller and appends the `compaction` entry
/// (then syncs the file). Nothing is written when a check fails.
pub fn apply(
    session: &mut Session,
    preparation: &Preparation,
    summary: &Summary,
) -> Result<Compacted, CompactionError> {
    if session.leaf_id() != preparation.leaf_id.as_deref() {
        return Err(CompactionError::LeafMoved);
    }
    let wrapped = serde_json::json!({
        "role": "compactionSummary",
        "summary": format!("{COMPACTION_SUMMARY_PREFIX}{}{COMPACTION_SUMMARY_SUFFIX}", summary.text),
    });
    let tokens_after = cut_point::estimate_message_tokens(&wrapped) + preparation.kept_estimate;
    if tokens_after >= preparation.estimate_before {
        return Err(CompactionError::NoReduction {
            before: preparation.estimate_before,
            after: tokens_after,
        });
    }
    let read_files = preparation.files.read_files();
    let modified_files = preparation.files.modified_files();
    let details = json!({
        "readFiles": read_files,
        "modifiedFiles": modified_files,
        "tokensAfter": tokens_after,
    });
    let entry_id = session.append_compaction(
        &summary.text,
        &preparation.first_kept_entry_id,
        preparation.tokens_before,
        Some(details),
        Some(false),
    )?;
    session.sync()?;
    Ok(Compacted {
        entry_id,
        first_kept_entry_id: preparation.first_kept_entry_id.clone(),
        tokens_before: preparation.tokens_before,
        tokens_after,
        read_files,
        modified_files,
    })
}

/// Compacts the session at its leaf with `provider`: [`prepare`], [`summarize`], [`apply`].
/// `focus` is added to the prompt as "Additional focus".
pub async fn compact_session(
    session: &mut Session,
    provider: &dyn Provider,
    settings: &CompactionSettings,
    focus: Option<&str>,
    signal: &CancellationToken,
) -> Result<Compacted, CompactionError> {
    let preparation = prepare(session, settings)?;
    let summary = summarize(provider, &preparation, focus, signal).await?;
    apply(session, &preparation, &summary)
}

impl Agent {
    /// Compacts `session` with this agent's model, announcing it with `compaction_start` and
    /// `compaction_end` events (an overflow compaction that succeeded says it will retry).
    pub async fn compact(
        &self,
        session: &mut Session,
        settings: &CompactionSettings,
        reason: CompactionReason,
        focus: Option<&str>,
        signal: &CancellationToken,
    ) -> Result<Compacted, CompactionError> {
        self.emitter().emit(AgentEvent::CompactionStart { reason });
        let provider = Arc::clone(&self.config().provider);
        let outcome = compact_session(session, provider.as_ref(), settings, focus, signal).await;
        let (result, error) = match &outcome {
            Ok(compacted) => (Some(compacted.clone()), None),
            Err(error) => (None, Some(pi_tool::error_text(error))),
        };
        self.emitter().emit(AgentEvent::CompactionEnd {
            reason,
            will_retry: reason == CompactionReason::Overflow && result.is_some(),
            result,
            error,
        });
        outcome
    }
}

#[cfg(test)]
mod tests;
