//! What a person chooses about a model: which, where, with which key, and how to ask.

use std::time::Duration;

use pi_ai::{DEFAULT_MAX_RESPONSE_BYTES, ThinkingBudgets, ThinkingLevel, ThinkingLevelMap};

use crate::{AzureSettings, ModelCompat, RetryPolicy};

/// How long one response may take in all by default: 30 minutes (a long reasoning answer
/// stays well inside it; a server that never stops does not).
pub const DEFAULT_RESPONSE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// Which tools the model may or must call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model decides (the default).
    #[default]
    Auto,
    /// No tool calls.
    None,
    /// At least one tool call.
    Required,
    /// This tool, by name.
    Tool(String),
}

impl std::str::FromStr for ToolChoice {
    type Err = String;

    /// `auto`, `none`, `required`, or a tool's name.
    fn from_str(text: &str) -> Result<Self, String> {
        Ok(match text {
            "auto" => Self::Auto,
            "none" => Self::None,
            "required" | "any" => Self::Required,
            "" => return Err("a tool choice cannot be empty".to_owned()),
            name => Self::Tool(name.to_owned()),
        })
    }
}

/// The settings of one provider.
///
/// ```
/// use pi_providers::ProviderConfig;
///
/// let local = ProviderConfig::new("smollm2").with_base_url("http://127.0.0.1:8080/v1");
/// assert_eq!(local.api_key, None);
/// ```
#[derive(Clone, PartialEq)]
pub struct ProviderConfig {
    /// The model id.
    pub model: String,
    /// Where the API is; `None` for the provider's own. Taken as each official SDK takes it:
    /// OpenAI `http://HOST:PORT/v1`, Anthropic and Gemini `http://HOST:PORT`.
    pub base_url: Option<String>,
    /// The API key; optional for a local server.
    pub api_key: Option<String>,
    /// Which tools the model may call.
    pub tool_choice: ToolChoice,
    /// The output token limit (Anthropic requires one: 4096 when unset).
    pub max_tokens: Option<u64>,
    /// How failed requests are retried.
    pub retry: RetryPolicy,
    /// How long the answer may go without an event before the request fails (default 300 s).
    /// Only events count: SSE comments (`: keep-alive`) and stray bytes do not, so a server
    /// cannot hold a response open by trickling them.
    pub read_timeout: Duration,
    /// How long one response may take in all, from the request to its last event, retries
    /// included (default 30 minutes): a server sending events without end is stopped here.
    pub response_timeout: Duration,
    /// The most one response may hold: text, thinking and tool calls (ids, names, arguments)
    /// together (default [`DEFAULT_MAX_RESPONSE_BYTES`], 32 MiB). Past it the response ends at
    /// once as an `error` naming the limit, and nothing more is read. One SSE event may be at
    /// most twice this plus 1 MiB (JSON escaping makes events larger than what they carry).
    pub max_response_bytes: usize,
    /// OpenAI strict mode for function calling (both OpenAI wires; the other wires refuse it):
    /// the tools are rendered in [`Dialect::OpenAiStrict`](pi_tool::dialect::Dialect) and sent
    /// with `strict: true`, so the model's arguments always match the rendered schema; the
    /// `null`s it then sends for optional properties are removed again before validation.
    pub strict_tools: bool,
    /// The provider's name stamped on every message (`deepseek`, `groq`, ...); `None` for the
    /// wire's own (`openai`, `anthropic`, `google`, `azure-openai-responses`). Pi's
    /// compatibility detection reads it too.
    pub provider: Option<String>,
    /// How hard the model is asked to think (default `off`). Sent only when
    /// [`Self::reasoning`] is set, and clamped to the levels [`Self::thinking_level_map`]
    /// allows.
    pub thinking: ThinkingLevel,
    /// Token budgets per level for the wires that think by budget (Pi's `thinkingBudgets`).
    pub thinking_budgets: ThinkingBudgets,
    /// The model's `thinkingLevelMap`: the levels it has and the value each sends.
    pub thinking_level_map: ThinkingLevelMap,
    /// The model reasons (Pi's `reasoning` flag): thinking parameters are sent only then.
    pub reasoning: bool,
    /// The model's own output limit (Pi's `maxTokens` in the catalog): used when
    /// [`Self::max_tokens`] is unset, and as the ceiling when a thinking budget is added.
    pub model_max_tokens: Option<u64>,
    /// Extra request headers (from `models.json`), sent after the wire's own and replacing
    /// any of the same name. Their values never appear in a log or a `Debug` print.
    pub headers: Vec<(String, String)>,
    /// The model's `compat` options (see [`ModelCompat`]).
    pub compat: ModelCompat,
    /// Azure OpenAI's settings (only the Azure provider reads them).
    pub azure: AzureSettings,
    /// How long the prompt cache is kept (Pi's `cacheRetention`, `PI_CACHE_RETENTION`).
    pub cache_retention: crate::CacheRetention,
    /// The session's id, as Pi passes it to the wire: OpenAI's `prompt_cache_key` (so the
    /// server routes a session's requests to the same cache) and the session headers some
    /// servers route by. `None`: neither is sent.
    pub session_id: Option<String>,
}

impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key never reaches a log.
        f.debug_struct("ProviderConfig")
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("tool_choice", &self.tool_choice)
            .field("max_tokens", &self.max_tokens)
            .field("retry", &self.retry)
            .field("read_timeout", &self.read_timeout)
            .field("response_timeout", &self.response_timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("strict_tools", &self.strict_tools)
            .field("provider", &self.provider)
            .field("thinking", &self.thinking)
            .field("thinking_budgets", &self.thinking_budgets)
            .field("thinking_level_map", &self.thinking_level_map)
            .field("reasoning", &self.reasoning)
            .field("model_max_tokens", &self.model_max_tokens)
            // Header values can be credentials: only the names are shown.
            .field(
                "headers",
                &self
                    .headers
                    .iter()
                    .map(|(name, _)| (name.as_str(), "<set>"))
                    .collect::<Vec<_>>(),
            )
            .field("compat", &self.compat)
            .field("azure", &self.azure)
            .field("cache_retention", &self.cache_retention)
            .field("session_id", &self.session_id)
            .finish()
    }
}

impl ProviderConfig {
    /// Settings for `model` with every default.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            base_url: None,
            api_key: None,
            tool_choice: ToolChoice::Auto,
            max_tokens: None,
            retry: RetryPolicy::default(),
            read_timeout: Duration::from_secs(300),
            response_timeout: DEFAULT_RESPONSE_TIMEOUT,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            strict_tools: false,
            provider: None,
            thinking: ThinkingLevel::Off,
            thinking_budgets: ThinkingBudgets::default(),
            thinking_level_map: ThinkingLevelMap::default(),
            reasoning: false,
            model_max_tokens: None,
            headers: Vec::new(),
            compat: ModelCompat::default(),
            azure: AzureSettings::default(),
            cache_retention: crate::CacheRetention::default(),
            session_id: None,
        }
    }

    /// The session's id (see [`ProviderConfig::session_id`]).
    #[must_use]
    pub fn with_session_id(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(id.into());
        self
    }

    /// The provider's name on every message (see [`ProviderConfig::provider`]).
    #[must_use]
    pub fn with_provider(mut self, name: impl Into<String>) -> Self {
        self.provider = Some(name.into());
        self
    }

    /// The thinking level (see [`ProviderConfig::thinking`]).
    #[must_use]
    pub fn with_thinking(mut self, level: ThinkingLevel) -> Self {
        self.thinking = level;
        self
    }

    /// Token budgets per thinking level.
    #[must_use]
    pub fn with_thinking_budgets(mut self, budgets: ThinkingBudgets) -> Self {
        self.thinking_budgets = budgets;
        self
    }

    /// The model's thinking level map.
    #[must_use]
    pub fn with_thinking_level_map(mut self, map: ThinkingLevelMap) -> Self {
        self.thinking_level_map = map;
        self
    }

    /// Whether the model reasons (see [`ProviderConfig::reasoning`]).
    #[must_use]
    pub fn with_reasoning(mut self, reasoning: bool) -> Self {
        self.reasoning = reasoning;
        self
    }

    /// The output token limit asked for.
    #[must_use]
    pub fn with_max_tokens(mut self, max_tokens: u64) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// The model's own output limit (see [`ProviderConfig::model_max_tokens`]).
    #[must_use]
    pub fn with_model_max_tokens(mut self, max_tokens: u64) -> Self {
        self.model_max_tokens = Some(max_tokens);
        self
    }

    /// One more request header (see [`ProviderConfig::headers`]).
    #[must_use]
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The model's `compat` options.
    #[must_use]
    pub fn with_compat(mut self, compat: ModelCompat) -> Self {
        self.compat = compat;
        self
    }

    /// Azure OpenAI's settings.
    #[must_use]
    pub fn with_azure(mut self, azure: AzureSettings) -> Self {
        self.azure = azure;
        self
    }

    /// The output limit to send: the one asked for, else the model's own.
    pub(crate) fn output_limit(&self) -> Option<u64> {
        self.max_tokens.or(self.model_max_tokens)
    }

    /// Another API location.
    #[must_use]
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The API key.
    #[must_use]
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Which tools the model may call.
    #[must_use]
    pub fn with_tool_choice(mut self, choice: ToolChoice) -> Self {
        self.tool_choice = choice;
        self
    }

    /// OpenAI strict mode for the tools (see [`ProviderConfig::strict_tools`]).
    #[must_use]
    pub fn with_strict_tools(mut self, strict: bool) -> Self {
        self.strict_tools = strict;
        self
    }

    /// How long the answer may go without an event before the request fails (default 300 s;
    /// see [`ProviderConfig::read_timeout`]).
    #[must_use]
    pub fn with_read_timeout(mut self, timeout: Duration) -> Self {
        self.read_timeout = timeout;
        self
    }

    /// How long one response may take in all (default 30 minutes; see
    /// [`ProviderConfig::response_timeout`]).
    #[must_use]
    pub fn with_response_timeout(mut self, timeout: Duration) -> Self {
        self.response_timeout = timeout;
        self
    }

    /// The most one response may hold (default 32 MiB; see
    /// [`ProviderConfig::max_response_bytes`]).
    #[must_use]
    pub fn with_max_response_bytes(mut self, limit: usize) -> Self {
        self.max_response_bytes = limit;
        self
    }

    /// The retry policy.
    #[must_use]
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// The base URL without a trailing slash, or `default`.
    pub(crate) fn base(&self, default: &str) -> String {
        self.base_url
            .as_deref()
            .unwrap_or(default)
            .trim_end_matches('/')
            .to_owned()
    }
}

/// A provider that cannot be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProviderError {
    /// The HTTP client could not be made.
    #[error("the HTTP client could not be built")]
    Client(#[source] reqwest::Error),
    /// A setting this wire does not have.
    #[error("{0}")]
    Unsupported(String),
    /// Azure OpenAI was given no endpoint.
    #[error(
        "Azure OpenAI needs an endpoint: set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, \
         or give a base URL"
    )]
    AzureEndpointMissing,
    /// A base URL that does not parse.
    #[error("the base URL {url:?} is not a URL")]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// Why it does not parse.
        #[source]
        source: url::ParseError,
    },
}
