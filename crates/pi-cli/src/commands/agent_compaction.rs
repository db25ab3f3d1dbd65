//! The compaction flags: `agent --context-window` (compaction itself runs in the session
//! runtime, [`pi_coding_agent::run_compacted`]), and `pi-tool session compact FILE`, which
//! compacts a session now with the model its flags name.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use pi_agent::compaction::{CompactionConfig, CompactionReason};
use pi_ai::Provider;
use pi_providers::ProviderConfig;
use tokio_util::sync::CancellationToken;

use super::agent::Wire;

/// The compaction flag of `pi-tool agent`.
#[derive(Debug, Args)]
pub(crate) struct CompactionArgs {
    /// The model's context window in tokens, instead of Pi's `models.json` or the built-in
    /// table; the session is compacted when its context passes the window less
    /// `compaction.reserveTokens` (16384) or `compaction.thresholdPercent` of it.
    #[arg(long, value_name = "TOKENS")]
    pub(crate) context_window: Option<u64>,
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

/// The line a compaction's end prints on stderr: what it did, or why it did not.
pub(crate) fn compaction_line(
    reason: CompactionReason,
    result: Option<&pi_agent::compaction::Compacted>,
    error: Option<&str>,
) -> String {
    let reason = match reason {
        CompactionReason::Threshold => "threshold",
        CompactionReason::Overflow => "context overflow",
        CompactionReason::Manual => "on request",
    };
    match result {
        Some(compacted) => format!(
            "pi-tool: compacted the session ({reason}): about {} tokens before, {} after",
            compacted.tokens_before, compacted.tokens_after
        ),
        None => format!(
            "pi-tool: the session was not compacted ({reason}): {}",
            error.unwrap_or("it did not finish")
        ),
    }
}
