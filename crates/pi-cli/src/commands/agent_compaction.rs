//! Compaction around an `agent` run, as Pi does it: before the prompt and after the run when
//! the context passed the threshold (window − `reserveTokens`, or `thresholdPercent` of the
//! window), and when the provider says the request overflowed the context: compact, then send
//! the request again, once. Settings come from Pi's `settings.json` files, the window from
//! `--context-window`, Pi's `models.json` or the built-in table.
//!
//! A compaction that fails (a refused summary, no reduction, already compacted) is reported on
//! stderr and not tried again in this process.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use clap::Args;
use pi_agent::compaction::{
    CompactionConfig, CompactionReason, CompactionSettings, ModelsFile, is_context_overflow,
    resolve_context_window, session_context_tokens,
};
use pi_agent::{Agent, AgentRun, EndReason};
use pi_ai::{Message, ModelInfo, Provider, StopReason};
use pi_providers::ProviderConfig;
use tokio_util::sync::CancellationToken;

use super::agent::Wire;
use super::agent_session::{History, Recorder};

/// The compaction flag of `pi-tool agent`.
#[derive(Debug, Args)]
pub(crate) struct CompactionArgs {
    /// The model's context window in tokens, instead of Pi's `models.json` or the built-in
    /// table; the session is compacted when its context passes the window less
    /// `compaction.reserveTokens` (16384) or `compaction.thresholdPercent` of it.
    #[arg(long, value_name = "TOKENS")]
    pub(crate) context_window: Option<u64>,
}

/// When and how this process compacts.
pub(crate) struct Compactor {
    settings: CompactionSettings,
    window: Option<u64>,
    /// Set after a compaction failed: it is not tried again (Pi's "Already compacted" loop).
    gave_up: AtomicBool,
}

impl Compactor {
    /// Reads the settings and the window of `model` for the directory `cwd`.
    pub(crate) fn load(flag: Option<u64>, cwd: &Path, model: &ModelInfo) -> anyhow::Result<Self> {
        let agent_dir = pi_session::agent_dir();
        let config = CompactionConfig::load(agent_dir.as_deref(), cwd)?;
        let models = match &agent_dir {
            Some(dir) => ModelsFile::load(dir)?,
            None => ModelsFile::default(),
        };
        Ok(Self {
            settings: config.for_model(&model.provider, &model.model),
            window: resolve_context_window(flag, &models, &model.provider, &model.model),
            gave_up: AtomicBool::new(false),
        })
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
        if !self.settings.enabled || self.gave_up.load(Ordering::Relaxed) || recorder.failed() {
            return None;
        }
        let mut session = recorder.take_session();
        let outcome = agent
            .compact(&mut session, &self.settings, reason, None, signal)
            .await;
        let context = session.context();
        recorder.give_back(session);
        match outcome {
            Ok(compacted) => {
                report!(
                    "pi-tool: compacted the session ({}): about {} tokens before, {} after",
                    reason_word(reason),
                    compacted.tokens_before,
                    compacted.tokens_after
                );
                context
                    .ok()
                    .map(|context| without_failed_tail(context.messages))
            }
            Err(error) => {
                self.gave_up.store(true, Ordering::Relaxed);
                report!(
                    "pi-tool: the session was not compacted ({}): {}",
                    reason_word(reason),
                    pi_tool::error_text(&error)
                );
                None
            }
        }
    }
}

fn reason_word(reason: CompactionReason) -> &'static str {
    match reason {
        CompactionReason::Threshold => "threshold",
        CompactionReason::Overflow => "context overflow",
        CompactionReason::Manual => "on request",
    }
}

/// The conversation without the failed responses at its end: the overflow error is in the
/// file, but the retried request must not carry it.
fn without_failed_tail(mut messages: Vec<Message>) -> Vec<Message> {
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
pub(crate) struct CompactedRun {
    /// Everything the runs added, the failed first attempt included.
    pub(crate) run: AgentRun,
    /// How many of `run.messages`, at the end, the last run added.
    pub(crate) last_run: usize,
}

/// Runs `prompts` on `history`, compacting before, after, and on a context overflow (then
/// retrying once).
pub(crate) async fn run(
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

/// The model flags of `pi-tool session compact`: the summary is written by this model.
#[derive(Debug, Args)]
pub(crate) struct ModelArgs {
    /// A scripted model: a JSON array of assistant messages (see `agent --faux`).
    #[arg(long, value_name = "SCRIPT.json", conflicts_with = "provider")]
    faux: Option<std::path::PathBuf>,
    /// A real model's wire.
    #[arg(long, requires = "model")]
    provider: Option<Wire>,
    /// The model id.
    #[arg(long)]
    model: Option<String>,
    /// Where the API is (as for `agent`).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The API key (default: the wire's environment variable; `PI_TOOL_API_KEY` sets it too).
    #[arg(
        long,
        value_name = "KEY",
        env = "PI_TOOL_API_KEY",
        hide_env_values = true
    )]
    api_key: Option<String>,
}

impl ModelArgs {
    /// The model that writes the summary.
    pub(crate) fn provider(&self) -> anyhow::Result<Arc<dyn Provider>> {
        if let Some(path) = &self.faux {
            return super::agent::faux_provider(path);
        }
        let (Some(wire), Some(model)) = (self.provider, &self.model) else {
            anyhow::bail!("give --faux SCRIPT, or --provider and --model");
        };
        let mut config = ProviderConfig::new(model.clone());
        config.base_url = self.base_url.clone();
        config.api_key =
            super::agent::api_key(wire, self.api_key.as_ref(), self.base_url.as_ref())?;
        super::agent::wire_provider(wire, config)
    }
}

/// `pi-tool session compact FILE [--focus TEXT]`: compacts the session at its leaf now and
/// prints the new entry as JSON (`entryId`, `firstKeptEntryId`, `tokensBefore`,
/// `tokensAfter`, `readFiles`, `modifiedFiles`).
pub(crate) fn compact_file(
    path: &Path,
    cwd: &Path,
    model: &ModelArgs,
    focus: Option<&str>,
) -> anyhow::Result<()> {
    let provider = model.provider()?;
    let info = provider.model();
    let agent_dir = pi_session::agent_dir();
    let settings =
        CompactionConfig::load(agent_dir.as_deref(), cwd)?.for_model(&info.provider, &info.model);
    let mut session =
        pi_session::Session::open(path).with_context(|| format!("opening {}", path.display()))?;
    super::session::print_report(path, session.report());
    // `session` commands run on the runtime's thread without being async: wait here.
    let compacted = tokio::task::block_in_place(|| {
        tokio::runtime::Handle::current().block_on(pi_agent::compaction::compact_session(
            &mut session,
            provider.as_ref(),
            &settings,
            focus,
            &CancellationToken::new(),
        ))
    })
    .with_context(|| format!("compacting {}", path.display()))?;
    crate::output::print_line(&serde_json::to_string(&compacted)?)?;
    Ok(())
}
