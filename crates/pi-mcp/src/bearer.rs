//! The bearer token check in front of the HTTP endpoint: compared in constant time, and tried
//! no faster than [`crate::guesses`] allows each address.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::connections::ConnectionInfo;
use crate::guesses::Guesses;

/// The token, and every address's tries at it.
#[derive(Debug)]
pub(crate) struct Bearer {
    token: String,
    guesses: Guesses,
}

impl Bearer {
    /// The check for `token`, no tries made yet.
    pub(crate) fn new(token: String) -> Arc<Self> {
        Arc::new(Self {
            token,
            guesses: Guesses::new(),
        })
    }
}

/// 401 for a request without the right bearer token; on a connection that has not yet shown
/// it, the request first waits for its address's turn (429 when that is too far away).
pub(crate) async fn require_token(
    State(bearer): State<Arc<Bearer>>,
    request: Request,
    next: Next,
) -> Response {
    let connection = request.extensions().get::<ConnectionInfo>().cloned();
    // A connection that has shown the token has nothing left to guess.
    let turn = if connection
        .as_ref()
        .is_some_and(ConnectionInfo::has_shown_token)
    {
        None
    } else {
        let address = connection.as_ref().map(|connection| connection.peer().ip());
        match bearer.guesses.take(address, Instant::now()) {
            Ok(turn) => Some(turn),
            Err(retry) => return too_many_tries(retry),
        }
    };
    if let Some(turn) = turn {
        tokio::time::sleep_until(turn.at.into()).await;
    }
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .unwrap_or_default();
    if bool::from(subtle::ConstantTimeEq::ct_eq(
        presented.as_bytes(),
        bearer.token.as_bytes(),
    )) {
        if let Some(turn) = turn {
            bearer.guesses.succeeded(turn);
        }
        // The connection has shown the token: it no longer gives way to new connections.
        if let Some(connection) = &connection {
            connection.proven();
        }
        return next.run(request).await;
    }
    let mut response = (
        StatusCode::UNAUTHORIZED,
        "a valid `Authorization: Bearer <token>` header is required\n",
    )
        .into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"pi-tool\""),
    );
    // A connection without the token gets no second try on the same descriptor: hyper closes
    // it once this answer is written.
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// 429 with `Retry-After`, given before the token is looked at.
fn too_many_tries(retry: Duration) -> Response {
    let seconds = retry.as_secs() + u64::from(retry.subsec_nanos() > 0);
    let mut response = (
        StatusCode::TOO_MANY_REQUESTS,
        format!("too many tries at the token from this address: retry in {seconds} s\n"),
    )
        .into_response();
    let headers = response.headers_mut();
    headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}
