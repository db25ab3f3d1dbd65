//! Why a coding session could not start or go on: each variant names the file or flag at fault
//! and keeps the error underneath, so a front end prints one line a person can act on.

use std::path::PathBuf;

/// A failure of the session runtime.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RuntimeError {
    /// A session file could not be opened, read, forked or written.
    #[error("{what}")]
    Session {
        /// What was being done, with the file (`opening /x.jsonl`).
        what: String,
        /// Why.
        #[source]
        source: pi_session::SessionError,
    },
    /// A directory or file the runtime needs could not be read.
    #[error("{what}")]
    Io {
        /// What was being done, with the path.
        what: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// There is no agent directory (no home, no `PI_CODING_AGENT_DIR`).
    #[error("no home directory for ~/.pi/agent: set PI_CODING_AGENT_DIR or pass --session-dir")]
    NoAgentDir,
    /// `--session` or `--fork` named no session.
    #[error("no session id starts with {prefix:?} (looked in {looked_in})")]
    NoSuchSession {
        /// The id prefix given.
        prefix: String,
        /// Where it was looked for.
        looked_in: String,
    },
    /// An id prefix that two sessions share.
    #[error(
        "the id prefix {prefix:?} names more than one session: {}; give more of the id",
        paths.iter().map(|path| path.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    AmbiguousSession {
        /// The id prefix given.
        prefix: String,
        /// The sessions it names.
        paths: Vec<PathBuf>,
    },
    /// An empty id names no session.
    #[error("an empty session id names no session")]
    EmptySessionId,
    /// A `--session-id` that cannot be a session id.
    #[error(
        "the session id {0:?} must be letters, digits, '.', '_' and '-', starting and ending with a letter or digit"
    )]
    InvalidSessionId(String),
    /// `--fork` with `--session-id` named an id a session of the project already has.
    #[error("a session with the id {0:?} already exists")]
    SessionIdTaken(String),
    /// `--fork` named a file that does not exist.
    #[error("--fork {0}: no such session file")]
    NoFileToFork(String),
    /// An approval rule given on the command line is not a rule.
    #[error("--{flag} {rule:?}")]
    Rule {
        /// `allow`, `ask` or `deny`.
        flag: &'static str,
        /// The rule as given.
        rule: String,
        /// Why it is not one.
        #[source]
        source: pi_approval::RuleError,
    },
    /// A settings file's `permissions` cannot be used.
    #[error(transparent)]
    ApprovalSettings(#[from] pi_approval::settings::SettingsError),
    /// A settings file's `compaction` cannot be used.
    #[error(transparent)]
    CompactionSettings(#[from] pi_agent::compaction::SettingsError),
    /// Pi's `models.json` cannot be used.
    #[error(transparent)]
    ModelsFile(#[from] pi_agent::compaction::ModelsFileError),
    /// An MCP server could not be started or its tools imported.
    #[error("starting MCP server {command:?}")]
    McpServer {
        /// The server's command line.
        command: String,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The chosen model speaks a wire this program does not have yet.
    #[error("{model} speaks {api}, a wire this program does not have yet")]
    UnbuiltWire {
        /// `provider/id`.
        model: String,
        /// Pi's name of the wire.
        api: String,
    },
    /// A model's `compat` options have a known key of the wrong shape.
    #[error("the compat options of {model} in models.json")]
    Compat {
        /// `provider/id`.
        model: String,
        /// Which key, and why.
        #[source]
        source: serde_json::Error,
    },
    /// The model's provider could not be set up (a malformed base URL).
    #[error("setting up {model}")]
    Provider {
        /// `provider/id`.
        model: String,
        /// Why.
        #[source]
        source: pi_providers::ProviderError,
    },
    /// The model registry could not be read (the catalog, `models.json`, `auth.json`).
    #[error(transparent)]
    Registry(#[from] crate::model_registry::RegistryError),
    /// The built-in catalog does not parse (a build defect).
    #[error(transparent)]
    Catalog(#[from] crate::catalog::CatalogError),
    /// A settings file cannot be used.
    #[error(transparent)]
    Settings(#[from] crate::settings::SettingsError),
    /// No model can be used, or the one named has no key.
    #[error(transparent)]
    Model(#[from] crate::model_selection::SelectionError),
    /// Something that cannot be done while a prompt runs.
    #[error("{0} is not possible while a prompt runs")]
    Busy(&'static str),
    /// A compaction asked for did not happen.
    #[error("the session was not compacted")]
    Compaction {
        /// Why.
        #[source]
        source: pi_agent::compaction::CompactionError,
    },
    /// `--mcp` was given an empty command.
    #[error("--mcp needs a command")]
    EmptyMcpCommand,
}
