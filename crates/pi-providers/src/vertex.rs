//! Google Vertex AI (`google-vertex`): the Gemini wire at Vertex's URLs, authenticated as Pi
//! 0.80.6 does it through `@google/genai`: with an API key (`GOOGLE_CLOUD_API_KEY`, sent as
//! `x-goog-api-key` to `/v1/publishers/google/models/...`), or with application default
//! credentials for `GOOGLE_CLOUD_PROJECT` in `GOOGLE_CLOUD_LOCATION` (a bearer token, at
//! `/v1/projects/{project}/locations/{location}/publishers/google/models/...`).
//!
//! Application default credentials of both common kinds are followed: the file `gcloud auth
//! application-default login` writes (`authorized_user`: its refresh token exchanged for an
//! access token) and a service-account key (`service_account`: an RS256-signed JWT, made by
//! `jsonwebtoken`, exchanged for one). The access token is cached until a minute before it
//! expires. Other kinds (external accounts, impersonation) are refused, naming the
//! alternatives.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use pi_ai::{EventStream, ModelInfo, Provider, Request, ServerAddress};
use pi_tool::ToolDefinition;
use pi_tool::dialect::Dialect;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::driver::{Model, Parser, Wire, render_each};
use crate::gemini::{GeminiParser, request_body};
use crate::http::Post;
use crate::{ProviderConfig, ProviderError};

/// Where Google's token endpoint is when the credentials file names none.
const GOOGLE_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";

/// Vertex's settings from the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VertexSettings {
    /// `GOOGLE_CLOUD_PROJECT`, else `GCLOUD_PROJECT`.
    pub project: Option<String>,
    /// `GOOGLE_CLOUD_LOCATION`.
    pub location: Option<String>,
    /// `GOOGLE_APPLICATION_CREDENTIALS`, else gcloud's
    /// `~/.config/gcloud/application_default_credentials.json`.
    pub credentials_file: Option<PathBuf>,
}

impl VertexSettings {
    /// The settings from `lookup` (variable name to value).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let get = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
        Self {
            project: get("GOOGLE_CLOUD_PROJECT").or_else(|| get("GCLOUD_PROJECT")),
            location: get("GOOGLE_CLOUD_LOCATION"),
            credentials_file: get("GOOGLE_APPLICATION_CREDENTIALS")
                .map(PathBuf::from)
                .or_else(|| {
                    get("HOME").map(|home| {
                        PathBuf::from(home)
                            .join(".config/gcloud/application_default_credentials.json")
                    })
                }),
        }
    }
}

/// The scope a service account asks its token for (Pi's client asks the same).
const CLOUD_PLATFORM_SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";

/// What is traded for an access token.
enum Grant {
    /// gcloud's user login: a refresh token.
    Refresh {
        client_id: String,
        client_secret: String,
        refresh_token: String,
    },
    /// A service-account key: a JWT it signs.
    ServiceAccount {
        client_email: String,
        key: jsonwebtoken::EncodingKey,
        key_id: Option<String>,
    },
}

/// Application default credentials, and the access token they last bought.
struct UserCredentials {
    grant: Grant,
    token_uri: String,
    cached: Mutex<Option<(String, Instant)>>,
}

impl UserCredentials {
    /// Reads the credentials file; `Err` says why it cannot be used.
    fn load(path: &std::path::Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|error| {
            format!(
                "Vertex AI needs application default credentials: cannot read {} ({error}); \
                 run `gcloud auth application-default login`, or set GOOGLE_CLOUD_API_KEY",
                path.display()
            )
        })?;
        let file: Value = serde_json::from_str(&text)
            .map_err(|_| format!("{} is not a credentials file (not JSON)", path.display()))?;
        let field = |name: &str| file.get(name).and_then(Value::as_str).map(str::to_owned);
        let required =
            |name: &str| field(name).ok_or_else(|| format!("{} has no {name}", path.display()));
        let grant = match field("type").as_deref() {
            Some("authorized_user") => Grant::Refresh {
                client_id: required("client_id")?,
                client_secret: required("client_secret")?,
                refresh_token: required("refresh_token")?,
            },
            Some("service_account") => Grant::ServiceAccount {
                client_email: required("client_email")?,
                key: jsonwebtoken::EncodingKey::from_rsa_pem(required("private_key")?.as_bytes())
                    .map_err(|_| {
                    format!("{}: private_key is not an RSA key in PEM", path.display())
                })?,
                key_id: field("private_key_id"),
            },
            other => {
                return Err(format!(
                    "{}: credentials of type {} are not supported; run `gcloud auth \
                     application-default login`, or set GOOGLE_CLOUD_API_KEY",
                    path.display(),
                    other.unwrap_or("(none)")
                ));
            }
        };
        Ok(Self {
            grant,
            token_uri: field("token_uri").unwrap_or_else(|| GOOGLE_TOKEN_URI.to_owned()),
            cached: Mutex::new(None),
        })
    }

    /// The token request's form for this grant.
    fn form(&self) -> Result<String, String> {
        let mut form = url::form_urlencoded::Serializer::new(String::new());
        match &self.grant {
            Grant::Refresh {
                client_id,
                client_secret,
                refresh_token,
            } => {
                form.append_pair("grant_type", "refresh_token")
                    .append_pair("client_id", client_id)
                    .append_pair("client_secret", client_secret)
                    .append_pair("refresh_token", refresh_token);
            }
            Grant::ServiceAccount {
                client_email,
                key,
                key_id,
            } => {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |elapsed| elapsed.as_secs());
                let claims = serde_json::json!({"iss": client_email, "scope": CLOUD_PLATFORM_SCOPE,
                    "aud": self.token_uri, "iat": now, "exp": now + 3600});
                let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
                header.kid.clone_from(key_id);
                let assertion = jsonwebtoken::encode(&header, &claims, key).map_err(|error| {
                    format!("the service-account token could not be signed: {error}")
                })?;
                form.append_pair("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer")
                    .append_pair("assertion", &assertion);
            }
        }
        Ok(form.finish())
    }

    /// An access token: the cached one while it has a minute left, else a new one.
    async fn access_token(self: Arc<Self>, client: reqwest::Client) -> Result<String, String> {
        if let Some((token, until)) = self
            .cached
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            && Instant::now() < until
        {
            return Ok(token);
        }
        let form = self.form()?;
        let failed = |detail: String| format!("Google's token exchange failed: {detail}");
        let response = client
            .post(&self.token_uri)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form)
            .send()
            .await
            .map_err(|error| failed(error.without_url().to_string()))?;
        let status = response.status().as_u16();
        let text = response
            .text()
            .await
            .map_err(|error| failed(error.without_url().to_string()))?;
        let answer: Value = serde_json::from_str(&text)
            .map_err(|_| failed(format!("{status}: the answer is not JSON")))?;
        let Some(token) = answer.get("access_token").and_then(Value::as_str) else {
            let reason = answer
                .get("error_description")
                .or_else(|| answer.get("error"))
                .and_then(Value::as_str)
                .unwrap_or("no access token in the answer");
            return Err(failed(format!("{status}: {reason}")));
        };
        let lifetime = answer
            .get("expires_in")
            .and_then(Value::as_u64)
            .unwrap_or(3600)
            .saturating_sub(60);
        *self.cached.lock().unwrap_or_else(PoisonError::into_inner) = Some((
            token.to_owned(),
            Instant::now() + Duration::from_secs(lifetime),
        ));
        Ok(token.to_owned())
    }
}

/// How Vertex requests are authenticated.
enum VertexAuth {
    ApiKey,
    User(Arc<UserCredentials>),
}

/// A Gemini model on Vertex AI.
///
/// ```
/// use pi_ai::Provider;
/// use pi_providers::{ProviderConfig, Vertex, VertexSettings};
///
/// let config = ProviderConfig::new("gemini-2.5-flash").with_api_key("vertex-key");
/// let model = Vertex::new(config, VertexSettings::from_lookup(|_| None)).unwrap();
/// assert_eq!(model.model().api, "google-vertex");
/// ```
#[derive(Debug)]
pub struct Vertex(Model<VertexWire>);

impl Vertex {
    /// A model reached with the config's API key, else with application default credentials
    /// for the project and location of `settings`. The config's base URL is kept unless it is
    /// Pi's catalog template (`https://{location}-aiplatform.googleapis.com`).
    pub fn new(config: ProviderConfig, settings: VertexSettings) -> Result<Self, ProviderError> {
        let custom = config
            .base_url
            .as_deref()
            .map(|base| base.trim().trim_end_matches('/').to_owned())
            .filter(|base| !base.is_empty() && !base.contains("{location}"));
        // Pi's placeholder keys (`<authenticated>`) mean "use the ambient credentials".
        let api_key = config
            .api_key
            .as_deref()
            .map(str::trim)
            .filter(|key| !(key.is_empty() || (key.starts_with('<') && key.ends_with('>'))));
        let (auth, base, path) = if api_key.is_some() {
            let base = custom.unwrap_or_else(|| "https://aiplatform.googleapis.com".to_owned());
            (
                VertexAuth::ApiKey,
                base,
                "/v1/publishers/google/models".to_owned(),
            )
        } else {
            let project = settings.project.clone().ok_or_else(|| {
                ProviderError::Unsupported(
                    "Vertex AI requires a project ID. Set GOOGLE_CLOUD_PROJECT/GCLOUD_PROJECT"
                        .to_owned(),
                )
            })?;
            let location = settings.location.clone().ok_or_else(|| {
                ProviderError::Unsupported(
                    "Vertex AI requires a location. Set GOOGLE_CLOUD_LOCATION".to_owned(),
                )
            })?;
            let file = settings.credentials_file.clone().ok_or_else(|| {
                ProviderError::Unsupported(
                    "Vertex AI needs application default credentials: set \
                     GOOGLE_APPLICATION_CREDENTIALS or run `gcloud auth application-default \
                     login`, or set GOOGLE_CLOUD_API_KEY"
                        .to_owned(),
                )
            })?;
            let user = UserCredentials::load(&file).map_err(ProviderError::Unsupported)?;
            let base = custom.unwrap_or_else(|| {
                if location == "global" {
                    "https://aiplatform.googleapis.com".to_owned()
                } else {
                    format!("https://{location}-aiplatform.googleapis.com")
                }
            });
            let path =
                format!("/v1/projects/{project}/locations/{location}/publishers/google/models");
            (VertexAuth::User(Arc::new(user)), base, path)
        };
        let wire = VertexWire {
            config: ProviderConfig {
                base_url: Some(base.clone()),
                api_key: api_key.map(str::to_owned),
                ..config
            },
            auth,
            path,
        };
        Model::new(wire, &base).map(Self)
    }
}

impl Provider for Vertex {
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

struct VertexWire {
    config: ProviderConfig,
    auth: VertexAuth,
    /// The models collection's path (`/v1/publishers/google/models`, or the project's).
    path: String,
}

impl Wire for VertexWire {
    const API: &'static str = "google-vertex";
    const PROVIDER: &'static str = "google-vertex";

    fn config(&self) -> &ProviderConfig {
        &self.config
    }

    fn dialect(&self) -> Dialect {
        // Pi's Vertex client sends each tool's JSON Schema as it is (`parametersJsonSchema`),
        // not Gemini's OpenAPI subset.
        Dialect::Anthropic
    }

    fn render_tools(&self, tools: &[ToolDefinition]) -> Result<Value, String> {
        let declarations = render_each(tools, self.dialect(), |tool, schema| {
            json!({"name": tool.name, "description": tool.description,
                "parametersJsonSchema": schema})
        })?;
        Ok(if declarations.is_empty() {
            json!([])
        } else {
            json!([{"functionDeclarations": declarations}])
        })
    }

    fn post(&self, request: &Request, tools: &Value) -> Result<Post, String> {
        let mut body = request_body(&self.config, &self.info(), request, tools);
        // Pi's Vertex client names no tool choice when the model may choose.
        if self.config.tool_choice == crate::ToolChoice::Auto
            && let Some(fields) = body.as_object_mut()
        {
            fields.remove("toolConfig");
        }
        let url = format!(
            "{}{}/{}:streamGenerateContent?alt=sse",
            self.config.base("https://aiplatform.googleapis.com"),
            self.path,
            self.config.model
        );
        let post = Post::new(url, body)?;
        match self.auth {
            VertexAuth::ApiKey => post.key_header(
                "x-goog-api-key",
                self.config.api_key.as_deref(),
                str::to_owned,
            ),
            // The bearer token is fetched just before sending (see `authorization`).
            VertexAuth::User(_) => Ok(post),
        }
    }

    fn authorization(
        &self,
        client: &reqwest::Client,
    ) -> Option<BoxFuture<'static, Result<String, String>>> {
        match &self.auth {
            VertexAuth::ApiKey => None,
            VertexAuth::User(user) => {
                let user = Arc::clone(user);
                let client = client.clone();
                Some(Box::pin(async move {
                    user.access_token(client)
                        .await
                        .map(|token| format!("Bearer {token}"))
                }))
            }
        }
    }

    fn parser(&self, _request: &Request) -> Box<dyn Parser> {
        Box::new(GeminiParser::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adc_needs_a_project_a_location_and_a_usable_file() {
        let config = || ProviderConfig::new("gemini-2.5-flash");
        let none = VertexSettings::from_lookup(|_| None);
        let error = Vertex::new(config(), none).unwrap_err().to_string();
        assert!(
            error.starts_with("Vertex AI requires a project ID"),
            "{error}"
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("sa.json");
        std::fs::write(
            &file,
            r#"{"type": "service_account", "client_email": "a@b", "private_key": "x"}"#,
        )
        .unwrap();
        let settings = VertexSettings {
            project: Some("p".into()),
            location: Some("us-central1".into()),
            credentials_file: Some(file),
        };
        let error = Vertex::new(config(), settings).unwrap_err().to_string();
        assert!(error.contains("private_key is not an RSA key"), "{error}");
    }
}
