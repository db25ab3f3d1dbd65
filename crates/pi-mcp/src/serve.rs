//! The transports a [`McpToolServer`] is served on: stdio, and streamable HTTP behind the
//! bearer token, the origin allow-list, and the session and connection limits.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::bearer::{Bearer, require_token};
use crate::connections::{ConnectionLimits, Connections};
use crate::http_access::HttpAccess;
use crate::server::McpToolServer;
use crate::sessions::{Sessions, track_sessions};
use pi_tool::CANCEL_GRACE;

/// Serves `server` on stdin/stdout until the client disconnects.
pub async fn serve_stdio(server: McpToolServer) -> Result<(), ServeError> {
    serve_stdio_until(server, CancellationToken::new()).await
}

/// Serves `server` on stdin/stdout until the client disconnects or `shutdown` fires (a
/// program's SIGINT or SIGTERM). Once it fires, every call still running sees its signal
/// cancelled (a `bash` call ends its process group), and the results that arrive within rmcp's
/// two seconds of drain are still sent before this returns.
pub async fn serve_stdio_until(
    server: McpToolServer,
    shutdown: CancellationToken,
) -> Result<(), ServeError> {
    // Each request's token is a descendant of the service's, so cancelling it reaches the
    // calls at once.
    let running = match server
        .serve_with_ct(rmcp::transport::stdio(), shutdown.child_token())
        .await
    {
        Ok(running) => running,
        // Stopped before a client said hello: nothing is owed.
        Err(_) if shutdown.is_cancelled() => return Ok(()),
        Err(source) => {
            return Err(ServeError::Handshake {
                source: Box::new(source),
            });
        }
    };
    running
        .waiting()
        .await
        .map_err(|source| ServeError::Stopped { source })?;
    Ok(())
}

/// Serves `server` over streamable HTTP (HTTP/1.1) on `address`, endpoint
/// `http://ADDRESS/mcp`, until `shutdown` fires, letting in only what `access` allows (see
/// [`HttpAccess`]). Returns once the listener is bound, with the address it got (port 0 picks a
/// free port) and the task serving it.
///
/// Limits: a request body of at most 4 MiB (413 beyond; rmcp's), at most
/// [`HttpAccess::with_max_sessions`] sessions open at once and
/// [`HttpAccess::with_max_sessions_per_peer`] from one address (an `initialize` beyond gets
/// 503 with `Retry-After`), a session idle for [`HttpAccess::with_session_idle`] is closed
/// (404 after that, and the client starts a new one). Connections: a request head must arrive
/// within [`HttpAccess::with_header_timeout`] (which also closes a kept-alive connection idle
/// that long), at most [`HttpAccess::with_max_connections`] are open and
/// [`HttpAccess::with_max_connections_per_peer`] from one address; the connections that have
/// not shown the token give way first (also when the process runs out of file descriptors),
/// and a wrong token closes its connection after the 401.
///
/// The token: on an address other machines can reach, one that holds fewer than
/// [`crate::MIN_TOKEN_BITS`] bits by its shape is refused ([`ServeError::WeakToken`]; see
/// [`crate::TokenStrength`]). Tries at it are limited per address: a request on a connection
/// that has not shown the token waits for its address's turn before its token is compared (ten
/// at once, then one a second; a right token gives its turn back), and gets 429 with
/// `Retry-After` when that turn is more than ten seconds away.
///
/// With sessions, a call ends when its client does: when the connection that asked closes
/// before the answer, and when its session is deleted (`DELETE`), the call is cancelled (a
/// `bash` command's process group ends); a `DELETE` waits until the calls it cancels have
/// answered on their streams (a second of grace, as for the time limit), then closes the
/// session. Stateless, rmcp cancels a call whose connection closes.
pub async fn serve_http(
    server: McpToolServer,
    address: SocketAddr,
    access: HttpAccess,
    shutdown: CancellationToken,
) -> Result<(SocketAddr, tokio::task::JoinHandle<()>), ServeError> {
    let loopback = address.ip().is_loopback();
    if !loopback && access.generated {
        return Err(ServeError::Access(format!(
            "{address} is reachable from other machines: give a token of your own \
             (--token or PI_TOOL_TOKEN) to serve there"
        )));
    }
    let strength = access.token_strength();
    if !loopback && !strength.is_enough() {
        return Err(ServeError::WeakToken { address, strength });
    }
    let mut origins: Vec<String> = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    origins.extend(access.allowed_origins.iter().cloned());
    let mut config = StreamableHttpServerConfig::default()
        .with_cancellation_token(shutdown.child_token())
        .with_allowed_origins(origins)
        .with_legacy_session_mode(!access.stateless)
        .with_json_response(access.stateless);
    if !loopback {
        // Clients name the host however they reach it; the bearer token is what lets them in
        // (DNS rebinding cannot forge it).
        config = config.disable_allowed_hosts();
    }
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(access.session_idle);
    let manager = Arc::new(manager);
    let service: StreamableHttpService<McpToolServer, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(server.clone()), Arc::clone(&manager), config);
    let mut router = axum::Router::new().nest_service("/mcp", service);
    if !access.stateless {
        let sessions = Sessions::new(
            manager,
            access.max_sessions,
            access.max_sessions_per_peer,
            // The grace a cancelled call gets, and a second for its answer to go out.
            CANCEL_GRACE + Duration::from_secs(1),
        );
        router = router.layer(axum::middleware::from_fn_with_state(
            sessions,
            track_sessions,
        ));
    }
    let router = router
        .layer(axum::middleware::map_response(session_ended_is_ok))
        .layer(axum::middleware::from_fn_with_state(
            Bearer::new(access.token),
            require_token,
        ));
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|source| ServeError::Bind { address, source })?;
    let bound = listener
        .local_addr()
        .map_err(|source| ServeError::Bind { address, source })?;
    let connections = Connections::new(ConnectionLimits {
        header_timeout: access.header_timeout,
        max_connections: access.max_connections,
        max_per_peer: access.max_connections_per_peer,
    });
    let task = tokio::spawn(crate::connections::serve(
        listener,
        router,
        connections,
        shutdown,
    ));
    Ok((bound, task))
}

/// rmcp answers a session's `DELETE` with 202; the SDK clients expect 200 (the Python SDK logs
/// "Session termination failed: 202" otherwise), as the TypeScript SDK's server answers.
async fn session_ended_is_ok(
    method: axum::http::Method,
    mut response: axum::response::Response,
) -> axum::response::Response {
    if method == axum::http::Method::DELETE && response.status() == axum::http::StatusCode::ACCEPTED
    {
        *response.status_mut() = axum::http::StatusCode::OK;
    }
    response
}

/// Why serving could not start or stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The client's handshake failed.
    #[error("the MCP server could not start")]
    Handshake {
        /// What went wrong in the handshake.
        #[source]
        source: Box<rmcp::service::ServerInitializeError>,
    },
    /// The address could not be bound (in use, not ours).
    #[error("the MCP server could not bind {address}")]
    Bind {
        /// The address asked for.
        address: SocketAddr,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The token is too easy to guess for an address other machines can reach.
    #[error(
        "the MCP server will not start: {address} is reachable from other machines and {strength}"
    )]
    WeakToken {
        /// The address asked for.
        address: SocketAddr,
        /// What the token's shape allows it to hold.
        strength: crate::TokenStrength,
    },
    /// The access settings cannot be served safely or at all.
    #[error("the MCP server will not start: {0}")]
    Access(String),
    /// The system had no randomness to make a token with.
    #[error("the MCP server could not make a token")]
    Randomness {
        /// What the system said.
        #[source]
        source: getrandom::Error,
    },
    /// The task serving the connection failed.
    #[error("the MCP server stopped")]
    Stopped {
        /// How the task ended.
        #[source]
        source: tokio::task::JoinError,
    },
}
