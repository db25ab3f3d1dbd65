//! Azure OpenAI: the Responses wire at an Azure endpoint.
//!
//! As Pi resolves it: the base URL is Azure's own (`AZURE_OPENAI_BASE_URL`), else
//! `https://{resource}.openai.azure.com/openai/v1` from a resource name, else the configured
//! base URL; an Azure host's root, `/openai` or `/openai/v1/responses` is normalised to
//! `/openai/v1`. Every request carries `?api-version=` (default `v1`) and the key in an
//! `api-key` header. The body names the deployment (a configured name, one from
//! `AZURE_OPENAI_DEPLOYMENT_NAME_MAP`, else the model id).

use pi_ai::{EventStream, ModelInfo, Provider, Request, ServerAddress};
use pi_tool::ToolDefinition;
use pi_tool::dialect::Dialect;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::driver::{Model, Parser, Wire};
use crate::http::Post;
use crate::openai_chat::openai_dialect;
use crate::openai_responses::{ResponsesParser, body, render_tools};
use crate::{ProviderConfig, ProviderError};

/// Pi's default `api-version`.
const DEFAULT_API_VERSION: &str = "v1";
/// The hosts whose paths are normalised.
const AZURE_HOSTS: [&str; 3] = [
    ".openai.azure.com",
    ".cognitiveservices.azure.com",
    ".ai.azure.com",
];

/// Azure's own settings, as Pi reads them from its environment variables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AzureSettings {
    /// The endpoint (`AZURE_OPENAI_BASE_URL`): wins over the resource name and the configured
    /// base URL.
    pub base_url: Option<String>,
    /// The resource name (`AZURE_OPENAI_RESOURCE_NAME`): the endpoint
    /// `https://{name}.openai.azure.com/openai/v1`.
    pub resource_name: Option<String>,
    /// The `api-version` query value (`AZURE_OPENAI_API_VERSION`; default `v1`).
    pub api_version: Option<String>,
    /// The deployment to ask, when it is not the model id.
    pub deployment: Option<String>,
    /// Deployments by model id (`AZURE_OPENAI_DEPLOYMENT_NAME_MAP`, `gpt-4=my-gpt4,...`).
    pub deployment_map: Vec<(String, String)>,
}

impl AzureSettings {
    /// The settings from Pi's variables, read through `lookup` (e.g. `std::env::var`); an
    /// empty value counts as unset.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let read = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
        Self {
            base_url: read("AZURE_OPENAI_BASE_URL"),
            resource_name: read("AZURE_OPENAI_RESOURCE_NAME"),
            api_version: read("AZURE_OPENAI_API_VERSION"),
            deployment: None,
            deployment_map: read("AZURE_OPENAI_DEPLOYMENT_NAME_MAP")
                .map(|map| parse_deployment_map(&map))
                .unwrap_or_default(),
        }
    }

    /// The settings from the process environment.
    pub fn from_env() -> Self {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// The deployment that serves `model`.
    pub fn deployment_for<'a>(&'a self, model: &'a str) -> &'a str {
        self.deployment
            .as_deref()
            .or_else(|| {
                self.deployment_map
                    .iter()
                    .find(|(id, _)| id == model)
                    .map(|(_, deployment)| deployment.as_str())
            })
            .unwrap_or(model)
    }
}

/// `gpt-4=my-gpt4,gpt-4o=my-gpt4o` as (model id, deployment) pairs; malformed entries are
/// skipped.
pub fn parse_deployment_map(text: &str) -> Vec<(String, String)> {
    text.split(',')
        .filter_map(|entry| {
            let (model, deployment) = entry.trim().split_once('=')?;
            let (model, deployment) = (model.trim(), deployment.trim());
            (!model.is_empty() && !deployment.is_empty())
                .then(|| (model.to_owned(), deployment.to_owned()))
        })
        .collect()
}

/// The Azure endpoint for these settings, normalised (no trailing slash): the settings' base
/// URL, else the resource's, else `fallback` (the configured base URL).
pub fn azure_base_url(
    settings: &AzureSettings,
    fallback: Option<&str>,
) -> Result<String, ProviderError> {
    let chosen = settings
        .base_url
        .as_deref()
        .map(str::trim)
        .filter(|url| !url.is_empty())
        .map(str::to_owned)
        .or_else(|| {
            settings
                .resource_name
                .as_deref()
                .map(|name| format!("https://{}.openai.azure.com/openai/v1", name.trim()))
        })
        .or_else(|| fallback.map(str::to_owned))
        .ok_or(ProviderError::AzureEndpointMissing)?;
    let trimmed = chosen.trim().trim_end_matches('/');
    let mut url = reqwest::Url::parse(trimmed).map_err(|source| ProviderError::InvalidUrl {
        url: trimmed.to_owned(),
        source,
    })?;
    let azure_host = url
        .host_str()
        .is_some_and(|host| AZURE_HOSTS.iter().any(|suffix| host.ends_with(suffix)));
    let path = url.path().trim_end_matches('/').to_owned();
    if azure_host && matches!(path.as_str(), "" | "/openai" | "/openai/v1/responses") {
        url.set_path("/openai/v1");
        url.set_query(None);
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

/// The full request URL: `{base}/responses?api-version={version}`.
fn responses_url(base: &str, version: &str) -> Result<String, ProviderError> {
    let mut url = reqwest::Url::parse(base).map_err(|source| ProviderError::InvalidUrl {
        url: base.to_owned(),
        source,
    })?;
    url.path_segments_mut()
        .map_err(|()| ProviderError::Unsupported(format!("{base} cannot take a path")))?
        .pop_if_empty()
        .push("responses");
    url.query_pairs_mut().append_pair("api-version", version);
    Ok(url.into())
}

/// An Azure OpenAI model on the Responses wire.
///
/// ```
/// use pi_ai::Provider;
/// use pi_providers::{AzureOpenAi, AzureSettings, ProviderConfig};
///
/// let settings = AzureSettings { resource_name: Some("my-resource".into()), ..AzureSettings::default() };
/// let model = AzureOpenAi::new(ProviderConfig::new("gpt-5.1").with_azure(settings)).unwrap();
/// assert_eq!(model.model().api, "azure-openai-responses");
/// ```
#[derive(Debug)]
pub struct AzureOpenAi(Model<AzureWire>);

struct AzureWire {
    config: ProviderConfig,
    /// `{base}/responses?api-version=...`.
    url: String,
    /// The deployment the body names.
    deployment: String,
}

impl AzureOpenAi {
    /// A model at the endpoint the config's [`AzureSettings`] (or base URL) name; fails when
    /// none is named or it is not a URL.
    pub fn new(config: ProviderConfig) -> Result<Self, ProviderError> {
        let base = azure_base_url(&config.azure, config.base_url.as_deref())?;
        let version = config
            .azure
            .api_version
            .clone()
            .unwrap_or_else(|| DEFAULT_API_VERSION.to_owned());
        let url = responses_url(&base, &version)?;
        let deployment = config.azure.deployment_for(&config.model).to_owned();
        let wire = AzureWire {
            config,
            url,
            deployment,
        };
        Model::new(wire, &base).map(Self)
    }
}

impl Provider for AzureOpenAi {
    fn model(&self) -> ModelInfo {
        self.0.info()
    }

    fn server(&self) -> Option<&ServerAddress> {
        self.0.server()
    }

    fn stream(&self, request: Request, signal: CancellationToken) -> EventStream {
        self.0.stream(request, signal)
    }
}

/// The Azure wire's API name (the Responses body differs on it).
pub(crate) const AZURE_API: &str = "azure-openai-responses";

impl Wire for AzureWire {
    const API: &'static str = AZURE_API;
    const PROVIDER: &'static str = "azure-openai-responses";

    fn config(&self) -> &ProviderConfig {
        &self.config
    }

    fn dialect(&self) -> Dialect {
        openai_dialect(&self.config)
    }

    fn render_tools(&self, tools: &[ToolDefinition]) -> Result<Value, String> {
        render_tools(&self.config, tools)
    }

    fn post(&self, request: &Request, tools: &Value) -> Result<Post, String> {
        let body = body(&self.config, &self.info(), &self.deployment, request, tools);
        Post::new(self.url.clone(), body)?.key_header(
            "api-key",
            self.config.api_key.as_deref(),
            str::to_owned,
        )
    }

    fn parser(&self, _request: &Request) -> Box<dyn Parser> {
        Box::new(ResponsesParser::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(settings: &AzureSettings, fallback: Option<&str>) -> String {
        azure_base_url(settings, fallback).unwrap_or_else(|error| error.to_string())
    }

    #[test]
    fn azure_endpoints_are_normalised_as_pi_does() {
        let base = |url: &str| AzureSettings {
            base_url: Some(url.into()),
            ..AzureSettings::default()
        };
        let v1 = "https://r.openai.azure.com/openai/v1";
        for given in [
            "https://r.openai.azure.com",
            "https://r.openai.azure.com/",
            "https://r.openai.azure.com/openai",
            "https://r.openai.azure.com/openai/v1/responses?api-version=x",
            "https://r.openai.azure.com/openai/v1/",
        ] {
            assert_eq!(resolved(&base(given), None), v1, "{given}");
        }
        assert_eq!(
            resolved(&base("https://r.cognitiveservices.azure.com"), None),
            "https://r.cognitiveservices.azure.com/openai/v1"
        );
        // A proxy keeps its path.
        assert_eq!(
            resolved(&base("https://proxy.example.com/azure/"), None),
            "https://proxy.example.com/azure"
        );
        let resource = AzureSettings {
            resource_name: Some("mine".into()),
            ..AzureSettings::default()
        };
        assert_eq!(
            resolved(&resource, Some("https://ignored.example.com")),
            "https://mine.openai.azure.com/openai/v1"
        );
        assert_eq!(
            resolved(&AzureSettings::default(), Some("https://x.ai.azure.com")),
            "https://x.ai.azure.com/openai/v1"
        );
        assert!(matches!(
            azure_base_url(&AzureSettings::default(), None),
            Err(ProviderError::AzureEndpointMissing)
        ));
        assert!(matches!(
            azure_base_url(&base("not a url"), None),
            Err(ProviderError::InvalidUrl { .. })
        ));
    }

    #[test]
    fn the_request_url_carries_the_api_version() {
        assert_eq!(
            responses_url("https://r.openai.azure.com/openai/v1", "v1").ok(),
            Some("https://r.openai.azure.com/openai/v1/responses?api-version=v1".to_owned())
        );
    }

    #[test]
    fn deployments_come_from_the_setting_then_the_map_then_the_model() {
        let variables = |name: &str| {
            (name == "AZURE_OPENAI_DEPLOYMENT_NAME_MAP")
                .then(|| "gpt-4=my-gpt4, broken ,gpt-4o = my-4o".to_owned())
        };
        let mut settings = AzureSettings::from_lookup(variables);
        assert_eq!(
            settings.deployment_map,
            [
                ("gpt-4".to_owned(), "my-gpt4".to_owned()),
                ("gpt-4o".to_owned(), "my-4o".to_owned())
            ]
        );
        assert_eq!(settings.deployment_for("gpt-4o"), "my-4o");
        assert_eq!(settings.deployment_for("gpt-5"), "gpt-5");
        settings.deployment = Some("fixed".into());
        assert_eq!(settings.deployment_for("gpt-4o"), "fixed");
    }
}
