//! Everything a coding session is made of except the conversation and the model, kept so a
//! front end can start the session again on another session file (RPC's `new_session`,
//! `switch_session`, `fork`) or with another model or thinking level (`set_model`,
//! `set_thinking_level`) without reading its flags again.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use pi_agent::ExecutionMode;
use pi_approval::Approver;
use pi_providers::{ProviderConfig, ThinkingBudgets};
use pi_session::Session;
use pi_tool::ToolRegistry;
use tokio_util::sync::CancellationToken;

use crate::approvals::ApprovalSetup;
use crate::auto_retry::RetryPolicy;
use crate::coding_session::{CodingSession, CodingSessionOptions, Started};
use crate::mcp_servers::McpServers;
use crate::model_provider::model_provider;
use crate::model_selection::ResolvedModel;
use crate::run_model::{load_settings, thinking_budgets};
use crate::run_prompt::PromptOptions;
use crate::runtime_error::RuntimeError;
use crate::settings::Settings;

/// The parts of a coding session that outlive one session file or one model.
#[derive(Clone)]
pub struct SessionSetup {
    /// The directory the agent works in.
    pub cwd: PathBuf,
    /// The agent directory.
    pub agent_dir: Option<PathBuf>,
    /// The tools offered.
    pub tools: ToolRegistry,
    /// The MCP servers behind some of them.
    pub mcp_servers: McpServers,
    /// The approvals.
    pub approvals: ApprovalSetup,
    /// Whom the gate asks.
    pub approver: Arc<dyn Approver>,
    /// What the system prompt is built from.
    pub prompt: PromptOptions,
    /// A context window given on the command line (else the model's).
    pub context_window: Option<u64>,
    /// Whether a batch's calls run one after another.
    pub execution: ExecutionMode,
    /// The most model responses per prompt.
    pub max_turns: Option<usize>,
    /// The time limit of one tool call.
    pub tool_timeout: Option<Duration>,
    /// Stops every session started from this setup.
    pub stop: CancellationToken,
    /// The settings' `thinkingBudgets`.
    pub thinking_budgets: ThinkingBudgets,
    /// The run's wire limits (timeouts, response size, tool choice, a `--base-url`).
    pub wire: ProviderConfig,
    /// When a response that failed transiently is asked for again.
    pub retry: RetryPolicy,
    /// The settings' `images.blockImages`: no image is sent to the model.
    pub block_images: bool,
}

impl SessionSetup {
    /// The same setup for a session working in `cwd` (an editor's session in another
    /// project): the directory the tools, the prompt and the approvals see, that directory's
    /// approvals ([`ApprovalSetup::in_directory`]: its project's rules and trust), and what
    /// the settings decide read again from the merged settings of that directory (its own
    /// `.pi/settings.json` when trusted). The tools are the caller's to set for it, and so
    /// are the tools run outside the sandbox (`approvals.outside_tools`, none until then:
    /// this setup's act on its own directory). The second value: the allow rules an
    /// untrusted project's settings lost, in words.
    pub fn in_directory(&self, cwd: &Path) -> Result<(Self, Vec<String>), RuntimeError> {
        self.in_directory_with_settings(cwd)
            .map(|(setup, _, ignored)| (setup, ignored))
    }

    /// [`SessionSetup::in_directory`], with the merged settings it read (what a front end or
    /// the host applies beyond the setup: the queue modes).
    pub fn in_directory_with_settings(
        &self,
        cwd: &Path,
    ) -> Result<(Self, Settings, Vec<String>), RuntimeError> {
        let (approvals, ignored) = self.approvals.in_directory(cwd)?;
        self.with_approvals(cwd, approvals, ignored)
    }

    /// This setup with everything the files decide read again (Pi's `/reload`): the
    /// settings, and the approval rules ([`ApprovalSetup::reloaded`]); the merged settings
    /// and the ignored allow rules as [`SessionSetup::in_directory_with_settings`] gives them.
    pub fn reloaded(&self) -> Result<(Self, Settings, Vec<String>), RuntimeError> {
        let (approvals, ignored) = self.approvals.reloaded()?;
        self.with_approvals(&self.cwd, approvals, ignored)
    }

    fn with_approvals(
        &self,
        cwd: &Path,
        approvals: ApprovalSetup,
        ignored: Vec<String>,
    ) -> Result<(Self, Settings, Vec<String>), RuntimeError> {
        let mut setup = self.clone();
        let settings = load_settings(self.agent_dir.as_deref(), cwd, approvals.project_trusted)?;
        setup.cwd = cwd.to_path_buf();
        setup.prompt.cwd = cwd.to_path_buf();
        setup.approvals = approvals;
        setup.apply_settings(&settings);
        Ok((setup, settings, ignored))
    }

    /// Takes what `settings` decide for a session: Pi's automatic retry (`retry`) and the
    /// wire's own retries (`retry.provider`), `thinkingBudgets`, `images.blockImages`.
    pub fn apply_settings(&mut self, settings: &Settings) {
        self.retry = RetryPolicy::from_settings(&settings.retry);
        let defaults = pi_providers::RetryPolicy::default();
        self.wire.retry.max_retries = settings
            .retry
            .provider
            .max_retries
            .unwrap_or(defaults.max_retries);
        self.wire.retry.max_delay = settings
            .retry
            .provider
            .max_retry_delay_ms
            .map_or(defaults.max_delay, Duration::from_millis);
        self.thinking_budgets = thinking_budgets(settings);
        self.block_images = settings.images.block_images.unwrap_or(false);
    }

    /// Starts a coding session on `session` with `model`.
    pub fn start(&self, session: Session, model: &ResolvedModel) -> Result<Started, RuntimeError> {
        // The wire names the session to the server (OpenAI's prompt cache key), as Pi does.
        let wire = self.wire.clone().with_session_id(session.id());
        let provider = model_provider(model, self.thinking_budgets, wire, self.block_images)?;
        CodingSession::start(CodingSessionOptions {
            cwd: self.cwd.clone(),
            agent_dir: self.agent_dir.clone(),
            provider,
            tools: self.tools.clone(),
            mcp_servers: self.mcp_servers.clone(),
            session,
            approvals: self.approvals.clone(),
            approver: Arc::clone(&self.approver),
            prompt: self.prompt.clone(),
            context_window: self.context_window.or(Some(model.model.context_window)),
            thinking_level: Some(model.thinking_level.to_string()),
            execution: self.execution,
            max_turns: self.max_turns,
            tool_timeout: self.tool_timeout,
            stop: self.stop.clone(),
            retry: self.retry,
        })
    }
}
