//! A model's key and request headers: whether a provider has one (without running anything)
//! and, when the model is used, which one, by Pi's order of sources.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::ModelRegistry;
use crate::ambient_credentials::ambient_credentials;
use crate::auth_file::{AUTH_FILE, AuthEntry};
use crate::config_value::{self, ValueError};
use crate::local_url::is_local_base_url;
use crate::model::Model;
use crate::secret::Secret;

/// Where a model's key came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// `--api-key`.
    CommandLine,
    /// An `api_key` entry of auth.json.
    AuthFile,
    /// The provider's environment variable, named.
    Environment(String),
    /// The environment authenticates without a key (an AWS profile, Google's application
    /// default credentials): the wire signs requests itself.
    Ambient(String),
    /// The provider's `apiKey` in models.json.
    ModelsFile,
    /// The access token of an auth.json subscription login (Pi's `/login`), still valid.
    Subscription,
    /// None needed: a models.json provider on this machine.
    LocalServer,
}

/// A model's key and request headers, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Credentials {
    /// The key; `None` for ambient credentials and local servers.
    pub key: Option<Secret>,
    /// Where it came from.
    pub source: KeySource,
    /// Headers for every request (the catalog's, models.json's provider and model headers,
    /// and `Authorization` when `authHeader` is set).
    pub headers: BTreeMap<String, Secret>,
    /// The auth.json entry's own `env`: variables the wire reads before the environment (a
    /// Bedrock region or profile, a Vertex project, `PI_CACHE_RETENTION`), as Pi's
    /// provider options carry them.
    pub env: BTreeMap<String, Secret>,
    /// The subscription login the key is the access token of ([`KeySource::Subscription`]):
    /// the wire renews it before a request once it has expired.
    pub login: Option<crate::login_provider::SubscriptionLogin>,
}

impl Credentials {
    /// The variable `name` as this provider sees it: the auth.json entry's `env` first, then
    /// the process environment.
    pub fn variable(&self, name: &str) -> Option<String> {
        self.env
            .get(name)
            .map(|value| value.expose().to_owned())
            .or_else(|| std::env::var(name).ok())
    }
}

/// A model whose key or headers cannot be resolved. The texts never hold a key.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// An auth.json `key` has no value.
    #[error("{}: {provider}.key: {source}", path.display())]
    AuthFileValue {
        /// The file.
        path: PathBuf,
        /// The provider.
        provider: String,
        /// Why.
        source: ValueError,
    },
    /// A models.json `apiKey` or header value has no value.
    #[error("{}: {field}: {source}", path.display())]
    ModelsFileValue {
        /// The file.
        path: PathBuf,
        /// The field (`providers.ollama.apiKey`).
        field: String,
        /// Why.
        source: ValueError,
    },
    /// The provider's subscription login in auth.json has expired: renew it
    /// ([`ModelRegistry::renew_login`], as `resolve_run_model` does) and ask again.
    #[error(
        "{}: the subscription login (OAuth) for {provider} has expired; it is renewed before use, or remove the entry and {}",
        path.display(),
        what_to_set(provider, env_keys)
    )]
    OAuthExpired {
        /// The file.
        path: PathBuf,
        /// The provider.
        provider: String,
        /// Its key variables.
        env_keys: Vec<String>,
    },
    /// The provider's subscription login had expired and renewing it failed.
    #[error(transparent)]
    LoginRenewal(#[from] crate::login_renewal::LoginRenewalError),
    /// Only an OAuth login is stored for the provider.
    #[error(
        "{} holds a subscription login (OAuth) for {provider}, which this program cannot use: {}",
        path.display(),
        what_to_set(provider, env_keys)
    )]
    OAuthOnly {
        /// The file.
        path: PathBuf,
        /// The provider.
        provider: String,
        /// Its key variables.
        env_keys: Vec<String>,
    },
    /// No key anywhere.
    #[error("no API key for {provider}: {}", what_to_set(provider, env_keys))]
    Missing {
        /// The provider.
        provider: String,
        /// Its key variables.
        env_keys: Vec<String>,
    },
    /// `authHeader` is set but there is no key to put in it.
    #[error("no API key for {provider}, whose models.json entry sets \"authHeader\"")]
    AuthHeaderWithoutKey {
        /// The provider.
        provider: String,
    },
}

/// The providers whose subscription login this program can use: Anthropic's (its token goes
/// on the Messages wire as a bearer; see `pi_providers`). Codex and Copilot need wires of
/// their own.
const SUBSCRIPTION_PROVIDERS: [&str; 1] = ["anthropic"];

/// Whether an auth.json login of `provider` with this access token can be used here.
fn subscription_usable(provider: &str, access: &Option<Secret>) -> bool {
    SUBSCRIPTION_PROVIDERS.contains(&provider) && access.is_some()
}

/// Milliseconds since the Unix epoch (Pi's `expires` unit); 0 before it.
fn now_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

/// The advice of a missing key: the variable to set, `--api-key`, or an auth.json entry.
pub(crate) fn what_to_set(provider: &str, env_keys: &[String]) -> String {
    let entry = format!("an {{\"type\": \"api_key\"}} entry \"{provider}\" in auth.json");
    // The cloud providers authenticate from their platform's own credentials (Pi's checks).
    match provider {
        "amazon-bedrock" => {
            return format!(
                "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or \
                 AWS_BEARER_TOKEN_BEDROCK, or add {entry} holding a Bedrock API key"
            );
        }
        "google-vertex" => {
            return format!(
                "set GOOGLE_CLOUD_API_KEY, or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION with \
                 application default credentials (`gcloud auth application-default login`), or \
                 add {entry}"
            );
        }
        _ => {}
    }
    match env_keys.last() {
        // The last is the plain key variable (Anthropic's OAuth token variable comes first).
        Some(variable) => format!("set {variable}, pass --api-key, or add {entry}"),
        None => format!("pass --api-key, or add {entry} or an \"apiKey\" in models.json"),
    }
}

impl ModelRegistry {
    /// Renews `provider`'s expired subscription login in auth.json with its refresh token and
    /// writes it back (Pi's lock, other entries untouched; see `login_renewal`), then uses
    /// the renewed token.
    pub async fn renew_login(&mut self, provider: &str) -> Result<(), KeyError> {
        self.auth = crate::login_renewal::renew_login(&self.auth, provider, &self.vars).await?;
        self.renewed.insert(provider.to_owned());
        Ok(())
    }

    /// Whether `model` can be used without asking for a key, by Pi's quick check (no command
    /// is run): `--api-key`, an auth.json key, the key variable, ambient credentials, a
    /// configured models.json `apiKey`, or a models.json provider on this machine.
    pub fn has_configured_auth(&self, model: &Model) -> bool {
        let provider = model.provider.as_str();
        if self.runtime_keys.contains_key(provider) {
            return true;
        }
        match self.auth.entry(provider) {
            Some(AuthEntry::ApiKey { .. }) => return true,
            Some(AuthEntry::OAuth { access, .. }) if subscription_usable(provider, access) => {
                return true;
            }
            _ => {}
        }
        if self.env_key(provider).is_some() || ambient_credentials(provider, &self.vars).is_some() {
            return true;
        }
        let overlay = self.provider_env(provider);
        if let Some(api_key) = self
            .requests
            .get(provider)
            .and_then(|request| request.api_key.as_ref())
            && config_value::is_configured(api_key.expose(), &self.vars, &overlay)
        {
            return true;
        }
        self.is_keyless_local(model)
    }

    fn is_keyless_local(&self, model: &Model) -> bool {
        self.configured_providers.contains(&model.provider) && is_local_base_url(&model.base_url)
    }

    /// The first of `provider`'s key variables that is set, and its value.
    fn env_key(&self, provider: &str) -> Option<(String, String)> {
        self.env_keys_of(provider)
            .iter()
            .find_map(|name| self.vars.get(name).map(|value| (name.clone(), value)))
    }

    /// The auth.json entry's own variables for `provider`.
    fn provider_env(&self, provider: &str) -> BTreeMap<String, Secret> {
        match self.auth.entry(provider) {
            Some(AuthEntry::ApiKey { env, .. }) => env.clone(),
            _ => BTreeMap::new(),
        }
    }

    /// The key and headers of `model`, in the order Pi 0.80.6 uses them: `--api-key`,
    /// auth.json, models.json's `apiKey`, the provider's key variable, ambient credentials;
    /// none for a models.json provider on this machine. (Pi's providers.md lists the variable
    /// before models.json, but a running Pi sends the models.json key when both are set; the
    /// oracle test `the_key_order_matches_pi` checks it.) Commands in the values run here.
    pub fn credentials(&self, model: &Model) -> Result<Credentials, KeyError> {
        let provider = model.provider.as_str();
        let overlay = self.provider_env(provider);
        let (key, source) = self.key(model, &overlay)?;
        let mut headers: BTreeMap<String, Secret> = model
            .headers
            .iter()
            .map(|(name, value)| (name.clone(), Secret::new(value.as_str())))
            .collect();
        let request = self.requests.get(provider);
        let provider_headers = request
            .map(|request| &request.headers)
            .into_iter()
            .flatten();
        for (name, value) in provider_headers {
            let field = format!("providers.{provider}.headers.{name}");
            headers.insert(
                name.clone(),
                self.resolve_models_value(value, field, &overlay)?,
            );
        }
        let model_key = (model.provider.clone(), model.id.clone());
        for (name, value) in self.model_headers.get(&model_key).into_iter().flatten() {
            let field = format!("providers.{provider}.models[{}].headers.{name}", model.id);
            headers.insert(
                name.clone(),
                self.resolve_models_value(value, field, &overlay)?,
            );
        }
        if request.is_some_and(|request| request.auth_header) {
            let Some(key) = &key else {
                return Err(KeyError::AuthHeaderWithoutKey {
                    provider: provider.to_owned(),
                });
            };
            let bearer = Secret::new(format!("Bearer {}", key.expose()));
            headers.insert("Authorization".to_owned(), bearer);
        }
        let login = match (&source, self.auth.entry(provider)) {
            (KeySource::Subscription, Some(AuthEntry::OAuth { expires, .. })) => {
                Some(crate::login_provider::SubscriptionLogin {
                    provider: provider.to_owned(),
                    auth: self.auth.clone(),
                    vars: self.vars.clone(),
                    expires: *expires,
                })
            }
            _ => None,
        };
        Ok(Credentials {
            key,
            source,
            headers,
            env: overlay,
            login,
        })
    }

    fn key(
        &self,
        model: &Model,
        overlay: &BTreeMap<String, Secret>,
    ) -> Result<(Option<Secret>, KeySource), KeyError> {
        let provider = model.provider.as_str();
        if let Some(key) = self.runtime_keys.get(provider) {
            return Ok((Some(key.clone()), KeySource::CommandLine));
        }
        let auth_path = || {
            self.auth
                .path()
                .map_or_else(|| PathBuf::from(AUTH_FILE), Path::to_path_buf)
        };
        let oauth_only = match self.auth.entry(provider) {
            Some(AuthEntry::ApiKey { key, .. }) => {
                let value =
                    config_value::resolve(key.expose(), &self.vars, overlay).map_err(|source| {
                        KeyError::AuthFileValue {
                            path: auth_path(),
                            provider: provider.to_owned(),
                            source,
                        }
                    })?;
                return Ok((Some(value), KeySource::AuthFile));
            }
            // A stored login owns the provider, as in Pi: no fallback when it has expired.
            Some(AuthEntry::OAuth { access, expires }) if subscription_usable(provider, access) => {
                let renewed = self.renewed.contains(provider);
                return match access {
                    Some(token)
                        if renewed || expires.is_none_or(|expires| now_millis() < expires) =>
                    {
                        Ok((Some(token.clone()), KeySource::Subscription))
                    }
                    _ => Err(KeyError::OAuthExpired {
                        path: auth_path(),
                        provider: provider.to_owned(),
                        env_keys: self.env_keys_of(provider).to_vec(),
                    }),
                };
            }
            // Not usable here; a key from another source still is.
            Some(AuthEntry::OAuth { .. }) => true,
            None => false,
        };
        if let Some(api_key) = self
            .requests
            .get(provider)
            .and_then(|request| request.api_key.as_ref())
        {
            let field = format!("providers.{provider}.apiKey");
            let value = self.resolve_models_value(api_key, field, overlay)?;
            return Ok((Some(value), KeySource::ModelsFile));
        }
        if let Some((name, value)) = self.env_key(provider) {
            return Ok((Some(Secret::new(value)), KeySource::Environment(name)));
        }
        if let Some(description) = ambient_credentials(provider, &self.vars) {
            return Ok((None, KeySource::Ambient(description)));
        }
        if self.is_keyless_local(model) {
            return Ok((None, KeySource::LocalServer));
        }
        let env_keys = self.env_keys_of(provider).to_vec();
        if oauth_only {
            return Err(KeyError::OAuthOnly {
                path: auth_path(),
                provider: provider.to_owned(),
                env_keys,
            });
        }
        Err(KeyError::Missing {
            provider: provider.to_owned(),
            env_keys,
        })
    }

    fn resolve_models_value(
        &self,
        value: &Secret,
        field: String,
        overlay: &BTreeMap<String, Secret>,
    ) -> Result<Secret, KeyError> {
        config_value::resolve(value.expose(), &self.vars, overlay).map_err(|source| {
            KeyError::ModelsFileValue {
                path: self.models_path.clone(),
                field,
                source,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth_file::AuthFile;
    use crate::catalog::Catalog;
    use crate::models_file::ModelsFile;
    use crate::variables::Variables;

    fn registry(models_json: &str, auth: AuthFile, vars: Variables) -> ModelRegistry {
        let catalog = Catalog::builtin().unwrap();
        let file =
            ModelsFile::parse(Path::new("/agent/models.json"), models_json, catalog).unwrap();
        ModelRegistry::new(catalog, &file, auth, vars)
    }

    #[test]
    fn keys_come_in_pi_order() {
        let models_json =
            r#"{"providers": {"openai": {"apiKey": "sk-models", "headers": {"x-team": "$TEAM"}}}}"#;
        let vars = Variables::fixed([("OPENAI_API_KEY", "sk-env"), ("TEAM", "blue")]);
        let auth = AuthFile::from_entries([(
            "openai".to_owned(),
            AuthEntry::ApiKey {
                key: Secret::new("!printf sk-auth"),
                env: BTreeMap::new(),
            },
        )]);
        let mut full = registry(models_json, auth, vars.clone());
        let gpt = full.find("openai", "gpt-5.5").unwrap().clone();
        let key = |registry: &ModelRegistry| {
            let credentials = registry.credentials(&gpt).unwrap();
            (
                credentials.key.unwrap().expose().to_owned(),
                credentials.source,
            )
        };
        assert_eq!(key(&full), ("sk-auth".to_owned(), KeySource::AuthFile));
        full.set_runtime_key("openai", Secret::new("sk-flag"));
        assert_eq!(key(&full), ("sk-flag".to_owned(), KeySource::CommandLine));
        let no_auth = registry(models_json, AuthFile::empty(), vars.clone());
        assert_eq!(
            key(&no_auth),
            ("sk-models".to_owned(), KeySource::ModelsFile)
        );
        let headers_only = r#"{"providers": {"openai": {"headers": {"x-team": "$TEAM"}}}}"#;
        let only_env = registry(headers_only, AuthFile::empty(), vars);
        assert_eq!(
            key(&only_env),
            (
                "sk-env".to_owned(),
                KeySource::Environment("OPENAI_API_KEY".to_owned())
            )
        );
        let headers = no_auth.credentials(&gpt).unwrap().headers;
        assert_eq!(headers.get("x-team").map(Secret::expose), Some("blue"));
    }

    #[test]
    fn a_missing_key_says_what_to_set_and_an_oauth_login_is_named() {
        let empty = registry(
            "{\"providers\": {}}",
            AuthFile::empty(),
            Variables::fixed::<&str, &str>([]),
        );
        let opus = empty.find("anthropic", "claude-opus-4-8").unwrap();
        let error = empty.credentials(opus).unwrap_err().to_string();
        assert_eq!(
            error,
            "no API key for anthropic: set ANTHROPIC_API_KEY, pass --api-key, or add an {\"type\": \"api_key\"} entry \"anthropic\" in auth.json"
        );
        let bedrock = empty
            .find(
                "amazon-bedrock",
                "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            )
            .unwrap();
        let error = empty.credentials(bedrock).unwrap_err().to_string();
        assert!(
            error.starts_with("no API key for amazon-bedrock: set AWS_ACCESS_KEY_ID"),
            "{error}"
        );
        let codex = AuthFile::from_entries([(
            "openai".to_owned(),
            AuthEntry::OAuth {
                access: Some(Secret::new("token")),
                expires: None,
            },
        )]);
        let with_login = registry(
            "{\"providers\": {}}",
            codex,
            Variables::fixed::<&str, &str>([]),
        );
        let gpt = with_login.find("openai", "gpt-5.5").unwrap();
        assert!(!with_login.has_configured_auth(gpt));
        let error = with_login.credentials(gpt).unwrap_err().to_string();
        assert!(
            error.starts_with("auth.json holds a subscription login (OAuth) for openai"),
            "{error}"
        );
    }

    #[test]
    fn an_anthropic_login_is_used_while_valid_and_owns_the_provider() {
        let login = |expires| {
            AuthFile::from_entries([(
                "anthropic".to_owned(),
                AuthEntry::OAuth {
                    access: Some(Secret::new("sk-ant-oat01-login")),
                    expires: Some(expires),
                },
            )])
        };
        let env = || Variables::fixed([("ANTHROPIC_API_KEY", "sk-ant-env")]);
        let valid = registry("{\"providers\": {}}", login(u64::MAX), env());
        let opus = valid.find("anthropic", "claude-opus-4-8").unwrap();
        assert!(valid.has_configured_auth(opus));
        let credentials = valid.credentials(opus).unwrap();
        assert_eq!(
            (credentials.key.unwrap().expose(), credentials.source),
            ("sk-ant-oat01-login", KeySource::Subscription)
        );
        // Expired: no silent fallback to the variable, as in Pi.
        let expired = registry("{\"providers\": {}}", login(1), env());
        let error = expired.credentials(opus).unwrap_err().to_string();
        assert!(
            error
                .starts_with("auth.json: the subscription login (OAuth) for anthropic has expired"),
            "{error}"
        );
        assert!(!error.contains("sk-ant"), "{error}");
    }

    #[test]
    fn the_auth_entrys_env_comes_before_the_environment() {
        let auth = AuthFile::from_entries([(
            "amazon-bedrock".to_owned(),
            AuthEntry::ApiKey {
                key: Secret::new("bedrock-key"),
                env: BTreeMap::from([(
                    "PI_TEST_OVERLAY_ONLY".to_owned(),
                    Secret::new("eu-central-1"),
                )]),
            },
        )]);
        let registry = registry(
            "{\"providers\": {}}",
            auth,
            Variables::fixed::<&str, &str>([]),
        );
        let bedrock = registry
            .find(
                "amazon-bedrock",
                "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            )
            .unwrap();
        let credentials = registry.credentials(bedrock).unwrap();
        assert_eq!(
            credentials.variable("PI_TEST_OVERLAY_ONLY").as_deref(),
            Some("eu-central-1")
        );
        assert_eq!(credentials.variable("PI_TEST_NOT_SET_ANYWHERE"), None);
        assert!(!format!("{credentials:?}").contains("eu-central-1"));
    }

    #[test]
    fn an_unresolved_value_names_the_file_and_field_and_never_the_key() {
        let registry = registry(
            r#"{"providers": {"openai": {"baseUrl": "https://api.openai.com/v1", "apiKey": "$MISSING_KEY", "authHeader": true}}}"#,
            AuthFile::empty(),
            Variables::fixed::<&str, &str>([]),
        );
        let gpt = registry.find("openai", "gpt-5.5").unwrap();
        assert!(!registry.has_configured_auth(gpt));
        let error = registry.credentials(gpt).unwrap_err().to_string();
        assert_eq!(
            error,
            "/agent/models.json: providers.openai.apiKey: environment variable MISSING_KEY is not set"
        );
    }

    #[test]
    fn auth_header_adds_a_bearer_header() {
        let registry = registry(
            r#"{"providers": {"proxy": {"baseUrl": "https://proxy.example.com/v1", "api": "openai-completions",
                "apiKey": "sk-proxy", "authHeader": true, "models": [{"id": "m", "headers": {"x-m": "1"}}]}}}"#,
            AuthFile::empty(),
            Variables::fixed::<&str, &str>([]),
        );
        let model = registry.find("proxy", "m").unwrap();
        let credentials = registry.credentials(model).unwrap();
        assert_eq!(
            credentials.headers.get("Authorization").map(Secret::expose),
            Some("Bearer sk-proxy")
        );
        assert_eq!(
            credentials.headers.get("x-m").map(Secret::expose),
            Some("1")
        );
        assert_eq!(format!("{credentials:?}").matches("sk-proxy").count(), 0);
    }
}
