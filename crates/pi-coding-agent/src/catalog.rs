//! The built-in catalog: Pi's providers and models, as facts in `data/models.json` (written by
//! `scripts/generate-model-catalog.sh` from Pi's own catalog), embedded in the binary and
//! parsed once, on first use.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::model::{InputKind, Model, ModelCost, ThinkingLevelMap};
use crate::model_api::ModelApi;

/// The catalog file, compact JSON.
const CATALOG_JSON: &str = include_str!("../data/models.json");

/// A provider of the catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogProvider {
    /// Its name (`anthropic`), the key of `auth.json` and models.json.
    pub id: String,
    /// How Pi shows it (`Anthropic`).
    pub display_name: String,
    /// The environment variables that hold its key, the first set one winning.
    pub env_keys: Vec<String>,
    /// The model Pi picks for it when none is named.
    pub default_model: Option<String>,
    /// Its models, in Pi's order.
    pub models: Vec<Model>,
}

/// Pi's built-in providers and models.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    /// Which Pi catalog the facts come from (`@earendil-works/pi-ai 0.80.6`).
    pub source: String,
    /// The providers, in Pi's order.
    pub providers: Vec<CatalogProvider>,
    /// The providers whose default model Pi tries first when nothing is chosen, in order.
    pub default_order: Vec<String>,
}

/// The embedded catalog cannot be read (a bad regeneration; the tests catch it).
#[derive(Debug, Clone, thiserror::Error)]
#[error("the built-in model catalog (data/models.json) is not valid: {0}")]
pub struct CatalogError(String);

impl Catalog {
    /// The built-in catalog, parsed on the first call.
    pub fn builtin() -> Result<&'static Catalog, &'static CatalogError> {
        static CATALOG: OnceLock<Result<Catalog, CatalogError>> = OnceLock::new();
        CATALOG.get_or_init(|| Self::parse(CATALOG_JSON)).as_ref()
    }

    /// A catalog from text in the format of `data/models.json`.
    pub fn parse(json: &str) -> Result<Catalog, CatalogError> {
        let raw: RawCatalog =
            serde_json::from_str(json).map_err(|error| CatalogError(error.to_string()))?;
        let providers = raw
            .providers
            .into_iter()
            .map(|provider| CatalogProvider {
                models: provider
                    .models
                    .into_iter()
                    .map(|model| model.into_model(&provider.id))
                    .collect(),
                id: provider.id,
                display_name: provider.name,
                env_keys: provider.env_keys,
                default_model: provider.default_model,
            })
            .collect();
        Ok(Catalog {
            source: raw.source,
            providers,
            default_order: raw.default_order,
        })
    }

    /// The provider named `id`.
    pub fn provider(&self, id: &str) -> Option<&CatalogProvider> {
        self.providers.iter().find(|provider| provider.id == id)
    }

    /// Every model, provider by provider, in Pi's order.
    pub fn models(&self) -> impl Iterator<Item = &Model> {
        self.providers.iter().flat_map(|provider| &provider.models)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCatalog {
    source: String,
    default_order: Vec<String>,
    providers: Vec<RawProvider>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawProvider {
    id: String,
    name: String,
    #[serde(default)]
    env_keys: Vec<String>,
    default_model: Option<String>,
    models: Vec<RawModel>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawModel {
    id: String,
    name: String,
    api: ModelApi,
    base_url: String,
    reasoning: bool,
    #[serde(default)]
    thinking_level_map: ThinkingLevelMap,
    input: Vec<InputKind>,
    cost: ModelCost,
    context_window: u64,
    max_tokens: u64,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    compat: Option<serde_json::Map<String, serde_json::Value>>,
}

impl RawModel {
    fn into_model(self, provider: &str) -> Model {
        Model {
            provider: provider.to_owned(),
            id: self.id,
            name: self.name,
            api: self.api,
            base_url: self.base_url,
            reasoning: self.reasoning,
            thinking_level_map: self.thinking_level_map,
            input: self.input,
            cost: self.cost,
            context_window: self.context_window,
            max_tokens: self.max_tokens,
            headers: self.headers,
            compat: self.compat,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::thinking_level::ThinkingLevel;

    #[test]
    fn the_embedded_catalog_parses_with_pi_providers_and_prices() {
        let catalog = Catalog::builtin().unwrap();
        assert!(catalog.source.starts_with("@earendil-works/pi-ai "));
        for (provider, api) in [
            ("anthropic", ModelApi::AnthropicMessages),
            ("openai", ModelApi::OpenAiResponses),
            ("google", ModelApi::GoogleGenerativeAi),
            ("amazon-bedrock", ModelApi::BedrockConverseStream),
            ("azure-openai-responses", ModelApi::AzureOpenAiResponses),
            ("google-vertex", ModelApi::GoogleVertex),
        ] {
            let found = catalog.provider(provider).unwrap();
            assert!(!found.models.is_empty(), "{provider}");
            assert!(
                found.models.iter().all(|model| model.api == api),
                "{provider}"
            );
            assert!(
                found
                    .models
                    .iter()
                    .any(|model| model.cost.rates.input > 0.0),
                "{provider}"
            );
        }
        for provider in [
            "mistral",
            "groq",
            "cerebras",
            "xai",
            "openrouter",
            "deepseek",
            "together",
        ] {
            assert!(catalog.provider(provider).is_some(), "{provider}");
        }
        let anthropic = catalog.provider("anthropic").unwrap();
        assert_eq!(
            anthropic.env_keys,
            ["ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"]
        );
        assert_eq!(
            catalog.provider("google").unwrap().env_keys,
            ["GEMINI_API_KEY"]
        );
        assert_eq!(anthropic.default_model.as_deref(), Some("claude-opus-4-8"));
        assert_eq!(
            catalog.default_order.first().map(String::as_str),
            Some("amazon-bedrock")
        );
    }

    #[test]
    fn a_known_model_carries_pi_facts() {
        let catalog = Catalog::builtin().unwrap();
        let haiku = catalog
            .models()
            .find(|model| model.provider == "anthropic" && model.id == "claude-haiku-4-5")
            .unwrap();
        assert_eq!(haiku.base_url, "https://api.anthropic.com");
        assert_eq!((haiku.context_window, haiku.max_tokens), (200_000, 64_000));
        assert!(haiku.reasoning && haiku.accepts_images());
        assert_eq!(haiku.cost.rates.input, 1.0);
        assert_eq!(haiku.cost.rates.output, 5.0);
        assert_eq!(haiku.cost.rates.cache_read, 0.1);
        assert_eq!(haiku.cost.rates.cache_write, 1.25);
        let fable = catalog
            .models()
            .find(|model| model.provider == "anthropic" && model.id == "claude-fable-5")
            .unwrap();
        assert_eq!(
            fable.thinking_level_map.get(&ThinkingLevel::Off),
            Some(&None)
        );
        let compat = fable.compat.as_ref().unwrap();
        assert_eq!(
            compat.get("forceAdaptiveThinking"),
            Some(&serde_json::Value::Bool(true))
        );
    }

    #[test]
    fn a_broken_catalog_is_an_error_not_a_panic() {
        let error = Catalog::parse("{\"providers\": 1}").unwrap_err();
        assert!(error.to_string().contains("data/models.json"));
    }
}
