//! `--model` (with or without `--provider`) resolved as Pi resolves it, among all models (not
//! only those with a key, so that `--api-key` can serve a first run).

use crate::model::Model;
use crate::model_pattern::parse_model_pattern;
use crate::model_registry::ModelRegistry;
use crate::thinking_level::ThinkingLevel;

/// The model `--model` names.
#[derive(Debug, Clone, PartialEq)]
pub struct CliModel {
    /// The model; a model of the provider's default's shape but with the given id when the
    /// provider was named and the id is not in the catalog (Pi's "custom model id").
    pub model: Model,
    /// The level of a `:level` suffix.
    pub thinking_level: Option<ThinkingLevel>,
    /// A note for the user (an id not in the catalog, used as given).
    pub warning: Option<String>,
}

/// `--model` / `--provider` that name nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CliModelError {
    /// There are no models at all.
    #[error("No models available. Check your installation or add models to models.json.")]
    NoModels,
    /// `--provider` names no provider.
    #[error("Unknown provider \"{0}\". Use --list-models to see available providers/models.")]
    UnknownProvider(String),
    /// The pattern matches no model.
    #[error("Model \"{0}\" not found. Use --list-models to see available models.")]
    NotFound(String),
}

/// Resolves `--model model` (and `--provider provider`), with `--thinking thinking`, by Pi's
/// rule: a known provider before the first `/` is taken as the provider (`zai/glm-5`), else a
/// model id containing slashes is tried whole (`openai/gpt-4o` on OpenRouter); then the
/// pattern; and for a named provider, an unknown id is used as given.
pub fn resolve_cli_model(
    registry: &ModelRegistry,
    provider: Option<&str>,
    model: &str,
    thinking: Option<ThinkingLevel>,
) -> Result<CliModel, CliModelError> {
    let all: Vec<&Model> = registry.all().iter().collect();
    if all.is_empty() {
        return Err(CliModelError::NoModels);
    }
    let canonical = |name: &str| {
        let lower = name.to_lowercase();
        all.iter()
            .find(|model| model.provider.to_lowercase() == lower)
            .map(|model| model.provider.clone())
    };
    let mut chosen_provider = match provider {
        Some(name) => {
            Some(canonical(name).ok_or_else(|| CliModelError::UnknownProvider(name.to_owned()))?)
        }
        None => None,
    };
    let mut pattern = model.to_owned();
    let mut inferred = false;
    if chosen_provider.is_none()
        && let Some((maybe_provider, rest)) = model.split_once('/')
        && let Some(found) = canonical(maybe_provider)
    {
        chosen_provider = Some(found);
        pattern = rest.to_owned();
        inferred = true;
    }
    let whole = |all: &[&Model]| -> Option<Model> {
        let lower = model.to_lowercase();
        all.iter()
            .find(|candidate| {
                candidate.id.to_lowercase() == lower
                    || candidate.reference().to_lowercase() == lower
            })
            .map(|found| (*found).clone())
    };
    if chosen_provider.is_none()
        && let Some(found) = whole(&all)
    {
        return Ok(plain(found));
    }
    if let (Some(_), Some(named)) = (provider, &chosen_provider) {
        let prefix = format!("{}/", named.to_lowercase());
        if model.to_lowercase().starts_with(&prefix) {
            pattern = model.get(prefix.len()..).unwrap_or_default().to_owned();
        }
    }
    let candidates: Vec<&Model> = match &chosen_provider {
        Some(name) => all
            .iter()
            .copied()
            .filter(|model| &model.provider == name)
            .collect(),
        None => all.clone(),
    };
    let found = parse_model_pattern(&pattern, &candidates, true);
    if let Some(found_model) = found.model {
        if inferred {
            // `provider/id` named a provider without a key while some keyed provider serves
            // the whole text as an id: that one (Pi's rule for ids such as `xiaomi/mimo-...`).
            let raw: Vec<&Model> = all
                .iter()
                .copied()
                .filter(|candidate| {
                    candidate.id.to_lowercase() == model.to_lowercase()
                        && !same(candidate, found_model)
                })
                .collect();
            if !raw.is_empty() && !registry.has_configured_auth(found_model) {
                let keyed: Vec<&Model> = raw
                    .into_iter()
                    .filter(|candidate| registry.has_configured_auth(candidate))
                    .collect();
                if let [only] = keyed.as_slice() {
                    return Ok(plain((*only).clone()));
                }
            }
        }
        return Ok(CliModel {
            model: found_model.clone(),
            thinking_level: found.thinking_level,
            warning: found.warning,
        });
    }
    if inferred {
        if let Some(found) = whole(&all) {
            return Ok(plain(found));
        }
        let fallback = parse_model_pattern(model, &all, true);
        if let Some(found_model) = fallback.model {
            return Ok(CliModel {
                model: found_model.clone(),
                thinking_level: fallback.thinking_level,
                warning: fallback.warning,
            });
        }
    }
    if let Some(name) = &chosen_provider
        && let Some(custom) = custom_id_model(registry, name, &pattern, thinking)
    {
        return Ok(custom);
    }
    let shown = match &chosen_provider {
        Some(name) => format!("{name}/{pattern}"),
        None => model.to_owned(),
    };
    Err(CliModelError::NotFound(shown))
}

fn plain(model: Model) -> CliModel {
    CliModel {
        model,
        thinking_level: None,
        warning: None,
    }
}

fn same(a: &Model, b: &Model) -> bool {
    a.provider == b.provider && a.id == b.id
}

/// An id the catalog does not know, on a named provider: the provider's default model (or its
/// first) with that id; a `:level` suffix is split off when `--thinking` is not given, and a
/// level above `off` marks it as reasoning.
fn custom_id_model(
    registry: &ModelRegistry,
    provider: &str,
    pattern: &str,
    thinking: Option<ThinkingLevel>,
) -> Option<CliModel> {
    let of_provider: Vec<&Model> = registry
        .all()
        .iter()
        .filter(|model| model.provider == provider)
        .collect();
    let default_id = registry.default_model_of(provider);
    let base = default_id
        .and_then(|id| of_provider.iter().find(|model| model.id == id))
        .or(of_provider.first())?;
    let (id, suffix_level) = match pattern.rsplit_once(':') {
        Some((id, suffix)) if thinking.is_none() => match suffix.parse::<ThinkingLevel>() {
            Ok(level) => (id, Some(level)),
            Err(_) => (pattern, None),
        },
        _ => (pattern, None),
    };
    let mut model = (*base).clone();
    model.id = id.to_owned();
    model.name = id.to_owned();
    if thinking
        .or(suffix_level)
        .is_some_and(|level| level != ThinkingLevel::Off)
    {
        model.reasoning = true;
    }
    Some(CliModel {
        model,
        thinking_level: suffix_level,
        warning: Some(format!(
            "Model \"{id}\" not found for provider \"{provider}\". Using custom model id."
        )),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth_file::AuthFile;
    use crate::catalog::Catalog;
    use crate::models_file::ModelsFile;
    use crate::variables::Variables;

    fn registry() -> ModelRegistry {
        let catalog = Catalog::builtin().unwrap();
        ModelRegistry::new(
            catalog,
            &ModelsFile::default(),
            AuthFile::empty(),
            Variables::fixed::<&str, &str>([]),
        )
    }

    fn reference(result: &Result<CliModel, CliModelError>) -> String {
        result
            .as_ref()
            .map(|found| found.model.reference())
            .unwrap_or_default()
    }

    #[test]
    fn provider_slash_id_and_provider_flag_resolve_alike() {
        let registry = registry();
        let slash = resolve_cli_model(&registry, None, "openai/gpt-5.5", None);
        assert_eq!(reference(&slash), "openai/gpt-5.5");
        let flag = resolve_cli_model(&registry, Some("OpenAI"), "gpt-5.5", None);
        assert_eq!(reference(&flag), "openai/gpt-5.5");
        let both = resolve_cli_model(&registry, Some("openai"), "openai/gpt-5.5", None);
        assert_eq!(reference(&both), "openai/gpt-5.5");
    }

    #[test]
    fn a_fuzzy_pattern_with_a_level() {
        let registry = registry();
        let found = resolve_cli_model(&registry, Some("anthropic"), "haiku:low", None).unwrap();
        assert_eq!(found.model.reference(), "anthropic/claude-haiku-4-5");
        assert_eq!(found.thinking_level, Some(ThinkingLevel::Low));
    }

    #[test]
    fn an_unknown_id_on_a_named_provider_is_used_as_given() {
        let registry = registry();
        let found = resolve_cli_model(&registry, Some("openai"), "gpt-next:high", None).unwrap();
        assert_eq!(found.model.id, "gpt-next");
        assert_eq!(found.model.base_url, "https://api.openai.com/v1");
        assert_eq!(found.thinking_level, Some(ThinkingLevel::High));
        assert!(found.model.reasoning);
        assert!(found.warning.unwrap().contains("Using custom model id"));
    }

    #[test]
    fn unknown_providers_and_models_are_errors_in_pi_words() {
        let registry = registry();
        let error = resolve_cli_model(&registry, Some("nope"), "x", None).unwrap_err();
        assert_eq!(
            error.to_string(),
            "Unknown provider \"nope\". Use --list-models to see available providers/models."
        );
        let error = resolve_cli_model(&registry, None, "zzzz-no-such-model", None).unwrap_err();
        assert_eq!(
            error.to_string(),
            "Model \"zzzz-no-such-model\" not found. Use --list-models to see available models."
        );
        let error = resolve_cli_model(&registry, None, "haiku:huge", None).unwrap_err();
        assert_eq!(error, CliModelError::NotFound("haiku:huge".to_owned()));
    }
}
