//! How models.json changes built-in models, as Pi merges: compatibility flags over the
//! model's (three routing objects merged one level deeper), and per-model overrides field by
//! field.

use crate::model::{CostRates, Model};
use crate::models_file::{Compat, ModelOverride};

/// Compat objects whose fields merge instead of being replaced.
const NESTED_COMPAT: [&str; 3] = [
    "openRouterRouting",
    "vercelGatewayRouting",
    "chatTemplateKwargs",
];

/// `over` merged onto `base`.
pub(crate) fn merge_compat(base: Option<&Compat>, over: Option<&Compat>) -> Option<Compat> {
    let Some(over) = over else {
        return base.cloned();
    };
    let mut merged = base.cloned().unwrap_or_default();
    for (key, value) in over {
        merged.insert(key.clone(), value.clone());
    }
    for key in NESTED_COMPAT {
        let base_inner = base
            .and_then(|base| base.get(key))
            .and_then(|value| value.as_object());
        let over_inner = over.get(key).and_then(|value| value.as_object());
        if base_inner.is_none() && over_inner.is_none() {
            continue;
        }
        let mut inner = base_inner.cloned().unwrap_or_default();
        for (name, value) in over_inner.into_iter().flatten() {
            inner.insert(name.clone(), value.clone());
        }
        merged.insert(key.to_owned(), serde_json::Value::Object(inner));
    }
    Some(merged)
}

/// `model` with the fields `change` sets.
pub(crate) fn apply_override(model: &mut Model, change: &ModelOverride) {
    if let Some(name) = &change.name {
        model.name.clone_from(name);
    }
    if let Some(reasoning) = change.reasoning {
        model.reasoning = reasoning;
    }
    if let Some(map) = &change.thinking_level_map {
        for (level, value) in map {
            model.thinking_level_map.insert(*level, value.clone());
        }
    }
    if let Some(input) = &change.input {
        model.input.clone_from(input);
    }
    if let Some(window) = change.context_window {
        model.context_window = window;
    }
    if let Some(max) = change.max_tokens {
        model.max_tokens = max;
    }
    if let Some(cost) = &change.cost {
        let rates = model.cost.rates;
        model.cost.rates = CostRates {
            input: cost.input.unwrap_or(rates.input),
            output: cost.output.unwrap_or(rates.output),
            cache_read: cost.cache_read.unwrap_or(rates.cache_read),
            cache_write: cost.cache_write.unwrap_or(rates.cache_write),
        };
        if let Some(tiers) = &cost.tiers {
            model.cost.tiers.clone_from(tiers);
        }
    }
    model.compat = merge_compat(model.compat.as_ref(), change.compat.as_ref());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn compat(value: serde_json::Value) -> Compat {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn compat_merges_with_routing_one_level_deeper() {
        let base = compat(
            json!({"supportsStore": false, "openRouterRouting": {"only": ["a"], "sort": "price"}}),
        );
        let over = compat(json!({"supportsStore": true, "openRouterRouting": {"only": ["b"]}}));
        let merged = merge_compat(Some(&base), Some(&over)).unwrap();
        assert_eq!(
            serde_json::Value::Object(merged),
            json!({"supportsStore": true, "openRouterRouting": {"only": ["b"], "sort": "price"}})
        );
        assert_eq!(merge_compat(Some(&base), None), Some(base.clone()));
        assert_eq!(merge_compat(None, None), None);
    }
}
