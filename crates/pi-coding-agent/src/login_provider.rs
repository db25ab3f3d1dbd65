//! A subscription login renewed mid-session, as Pi renews it: before each request, an
//! expired access token is renewed with its refresh token (under auth.json's lock, written
//! back crash-safely; see `login_renewal`) and the wire is built again with the new token.
//! Until now a login was renewed only when a model was chosen, so a session outliving its
//! token (Anthropic's last eight hours) failed at its next request.

use std::sync::Arc;

use futures::StreamExt;
use pi_ai::{AssistantMessage, AssistantMessageEvent, EventStream, Provider, Request, StopReason};
use pi_providers::login_refresh::now_millis;
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use crate::auth_file::{AuthEntry, AuthFile};
use crate::runtime_error::RuntimeError;
use crate::secret::Secret;
use crate::variables::Variables;

/// The auth.json login a model's key came from: what renewing it needs.
#[derive(Debug, Clone, PartialEq)]
pub struct SubscriptionLogin {
    /// The provider whose entry it is.
    pub provider: String,
    /// auth.json as it was read (renewal reads it again under the lock).
    pub auth: AuthFile,
    /// Where the token endpoint's test override is looked up.
    pub vars: Variables,
    /// When the access token expires, in milliseconds since the Unix epoch (`None`: never).
    pub expires: Option<u64>,
}

impl SubscriptionLogin {
    /// Whether the access token can no longer be used.
    fn expired(&self) -> bool {
        self.expires.is_some_and(|expires| now_millis() >= expires)
    }
}

/// Builds the wire again for a renewed access token.
pub(crate) type Rebuild =
    Box<dyn Fn(&Secret) -> Result<Arc<dyn Provider>, RuntimeError> + Send + Sync>;

/// The login and the wire built with its current token.
struct Current {
    login: SubscriptionLogin,
    wire: Arc<dyn Provider>,
}

/// A wire whose subscription login is renewed before a request when it has expired.
pub(crate) struct RenewingProvider {
    info: pi_ai::ModelInfo,
    server: Option<pi_ai::ServerAddress>,
    // Async: one renewal at a time, and a request waits for the renewal before it.
    current: Arc<Mutex<Current>>,
    rebuild: Arc<Rebuild>,
}

impl RenewingProvider {
    /// `wire`, built with `login`'s current token; `rebuild` makes it again for a new one.
    pub(crate) fn new(wire: Arc<dyn Provider>, login: SubscriptionLogin, rebuild: Rebuild) -> Self {
        Self {
            info: wire.model(),
            server: wire.server().cloned(),
            current: Arc::new(Mutex::new(Current { login, wire })),
            rebuild: Arc::new(rebuild),
        }
    }
}

/// The wire to send with, renewing the login first when it has expired.
async fn ready_wire(
    current: &Mutex<Current>,
    rebuild: &Rebuild,
) -> Result<Arc<dyn Provider>, String> {
    let mut current = current.lock().await;
    if !current.login.expired() {
        return Ok(Arc::clone(&current.wire));
    }
    let login = &current.login;
    let auth = crate::login_renewal::renew_login(&login.auth, &login.provider, &login.vars)
        .await
        .map_err(|error| error.to_string())?;
    let Some(AuthEntry::OAuth {
        access: Some(access),
        expires,
    }) = auth.entry(&login.provider).cloned()
    else {
        return Err(format!(
            "the subscription login (OAuth) for {} is no longer in auth.json",
            login.provider
        ));
    };
    let wire = rebuild(&access).map_err(|error| error.to_string())?;
    current.login.auth = auth;
    current.login.expires = expires;
    current.wire = Arc::clone(&wire);
    Ok(wire)
}

impl Provider for RenewingProvider {
    fn model(&self) -> pi_ai::ModelInfo {
        self.info.clone()
    }

    fn server(&self) -> Option<&pi_ai::ServerAddress> {
        // The address does not change with the token.
        self.server.as_ref()
    }

    fn stream(&self, request: Request, signal: CancellationToken) -> EventStream {
        let current = Arc::clone(&self.current);
        let rebuild = Arc::clone(&self.rebuild);
        let info = self.info.clone();
        futures::stream::once(async move {
            match ready_wire(&current, &rebuild).await {
                Ok(wire) => wire.stream(request, signal),
                Err(message) => {
                    let error = AssistantMessage::new(&info, Vec::new())
                        .with_error(StopReason::Error, message);
                    futures::stream::iter([AssistantMessageEvent::error(StopReason::Error, error)])
                        .boxed()
                }
            }
        })
        .flatten()
        .boxed()
    }
}
