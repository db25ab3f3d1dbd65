//! Serving a tool registry over MCP.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use pi_tool::dialect::Dialect;
use pi_tool::{
    CallContext, ProgressCallback, ToolCall, ToolRegistry, UnsupportedSchema, failed_result_in,
    model_text, prepare_tool_call,
};
use rmcp::model::ProgressToken;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::connections::{ConnectionInfo, ConnectionLimits, Connections};
use crate::convert::to_call_tool_result;
use crate::sessions::{CallStop, Sessions, track_sessions};

/// An MCP server for a [`ToolRegistry`]. Cheap to clone; clones serve the same tools.
#[derive(Clone)]
pub struct McpToolServer {
    tools: Arc<ToolRegistry>,
    listed: Arc<Vec<Tool>>,
    call_timeout: Option<Duration>,
}

/// How long a timed-out tool may take to see its cancelled signal before its result is sent
/// anyway.
const CANCEL_GRACE: Duration = Duration::from_secs(1);

impl std::fmt::Debug for McpToolServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpToolServer")
            .field("tools", &self.listed.len())
            .finish_non_exhaustive()
    }
}

impl McpToolServer {
    /// A server for `tools`. Their schemas are rendered for MCP (draft 2020-12) here, once: a
    /// schema MCP cannot carry is refused now, not when a client lists the tools.
    pub fn new(tools: Arc<ToolRegistry>) -> Result<Self, UnsupportedSchema> {
        let listed = tools
            .definitions_for(Dialect::Mcp)?
            .into_iter()
            .zip(tools.list())
            .map(|(definition, tool)| {
                let schema = match definition.parameters {
                    Value::Object(map) => map,
                    _ => Map::new(),
                };
                let mut listed =
                    Tool::new(definition.name, definition.description, Arc::new(schema));
                // What the tool may change (read-only, destructive, open world), for the
                // client's own approvals.
                listed.annotations = crate::convert::to_mcp_annotations(tool.annotations());
                listed
            })
            .collect();
        Ok(Self {
            tools,
            listed: Arc::new(listed),
            call_timeout: None,
        })
    }

    /// Answers every call within `limit`: a tool still running then has its signal cancelled,
    /// a second of grace to stop, and the client gets an `isError` result saying the call
    /// timed out (the same text the agent loop gives the model). No limit by default.
    #[must_use]
    pub fn with_call_timeout(mut self, limit: Duration) -> Self {
        self.call_timeout = Some(limit);
        self
    }
}

impl ServerHandler for McpToolServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            rmcp::model::Implementation::new("pi-tool", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.listed.as_ref().clone(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let span = crate::telemetry::server_span(&request.name, &context.meta);
        let answer = tracing::Instrument::instrument(self.answer(request, context), span.clone());
        crate::telemetry::record_answer(&span, answer.await)
    }
}

impl McpToolServer {
    /// One `tools/call`, inside its span.
    async fn answer(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // MCP: an unknown tool is a protocol error; bad arguments are a result the model reads.
        if self.tools.get(&request.name).is_none() {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {}", request.name),
                None,
            ));
        }
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let call = ToolCall::new(request_id(&context), request.name.to_string(), arguments);
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| ProgressSender::start(context.peer.clone(), token));
        // Over HTTP with sessions: cancelled when the client goes or deletes the session.
        let stop = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<CallStop>())
            .map(|stop| stop.0.clone());
        // Cancelled when the client sends notifications/cancelled for this request, or (a child
        // token, made only when needed) when the time limit passes or the client goes.
        let signal = if self.call_timeout.is_some() || stop.is_some() {
            context.ct.child_token()
        } else {
            context.ct.clone()
        };
        let call_context = CallContext {
            signal: Some(signal.clone()),
            report_progress: progress.as_ref().map(ProgressSender::callback),
        };
        // `execute_tool_call`'s two steps, kept apart so a panic reaches the span.
        let running = async {
            match prepare_tool_call(&call, &self.tools) {
                Ok(prepared) => {
                    let executed = prepared.run(call_context).await;
                    if executed.panicked {
                        crate::telemetry::record_panic();
                    }
                    executed.message
                }
                Err(failure) => *failure,
            }
        };
        let result = if self.call_timeout.is_none() && stop.is_none() {
            running.await
        } else {
            tokio::pin!(running);
            let time_limit = async {
                match self.call_timeout {
                    Some(limit) => tokio::time::sleep(limit).await,
                    None => std::future::pending().await,
                }
            };
            let stopped = async {
                match &stop {
                    Some(stop) => stop.cancelled().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                result = &mut running => result,
                () = time_limit => {
                    signal.cancel();
                    // The tool may still answer; either way the call has failed.
                    let _ = tokio::time::timeout(CANCEL_GRACE, &mut running).await;
                    let limit = self.call_timeout.unwrap_or_default();
                    let wording = self.tools.wording();
                    failed_result_in(wording, &call, &model_text::timed_out_in(wording, limit))
                }
                () = stopped => {
                    // The tool's own answer to its cancellation (a command's output so far) if it
                    // gives one in time; dropping it then ends whatever it still runs.
                    signal.cancel();
                    tokio::time::timeout(CANCEL_GRACE, &mut running)
                        .await
                        .unwrap_or_else(|_| {
                            let wording = self.tools.wording();
                            failed_result_in(wording, &call, model_text::aborted(wording))
                        })
                }
            }
        };
        // Progress stops at completion: everything reported goes out before the result.
        if let Some(progress) = progress {
            progress.finish().await;
        }
        Ok(to_call_tool_result(&result).into())
    }
}

/// One call's progress notifications, sent in the order the tool reported them through one
/// task, and drained before the call's result goes out (MCP: progress increases, and stops at
/// completion).
struct ProgressSender {
    token: ProgressToken,
    queue: mpsc::UnboundedSender<Report>,
    step: Arc<AtomicU64>,
    sending: AbortOnDrop,
}

enum Report {
    Progress(ProgressNotificationParam),
    Done,
}

/// Aborts the task when dropped: a call whose future is dropped leaves no sender behind.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl ProgressSender {
    fn start(peer: Peer<RoleServer>, token: ProgressToken) -> Self {
        let (queue, mut reports) = mpsc::unbounded_channel::<Report>();
        let sending = tokio::spawn(async move {
            while let Some(Report::Progress(progress)) = reports.recv().await {
                // A client that went away cannot be told; the call still answers.
                if peer.notify_progress(progress).await.is_err() {
                    break;
                }
            }
        });
        Self {
            token,
            queue,
            step: Arc::new(AtomicU64::new(0)),
            sending: AbortOnDrop(sending),
        }
    }

    /// The callback the tool reports through. A tool's update becomes `progress` (its own
    /// `details.progress`, or a count of updates), `total` (from `details.total`) and
    /// `message` (its text).
    fn callback(&self) -> ProgressCallback {
        let (token, queue, step) = (
            self.token.clone(),
            self.queue.clone(),
            Arc::clone(&self.step),
        );
        ProgressCallback::new(move |update| {
            let count = step.fetch_add(1, Ordering::SeqCst) + 1;
            let details = update.details.as_ref();
            let number = |key: &str| details.and_then(|d| d.get(key)).and_then(Value::as_f64);
            #[expect(
                clippy::cast_precision_loss,
                reason = "a step count, not a measurement"
            )]
            let progress = number("progress").unwrap_or(count as f64);
            let mut notification = ProgressNotificationParam::new(token.clone(), progress);
            if let Some(total) = number("total") {
                notification = notification.with_total(total);
            }
            let message = update.text();
            if !message.is_empty() {
                notification = notification.with_message(message);
            }
            // Fails only once the call has finished: progress after completion is not sent.
            let _ = queue.send(Report::Progress(notification));
        })
    }

    /// Sends everything reported so far, then stops.
    async fn finish(self) {
        let _ = self.queue.send(Report::Done);
        let mut sending = self.sending;
        let _ = (&mut sending.0).await;
    }
}

/// The JSON-RPC id of the request, as the call id the tool sees.
fn request_id(context: &RequestContext<RoleServer>) -> String {
    match serde_json::to_value(&context.id) {
        Ok(Value::String(id)) => id,
        Ok(other) => other.to_string(),
        Err(_) => "mcp".to_owned(),
    }
}

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
            Arc::new(access.token),
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

/// Who may use the HTTP endpoint: every request must carry `Authorization: Bearer <token>`
/// (compared in constant time; anything else gets 401 with `WWW-Authenticate`), and a request
/// from a browser page must come from a loopback origin or one allowed here (403 otherwise).
///
/// ```
/// use pi_mcp::HttpAccess;
///
/// let access = HttpAccess::new("s3cret-token").unwrap().with_allowed_origin("https://app.example.com");
/// assert_eq!(access.token(), "s3cret-token");
/// assert_eq!(HttpAccess::generated().unwrap().token().len(), 64);
/// assert!(HttpAccess::new("").is_err());
/// ```
#[derive(Clone)]
pub struct HttpAccess {
    token: String,
    allowed_origins: Vec<String>,
    /// A token nobody chose: fine on loopback, refused for an address others can reach.
    generated: bool,
    max_sessions: usize,
    max_sessions_per_peer: usize,
    session_idle: Duration,
    stateless: bool,
    header_timeout: Duration,
    max_connections: usize,
    max_connections_per_peer: usize,
}

/// Sessions open at once, unless said otherwise.
const DEFAULT_MAX_SESSIONS: usize = 1024;
/// A session with no request for this long is closed, unless said otherwise (rmcp's default).
const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(300);
/// Sessions one address may keep open, unless said otherwise: a sixteenth of the table, so one
/// client holding the token cannot fill it.
const DEFAULT_MAX_SESSIONS_PER_PEER: usize = 64;
/// Time for a request head, and for a kept-alive connection's next request, unless said
/// otherwise. Clients send a head at once, and reconnect when an idle connection is closed.
const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections open at once, unless said otherwise: half the common limit of 1,024 file
/// descriptors, leaving the rest to the tools (a `bash` call holds several).
const DEFAULT_MAX_CONNECTIONS: usize = 512;
/// Connections one address may keep open, unless said otherwise.
const DEFAULT_MAX_CONNECTIONS_PER_PEER: usize = 128;

impl std::fmt::Debug for HttpAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpAccess")
            .field("token", &"<hidden>")
            .field("allowed_origins", &self.allowed_origins)
            .field("max_sessions", &self.max_sessions)
            .field("max_sessions_per_peer", &self.max_sessions_per_peer)
            .field("session_idle", &self.session_idle)
            .field("stateless", &self.stateless)
            .field("header_timeout", &self.header_timeout)
            .field("max_connections", &self.max_connections)
            .field("max_connections_per_peer", &self.max_connections_per_peer)
            .finish_non_exhaustive()
    }
}

impl HttpAccess {
    /// Access with a token of the caller's choosing; refused when empty or not usable in a
    /// header.
    pub fn new(token: impl Into<String>) -> Result<Self, ServeError> {
        let token = token.into();
        if token.is_empty()
            || !token
                .bytes()
                .all(|byte| byte.is_ascii_graphic() && byte != b',')
        {
            return Err(ServeError::Access(
                "the token must be non-empty printable ASCII without spaces".to_owned(),
            ));
        }
        Ok(Self {
            token,
            allowed_origins: Vec::new(),
            generated: false,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_sessions_per_peer: DEFAULT_MAX_SESSIONS_PER_PEER,
            session_idle: DEFAULT_SESSION_IDLE,
            stateless: false,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_connections_per_peer: DEFAULT_MAX_CONNECTIONS_PER_PEER,
        })
    }

    /// Access with a fresh random token (256 bits from the operating system), to be shown to
    /// the person who started the server. Fails only when the system has no randomness to
    /// give, and then nothing is served with a guessable token.
    pub fn generated() -> Result<Self, ServeError> {
        let mut bytes = [0_u8; 32];
        getrandom::fill(&mut bytes).map_err(|source| ServeError::Randomness { source })?;
        Ok(Self {
            token: bytes.iter().map(|byte| format!("{byte:02x}")).collect(),
            allowed_origins: Vec::new(),
            generated: true,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_sessions_per_peer: DEFAULT_MAX_SESSIONS_PER_PEER,
            session_idle: DEFAULT_SESSION_IDLE,
            stateless: false,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_connections_per_peer: DEFAULT_MAX_CONNECTIONS_PER_PEER,
        })
    }

    /// Also lets in browser pages from `origin` (`https://app.example.com`, or with `:*` for
    /// any port).
    #[must_use]
    pub fn with_allowed_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// At most `max` sessions open at once (default 1024); a new one beyond is refused with
    /// 503 until one is closed (`DELETE`) or expires.
    #[must_use]
    pub fn with_max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// At most `max` sessions open at once from one IP address (default 64), so that one
    /// client holding the token cannot take the whole table; a new one beyond is refused with
    /// 503. Behind a proxy every client has the proxy's address: raise it there.
    #[must_use]
    pub fn with_max_sessions_per_peer(mut self, max: usize) -> Self {
        self.max_sessions_per_peer = max;
        self
    }

    /// A connection must send a whole request head within `timeout` of opening (or of its
    /// previous answer, when kept alive), or it is closed (default 10 seconds).
    #[must_use]
    pub fn with_header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// At most `max` connections open at once (default 512; at least 1). A new one beyond
    /// closes the oldest that has not yet made a request with the token, or is refused (503,
    /// then closed) when all have.
    #[must_use]
    pub fn with_max_connections(mut self, max: usize) -> Self {
        self.max_connections = max;
        self
    }

    /// At most `max` connections open at once from one IP address (default 128; at least 1),
    /// with the same order of giving way as [`HttpAccess::with_max_connections`]. Behind a
    /// proxy every client has the proxy's address: raise it there.
    #[must_use]
    pub fn with_max_connections_per_peer(mut self, max: usize) -> Self {
        self.max_connections_per_peer = max;
        self
    }

    /// A session with no request for `idle` is closed (default 5 minutes).
    #[must_use]
    pub fn with_session_idle(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }

    /// Serves without sessions: every request stands alone (no `Mcp-Session-Id`, nothing kept
    /// between requests), so any instance behind a load balancer can answer any request.
    /// Progress still streams within a call's own response.
    #[must_use]
    pub fn stateless(mut self) -> Self {
        self.stateless = true;
        self
    }

    /// The token clients must send.
    pub fn token(&self) -> &str {
        &self.token
    }
}

/// 401 for a request without the right bearer token.
async fn require_token(
    axum::extract::State(token): axum::extract::State<Arc<String>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let presented = request
        .headers()
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .unwrap_or_default();
    if bool::from(subtle::ConstantTimeEq::ct_eq(
        presented.as_bytes(),
        token.as_bytes(),
    )) {
        // The connection has shown the token: it no longer gives way to new connections.
        if let Some(connection) = request.extensions().get::<ConnectionInfo>() {
            connection.proven();
        }
        return next.run(request).await;
    }
    let mut response = axum::response::IntoResponse::into_response((
        axum::http::StatusCode::UNAUTHORIZED,
        "a valid `Authorization: Bearer <token>` header is required\n",
    ));
    let headers = response.headers_mut();
    headers.insert(
        axum::http::header::WWW_AUTHENTICATE,
        axum::http::HeaderValue::from_static("Bearer realm=\"pi-tool\""),
    );
    // A connection without the token gets no second try on the same descriptor: hyper closes
    // it once this answer is written.
    headers.insert(
        axum::http::header::CONNECTION,
        axum::http::HeaderValue::from_static("close"),
    );
    response
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
    #[error("the MCP server could not start: {source}")]
    Handshake {
        /// What went wrong in the handshake.
        #[source]
        source: Box<rmcp::service::ServerInitializeError>,
    },
    /// The address could not be bound (in use, not ours).
    #[error("the MCP server could not bind {address}: {source}")]
    Bind {
        /// The address asked for.
        address: SocketAddr,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The access settings cannot be served safely or at all.
    #[error("the MCP server will not start: {0}")]
    Access(String),
    /// The system had no randomness to make a token with.
    #[error("the MCP server could not make a token: {source}")]
    Randomness {
        /// What the system said.
        #[source]
        source: getrandom::Error,
    },
    /// The task serving the connection failed.
    #[error("the MCP server stopped: {source}")]
    Stopped {
        /// How the task ended.
        #[source]
        source: tokio::task::JoinError,
    },
}
