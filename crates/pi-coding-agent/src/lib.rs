//! The coding agent's session runtime: what every front end (the print and JSON modes, the
//! interactive mode in `pi-interactive`, RPC mode, and the ACP server in `pi-acp`) shares about
//! a run, so that none of it lives in a front end's crate.
//!
//! It exists because a coding agent is more than the loop in `pi-agent`: before the first
//! request the model must be told who it is, which tools it has and when to use them, what the
//! project asks of it (`AGENTS.md`, `CLAUDE.md`), the date and the working directory, as Pi's
//! `AgentSession` does for each of its modes. [`CodingSession`] is that runtime: the agent
//! with its prompt, tools and approval gate, the session it is recorded in ([`Recorder`],
//! crash-safe), compaction with the overflow retry ([`run_compacted`]), MCP servers, abort,
//! steering and follow-ups. A front end parses its flags into [`CodingSessionOptions`] and
//! renders the events; it holds no logic another front end would need.
//!
//! **The model of a run** comes from Pi's sources, read as Pi reads them: the built-in
//! catalog of Pi's providers and models ([`Catalog`], facts in `data/models.json`), the agent
//! directory's `models.json` ([`ModelsFile`]) and `auth.json` ([`AuthFile`]), the settings
//! ([`SettingsFiles`]) and the environment ([`Variables`]). [`ModelRegistry`] joins them;
//! [`resolve_model`] chooses in Pi's order (the command line, the `--models` scope, the
//! continued session, the settings, the first provider with a key) and resolves the key, held
//! in a [`Secret`] that never prints. [`list_models`] is `--list-models`; [`calculate_cost`]
//! fills a response's `usage.cost`.
//!
//! ```
//! use pi_coding_agent::{KeySource, ModelRegistry, ModelRequest, Settings, Variables, resolve_model};
//!
//! let agent = tempfile::tempdir().unwrap();
//! std::fs::write(
//!     agent.path().join("models.json"),
//!     r#"{"providers": {"ollama": {"baseUrl": "http://localhost:11434/v1",
//!          "api": "openai-completions", "models": [{"id": "qwen2.5-coder:7b"}]}}}"#,
//! )
//! .unwrap();
//! let mut registry = ModelRegistry::load(agent.path(), Variables::fixed([("A", "b")])).unwrap();
//! let run = resolve_model(&mut registry, &Settings::default(), &ModelRequest::default()).unwrap();
//! assert_eq!(run.model.reference(), "ollama/qwen2.5-coder:7b");
//! assert_eq!(run.credentials.source, KeySource::LocalServer);
//! ```
//!
//! **The system prompt** is built **once per run**, by [`RunPrompt::build`], before the agent starts: the
//! agent keeps the text and sends the same one with every turn (Pi rebuilds it only when the
//! tool set changes, which a `pi-tool` run never does).
//!
//! ```
//! use pi_coding_agent::{OfferedTool, PromptOptions, RunPrompt};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("AGENTS.md"), "Answer in French.").unwrap();
//! let mut options = PromptOptions::new(dir.path());
//! options.agent_dir = None;
//! options.today = "2026-12-07".to_owned();
//! options.tools = vec![OfferedTool::new("read", "Read the contents of a file. Output is cut.")];
//! let prompt = RunPrompt::build(&options);
//! assert!(prompt.text.contains("- read: Read the contents of a file\n"));
//! assert!(prompt.text.contains("Answer in French."));
//! assert!(prompt.text.ends_with(&format!("Working directory: {}", dir.path().display())));
//! ```

mod ambient_credentials;
mod approvals;
mod auth_file;
mod auto_retry;
mod catalog;
mod cli_model;
mod coding_session;
mod collation;
mod compaction;
pub mod config_value;
mod context_files;
mod cost;
mod frontmatter;
mod fuzzy;
mod guidelines;
mod initial_message;
mod json_comments;
mod list_models;
mod local_url;
mod login_provider;
pub mod login_renewal;
mod mcp_servers;
mod model;
mod model_api;
mod model_merge;
mod model_pattern;
mod model_provider;
mod model_registry;
mod model_scope;
mod model_selection;
mod models_file;
mod pi_event_json;
mod prompt_commands;
mod prompt_files;
mod prompt_template;
mod prompt_templates;
mod prompt_text;
mod recorder;
mod resource_paths;
mod resource_patterns;
mod resource_walk;
mod run_model;
mod run_prompt;
mod runtime_error;
mod secret;
mod session_files;
mod session_host;
mod session_open;
mod session_setup;
mod session_stats;
mod session_tree;
mod settings;
mod skill;
mod skills;
mod system_prompt;
mod terminal_text;
mod thinking_level;
mod tool_selection;
mod tools;
mod user_bash;
mod variables;
mod warning;

pub use approvals::{
    ApprovalFlags, ApprovalSetup, NobodyToAsk, suggested_rules, unanswered_reason, what_would_allow,
};
pub use auth_file::{AUTH_FILE, AuthEntry, AuthFile, AuthFileError};
pub use auto_retry::{RetryPolicy, is_transient_failure};
pub use catalog::{Catalog, CatalogError, CatalogProvider};
pub use cli_model::{CliModel, CliModelError, resolve_cli_model};
pub use coding_session::{CodingSession, CodingSessionOptions, PromptOutcome, Started};
pub use compaction::{CompactedRun, Compactor, run_compacted};
pub use context_files::{CONTEXT_FILE_NAMES, ContextFile, MAX_CONTEXT_FILE_BYTES, discover};
pub use cost::calculate_cost;
pub use frontmatter::FrontmatterError;
pub use initial_message::{FileArguments, command_line_prompts, split_file_arguments};
pub use list_models::{ModelList, ModelRow, list_models, token_count};
pub use login_provider::SubscriptionLogin;
pub use mcp_servers::{McpServerSpec, McpServers};
pub use model::{CostRates, CostTier, InputKind, Model, ModelCost, ThinkingLevelMap};
pub use model_api::ModelApi;
pub use model_pattern::{
    PatternMatch, ScopedModel, find_exact_reference, parse_model_pattern, resolve_scope,
    split_patterns,
};
pub use model_provider::model_provider;
pub use model_registry::{Credentials, KeyError, KeySource, ModelRegistry, RegistryError};
pub use model_scope::{CycleDirection, ModelScope, ScopeEntry};
pub use model_selection::{
    ModelChoice, ModelRequest, ResolvedModel, SelectionError, SessionModel, resolve_model,
    select_model,
};
pub use models_file::{
    Compat, CostOverride, DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_TOKENS, MODELS_FILE, ModelDefinition,
    ModelOverride, ModelsConfig, ModelsFile, ModelsFileError, ProviderConfig,
};
pub use pi_event_json::pi_event_json;
pub use pi_export::{ExportError, default_output_path as default_export_path};
pub use prompt_commands::PromptCommands;
pub use prompt_files::{APPEND_SYSTEM_FILE, PROJECT_DIR, SYSTEM_FILE};
pub use prompt_template::{PromptTemplate, parse_command_args, substitute_args};
pub use prompt_text::{PromptText, resolve_text};
pub use recorder::{DEFAULT_THINKING_LEVEL, History, Recorder, approval_records};
pub use run_model::{
    load_registry, load_settings, model_list_text, registry_model, resolve_run_model,
    session_model, thinking_budgets,
};
pub use run_prompt::{PromptOptions, PromptSource, ResourceFlags, RunPrompt, today};
pub use runtime_error::RuntimeError;
pub use secret::Secret;
pub use session_files::{delete_session_file, rename_session_file};
pub use session_host::{Changed, ForkPoint, HostError, SessionHost};
pub use session_open::{
    FoundSession, OpenedSession, SessionTarget, find_session, open_session, session_dir,
};
pub use session_setup::SessionSetup;
pub use session_stats::{ContextUsage, SessionStats, TokenTotals};
pub use session_tree::{TreeFilter, TreePoint, tree_points};
pub use settings::{
    DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_RETRIES, ImageSettings, PROJECT_SETTINGS_DIR,
    ProviderRetrySettings, RetrySettings, SETTINGS_FILE, Settings, SettingsError, SettingsFile,
    SettingsFiles,
};
pub use skill::{MAX_SKILL_DESCRIPTION_CHARS, MAX_SKILL_NAME_CHARS, Skill};
pub use skills::skills_section;
pub use system_prompt::{PromptParts, build_system_prompt};
pub use terminal_text::visible;
pub use thinking_level::{DEFAULT_THINKING, ThinkingLevel, UnknownThinkingLevel};
pub use tool_selection::{DEFAULT_TOOLS, SelectedTools, ToolSelection, name_list};
pub use tools::OfferedTool;
pub use user_bash::{BashExecution, USER_BASH_MAX_BYTES, USER_BASH_MAX_LINES};
pub use variables::Variables;
pub use warning::{PromptWarning, ResourceKind};
