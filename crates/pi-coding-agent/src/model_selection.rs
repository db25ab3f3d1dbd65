//! The model of a run, chosen as Pi chooses it:
//!
//! 1. `--model` (with `--provider`, a `provider/` prefix, a pattern, a `:level` suffix);
//!    `--provider` alone chooses nothing, as in Pi 0.80.6;
//! 2. for a new session, the `--models` scope (or `enabledModels`): the saved default if it
//!    is in the scope, else the scope's first model;
//! 3. the model of the session being continued, if it still exists and has a key;
//! 4. `defaultProvider` / `defaultModel` from the settings, if it has a key;
//! 5. the default model of the first provider with a key, in Pi's provider order; else the
//!    first model with a key.
//!
//! The thinking level: `--thinking`, else a `:level` suffix (of `--model` or of the scope
//! entry), else the continued session's last level, else `defaultThinkingLevel`, else
//! `medium`; then clamped to what the model supports (`off` for a model that does not reason).

use std::path::PathBuf;

use crate::cli_model::{CliModelError, resolve_cli_model};
use crate::model::Model;
use crate::model_pattern::resolve_scope;
use crate::model_registry::{Credentials, KeyError, ModelRegistry};
use crate::secret::Secret;
use crate::settings::Settings;
use crate::thinking_level::ThinkingLevel;

/// What the session being continued recorded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionModel {
    /// Its last model, as `(provider, model id)`.
    pub model: Option<(String, String)>,
    /// Its last `thinking_level_change`, if it has one.
    pub thinking_level: Option<ThinkingLevel>,
}

/// The command line's say in the choice.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelRequest {
    /// `--provider`.
    pub provider: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--api-key`, for the chosen model's provider.
    pub api_key: Option<Secret>,
    /// `--models` patterns; `None` falls back to the settings' `enabledModels`.
    pub models: Option<Vec<String>>,
    /// `--thinking`.
    pub thinking: Option<ThinkingLevel>,
    /// The continued session, when it already holds messages.
    pub session: Option<SessionModel>,
}

/// The model of a run and its thinking level, before its key is resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelChoice {
    /// The model: provider, id, wire, base URL, limits, input kinds, prices, compat flags.
    pub model: Model,
    /// The thinking level, clamped to the model.
    pub thinking_level: ThinkingLevel,
    /// Notes for the user, without a `Warning:` prefix (a pattern that matched nothing, a
    /// session model that could not be restored, an id used as given).
    pub warnings: Vec<String>,
}

/// The model of a run, with its key.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedModel {
    /// The model: provider, id, wire, base URL, limits, input kinds, prices, compat flags.
    pub model: Model,
    /// Its key and headers.
    pub credentials: Credentials,
    /// The thinking level, clamped to the model.
    pub thinking_level: ThinkingLevel,
    /// Notes for the user (a pattern that matched nothing, a session model that could not be
    /// restored, an id used as given).
    pub warnings: Vec<String>,
}

/// No model can be used.
#[derive(Debug, thiserror::Error)]
pub enum SelectionError {
    /// `--model` / `--provider` name nothing.
    #[error(transparent)]
    CliModel(#[from] CliModelError),
    /// `--api-key` without a model to give it to.
    #[error(
        "--api-key requires a model to be specified via --model, --provider/--model, or --models"
    )]
    ApiKeyWithoutModel,
    /// No provider has a key and no local server is configured.
    #[error(
        "No model available: no provider has an API key. Set one of {}; or pass --model with --api-key; \
         or add a provider to {} (a local server needs only \"baseUrl\", \"api\" and \"models\")",
        env_keys.join(", "),
        models_path.display()
    )]
    NoModel {
        /// The key variables of the usual providers.
        env_keys: Vec<String>,
        /// Where models.json is read from.
        models_path: PathBuf,
    },
    /// The chosen model's key cannot be resolved.
    #[error(transparent)]
    Key(#[from] KeyError),
}

/// The providers whose key variables the no-model message names, in this order.
const SUGGESTED_PROVIDERS: [&str; 6] = [
    "anthropic",
    "openai",
    "google",
    "openrouter",
    "mistral",
    "groq",
];

/// Chooses the model of a run (see the module's documentation for the order) and resolves
/// its key; `--api-key` is set on `registry` for the chosen model's provider.
pub fn resolve_model(
    registry: &mut ModelRegistry,
    settings: &Settings,
    request: &ModelRequest,
) -> Result<ResolvedModel, SelectionError> {
    let choice = select_model(registry, settings, request)?;
    let credentials = registry.credentials(&choice.model)?;
    Ok(ResolvedModel {
        model: choice.model,
        credentials,
        thinking_level: choice.thinking_level,
        warnings: choice.warnings,
    })
}

/// Chooses the model of a run and its thinking level without resolving its key (no command
/// of a configuration value runs); `--api-key` is set on `registry` for the chosen model's
/// provider.
pub fn select_model(
    registry: &mut ModelRegistry,
    settings: &Settings,
    request: &ModelRequest,
) -> Result<ModelChoice, SelectionError> {
    let mut warnings = Vec::new();
    let mut chosen: Option<Model> = None;
    let mut level: Option<ThinkingLevel> = None;
    let mut level_from_flags = false;

    if let Some(pattern) = &request.model {
        let found = resolve_cli_model(
            registry,
            request.provider.as_deref(),
            pattern,
            request.thinking,
        )?;
        warnings.extend(found.warning);
        if request.thinking.is_none() && found.thinking_level.is_some() {
            level = found.thinking_level;
            level_from_flags = true;
        }
        chosen = Some(found.model);
    }

    let patterns = request.models.as_ref().or(settings.enabled_models.as_ref());
    let continuing = request.session.is_some();
    if chosen.is_none()
        && !continuing
        && let Some(patterns) = patterns.filter(|patterns| !patterns.is_empty())
    {
        let available = registry.available();
        let (scoped, scope_warnings) = resolve_scope(patterns, &available);
        warnings.extend(scope_warnings);
        let saved = settings
            .default_provider
            .as_deref()
            .zip(settings.default_model.as_deref());
        let pick = saved
            .and_then(|(provider, id)| {
                scoped
                    .iter()
                    .find(|entry| entry.model.provider == provider && entry.model.id == id)
            })
            .or(scoped.first());
        if let Some(entry) = pick {
            if request.thinking.is_none() && entry.thinking_level.is_some() {
                level = entry.thinking_level;
                level_from_flags = true;
            }
            chosen = Some(entry.model.clone());
        }
    }

    if let Some(thinking) = request.thinking {
        level = Some(thinking);
        level_from_flags = true;
    }

    if let Some(key) = &request.api_key {
        let Some(model) = &chosen else {
            return Err(SelectionError::ApiKeyWithoutModel);
        };
        registry.set_runtime_key(&model.provider, key.clone());
    }

    if chosen.is_none()
        && let Some(session) = &request.session
        && let Some((provider, id)) = &session.model
    {
        match registry.find(provider, id) {
            Some(model) if registry.has_configured_auth(model) => chosen = Some(model.clone()),
            found => {
                let reason = if found.is_some() {
                    "no auth configured"
                } else {
                    "model no longer exists"
                };
                warnings.push(format!(
                    "Could not restore model {provider}/{id} ({reason})."
                ));
            }
        }
    }

    let chosen = match chosen {
        Some(model) => model,
        None => {
            initial_model(registry, settings).ok_or_else(|| SelectionError::no_model(registry))?
        }
    };

    if !level_from_flags {
        level = request
            .session
            .as_ref()
            .and_then(|session| session.thinking_level)
            .or(settings.default_thinking_level);
    }
    let thinking_level =
        chosen.clamp_thinking_level(level.unwrap_or(crate::thinking_level::DEFAULT_THINKING));
    Ok(ModelChoice {
        model: chosen,
        thinking_level,
        warnings,
    })
}

/// Steps 4 and 5: the settings' default, else the first provider's default, else the first
/// model with a key.
fn initial_model(registry: &ModelRegistry, settings: &Settings) -> Option<Model> {
    if let (Some(provider), Some(id)) = (&settings.default_provider, &settings.default_model)
        && let Some(model) = registry.find(provider, id)
        && registry.has_configured_auth(model)
    {
        return Some(model.clone());
    }
    let available = registry.available();
    registry
        .default_order()
        .iter()
        .find_map(|provider| {
            let id = registry.default_model_of(provider)?;
            available
                .iter()
                .find(|model| &model.provider == provider && model.id == id)
        })
        .or(available.first())
        .map(|model| (*model).clone())
}

impl SelectionError {
    /// The error of a registry where no model has a key: its text says what to set (also the
    /// message for an empty `--list-models`).
    pub fn no_model(registry: &ModelRegistry) -> Self {
        let env_keys = SUGGESTED_PROVIDERS
            .iter()
            .filter_map(|provider| registry.env_keys_of(provider).last().cloned())
            .collect();
        Self::NoModel {
            env_keys,
            models_path: registry.models_path().to_path_buf(),
        }
    }
}
