//! The models a run can choose from, built as Pi builds them: the built-in catalog, changed
//! and extended by models.json; whether and which key each has is in [`credentials`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod credentials;

pub use credentials::{Credentials, KeyError, KeySource};

use crate::auth_file::{AuthFile, AuthFileError};
use crate::catalog::{Catalog, CatalogError};
use crate::model::{InputKind, Model};
use crate::model_merge::{apply_override, merge_compat};
use crate::models_file::{
    DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_TOKENS, MODELS_FILE, ModelsFile, ModelsFileError,
    ProviderConfig, merged_headers,
};
use crate::secret::Secret;
use crate::variables::Variables;

/// Facts about a provider the registry answers from.
#[derive(Debug, Clone, Default, PartialEq)]
struct ProviderFacts {
    env_keys: Vec<String>,
    default_model: Option<String>,
    display_name: Option<String>,
}

/// What models.json says about requests to a provider.
#[derive(Debug, Clone, Default)]
struct ProviderRequest {
    api_key: Option<Secret>,
    headers: BTreeMap<String, Secret>,
    auth_header: bool,
}

/// The files of the agent directory that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// The built-in catalog.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// models.json.
    #[error(transparent)]
    ModelsFile(#[from] ModelsFileError),
    /// auth.json.
    #[error(transparent)]
    AuthFile(#[from] AuthFileError),
}

/// The models and their keys.
#[derive(Debug, Clone)]
pub struct ModelRegistry {
    models: Vec<Model>,
    facts: BTreeMap<String, ProviderFacts>,
    default_order: Vec<String>,
    requests: BTreeMap<String, ProviderRequest>,
    model_headers: BTreeMap<(String, String), BTreeMap<String, Secret>>,
    configured_providers: BTreeSet<String>,
    auth: AuthFile,
    vars: Variables,
    runtime_keys: BTreeMap<String, Secret>,
    models_path: PathBuf,
    /// Providers whose login this registry renewed: their token is used even when the renewal
    /// gave one already expired (the wire renews it again before its request, as Pi does).
    renewed: BTreeSet<String>,
}

impl ModelRegistry {
    /// The registry of `agent_dir`: the built-in catalog with its `models.json`, keys from its
    /// `auth.json` and from `vars`.
    pub fn load(agent_dir: &Path, vars: Variables) -> Result<Self, RegistryError> {
        let catalog = Catalog::builtin().map_err(Clone::clone)?;
        let models = ModelsFile::load_from_agent_dir(agent_dir, catalog)?;
        let auth = AuthFile::load_from_agent_dir(agent_dir)?;
        Ok(Self::new(catalog, &models, auth, vars))
    }

    /// The registry of `catalog` as changed by `models`, with keys from `auth` and `vars`.
    pub fn new(catalog: &Catalog, models: &ModelsFile, auth: AuthFile, vars: Variables) -> Self {
        let facts = catalog
            .providers
            .iter()
            .map(|provider| {
                let facts = ProviderFacts {
                    env_keys: provider.env_keys.clone(),
                    default_model: provider.default_model.clone(),
                    display_name: Some(provider.display_name.clone()),
                };
                (provider.id.clone(), facts)
            })
            .collect();
        let mut registry = Self {
            models: Vec::new(),
            facts,
            default_order: catalog.default_order.clone(),
            requests: BTreeMap::new(),
            model_headers: BTreeMap::new(),
            configured_providers: models.config.providers.keys().cloned().collect(),
            auth,
            vars,
            runtime_keys: BTreeMap::new(),
            renewed: BTreeSet::new(),
            models_path: models
                .path
                .clone()
                .unwrap_or_else(|| PathBuf::from(MODELS_FILE)),
        };
        registry.build(catalog, models);
        registry
    }

    fn build(&mut self, catalog: &Catalog, file: &ModelsFile) {
        let providers = &file.config.providers;
        for (name, config) in providers {
            if config.api_key.is_some() || config.headers.is_some() || config.auth_header.is_some()
            {
                let request = ProviderRequest {
                    api_key: config.api_key.clone(),
                    headers: merged_headers([config.headers.as_ref()]),
                    auth_header: config.auth_header.unwrap_or(false),
                };
                self.requests.insert(name.clone(), request);
            }
            for (id, change) in config.model_overrides.iter().flatten() {
                if let Some(headers) = &change.headers {
                    let key = (name.clone(), id.clone());
                    self.model_headers
                        .insert(key, merged_headers([Some(headers)]));
                }
            }
        }
        let mut models: Vec<Model> = catalog.models().cloned().collect();
        for model in &mut models {
            let Some(config) = providers.get(&model.provider) else {
                continue;
            };
            if config.base_url.is_some() || config.compat.is_some() {
                if let Some(base_url) = &config.base_url {
                    model.base_url.clone_from(base_url);
                }
                model.compat = merge_compat(model.compat.as_ref(), config.compat.as_ref());
            }
            if let Some(change) = config
                .model_overrides
                .as_ref()
                .and_then(|o| o.get(&model.id))
            {
                apply_override(model, change);
            }
        }
        for (name, config) in providers {
            for custom in self.custom_models(catalog, name, config) {
                match models
                    .iter_mut()
                    .find(|model| model.provider == custom.provider && model.id == custom.id)
                {
                    Some(existing) => *existing = custom,
                    None => models.push(custom),
                }
            }
        }
        self.models = models;
    }

    /// The models a models.json provider defines, with Pi's defaults.
    fn custom_models(
        &mut self,
        catalog: &Catalog,
        name: &str,
        config: &ProviderConfig,
    ) -> Vec<Model> {
        let built_in = catalog
            .provider(name)
            .and_then(|provider| provider.models.first());
        let mut models = Vec::new();
        for definition in config.models.iter().flatten() {
            let api = definition
                .api
                .clone()
                .or_else(|| config.api.clone())
                .or_else(|| built_in.map(|model| model.api.clone()));
            let base_url = definition
                .base_url
                .clone()
                .or_else(|| config.base_url.clone())
                .or_else(|| built_in.map(|model| model.base_url.clone()));
            let (Some(api), Some(base_url)) = (api, base_url) else {
                continue;
            };
            let key = (name.to_owned(), definition.id.clone());
            match &definition.headers {
                Some(headers) if !headers.is_empty() => {
                    self.model_headers
                        .insert(key, merged_headers([Some(headers)]));
                }
                _ => {
                    self.model_headers.remove(&key);
                }
            }
            models.push(Model {
                provider: name.to_owned(),
                id: definition.id.clone(),
                name: definition
                    .name
                    .clone()
                    .unwrap_or_else(|| definition.id.clone()),
                api,
                base_url,
                reasoning: definition.reasoning.unwrap_or(false),
                thinking_level_map: definition.thinking_level_map.clone().unwrap_or_default(),
                input: definition
                    .input
                    .clone()
                    .unwrap_or_else(|| vec![InputKind::Text]),
                cost: definition.cost.clone().unwrap_or_default(),
                context_window: definition.context_window.unwrap_or(DEFAULT_CONTEXT_WINDOW),
                max_tokens: definition.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
                headers: BTreeMap::new(),
                compat: merge_compat(config.compat.as_ref(), definition.compat.as_ref()),
            });
        }
        models
    }

    /// Every model, built-in first, in Pi's order.
    pub fn all(&self) -> &[Model] {
        &self.models
    }

    /// The models whose provider has a key (or needs none), in order.
    pub fn available(&self) -> Vec<&Model> {
        self.models
            .iter()
            .filter(|model| self.has_configured_auth(model))
            .collect()
    }

    /// The model `id` of `provider`.
    pub fn find(&self, provider: &str, id: &str) -> Option<&Model> {
        self.models
            .iter()
            .find(|model| model.provider == provider && model.id == id)
    }

    /// The providers whose default model Pi tries first, in order.
    pub fn default_order(&self) -> &[String] {
        &self.default_order
    }

    /// The model Pi picks for `provider` when none is named.
    pub fn default_model_of(&self, provider: &str) -> Option<&str> {
        self.facts.get(provider)?.default_model.as_deref()
    }

    /// The environment variables that hold `provider`'s key, in Pi's order.
    pub fn env_keys_of(&self, provider: &str) -> &[String] {
        self.facts
            .get(provider)
            .map_or(&[], |facts| facts.env_keys.as_slice())
    }

    /// The models.json this registry read (or its bare name).
    pub fn models_path(&self) -> &Path {
        &self.models_path
    }

    /// Uses `key` for `provider` before every other source (`--api-key`).
    pub fn set_runtime_key(&mut self, provider: &str, key: Secret) {
        self.runtime_keys.insert(provider.to_owned(), key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model_api::ModelApi;

    fn registry(models_json: &str, auth: AuthFile, vars: Variables) -> ModelRegistry {
        let catalog = Catalog::builtin().unwrap();
        let file =
            ModelsFile::parse(Path::new("/agent/models.json"), models_json, catalog).unwrap();
        ModelRegistry::new(catalog, &file, auth, vars)
    }

    #[test]
    fn without_keys_nothing_is_available() {
        let registry = registry(
            "{\"providers\": {}}",
            AuthFile::empty(),
            Variables::fixed::<&str, &str>([]),
        );
        assert!(registry.all().len() > 500);
        assert!(registry.available().is_empty());
    }

    #[test]
    fn a_key_variable_makes_its_provider_available() {
        let registry = registry(
            "{\"providers\": {}}",
            AuthFile::empty(),
            Variables::fixed([("GEMINI_API_KEY", "g-1")]),
        );
        let available = registry.available();
        assert!(!available.is_empty());
        assert!(available.iter().all(|model| model.provider == "google"));
        let credentials = registry.credentials(available[0]).unwrap();
        assert_eq!(credentials.key.unwrap().expose(), "g-1");
        assert_eq!(
            credentials.source,
            KeySource::Environment("GEMINI_API_KEY".to_owned())
        );
    }

    #[test]
    fn models_json_adds_models_moves_providers_and_overrides_fields() {
        let registry = registry(
            r#"{"providers": {
                "ollama": {"baseUrl": "http://localhost:11434/v1", "api": "openai-completions",
                           "compat": {"supportsDeveloperRole": false},
                           "models": [{"id": "qwen", "reasoning": true, "compat": {"thinkingFormat": "qwen"}}]},
                "anthropic": {"baseUrl": "https://proxy.example.com",
                              "modelOverrides": {"claude-haiku-4-5": {"name": "Haiku", "cost": {"input": 2}}},
                              "models": [{"id": "claude-private"}]}}}"#,
            AuthFile::empty(),
            Variables::fixed::<&str, &str>([]),
        );
        let qwen = registry.find("ollama", "qwen").unwrap();
        assert_eq!(qwen.api, ModelApi::OpenAiCompletions);
        assert_eq!((qwen.context_window, qwen.max_tokens), (128_000, 16_384));
        let compat = serde_json::Value::Object(qwen.compat.clone().unwrap());
        assert_eq!(
            compat,
            serde_json::json!({"supportsDeveloperRole": false, "thinkingFormat": "qwen"})
        );
        let haiku = registry.find("anthropic", "claude-haiku-4-5").unwrap();
        assert_eq!(haiku.base_url, "https://proxy.example.com");
        assert_eq!(haiku.name, "Haiku");
        assert_eq!(
            (haiku.cost.rates.input, haiku.cost.rates.output),
            (2.0, 5.0)
        );
        // A built-in provider's own model inherits its wire.
        let private = registry.find("anthropic", "claude-private").unwrap();
        assert_eq!(private.api, ModelApi::AnthropicMessages);
        assert_eq!(private.base_url, "https://proxy.example.com");
        // The local server needs no key; nothing else is available.
        let available: Vec<_> = registry
            .available()
            .iter()
            .map(|model| model.reference())
            .collect();
        assert_eq!(available, ["ollama/qwen"]);
        let credentials = registry.credentials(qwen).unwrap();
        assert_eq!(
            (credentials.key, credentials.source),
            (None, KeySource::LocalServer)
        );
    }
}
