//! One model as the registry knows it: where it is served, over which wire, what it accepts,
//! what it costs. Built-in models come from the catalog; models.json adds and changes them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model_api::ModelApi;
use crate::thinking_level::ThinkingLevel;

/// What a model accepts besides text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InputKind {
    /// Text.
    Text,
    /// Images.
    Image,
}

/// One set of prices, in dollars per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CostRates {
    /// Input tokens not read from the cache.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Tokens read from the prompt cache.
    pub cache_read: f64,
    /// Tokens written to the prompt cache.
    pub cache_write: f64,
}

/// Prices that replace the base ones for a whole request whose input (fresh, cached and
/// written to the cache) exceeds `input_tokens_above`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CostTier {
    /// The threshold in tokens (strictly above it).
    pub input_tokens_above: u64,
    /// The rates above it.
    #[serde(flatten)]
    pub rates: CostRates,
}

/// A model's prices: base rates and optional long-context tiers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCost {
    /// The base rates.
    #[serde(flatten)]
    pub rates: CostRates,
    /// Tiers by input size; the highest one exceeded applies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tiers: Vec<CostTier>,
}

/// Per thinking level: absent means the wire's default mapping (and, for `xhigh` and `max`,
/// unsupported), `Some(None)` (JSON `null`) unsupported, `Some(Some(value))` supported and sent
/// as `value`.
pub type ThinkingLevelMap = BTreeMap<ThinkingLevel, Option<String>>;

/// A model of a provider, with everything a wire needs but the key.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// The provider's name (`anthropic`, or a models.json provider's key).
    pub provider: String,
    /// The id sent to the API.
    pub id: String,
    /// A human-readable name, also matched by `--model` patterns.
    pub name: String,
    /// The wire.
    pub api: ModelApi,
    /// The API's base URL.
    pub base_url: String,
    /// Whether the model can be asked to think.
    pub reasoning: bool,
    /// Model-specific thinking levels.
    pub thinking_level_map: ThinkingLevelMap,
    /// What it accepts.
    pub input: Vec<InputKind>,
    /// Its prices.
    pub cost: ModelCost,
    /// The context window in tokens.
    pub context_window: u64,
    /// The most output tokens per response.
    pub max_tokens: u64,
    /// Fixed headers of the catalog (values are literal, never keys).
    pub headers: BTreeMap<String, String>,
    /// Wire compatibility flags, as Pi names them (`supportsDeveloperRole`, `thinkingFormat`,
    /// `forceAdaptiveThinking`, ...), kept as JSON for the wires to read.
    pub compat: Option<serde_json::Map<String, serde_json::Value>>,
}

impl Model {
    /// The model as Pi's RPC mode describes one (`get_state`, `get_available_models`): id,
    /// name, api, provider, baseUrl, reasoning, input, cost, contextWindow, maxTokens, and the
    /// headers, compat and thinking levels when it has them. Header values are the catalog's
    /// literal ones, never keys.
    pub fn to_pi_json(&self) -> serde_json::Value {
        let mut shown = serde_json::json!({
            "id": self.id,
            "name": self.name,
            "api": self.api.as_str(),
            "provider": self.provider,
            "baseUrl": self.base_url,
            "reasoning": self.reasoning,
            "input": self.input,
            "cost": self.cost,
            "contextWindow": self.context_window,
            "maxTokens": self.max_tokens,
        });
        if let Some(object) = shown.as_object_mut() {
            if !self.headers.is_empty() {
                object.insert("headers".into(), serde_json::json!(self.headers));
            }
            if let Some(compat) = &self.compat {
                object.insert("compat".into(), serde_json::Value::Object(compat.clone()));
            }
            if !self.thinking_level_map.is_empty() {
                object.insert(
                    "thinkingLevelMap".into(),
                    serde_json::json!(self.thinking_level_map),
                );
            }
        }
        shown
    }

    /// Whether the model accepts images.
    pub fn accepts_images(&self) -> bool {
        self.input.contains(&InputKind::Image)
    }

    /// `provider/id`, the canonical reference.
    pub fn reference(&self) -> String {
        format!("{}/{}", self.provider, self.id)
    }

    /// The thinking levels the model supports, in order, by Pi's rule: only `off` for a model
    /// that does not reason; otherwise every level its map does not mark unsupported, where
    /// `xhigh` and `max` must be named by the map.
    pub fn supported_thinking_levels(&self) -> Vec<ThinkingLevel> {
        if !self.reasoning {
            return vec![ThinkingLevel::Off];
        }
        ThinkingLevel::ALL
            .into_iter()
            .filter(|level| match self.thinking_level_map.get(level) {
                Some(None) => false,
                Some(Some(_)) => true,
                None => !matches!(level, ThinkingLevel::Xhigh | ThinkingLevel::Max),
            })
            .collect()
    }

    /// `level` if the model supports it; else the nearest supported level above it, else the
    /// nearest below it (Pi's clamp). A model that does not reason gets `off`.
    pub fn clamp_thinking_level(&self, level: ThinkingLevel) -> ThinkingLevel {
        let supported = self.supported_thinking_levels();
        if supported.contains(&level) {
            return level;
        }
        let above = supported
            .iter()
            .filter(|candidate| **candidate > level)
            .min();
        let below = supported
            .iter()
            .filter(|candidate| **candidate < level)
            .max();
        above
            .or(below)
            .or(supported.first())
            .copied()
            .unwrap_or(ThinkingLevel::Off)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(reasoning: bool, map: &[(ThinkingLevel, Option<&str>)]) -> Model {
        Model {
            provider: "p".to_owned(),
            id: "m".to_owned(),
            name: "m".to_owned(),
            api: ModelApi::OpenAiCompletions,
            base_url: "http://x".to_owned(),
            reasoning,
            thinking_level_map: map
                .iter()
                .map(|(level, value)| (*level, value.map(str::to_owned)))
                .collect(),
            input: vec![InputKind::Text],
            cost: ModelCost::default(),
            context_window: 1,
            max_tokens: 1,
            headers: BTreeMap::new(),
            compat: None,
        }
    }

    #[test]
    fn a_model_that_does_not_reason_is_clamped_to_off() {
        let plain = model(false, &[]);
        assert_eq!(plain.supported_thinking_levels(), [ThinkingLevel::Off]);
        assert_eq!(
            plain.clamp_thinking_level(ThinkingLevel::High),
            ThinkingLevel::Off
        );
    }

    #[test]
    fn xhigh_and_max_need_the_map_and_clamp_to_the_nearest_level() {
        let standard = model(true, &[]);
        assert_eq!(
            standard.clamp_thinking_level(ThinkingLevel::Max),
            ThinkingLevel::High
        );
        assert_eq!(
            standard.clamp_thinking_level(ThinkingLevel::Low),
            ThinkingLevel::Low
        );

        // Claude Fable 5 in Pi's catalog: off unsupported, xhigh and max named.
        let always_thinking = model(
            true,
            &[
                (ThinkingLevel::Off, None),
                (ThinkingLevel::Xhigh, Some("xhigh")),
                (ThinkingLevel::Max, Some("max")),
            ],
        );
        assert_eq!(
            always_thinking.clamp_thinking_level(ThinkingLevel::Off),
            ThinkingLevel::Minimal
        );
        assert_eq!(
            always_thinking.clamp_thinking_level(ThinkingLevel::Max),
            ThinkingLevel::Max
        );

        // Only high and max: medium goes up to high, xhigh up to max.
        let holes = model(
            true,
            &[
                (ThinkingLevel::Minimal, None),
                (ThinkingLevel::Low, None),
                (ThinkingLevel::Medium, None),
                (ThinkingLevel::Max, Some("max")),
            ],
        );
        assert_eq!(
            holes.clamp_thinking_level(ThinkingLevel::Medium),
            ThinkingLevel::High
        );
        assert_eq!(
            holes.clamp_thinking_level(ThinkingLevel::Xhigh),
            ThinkingLevel::Max
        );
    }
}
