//! What the HTTP layer of [`crate::serve_http`] knows of each MCP session: who opened it (the
//! limits on sessions, in all and per address), the signal that ends its calls when its client
//! goes, and the response streams it still has open.
//!
//! rmcp keeps a session's calls running when the connection that asked closes (a client could
//! resume the stream) and ends a session on `DELETE` without answering the calls it still has.
//! A `bash` command would then run on with no one to read its result. Here a call's response
//! stream, dropped before its end, cancels the call; and a `DELETE` first cancels the session's
//! calls and waits (a bounded time) until their answers have gone out on their streams, then
//! lets rmcp close the session.

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio_util::sync::{CancellationToken, DropGuard};
use tokio_util::task::TaskTracker;
use tokio_util::task::task_tracker::TaskTrackerToken;

use crate::connections::ConnectionInfo;

/// The header naming a request's session.
const SESSION_HEADER: &str = "mcp-session-id";

/// The signal a call made over HTTP gets, as an extension of its request's parts: cancelled
/// when the call's response stream is dropped before its end (the client went) or its session
/// is deleted.
#[derive(Debug, Clone)]
pub(crate) struct CallStop(pub(crate) CancellationToken);

/// The sessions opened over HTTP and the limits on them.
#[derive(Debug)]
pub(crate) struct Sessions {
    /// rmcp's own table: the truth about which sessions are open (they also end when idle).
    manager: Arc<LocalSessionManager>,
    max: usize,
    max_per_peer: usize,
    /// How long a `DELETE` waits for the answers of the calls it cancels.
    answer_wait: Duration,
    state: Mutex<HashMap<String, Session>>,
}

#[derive(Debug)]
struct Session {
    peer: Option<IpAddr>,
    /// Cancelled when the session is deleted: every call's [`CallStop`] is a child of it.
    closing: CancellationToken,
    /// The session's response streams still open.
    streams: TaskTracker,
}

impl Sessions {
    /// Sessions counted against `max` in all and `max_per_peer` for one address, with a
    /// `DELETE` waiting up to `answer_wait` for the answers it owes.
    pub(crate) fn new(
        manager: Arc<LocalSessionManager>,
        max: usize,
        max_per_peer: usize,
        answer_wait: Duration,
    ) -> Arc<Self> {
        Arc::new(Self {
            manager,
            max,
            max_per_peer,
            answer_wait,
            state: Mutex::new(HashMap::new()),
        })
    }

    /// Every change is one map operation, so a poisoned lock is used as it is.
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Session>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Forgets the sessions rmcp has closed on its own (idle, or their service ended), and
    /// gives the table's memory back once it has emptied out.
    async fn prune(&self) {
        let live = self.manager.sessions.read().await;
        let mut state = self.lock();
        state.retain(|id, _| live.contains_key(id.as_str()));
        shrink(&mut state);
    }

    /// Why a session may not be opened by `peer` now, if it may not.
    async fn refusal(&self, peer: Option<IpAddr>) -> Option<String> {
        let open = self.manager.sessions.read().await.len();
        if open >= self.max {
            return Some(format!(
                "too many sessions: {} are open, the most this server keeps; close one \
                 (DELETE) or retry when an idle one expires",
                self.max
            ));
        }
        let peer = peer?;
        self.prune().await;
        let mine = self
            .lock()
            .values()
            .filter(|session| session.peer == Some(peer))
            .count();
        (mine >= self.max_per_peer).then(|| {
            format!(
                "too many sessions from {peer}: {} are open, the most one address may keep; \
                 close one (DELETE) or retry when an idle one expires",
                self.max_per_peer
            )
        })
    }

    fn opened(&self, id: &str, peer: Option<IpAddr>) {
        self.lock().insert(
            id.to_owned(),
            Session {
                peer,
                closing: CancellationToken::new(),
                streams: TaskTracker::new(),
            },
        );
    }

    /// The stop signal for a request of session `id` and a token that counts its response
    /// stream as open; `None` for a session not known here (rmcp answers it).
    fn scope(&self, id: &str) -> Option<(CancellationToken, TaskTrackerToken)> {
        let state = self.lock();
        let session = state.get(id)?;
        Some((session.closing.child_token(), session.streams.token()))
    }

    /// Cancels the calls of session `id` and waits until their streams have ended (their
    /// answers sent, or their clients gone), at most `answer_wait`.
    async fn close(&self, id: &str) {
        let streams = {
            let state = self.lock();
            let Some(session) = state.get(id) else {
                return;
            };
            session.closing.cancel();
            session.streams.close();
            session.streams.clone()
        };
        // A call that does not answer in time is dropped with its session, which also ends it.
        let _ = tokio::time::timeout(self.answer_wait, streams.wait()).await;
    }

    fn forget(&self, id: &str) {
        let mut state = self.lock();
        state.remove(id);
        shrink(&mut state);
    }
}

/// Gives back a map's memory once most of it is empty (a burst of sessions, all ended).
fn shrink<K: Eq + std::hash::Hash, V>(map: &mut HashMap<K, V>) {
    if map.capacity() > 64 && map.len() < map.capacity() / 4 {
        map.shrink_to_fit();
    }
}

/// The session limits and the tracking of each session's calls, around rmcp's service. Runs
/// behind the token check: only clients with the token get this far.
pub(crate) async fn track_sessions(
    State(sessions): State<Arc<Sessions>>,
    mut request: Request,
    next: Next,
) -> Response {
    let session = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let method = request.method().clone();
    match (method, session) {
        // A request without a session opens one (rmcp refuses anything but `initialize`).
        (Method::POST, None) => {
            let peer = request
                .extensions()
                .get::<ConnectionInfo>()
                .map(|info| info.peer().ip());
            if let Some(message) = sessions.refusal(peer).await {
                return too_many_sessions(message);
            }
            let response = next.run(request).await;
            if let Some(id) = response
                .headers()
                .get(SESSION_HEADER)
                .and_then(|value| value.to_str().ok())
            {
                sessions.opened(id, peer);
            }
            response
        }
        (Method::POST, Some(id)) => {
            let Some((stop, stream)) = sessions.scope(&id) else {
                return next.run(request).await;
            };
            request.extensions_mut().insert(CallStop(stop.clone()));
            let response = next.run(request).await;
            // A request is answered on a stream of its own; a notification gets a bare 202.
            let streamed = response
                .headers()
                .get(header::CONTENT_TYPE)
                .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"));
            if !streamed {
                return response;
            }
            response.map(|body| {
                axum::body::Body::new(Watched {
                    inner: body,
                    open: Some((stop.drop_guard(), stream)),
                })
            })
        }
        (Method::DELETE, Some(id)) => {
            sessions.close(&id).await;
            let response = next.run(request).await;
            sessions.forget(&id);
            response
        }
        _ => next.run(request).await,
    }
}

/// 503 with `Retry-After` and a JSON-RPC error saying why.
fn too_many_sessions(message: String) -> Response {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": null,
        "error": {"code": -32000, "message": message}});
    let mut response = (StatusCode::SERVICE_UNAVAILABLE, axum::Json(body)).into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    response
}

/// A response stream of a session's request: dropped before its end (the client went), it
/// cancels the request's call; while it is open, its session's `DELETE` waits for it.
struct Watched {
    inner: axum::body::Body,
    /// Cancels the call when dropped; taken (disarmed) at the stream's end.
    open: Option<(DropGuard, TaskTrackerToken)>,
}

impl http_body::Body for Watched {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(context);
        if let Poll::Ready(None) = polled
            && let Some((stop, _stream)) = self.open.take()
        {
            // The whole answer went out: nothing to cancel.
            stop.disarm();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}
