//! The chosen model as something to talk to: its wire (`openai-completions`,
//! `openai-responses`, `anthropic-messages`, `google-generative-ai`,
//! `google-vertex`, `bedrock-converse-stream`) with the registry's base
//! URL and key, wrapped so that every answer is stamped with the registry's provider name and
//! its cost computed from the catalog's prices (as Pi stores `usage.cost`).

use std::sync::Arc;

use futures::StreamExt;
use pi_ai::{
    AssistantMessage, AssistantMessageEvent, EventStream, Message, ModelInfo, Provider, Request,
    UserContent,
};
use pi_providers::{
    Anthropic, AzureOpenAi, AzureSettings, Bedrock, BedrockSettings, Gemini, OpenAiChat,
    OpenAiResponses, ProviderConfig, ThinkingBudgets, Vertex, VertexSettings,
};
use pi_tool::Content;
use tokio_util::sync::CancellationToken;

use crate::cost::calculate_cost;
use crate::model::{Model, ModelCost};
use crate::model_api::ModelApi;
use crate::model_selection::ResolvedModel;
use crate::runtime_error::RuntimeError;

/// Builds the provider for `resolved`. `config` holds the run's own limits (timeouts, response
/// size, tool choice); its model, base URL (unless already set, e.g. by `--base-url`), key,
/// headers, compat flags and thinking (the level, the model's level map, `budgets`) are
/// filled in from the registry.
pub fn model_provider(
    resolved: &ResolvedModel,
    budgets: ThinkingBudgets,
    mut config: ProviderConfig,
    block_images: bool,
) -> Result<Arc<dyn Provider>, RuntimeError> {
    let model = &resolved.model;
    config.model.clone_from(&model.id);
    config.provider = Some(model.provider.clone());
    config.thinking = resolved.thinking_level;
    config.thinking_budgets = budgets;
    config.thinking_level_map = pi_ai::ThinkingLevelMap(model.thinking_level_map.clone());
    config.reasoning = model.reasoning;
    config.model_max_tokens = Some(model.max_tokens);
    // Pi's only say on the prompt cache's lifetime (it has no setting for it).
    let variable = |name: &str| resolved.credentials.variable(name);
    config.cache_retention = pi_providers::CacheRetention::from_variable(
        variable(pi_providers::CACHE_RETENTION_VARIABLE).as_deref(),
    );
    config.headers = resolved
        .credentials
        .headers
        .iter()
        .map(|(name, value)| (name.clone(), value.expose().to_owned()))
        .collect();
    // Pi names the session to OpenCode's gateway; the configured headers still win.
    if let (true, Some(id)) = (is_opencode(model), &config.session_id) {
        config.headers.splice(
            0..0,
            [
                ("x-opencode-session".to_owned(), id.clone()),
                ("x-opencode-client".to_owned(), "pi".to_owned()),
            ],
        );
    }
    if let Some(compat) = &model.compat {
        // Unknown keys are ignored; a known key of the wrong shape names the model.
        config.compat = serde_json::from_value(serde_json::Value::Object(compat.clone())).map_err(
            |source| RuntimeError::Compat {
                model: model.reference(),
                source,
            },
        )?;
    }
    if config.base_url.is_none() && !model.base_url.is_empty() {
        config.base_url = Some(wire_base_url(&model.api, &model.base_url));
    }
    if config.api_key.is_none() {
        config.api_key = resolved
            .credentials
            .key
            .as_ref()
            .map(|key| key.expose().to_owned());
    }
    let mut wire = build_wire(model, &resolved.credentials, config.clone())?;
    if let Some(login) = &resolved.credentials.login {
        // Renewed before a request once expired, and the wire built again with the new token.
        let (model, credentials) = (model.clone(), resolved.credentials.clone());
        let rebuild: crate::login_provider::Rebuild = Box::new(move |access| {
            let mut config = config.clone();
            config.api_key = Some(access.expose().to_owned());
            build_wire(&model, &credentials, config)
        });
        wire = Arc::new(crate::login_provider::RenewingProvider::new(
            wire,
            login.clone(),
            rebuild,
        ));
    }
    let mut priced = PricedProvider::new(wire, model);
    priced.block_images = block_images;
    Ok(Arc::new(priced))
}

/// The wire of `model`'s API with `config`.
fn build_wire(
    model: &Model,
    credentials: &crate::model_registry::Credentials,
    mut config: ProviderConfig,
) -> Result<Arc<dyn Provider>, RuntimeError> {
    let variable = |name: &str| credentials.variable(name);
    let unbuilt = |api: &ModelApi| RuntimeError::UnbuiltWire {
        model: model.reference(),
        api: api.as_str().to_owned(),
    };
    let built = |error: pi_providers::ProviderError| RuntimeError::Provider {
        model: model.reference(),
        source: error,
    };
    let wire: Arc<dyn Provider> = match &model.api {
        ModelApi::OpenAiCompletions => Arc::new(OpenAiChat::new(config).map_err(built)?),
        ModelApi::OpenAiResponses => Arc::new(OpenAiResponses::new(config).map_err(built)?),
        ModelApi::AzureOpenAiResponses => {
            config.azure = AzureSettings::from_env();
            Arc::new(AzureOpenAi::new(config).map_err(built)?)
        }
        ModelApi::AnthropicMessages => Arc::new(Anthropic::new(config).map_err(built)?),
        ModelApi::GoogleGenerativeAi => Arc::new(Gemini::new(config).map_err(built)?),
        ModelApi::GoogleVertex => {
            let settings = VertexSettings::from_lookup(variable);
            Arc::new(Vertex::new(config, settings).map_err(built)?)
        }
        ModelApi::BedrockConverseStream => {
            // A key from --api-key or auth.json is a Bedrock bearer token, as in Pi.
            let settings = BedrockSettings::from_lookup(variable, config.api_key.as_deref());
            Arc::new(Bedrock::new(config, settings).map_err(built)?)
        }
        other => return Err(unbuilt(other)),
    };
    Ok(wire)
}

/// An OpenCode model (Zen or Go, or any model served from `opencode.ai`), as Pi tells them.
fn is_opencode(model: &Model) -> bool {
    matches!(model.provider.as_str(), "opencode" | "opencode-go")
        || crate::local_url::url_host(&model.base_url).as_deref() == Some("opencode.ai")
}

/// The base URL as our wire takes it: Pi's catalog gives Gemini's with its `/v1beta` version
/// path, which our Gemini wire adds itself.
fn wire_base_url(api: &ModelApi, base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    match api {
        ModelApi::GoogleGenerativeAi => base.strip_suffix("/v1beta").unwrap_or(base).to_owned(),
        _ => base.to_owned(),
    }
}

/// A wire whose answers carry the registry's provider name (`ollama`, `openrouter`: the wire
/// alone would say `openai`) and their cost.
struct PricedProvider {
    wire: Arc<dyn Provider>,
    info: ModelInfo,
    prices: Arc<ModelCost>,
    /// The settings' `images.blockImages`: every image becomes a note before it is sent.
    block_images: bool,
}

impl PricedProvider {
    fn new(wire: Arc<dyn Provider>, model: &Model) -> Self {
        let info = ModelInfo {
            api: model.api.as_str().to_owned(),
            provider: model.provider.clone(),
            model: model.id.clone(),
        };
        Self {
            wire,
            info,
            prices: Arc::new(model.cost.clone()),
            block_images: false,
        }
    }
}

impl Provider for PricedProvider {
    fn model(&self) -> ModelInfo {
        self.info.clone()
    }

    fn server(&self) -> Option<&pi_ai::ServerAddress> {
        self.wire.server()
    }

    fn stream(&self, mut request: Request, signal: CancellationToken) -> EventStream {
        if self.block_images {
            request.messages = Arc::new(without_images(&request.messages));
        }
        let info = self.info.clone();
        let prices = Arc::clone(&self.prices);
        let stamp = move |message: &mut AssistantMessage| {
            message.provider.clone_from(&info.provider);
            message.api.clone_from(&info.api);
            calculate_cost(&prices, &mut message.usage);
        };
        self.wire
            .stream(request, signal)
            .map(move |mut event| {
                match &mut event {
                    AssistantMessageEvent::Done { message, .. } => stamp(message),
                    AssistantMessageEvent::Error { error, .. } => stamp(error),
                    _ => {}
                }
                event
            })
            .boxed()
    }
}

/// What the settings' `images.blockImages` sends instead of an image.
const IMAGE_BLOCKED: &str = "Image reading is disabled.";

/// The conversation with every image of the user's and the tools' messages replaced by a
/// note (one note for a run of images, as Pi does).
fn without_images(messages: &[Message]) -> Vec<Message> {
    let blocked = |content: &[Content]| {
        let mut kept: Vec<Content> = Vec::with_capacity(content.len());
        for block in content {
            let block = match block {
                Content::Image { .. } => pi_tool::text(IMAGE_BLOCKED),
                other => other.clone(),
            };
            let repeated = matches!((&block, kept.last()),
                (Content::Text { text }, Some(Content::Text { text: last }))
                    if text == IMAGE_BLOCKED && last == IMAGE_BLOCKED);
            if !repeated {
                kept.push(block);
            }
        }
        kept
    };
    messages
        .iter()
        .map(|message| match message {
            Message::User(user) => match &user.content {
                UserContent::Blocks(blocks) => {
                    let mut user = user.clone();
                    user.content = UserContent::Blocks(blocked(blocks));
                    Message::User(user)
                }
                UserContent::Text(_) => message.clone(),
            },
            Message::ToolResult(result) => {
                let mut result = result.clone();
                result.content = blocked(&result.content);
                Message::ToolResult(result)
            }
            other => other.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocked_images_become_one_note() {
        let mut user = pi_ai::UserMessage::text("");
        user.content = UserContent::Blocks(vec![
            pi_tool::text("look"),
            pi_tool::image("AAAA", "image/png"),
            pi_tool::image("BBBB", "image/png"),
        ]);
        let sent = without_images(&[Message::User(user)]);
        let Some(Message::User(user)) = sent.first() else {
            panic!("a user message");
        };
        assert_eq!(
            user.content,
            UserContent::Blocks(vec![pi_tool::text("look"), pi_tool::text(IMAGE_BLOCKED)])
        );
    }

    #[test]
    fn gemini_base_urls_lose_the_version_path_our_wire_adds() {
        assert_eq!(
            wire_base_url(
                &ModelApi::GoogleGenerativeAi,
                "https://generativelanguage.googleapis.com/v1beta"
            ),
            "https://generativelanguage.googleapis.com"
        );
        assert_eq!(
            wire_base_url(&ModelApi::OpenAiCompletions, "http://localhost:11434/v1/"),
            "http://localhost:11434/v1"
        );
    }
}
