//! How many tokens a model's context holds: `--context-window` first, then Pi's `models.json`
//! (custom providers and models), then a built-in table of the models the README names.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Context windows of well-known models, by model id (a dated id such as
/// `claude-sonnet-4-5-20250929` matches its undated prefix).
const BUILT_IN: &[(&str, u64)] = &[
    ("gpt-4.1", 1_047_576),
    ("gpt-4.1-mini", 1_047_576),
    ("gpt-4.1-nano", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4o-mini", 128_000),
    ("gpt-5", 400_000),
    ("gpt-5-mini", 400_000),
    ("gpt-5.1", 400_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("claude-sonnet-4-5", 200_000),
    ("claude-sonnet-4", 200_000),
    ("claude-opus-4-1", 200_000),
    ("claude-haiku-4-5", 200_000),
    ("gemini-2.5-flash", 1_048_576),
    ("gemini-2.5-pro", 1_048_576),
    ("gemini-2.0-flash", 1_048_576),
];

/// The built-in context window of `model`, if the table knows it.
///
/// ```
/// use pi_agent::compaction::built_in_context_window;
/// assert_eq!(built_in_context_window("claude-sonnet-4-5-20250929"), Some(200_000));
/// assert_eq!(built_in_context_window("my-local-model"), None);
/// ```
pub fn built_in_context_window(model: &str) -> Option<u64> {
    if let Some((_, window)) = BUILT_IN.iter().find(|(id, _)| *id == model) {
        return Some(*window);
    }
    // The longest id that is a prefix followed by `-` (a date or a variant).
    BUILT_IN
        .iter()
        .filter(|(id, _)| {
            model
                .strip_prefix(id)
                .is_some_and(|rest| rest.starts_with('-'))
        })
        .max_by_key(|(id, _)| id.len())
        .map(|(_, window)| *window)
}

/// Pi's `models.json`: `{"providers": {"<name>": {"models": [{"id", "contextWindow"}]}}}`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ModelsFile {
    #[serde(default)]
    providers: std::collections::BTreeMap<String, ProviderModels>,
}

#[derive(Debug, Clone, Default, Deserialize)]
struct ProviderModels {
    #[serde(default)]
    models: Vec<ModelEntry>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ModelEntry {
    id: String,
    #[serde(default)]
    context_window: Option<u64>,
}

/// A `models.json` that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ModelsFileError {
    /// It exists but could not be read.
    #[error("reading {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not the shape Pi writes.
    #[error("{path} is not a models.json Pi can read")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
}

impl ModelsFile {
    /// Reads `<agent_dir>/models.json`; a missing file lists no models.
    pub fn load(agent_dir: &Path) -> Result<Self, ModelsFileError> {
        let path = agent_dir.join("models.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Self::default());
            }
            Err(source) => return Err(ModelsFileError::Read { path, source }),
        };
        serde_json::from_str(&text).map_err(|source| ModelsFileError::Invalid { path, source })
    }

    /// The context window the file gives `model`: under `provider` first, then under any
    /// provider.
    pub fn context_window(&self, provider: &str, model: &str) -> Option<u64> {
        let find = |models: &ProviderModels| {
            models
                .models
                .iter()
                .find(|entry| entry.id == model)
                .and_then(|entry| entry.context_window)
        };
        self.providers
            .get(provider)
            .and_then(find)
            .or_else(|| self.providers.values().find_map(find))
    }
}

/// The context window of `model`: `flag` (the `--context-window` option), else `models.json`,
/// else the built-in table; `None` when nobody knows (the loop then compacts only on an
/// overflow error).
pub fn resolve_context_window(
    flag: Option<u64>,
    models: &ModelsFile,
    provider: &str,
    model: &str,
) -> Option<u64> {
    flag.or_else(|| models.context_window(provider, model))
        .or_else(|| built_in_context_window(model))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn flag_then_models_json_then_table() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("models.json"),
            r#"{"providers":{"local":{"baseUrl":"http://127.0.0.1:8080/v1","api":"openai-completions",
               "models":[{"id":"qwen2.5-coder","contextWindow":32768,"maxTokens":4096},{"id":"gpt-4.1","contextWindow":1000}]}}}"#,
        )
        .unwrap();
        let models = ModelsFile::load(dir.path()).unwrap();
        assert_eq!(
            resolve_context_window(Some(5), &models, "local", "qwen2.5-coder"),
            Some(5)
        );
        assert_eq!(
            resolve_context_window(None, &models, "llama", "qwen2.5-coder"),
            Some(32_768)
        );
        assert_eq!(
            resolve_context_window(None, &models, "local", "gpt-4.1"),
            Some(1000)
        );
        assert_eq!(
            resolve_context_window(None, &ModelsFile::default(), "openai", "gpt-4.1"),
            Some(1_047_576)
        );
        assert_eq!(resolve_context_window(None, &models, "x", "unknown"), None);
        assert_eq!(
            built_in_context_window("gpt-4.1-mini-2025-04-14"),
            Some(1_047_576)
        );
    }

    #[test]
    fn a_broken_models_json_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("models.json"), "{not json").unwrap();
        let error = ModelsFile::load(dir.path()).unwrap_err();
        assert!(error.to_string().contains("models.json"), "{error}");
        assert!(
            ModelsFile::load(&dir.path().join("absent"))
                .unwrap()
                .context_window("a", "b")
                .is_none()
        );
    }
}
