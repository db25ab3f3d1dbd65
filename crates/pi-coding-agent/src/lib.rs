//! The coding agent's session runtime: what every front end (the print and JSON modes of
//! `pi-tool agent` today; interactive, RPC and ACP later) shares about a run, so that none of
//! it lives in the command-line crate.
//!
//! It exists because a coding agent is more than the loop in `pi-agent`: before the first
//! request the model must be told who it is, which tools it has and when to use them, what the
//! project asks of it (`AGENTS.md`, `CLAUDE.md`), the date and the working directory, as Pi's
//! `AgentSession` does for each of its modes. It holds that system prompt and the choice of
//! the model; the session recorder, compaction and the rest of the runtime move here next.
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
//! The system prompt:
//!
//! The prompt is built **once per run**, by [`RunPrompt::build`], before the agent starts: the
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
mod auth_file;
mod catalog;
mod cli_model;
mod collation;
pub mod config_value;
mod context_files;
mod cost;
mod fuzzy;
mod guidelines;
mod json_comments;
mod list_models;
mod local_url;
mod model;
mod model_api;
mod model_merge;
mod model_pattern;
mod model_registry;
mod model_selection;
mod models_file;
mod prompt_files;
mod prompt_text;
mod run_prompt;
mod secret;
mod settings;
mod system_prompt;
mod thinking_level;
mod tools;
mod variables;
mod warning;

pub use auth_file::{AUTH_FILE, AuthEntry, AuthFile, AuthFileError};
pub use catalog::{Catalog, CatalogError, CatalogProvider};
pub use cli_model::{CliModel, CliModelError, resolve_cli_model};
pub use context_files::{CONTEXT_FILE_NAMES, ContextFile, MAX_CONTEXT_FILE_BYTES, discover};
pub use cost::calculate_cost;
pub use list_models::{ModelList, ModelRow, list_models, token_count};
pub use model::{CostRates, CostTier, InputKind, Model, ModelCost, ThinkingLevelMap};
pub use model_api::ModelApi;
pub use model_pattern::{
    PatternMatch, ScopedModel, find_exact_reference, parse_model_pattern, resolve_scope,
    split_patterns,
};
pub use model_registry::{Credentials, KeyError, KeySource, ModelRegistry, RegistryError};
pub use model_selection::{
    ModelChoice, ModelRequest, ResolvedModel, SelectionError, SessionModel, resolve_model,
    select_model,
};
pub use models_file::{
    Compat, CostOverride, DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_TOKENS, MODELS_FILE, ModelDefinition,
    ModelOverride, ModelsConfig, ModelsFile, ModelsFileError, ProviderConfig,
};
pub use prompt_files::{APPEND_SYSTEM_FILE, PROJECT_DIR, SYSTEM_FILE};
pub use prompt_text::{PromptText, resolve_text};
pub use run_prompt::{PromptOptions, PromptSource, RunPrompt, today};
pub use secret::Secret;
pub use settings::{
    DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_RETRIES, PROJECT_SETTINGS_DIR, ProviderRetrySettings,
    RetrySettings, SETTINGS_FILE, Settings, SettingsError, SettingsFile, SettingsFiles,
};
pub use system_prompt::{PromptParts, build_system_prompt};
pub use thinking_level::{ThinkingLevel, UnknownThinkingLevel};
pub use tools::OfferedTool;
pub use variables::Variables;
pub use warning::PromptWarning;
