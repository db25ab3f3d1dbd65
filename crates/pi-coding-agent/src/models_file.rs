//! `<agent dir>/models.json` as Pi reads it: custom providers and models, and changes to the
//! built-in ones.
//!
//! ```json
//! {"providers": {
//!    "ollama": {"baseUrl": "http://localhost:11434/v1", "api": "openai-completions",
//!               "models": [{"id": "qwen2.5-coder:7b"}]},
//!    "anthropic": {"baseUrl": "https://proxy.example.com",
//!                  "modelOverrides": {"claude-opus-4-8": {"maxTokens": 32000}}}}}
//! ```
//!
//! As in Pi: `//` comments and trailing commas are allowed, unknown keys are ignored, a
//! provider that is not built in needs `baseUrl` and an `api` (on it or on each model), and
//! `apiKey` and header values are resolved when a model is used (see [`crate::config_value`]).
//! Unlike Pi, which warns and goes on without the file, a file that cannot be used is an error
//! naming it and the field, so a typo does not send a run to another server.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::Deserialize;

use crate::catalog::Catalog;
use crate::json_comments::strip_comments_and_trailing_commas;
use crate::model::{CostTier, InputKind, ModelCost, ThinkingLevelMap};
use crate::model_api::ModelApi;
use crate::secret::Secret;

/// The file's name in the agent directory.
pub const MODELS_FILE: &str = "models.json";

/// Pi's context window for a custom model that names none.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;
/// Pi's output limit for a custom model that names none.
pub const DEFAULT_MAX_TOKENS: u64 = 16_384;

/// Wire compatibility flags, as written.
pub type Compat = serde_json::Map<String, serde_json::Value>;

/// The contents of models.json.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelsConfig {
    /// By provider name, in the file's order.
    pub providers: IndexMap<String, ProviderConfig>,
}

/// One provider's entry.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConfig {
    /// A display name.
    pub name: Option<String>,
    /// The API's base URL (for a built-in provider: moves all its models there).
    pub base_url: Option<String>,
    /// The key, as written (literal, `$VAR`, `!command`).
    pub api_key: Option<Secret>,
    /// The wire of its models.
    pub api: Option<ModelApi>,
    /// Headers sent with every request, values as written.
    pub headers: Option<IndexMap<String, Secret>>,
    /// Compatibility flags for all its models.
    pub compat: Option<Compat>,
    /// Whether to add `Authorization: Bearer <key>`.
    pub auth_header: Option<bool>,
    /// Models added (or replacing built-in ones with the same id).
    pub models: Option<Vec<ModelDefinition>>,
    /// Changes to built-in models, by id.
    pub model_overrides: Option<IndexMap<String, ModelOverride>>,
}

/// A custom model; only `id` is required.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelDefinition {
    /// The id sent to the API.
    pub id: String,
    /// A name (default: the id).
    pub name: Option<String>,
    /// Its wire (default: the provider's).
    pub api: Option<ModelApi>,
    /// Its base URL (default: the provider's).
    pub base_url: Option<String>,
    /// Whether it reasons (default: no).
    pub reasoning: Option<bool>,
    /// Its thinking levels.
    pub thinking_level_map: Option<ThinkingLevelMap>,
    /// What it accepts (default: text).
    pub input: Option<Vec<InputKind>>,
    /// Its prices (default: free).
    pub cost: Option<ModelCost>,
    /// Its context window (default: 128000).
    pub context_window: Option<u64>,
    /// Its output limit (default: 16384).
    pub max_tokens: Option<u64>,
    /// Headers for its requests, values as written.
    pub headers: Option<IndexMap<String, Secret>>,
    /// Compatibility flags, merged over the provider's.
    pub compat: Option<Compat>,
}

/// Changes to one built-in model; each field set replaces the model's (prices field by field,
/// compatibility flags merged).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelOverride {
    /// A new name.
    pub name: Option<String>,
    /// Whether it reasons.
    pub reasoning: Option<bool>,
    /// Thinking levels, merged over the model's.
    pub thinking_level_map: Option<ThinkingLevelMap>,
    /// What it accepts.
    pub input: Option<Vec<InputKind>>,
    /// Prices, field by field.
    pub cost: Option<CostOverride>,
    /// The context window.
    pub context_window: Option<u64>,
    /// The output limit.
    pub max_tokens: Option<u64>,
    /// Headers for its requests, values as written.
    pub headers: Option<IndexMap<String, Secret>>,
    /// Compatibility flags, merged over the model's.
    pub compat: Option<Compat>,
}

/// Prices of an override, each optional.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CostOverride {
    /// Input, per million tokens.
    pub input: Option<f64>,
    /// Output, per million tokens.
    pub output: Option<f64>,
    /// Cache reads, per million tokens.
    pub cache_read: Option<f64>,
    /// Cache writes, per million tokens.
    pub cache_write: Option<f64>,
    /// Long-context tiers.
    pub tiers: Option<Vec<CostTier>>,
}

/// A models.json that cannot be used. Never holds a key.
#[derive(Debug, thiserror::Error)]
pub enum ModelsFileError {
    /// It exists but cannot be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It is not JSON.
    #[error("{} is not valid JSON (line {line}, column {column})", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// Where.
        line: usize,
        /// Where.
        column: usize,
    },
    /// A field has the wrong shape or a required one is missing.
    #[error("{}: {field}: {what}", path.display())]
    Field {
        /// The file.
        path: PathBuf,
        /// The field (`providers.ollama.models[0].contextWindow`).
        field: String,
        /// What is wrong.
        what: String,
    },
}

/// models.json, read.
#[derive(Debug, Clone, Default)]
pub struct ModelsFile {
    /// The file read or looked for, if any.
    pub path: Option<PathBuf>,
    /// What it says.
    pub config: ModelsConfig,
}

impl ModelsFile {
    /// `models.json` in `agent_dir`; empty when it does not exist.
    pub fn load_from_agent_dir(
        agent_dir: &Path,
        catalog: &Catalog,
    ) -> Result<Self, ModelsFileError> {
        Self::load(&agent_dir.join(MODELS_FILE), catalog)
    }

    /// The file at `path`, checked against the built-in providers of `catalog`; empty when it
    /// does not exist (the path is kept: messages say where to create it).
    pub fn load(path: &Path, catalog: &Catalog) -> Result<Self, ModelsFileError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(path, &text, catalog),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Self {
                path: Some(path.to_path_buf()),
                config: ModelsConfig::default(),
            }),
            Err(source) => Err(ModelsFileError::Read {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// `text`, read as the file `path`.
    pub fn parse(path: &Path, text: &str, catalog: &Catalog) -> Result<Self, ModelsFileError> {
        let field_error = |field: String, what: String| ModelsFileError::Field {
            path: path.to_path_buf(),
            field,
            what,
        };
        let stripped = strip_comments_and_trailing_commas(text);
        let value: serde_json::Value =
            serde_json::from_str(&stripped).map_err(|error| ModelsFileError::Json {
                path: path.to_path_buf(),
                line: error.line(),
                column: error.column(),
            })?;
        let config: ModelsConfig = serde_path_to_error::deserialize(value).map_err(|error| {
            let field = error.path().to_string();
            field_error(field, without_quoted_text(&error.into_inner().to_string()))
        })?;
        validate(&config, catalog).map_err(|(field, what)| field_error(field, what))?;
        Ok(Self {
            path: Some(path.to_path_buf()),
            config,
        })
    }
}

/// serde's `invalid type: string "sk-...", expected ...` would print a key written in the
/// wrong place; the quoted text is dropped.
fn without_quoted_text(message: &str) -> String {
    match (message.find(" \""), message.rfind("\", ")) {
        (Some(open), Some(close)) if open < close => {
            let before = message.get(..open).unwrap_or_default();
            let after = message.get(close + 1..).unwrap_or_default();
            format!("{before}{after}")
        }
        _ => message.to_owned(),
    }
}

/// Pi's checks beyond the shape, as `(field, what)`.
fn validate(config: &ModelsConfig, catalog: &Catalog) -> Result<(), (String, String)> {
    for (name, provider) in &config.providers {
        let at = format!("providers.{name}");
        let built_in = catalog.provider(name).is_some();
        let models = provider.models.as_deref().unwrap_or_default();
        let has_overrides = provider
            .model_overrides
            .as_ref()
            .is_some_and(|o| !o.is_empty());
        if models.is_empty() {
            if provider.base_url.is_none()
                && provider.headers.is_none()
                && provider.compat.is_none()
                && !has_overrides
            {
                return Err((
                    at,
                    "set \"baseUrl\", \"headers\", \"compat\", \"modelOverrides\" or \"models\""
                        .to_owned(),
                ));
            }
        } else if !built_in && provider.base_url.as_deref().is_none_or(str::is_empty) {
            return Err((
                format!("{at}.baseUrl"),
                "required for a provider's own models".to_owned(),
            ));
        }
        for (index, model) in models.iter().enumerate() {
            let at = format!("{at}.models[{index}]");
            if model.id.is_empty() {
                return Err((format!("{at}.id"), "must not be empty".to_owned()));
            }
            if !built_in && provider.api.is_none() && model.api.is_none() {
                return Err((
                    format!("{at}.api"),
                    "no \"api\": set it on the provider or the model".to_owned(),
                ));
            }
            for (field, value) in [
                ("contextWindow", model.context_window),
                ("maxTokens", model.max_tokens),
            ] {
                if value == Some(0) {
                    return Err((format!("{at}.{field}"), "must be above 0".to_owned()));
                }
            }
        }
    }
    Ok(())
}

/// Request headers as written, in order; a later map's value for the same name wins.
pub(crate) fn merged_headers<'a>(
    maps: impl IntoIterator<Item = Option<&'a IndexMap<String, Secret>>>,
) -> BTreeMap<String, Secret> {
    let mut merged = BTreeMap::new();
    for map in maps.into_iter().flatten() {
        for (name, value) in map {
            merged.insert(name.clone(), value.clone());
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog() -> &'static Catalog {
        Catalog::builtin().unwrap()
    }

    fn parse(text: &str) -> Result<ModelsFile, ModelsFileError> {
        ModelsFile::parse(Path::new("/agent/models.json"), text, catalog())
    }

    #[test]
    fn a_local_provider_with_comments_and_unknown_keys_is_read() {
        let file = parse(
            r#"{
              // my server
              "providers": {"ollama": {"baseUrl": "http://localhost:11434/v1", "api": "openai-completions",
                "future": true,
                "models": [{"id": "qwen2.5-coder:7b", "contextWindow": 32000},]}}}"#,
        )
        .unwrap();
        let ollama = &file.config.providers["ollama"];
        let models = ollama.models.as_ref().unwrap();
        assert_eq!(models[0].id, "qwen2.5-coder:7b");
        assert_eq!(models[0].context_window, Some(32000));
        assert_eq!(ollama.api, Some(ModelApi::OpenAiCompletions));
    }

    #[test]
    fn errors_name_the_file_and_the_field() {
        let error = parse(r#"{"providers": {"x": {"baseUrl": "http://h", "api": "openai-completions", "models": [{"id": "m", "contextWindow": "big"}]}}}"#)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with(
                "/agent/models.json: providers.x.models[0].contextWindow: invalid type"
            ),
            "{error}"
        );
        assert!(!error.contains("big"), "{error}");

        let error = parse(
            r#"{"providers": {"x": {"api": "openai-completions", "models": [{"id": "m"}]}}}"#,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            error,
            "/agent/models.json: providers.x.baseUrl: required for a provider's own models"
        );

        let error =
            parse(r#"{"providers": {"x": {"baseUrl": "http://h", "models": [{"id": "m"}]}}}"#)
                .unwrap_err()
                .to_string();
        assert_eq!(
            error,
            "/agent/models.json: providers.x.models[0].api: no \"api\": set it on the provider or the model"
        );

        let error = parse(r#"{"providers": {"anthropic": {}}}"#)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("/agent/models.json: providers.anthropic: set \"baseUrl\""),
            "{error}"
        );

        let error = parse("{\"providers\": {").unwrap_err().to_string();
        assert!(
            error.starts_with("/agent/models.json is not valid JSON (line 1"),
            "{error}"
        );
    }

    #[test]
    fn a_built_in_provider_needs_neither_base_url_nor_api() {
        let file = parse(r#"{"providers": {"openai": {"models": [{"id": "gpt-x"}]}}}"#).unwrap();
        assert_eq!(
            file.config.providers["openai"]
                .models
                .as_ref()
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn a_missing_file_is_no_configuration() {
        let dir = tempfile::tempdir().unwrap();
        let file = ModelsFile::load_from_agent_dir(dir.path(), catalog()).unwrap();
        assert!(file.config.providers.is_empty());
        assert_eq!(file.path, Some(dir.path().join("models.json")));
    }
}
