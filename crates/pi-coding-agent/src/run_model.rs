//! A run's model from everything Pi reads for it, in one call for the front ends: the
//! registry (catalog, `models.json`, `auth.json`, the environment), the merged settings (the
//! project's only when the project is trusted, as Pi's non-interactive modes do) and the
//! command line's and the continued session's say.

use std::path::Path;

use pi_session::Session;

use crate::list_models::list_models;
use crate::model_registry::{KeyError, ModelRegistry};
use crate::model_selection::{
    ModelRequest, ResolvedModel, SelectionError, SessionModel, resolve_model,
};
use crate::runtime_error::RuntimeError;
use crate::settings::{Settings, SettingsFiles};
use crate::thinking_level::ThinkingLevel;
use crate::variables::Variables;

/// The registry of `agent_dir` (`None`: the built-in catalog and the environment only).
pub fn load_registry(agent_dir: Option<&Path>) -> Result<ModelRegistry, RuntimeError> {
    let variables = Variables::process();
    Ok(match agent_dir {
        Some(dir) => ModelRegistry::load(dir, variables)?,
        None => {
            // No agent directory: nothing to read but Pi's catalog and the environment.
            let catalog = crate::catalog::Catalog::builtin().map_err(Clone::clone)?;
            ModelRegistry::new(
                catalog,
                &crate::models_file::ModelsFile::default(),
                crate::auth_file::AuthFile::default(),
                variables,
            )
        }
    })
}

/// The merged settings: `<agent_dir>/settings.json`, and `<cwd>/.pi/settings.json` when the
/// project is trusted.
pub fn load_settings(
    agent_dir: Option<&Path>,
    cwd: &Path,
    project_trusted: bool,
) -> Result<Settings, RuntimeError> {
    let project = project_trusted.then_some(cwd);
    Ok(SettingsFiles::load(agent_dir, project)?.settings()?)
}

/// The settings' `thinkingBudgets`, as the wires take them.
pub fn thinking_budgets(settings: &Settings) -> pi_ai::ThinkingBudgets {
    let budget = |level| {
        settings
            .thinking_budgets
            .as_ref()
            .and_then(|budgets| budgets.get(&level).copied())
    };
    pi_ai::ThinkingBudgets {
        minimal: budget(ThinkingLevel::Minimal),
        low: budget(ThinkingLevel::Low),
        medium: budget(ThinkingLevel::Medium),
        high: budget(ThinkingLevel::High),
    }
}

/// What a continued session says about the model: its last model and thinking level, when it
/// holds any entry (a new session says nothing).
pub fn session_model(session: &Session) -> Option<SessionModel> {
    if session.entries().is_empty() {
        return None;
    }
    // Only the settings: building the whole context reads every message (~30 ms at 10,000).
    let context = session.context_settings().ok()?;
    Some(SessionModel {
        model: context.model.map(|model| (model.provider, model.model_id)),
        thinking_level: context.thinking_level.parse::<ThinkingLevel>().ok(),
    })
}

/// The run's model, chosen in Pi's order, with its key. An expired subscription login of the
/// chosen provider is renewed first (written back to auth.json), as Pi renews it before the
/// request.
pub async fn resolve_run_model(
    registry: &mut ModelRegistry,
    settings: &Settings,
    request: &ModelRequest,
) -> Result<ResolvedModel, RuntimeError> {
    match resolve_model(registry, settings, request) {
        Err(SelectionError::Key(KeyError::OAuthExpired { provider, .. })) => {
            registry
                .renew_login(&provider)
                .await
                .map_err(SelectionError::Key)?;
            Ok(resolve_model(registry, settings, request)?)
        }
        resolved => Ok(resolved?),
    }
}

/// `model` of `registry` at `level` (clamped to what the model has), with its key: a model
/// changed during a session (RPC's `set_model`, `cycle_model`, `set_thinking_level`). An
/// expired subscription login is renewed first, as at start-up.
pub async fn registry_model(
    registry: &mut ModelRegistry,
    model: &crate::model::Model,
    level: ThinkingLevel,
) -> Result<ResolvedModel, RuntimeError> {
    let credentials = match registry.credentials(model) {
        Err(KeyError::OAuthExpired { provider, .. }) => {
            match registry.renew_login(&provider).await {
                Ok(()) => registry.credentials(model),
                Err(error) => Err(error),
            }
        }
        credentials => credentials,
    }
    .map_err(|error| RuntimeError::Model(SelectionError::Key(error)))?;
    Ok(ResolvedModel {
        model: model.clone(),
        credentials,
        thinking_level: model.clamp_thinking_level(level),
        warnings: Vec::new(),
    })
}

/// `--list-models [search]`: the table Pi prints (only models whose provider has a key), or
/// what to set when none has.
pub fn model_list_text(registry: &ModelRegistry, search: Option<&str>) -> String {
    let no_model = SelectionError::no_model(registry).to_string();
    list_models(registry, search.filter(|search| !search.is_empty())).render(&no_model)
}
