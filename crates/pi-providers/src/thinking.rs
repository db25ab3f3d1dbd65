//! The thinking level on each wire, as Pi maps it.
//!
//! The level is first clamped to one the model has ([`ThinkingLevelMap::clamp`]); a model not
//! marked as reasoning gets no thinking parameters at all. Then each wire says it its own way:
//! a `reasoning_effort` (OpenAI Chat and its compatible dialects), `reasoning: {effort,
//! summary}` (OpenAI Responses), a token budget or adaptive thinking (Anthropic), a budget or
//! a `thinkingLevel` (Gemini). `off` is said explicitly where Pi says it.

use pi_ai::{LevelMapping, ThinkingLevel};
use serde_json::{Map, Value, json};

use crate::ProviderConfig;
use crate::compat::{ChatCompat, ThinkingFormat};

/// Anthropic refuses a budget under this.
const MIN_BUDGET: u64 = 1024;
/// What Anthropic keeps for the answer when the budget would take all of `max_tokens`.
const MIN_ANSWER_TOKENS: u64 = 1024;
/// The Responses API refuses an output limit under this.
const MIN_RESPONSES_OUTPUT: u64 = 16;
/// The Anthropic beta that lets budget thinking happen between tool calls.
pub(crate) const INTERLEAVED_THINKING_BETA: &str = "interleaved-thinking-2025-05-14";

/// The level to ask for, clamped to the model's levels; `None` for no thinking (`off`, or a
/// model that does not reason).
pub(crate) fn requested(config: &ProviderConfig) -> Option<ThinkingLevel> {
    if config.thinking == ThinkingLevel::Off {
        return None;
    }
    let level = config
        .thinking_level_map
        .clamp(config.thinking, config.reasoning);
    (level != ThinkingLevel::Off).then_some(level)
}

/// The wire value for `level`: the model's map, else the level's own name.
fn mapped(config: &ProviderConfig, level: ThinkingLevel) -> String {
    config
        .thinking_level_map
        .value(level)
        .unwrap_or(level.as_str())
        .to_owned()
}

/// The value the map sends for `off`: `Err(())` when the model cannot turn thinking off (say
/// nothing), `Ok(None)` when the map is silent.
fn off_value(config: &ProviderConfig) -> Result<Option<&str>, ()> {
    match config.thinking_level_map.get(ThinkingLevel::Off) {
        LevelMapping::Unsupported => Err(()),
        LevelMapping::Default => Ok(None),
        LevelMapping::Value(value) => Ok(Some(value)),
    }
}

/// OpenAI Chat Completions: the thinking fields of `compat`'s dialect, added to `body`.
pub(crate) fn chat(config: &ProviderConfig, compat: &ChatCompat, body: &mut Map<String, Value>) {
    if !config.reasoning {
        return;
    }
    let level = requested(config);
    let effort = level.map(|level| mapped(config, level));
    let on = level.is_some();
    let mut set = |key: &str, value: Value| {
        body.insert(key.to_owned(), value);
    };
    match compat.thinking_format {
        ThinkingFormat::Zai => {
            set(
                "thinking",
                if on {
                    json!({"type": "enabled", "clear_thinking": false})
                } else {
                    json!({"type": "disabled"})
                },
            );
            if let Some(effort) = effort.filter(|_| compat.supports_reasoning_effort) {
                set("reasoning_effort", json!(effort));
            }
        }
        ThinkingFormat::Qwen => set("enable_thinking", json!(on)),
        ThinkingFormat::QwenChatTemplate => set(
            "chat_template_kwargs",
            json!({"enable_thinking": on, "preserve_thinking": true}),
        ),
        ThinkingFormat::ChatTemplate => {
            let kwargs = chat_template_kwargs(config, level);
            if !kwargs.is_empty() {
                set("chat_template_kwargs", Value::Object(kwargs));
            }
        }
        ThinkingFormat::Deepseek => {
            if on {
                set("thinking", json!({"type": "enabled"}));
            } else if off_value(config).is_ok() {
                set("thinking", json!({"type": "disabled"}));
            }
            if let Some(effort) = effort.filter(|_| compat.supports_reasoning_effort) {
                set("reasoning_effort", json!(effort));
            }
        }
        ThinkingFormat::Openrouter => match (effort, off_value(config)) {
            (Some(effort), _) => set("reasoning", json!({"effort": effort})),
            (None, Ok(off)) => set("reasoning", json!({"effort": off.unwrap_or("none")})),
            (None, Err(())) => {}
        },
        ThinkingFormat::AntLing => {
            // Only a level the model's map names is sent.
            if let Some(value) = level.and_then(|level| config.thinking_level_map.value(level)) {
                set("reasoning", json!({"effort": value}));
            }
        }
        ThinkingFormat::Together => {
            set("reasoning", json!({"enabled": on}));
            if let Some(effort) = effort.filter(|_| compat.supports_reasoning_effort) {
                set("reasoning_effort", json!(effort));
            }
        }
        ThinkingFormat::StringThinking => match (effort, off_value(config)) {
            (Some(effort), _) => set("thinking", json!(effort)),
            (None, Ok(off)) => set("thinking", json!(off.unwrap_or("none"))),
            (None, Err(())) => {}
        },
        ThinkingFormat::Openai => {
            if !compat.supports_reasoning_effort {
                return;
            }
            match effort {
                Some(effort) => set("reasoning_effort", json!(effort)),
                // Off is said only when the model's map names a value for it.
                None => {
                    if let Ok(Some(off)) = off_value(config) {
                        set("reasoning_effort", json!(off));
                    }
                }
            }
        }
    }
}

/// `chat_template_kwargs` with Pi's `$var` values filled in from the level.
fn chat_template_kwargs(
    config: &ProviderConfig,
    level: Option<ThinkingLevel>,
) -> Map<String, Value> {
    let mut kwargs = Map::new();
    for (key, value) in config.compat.chat_template_kwargs.iter().flatten() {
        let resolved = match value {
            Value::Object(spec) => {
                let omit_when_off = spec.get("omitWhenOff").and_then(Value::as_bool) == Some(true);
                if level.is_none() && omit_when_off {
                    continue;
                }
                if spec.get("$var").and_then(Value::as_str) == Some("thinking.enabled") {
                    json!(level.is_some())
                } else {
                    let mapping = config
                        .thinking_level_map
                        .get(level.unwrap_or(ThinkingLevel::Off));
                    match (mapping, level) {
                        (LevelMapping::Value(value), _) => json!(value),
                        (LevelMapping::Default, Some(level)) => json!(level.as_str()),
                        _ => continue,
                    }
                }
            }
            other => other.clone(),
        };
        kwargs.insert(key.clone(), resolved);
    }
    kwargs
}

/// OpenAI Responses (and Azure): `reasoning` and `include`, added to `body`.
pub(crate) fn responses(config: &ProviderConfig, provider: &str, body: &mut Map<String, Value>) {
    if !config.reasoning {
        return;
    }
    match requested(config) {
        Some(level) => {
            body.insert(
                "reasoning".into(),
                json!({"effort": mapped(config, level), "summary": "auto"}),
            );
            // Reasoning comes back encrypted so it can be replayed without server storage.
            body.insert("include".into(), json!(["reasoning.encrypted_content"]));
        }
        None => {
            if provider != "github-copilot"
                && let Ok(off) = off_value(config)
            {
                body.insert("reasoning".into(), json!({"effort": off.unwrap_or("none")}));
            }
        }
    }
}

/// The Responses output limit: the one set (or the model's), at least 16.
pub(crate) fn responses_output_limit(config: &ProviderConfig) -> Option<u64> {
    config
        .output_limit()
        .map(|limit| limit.max(MIN_RESPONSES_OUTPUT))
}

/// Anthropic's thinking: what the request carries.
#[derive(Debug, PartialEq)]
pub(crate) struct AnthropicThinking {
    /// `max_tokens`.
    pub(crate) max_tokens: u64,
    /// `thinking`, if any.
    pub(crate) thinking: Option<Value>,
    /// `output_config`, if any (adaptive thinking's effort).
    pub(crate) output_config: Option<Value>,
    /// Whether the interleaved-thinking beta header goes with it (budget thinking only:
    /// adaptive thinking interleaves by itself).
    pub(crate) interleaved_beta: bool,
}

/// Anthropic: the output limit and the thinking, from the config (`default_max` when no limit
/// is known).
pub(crate) fn anthropic(config: &ProviderConfig, default_max: u64) -> AnthropicThinking {
    let base = config.output_limit().unwrap_or(default_max);
    let mut out = AnthropicThinking {
        max_tokens: base,
        thinking: None,
        output_config: None,
        interleaved_beta: false,
    };
    if !config.reasoning {
        return out;
    }
    let Some(level) = requested(config) else {
        if off_value(config).is_ok() {
            out.thinking = Some(json!({"type": "disabled"}));
        }
        return out;
    };
    if config.compat.force_adaptive_thinking == Some(true) {
        let effort = config
            .thinking_level_map
            .value(level)
            .map_or_else(|| adaptive_effort(level).to_owned(), str::to_owned);
        out.thinking = Some(json!({"type": "adaptive", "display": "summarized"}));
        out.output_config = Some(json!({"effort": effort}));
        return out;
    }
    // Pi's budget rule: the budget is added to the asked-for limit, within the model's.
    let mut budget = config.thinking_budgets.budget(level);
    let max_tokens = match (config.max_tokens, config.model_max_tokens) {
        (None, Some(model)) => model,
        (Some(asked), Some(model)) => asked.saturating_add(budget).min(model),
        (asked, None) => asked.unwrap_or(base).saturating_add(budget),
    };
    if max_tokens <= budget {
        budget = max_tokens.saturating_sub(MIN_ANSWER_TOKENS);
    }
    budget = budget.min(max_tokens.saturating_sub(MIN_ANSWER_TOKENS));
    if budget == 0 {
        budget = MIN_BUDGET;
    }
    out.max_tokens = max_tokens;
    out.thinking =
        Some(json!({"type": "enabled", "budget_tokens": budget, "display": "summarized"}));
    out.interleaved_beta = true;
    out
}

/// Adaptive thinking's effort for a level the model's map does not name.
fn adaptive_effort(level: ThinkingLevel) -> &'static str {
    match level {
        ThinkingLevel::Minimal | ThinkingLevel::Low => "low",
        ThinkingLevel::Medium => "medium",
        _ => "high",
    }
}

/// Gemini: `generationConfig.thinkingConfig`, if any.
pub(crate) fn gemini(config: &ProviderConfig) -> Option<Value> {
    if !config.reasoning {
        return None;
    }
    let model = config.model.to_ascii_lowercase();
    let family = GeminiFamily::of(&model);
    let Some(level) = requested(config) else {
        // Gemini 3 cannot turn thinking off: its lowest level, with the thoughts hidden.
        return Some(match family {
            GeminiFamily::Pro3 => json!({"thinkingLevel": "LOW"}),
            GeminiFamily::Flash3 | GeminiFamily::Gemma4 => json!({"thinkingLevel": "MINIMAL"}),
            GeminiFamily::Other => json!({"thinkingBudget": 0}),
        });
    };
    let level = level.at_most_high();
    if family == GeminiFamily::Other {
        let budget = config.thinking_budgets.custom(level).map_or_else(
            || gemini_budget(&model, level),
            |budget| i64::try_from(budget).unwrap_or(i64::MAX),
        );
        return Some(json!({"includeThoughts": true, "thinkingBudget": budget}));
    }
    let name = match (family, level) {
        (GeminiFamily::Pro3, ThinkingLevel::Minimal | ThinkingLevel::Low) => "LOW",
        (GeminiFamily::Pro3 | GeminiFamily::Gemma4, _) if level >= ThinkingLevel::Medium => "HIGH",
        (GeminiFamily::Gemma4, _) => "MINIMAL",
        (_, ThinkingLevel::Minimal) => "MINIMAL",
        (_, ThinkingLevel::Low) => "LOW",
        (_, ThinkingLevel::Medium) => "MEDIUM",
        _ => "HIGH",
    };
    Some(json!({"includeThoughts": true, "thinkingLevel": name}))
}

/// Which Gemini models take a `thinkingLevel` rather than a budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GeminiFamily {
    /// `gemini-3-pro`, `gemini-3.1-pro`, ...
    Pro3,
    /// `gemini-3-flash`, `gemini-3.1-flash-lite`, `gemini-flash-latest`, ...
    Flash3,
    /// `gemma-4`, `gemma4`.
    Gemma4,
    /// Gemini 2.x and the rest: a token budget.
    Other,
}

impl GeminiFamily {
    fn of(model: &str) -> Self {
        // `gemini-3` followed by an optional `.N`, then the variant.
        let gemini3 = |variant: &str| {
            model.match_indices("gemini-3").any(|(at, found)| {
                let rest = model.get(at + found.len()..).unwrap_or_default();
                let rest = match rest.strip_prefix('.') {
                    Some(minor) => minor.trim_start_matches(|c: char| c.is_ascii_digit()),
                    None => rest,
                };
                rest.starts_with(variant)
            })
        };
        if model.contains("gemma-4") || model.contains("gemma4") {
            Self::Gemma4
        } else if gemini3("-pro") {
            Self::Pro3
        } else if gemini3("-flash")
            || model == "gemini-flash-latest"
            || model == "gemini-flash-lite-latest"
        {
            Self::Flash3
        } else {
            Self::Other
        }
    }
}

/// Pi's Gemini 2.5 budgets per level; -1 (the model decides) for other models.
fn gemini_budget(model: &str, level: ThinkingLevel) -> i64 {
    let table: [i64; 4] = if model.contains("2.5-pro") {
        [128, 2048, 8192, 32_768]
    } else if model.contains("2.5-flash-lite") {
        [512, 2048, 8192, 24_576]
    } else if model.contains("2.5-flash") {
        [128, 2048, 8192, 24_576]
    } else {
        return -1;
    };
    let [minimal, low, medium, high] = table;
    match level {
        ThinkingLevel::Minimal => minimal,
        ThinkingLevel::Low => low,
        ThinkingLevel::Medium => medium,
        _ => high,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gemini_families_are_told_apart_as_pi_does() {
        for (model, family) in [
            ("gemini-3-pro-preview", GeminiFamily::Pro3),
            ("gemini-3.1-pro-preview", GeminiFamily::Pro3),
            ("gemini-3-flash-preview", GeminiFamily::Flash3),
            ("gemini-3.1-flash-lite", GeminiFamily::Flash3),
            ("gemini-flash-latest", GeminiFamily::Flash3),
            ("gemma-4-31b-it", GeminiFamily::Gemma4),
            ("gemini-2.5-flash", GeminiFamily::Other),
            ("gemini-30-pro", GeminiFamily::Other),
        ] {
            assert_eq!(GeminiFamily::of(model), family, "{model}");
        }
    }
}
