//! Compaction around a run, as Pi does it: before the prompt and after the run when the context
//! passed the threshold (window − `reserveTokens`, or `thresholdPercent` of the window), and
//! when the provider says the request overflowed the context: compact, then send the request
//! again, once. Settings come from Pi's `settings.json` files, the window from the caller (a
//! flag or the model registry), Pi's `models.json` or the built-in table.
//!
//! Each compaction is announced by the agent's `compaction_start` and `compaction_end` events;
//! one that fails (a refused summary, no reduction, already compacted) is not tried again in
//! this process.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use pi_agent::compaction::{
    CompactionConfig, CompactionReason, CompactionSettings, ModelsFile, is_context_overflow,
    resolve_context_window, session_context_tokens,
};
use pi_agent::{Agent, AgentRun, EndReason};
use pi_ai::{Message, ModelInfo, StopReason};
use tokio_util::sync::CancellationToken;

use crate::recorder::{History, Recorder};
use crate::runtime_error::RuntimeError;

/// When and how this process compacts.
pub struct Compactor {
    settings: CompactionSettings,
    window: Option<u64>,
    /// Set after a compaction failed: it is not tried again (Pi's "Already compacted" loop).
    gave_up: AtomicBool,
    /// Whether the automatic triggers run: the settings' `enabled`, until RPC's
    /// `set_auto_compaction` says otherwise.
    enabled: AtomicBool,
}

impl Compactor {
    /// Reads the settings (`<agent_dir>/settings.json` and the project's) and the window of
    /// `model` for the directory `cwd`; `window` (a flag, or the model registry's figure) wins
    /// over Pi's `models.json` and the built-in table.
    pub fn load(
        window: Option<u64>,
        agent_dir: Option<&Path>,
        cwd: &Path,
        model: &ModelInfo,
    ) -> Result<Self, RuntimeError> {
        let config = CompactionConfig::load(agent_dir, cwd)?;
        let models = match agent_dir {
            Some(dir) => ModelsFile::load(dir)?,
            None => ModelsFile::default(),
        };
        Ok(Self {
            settings: config.for_model(&model.provider, &model.model),
            window: resolve_context_window(window, &models, &model.provider, &model.model),
            gave_up: AtomicBool::new(false),
            enabled: AtomicBool::new(config.for_model(&model.provider, &model.model).enabled),
        })
    }

    /// Turns the automatic compaction (at the threshold, and on an overflow) on or off.
    pub fn set_enabled(&self, enabled: bool) {
        self.enabled.store(enabled, Ordering::Relaxed);
    }

    /// Whether the automatic compaction runs.
    pub fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// The compaction settings in force.
    pub fn settings(&self) -> &CompactionSettings {
        &self.settings
    }

    /// The model's context window, when known.
    pub fn window(&self) -> Option<u64> {
        self.window
    }

    /// Whether the session's context passed the threshold.
    fn over_threshold(&self, recorder: &Recorder) -> bool {
        self.window.is_some()
            && self.passes_threshold(
                recorder
                    .with_session(|session| session_context_tokens(session))
                    .ok(),
            )
    }

    /// Whether a context of `tokens` (`None`: not measured) passed the threshold.
    fn passes_threshold(&self, tokens: Option<u64>) -> bool {
        self.window
            .zip(tokens)
            .is_some_and(|(window, tokens)| self.settings.should_compact(tokens, window))
    }

    /// Compacts the recorder's session; the context to continue from when it worked.
    async fn compact(
        &self,
        agent: &Agent,
        recorder: &Recorder,
        reason: CompactionReason,
        signal: &CancellationToken,
    ) -> Option<Vec<Message>> {
        // `enabled: false` turns off both automatic triggers, as in Pi.
        if !self.is_enabled() || self.gave_up.load(Ordering::Relaxed) || recorder.failed() {
            return None;
        }
        let mut session = recorder.take_session();
        let outcome = agent
            .compact(&mut session, &self.settings, reason, None, signal)
            .await;
        let context = session.context();
        recorder.give_back(session);
        // The agent's `compaction_end` event has told the subscribers how it went.
        match outcome {
            Ok(_) => context
                .ok()
                .map(|context| without_failed_tail(context.messages)),
            Err(_) => {
                self.gave_up.store(true, Ordering::Relaxed);
                None
            }
        }
    }
}

/// The conversation without the failed responses at its end: the overflow error is in the
/// file, but the retried request must not carry it.
pub(crate) fn without_failed_tail(mut messages: Vec<Message>) -> Vec<Message> {
    while matches!(
        messages.last(),
        Some(Message::Assistant(assistant))
            if matches!(assistant.stop_reason, StopReason::Error | StopReason::Aborted)
    ) {
        messages.pop();
    }
    messages
}

/// A run with compaction around it: the run's messages (a retried run's too) and how many of
/// them, at the end, belong to the last run (what [`Recorder::finish`] still has to see).
pub struct CompactedRun {
    /// Everything the runs added, the failed first attempt included.
    pub run: AgentRun,
    /// How many of `run.messages`, at the end, the last run added.
    pub last_run: usize,
}

/// Runs `prompts` on `history`, compacting before, after, and on a context overflow (then
/// retrying once).
pub async fn run_compacted(
    agent: &Agent,
    recorder: &Recorder,
    compactor: &Compactor,
    history: History,
    prompts: Vec<Message>,
    signal: &CancellationToken,
) -> CompactedRun {
    let History {
        messages: mut history,
        tokens,
    } = history;
    if compactor.passes_threshold(tokens)
        && let Some(compacted) = compactor
            .compact(agent, recorder, CompactionReason::Threshold, signal)
            .await
    {
        history = compacted;
    }
    let first = agent.run(history, prompts, signal.clone()).await;
    let last_run = first.messages.len();
    if recorder.finish(&first.messages).is_err() {
        // The failure is reported when the caller finishes.
        return CompactedRun {
            run: first,
            last_run,
        };
    }
    let overflowed = |run: &AgentRun| {
        run.end == EndReason::Error
            && matches!(run.messages.last(), Some(Message::Assistant(last)) if is_context_overflow(last))
    };
    if overflowed(&first) {
        let Some(history) = compactor
            .compact(agent, recorder, CompactionReason::Overflow, signal)
            .await
        else {
            return CompactedRun {
                run: first,
                last_run,
            };
        };
        recorder.next_run();
        let second = agent.run(history, Vec::new(), signal.clone()).await;
        let error = if overflowed(&second) {
            Some(format!(
                "the context overflowed again after one compact-and-retry: {}",
                second.error.as_deref().unwrap_or_default()
            ))
        } else {
            second.error.clone()
        };
        let last_run = second.messages.len();
        let mut messages = first.messages;
        messages.extend(second.messages);
        return CompactedRun {
            run: AgentRun {
                messages,
                end: second.end,
                error,
            },
            last_run,
        };
    }
    if matches!(first.end, EndReason::Completed | EndReason::Terminated)
        && compactor.over_threshold(recorder)
    {
        compactor
            .compact(agent, recorder, CompactionReason::Threshold, signal)
            .await;
    }
    CompactedRun {
        run: first,
        last_run,
    }
}
