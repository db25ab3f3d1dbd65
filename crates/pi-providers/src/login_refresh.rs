//! Renewing an expired Claude subscription login (Pi's `/login` for Anthropic) with its
//! refresh token, as Pi 0.80.6 does: a JSON `refresh_token` grant for Claude Code's public
//! client id, posted to Anthropic's token endpoint; the new access token's expiry is set five
//! minutes early, as Pi sets it, so a token is never used in its last minutes.
//!
//! Writing the renewed login back to `auth.json` is the coding agent's part
//! (`pi_coding_agent`'s `login_store`); this module only speaks to the endpoint.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

/// Anthropic's OAuth token endpoint (Pi's; Pi offers no setting to change it).
pub const ANTHROPIC_TOKEN_URL: &str = "https://platform.claude.com/v1/oauth/token";

/// Claude Code's public OAuth client id, which Pi's logins are made for.
const ANTHROPIC_CLIENT_ID: &str = "9d1c250a-e61b-44d9-88ed-5944d1962f5e";

/// How much earlier than the endpoint says a token is taken as expired (Pi's margin).
const EXPIRY_MARGIN_MS: u64 = 5 * 60 * 1000;

/// How long the endpoint may take. Below the 30 s after which Pi's lock on auth.json is taken
/// as stale, so a slow refresh never loses the lock to another program.
const REFRESH_TIMEOUT: Duration = Duration::from_secs(25);

/// A renewed login: what goes back into the auth.json entry.
#[derive(Clone, PartialEq, Eq)]
pub struct RenewedLogin {
    /// The new access token.
    pub access: String,
    /// The refresh token to keep (the endpoint's new one, or the old one when it sent none).
    pub refresh: String,
    /// When `access` is taken as expired, in milliseconds since the Unix epoch.
    pub expires: u64,
}

impl std::fmt::Debug for RenewedLogin {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("RenewedLogin")
            .field("expires", &self.expires)
            .finish_non_exhaustive()
    }
}

/// A refresh that failed. No text holds a token.
#[derive(Debug, thiserror::Error)]
pub enum LoginRefreshError {
    /// The client could not be built or the endpoint not reached.
    #[error("the token endpoint {url} could not be reached")]
    Request {
        /// The endpoint.
        url: String,
        /// Why.
        source: reqwest::Error,
    },
    /// The endpoint refused (an expired or revoked refresh token: log in again).
    #[error("the token endpoint {url} answered {status}: {reason}")]
    Refused {
        /// The endpoint.
        url: String,
        /// The HTTP status.
        status: u16,
        /// Its `error_description` or `error`, or what was wrong with the answer.
        reason: String,
    },
}

/// Milliseconds since the Unix epoch (0 before it).
pub fn now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

/// Renews an Anthropic login at `token_url` (normally [`ANTHROPIC_TOKEN_URL`]) with
/// `refresh_token`.
pub async fn refresh_anthropic_login(
    token_url: &str,
    refresh_token: &str,
) -> Result<RenewedLogin, LoginRefreshError> {
    let request_error = |source: reqwest::Error| LoginRefreshError::Request {
        url: token_url.to_owned(),
        source: source.without_url(),
    };
    let client = reqwest::Client::builder()
        .timeout(REFRESH_TIMEOUT)
        .build()
        .map_err(request_error)?;
    let body = json!({
        "grant_type": "refresh_token",
        "client_id": ANTHROPIC_CLIENT_ID,
        "refresh_token": refresh_token,
    });
    let response = client
        .post(token_url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .body(body.to_string())
        .send()
        .await
        .map_err(request_error)?;
    let status = response.status();
    let text = response.text().await.map_err(request_error)?;
    let refused = |reason: String| LoginRefreshError::Refused {
        url: token_url.to_owned(),
        status: status.as_u16(),
        reason,
    };
    let answer: Value =
        serde_json::from_str(&text).map_err(|_| refused("the answer is not JSON".to_owned()))?;
    if !status.is_success() {
        return Err(refused(error_reason(&answer)));
    }
    renewed_login(&answer, refresh_token, now_millis()).map_err(|what| refused(what.to_owned()))
}

/// The endpoint's own words for a refusal (OAuth's `error_description` or `error`).
fn error_reason(answer: &Value) -> String {
    answer
        .get("error_description")
        .or_else(|| answer.get("error"))
        .and_then(|reason| match reason {
            Value::String(text) => Some(text.clone()),
            Value::Object(object) => object
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned),
            _ => None,
        })
        .unwrap_or_else(|| "the refresh was refused".to_owned())
}

/// The login in a successful `answer` at time `now`.
fn renewed_login(
    answer: &Value,
    old_refresh: &str,
    now: u64,
) -> Result<RenewedLogin, &'static str> {
    let access = answer
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|token| !token.is_empty())
        .ok_or("the answer has no access_token")?;
    let expires_in = answer
        .get("expires_in")
        .and_then(Value::as_u64)
        .ok_or("the answer has no expires_in")?;
    // A rotation-free endpoint may omit the refresh token: the old one stays valid then.
    let refresh = answer
        .get("refresh_token")
        .and_then(Value::as_str)
        .filter(|token| !token.is_empty())
        .unwrap_or(old_refresh);
    Ok(RenewedLogin {
        access: access.to_owned(),
        refresh: refresh.to_owned(),
        expires: now
            .saturating_add(expires_in.saturating_mul(1000))
            .saturating_sub(EXPIRY_MARGIN_MS),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expiry_is_five_minutes_early_and_a_missing_refresh_token_keeps_the_old_one() {
        let answer = json!({"access_token": "a2", "refresh_token": "r2", "expires_in": 3600});
        let login = renewed_login(&answer, "r1", 1_000_000).unwrap();
        assert_eq!(
            (login.access.as_str(), login.refresh.as_str(), login.expires),
            ("a2", "r2", 1_000_000 + 3_600_000 - 300_000)
        );
        let answer = json!({"access_token": "a2", "expires_in": 60});
        assert_eq!(renewed_login(&answer, "r1", 0).unwrap().refresh, "r1");
        assert!(format!("{login:?}").find("a2").is_none());
    }

    #[test]
    fn an_answer_without_a_token_or_with_an_error_is_named() {
        assert_eq!(
            renewed_login(&json!({"expires_in": 60}), "r", 0),
            Err("the answer has no access_token")
        );
        assert_eq!(
            error_reason(&json!({"error": "invalid_grant", "error_description": "revoked"})),
            "revoked"
        );
        assert_eq!(
            error_reason(&json!({"error": {"type": "x", "message": "bad token"}})),
            "bad token"
        );
        assert_eq!(error_reason(&json!({})), "the refresh was refused");
    }
}
