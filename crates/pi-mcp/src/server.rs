//! Serving a tool registry over MCP.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use pi_tool::dialect::Dialect;
use pi_tool::{
    CallContext, ProgressCallback, ToolCall, ToolRegistry, UnsupportedSchema, execute_tool_call,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::convert::to_call_tool_result;

/// An MCP server for a [`ToolRegistry`]. Cheap to clone; clones serve the same tools.
#[derive(Clone)]
pub struct McpToolServer {
    tools: Arc<ToolRegistry>,
    listed: Arc<Vec<Tool>>,
}

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
            .map(|definition| {
                let schema = match definition.parameters {
                    Value::Object(map) => map,
                    _ => Map::new(),
                };
                Tool::new(definition.name, definition.description, Arc::new(schema))
            })
            .collect();
        Ok(Self {
            tools,
            listed: Arc::new(listed),
        })
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
        // MCP: an unknown tool is a protocol error; bad arguments are a result the model reads.
        if self.tools.get(&request.name).is_none() {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {}", request.name),
                None,
            ));
        }
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let call = ToolCall::new(request_id(&context), request.name.to_string(), arguments);
        let report_progress = context.meta.get_progress_token().map(|token| {
            let peer = context.peer.clone();
            let step = Arc::new(AtomicU64::new(0));
            ProgressCallback::new(move |content| {
                let done = step.fetch_add(1, Ordering::SeqCst) + 1;
                let message: String = content
                    .iter()
                    .filter_map(pi_tool::Content::as_text)
                    .collect();
                #[expect(
                    clippy::cast_precision_loss,
                    reason = "a step count, not a measurement"
                )]
                let progress = ProgressNotificationParam::new(token.clone(), done as f64)
                    .with_message(message);
                let peer = peer.clone();
                // The tool's callback is synchronous; the notification goes out on its own.
                tokio::spawn(async move {
                    let _ = peer.notify_progress(progress).await;
                });
            })
        });
        let result = execute_tool_call(
            &call,
            &self.tools,
            CallContext {
                // Cancelled when the client sends notifications/cancelled for this request.
                signal: Some(context.ct.clone()),
                report_progress,
            },
        )
        .await;
        Ok(to_call_tool_result(&result).into())
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
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|error| ServeError::Start(error.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|error| ServeError::Stopped(error.to_string()))?;
    Ok(())
}

/// Serves `server` over streamable HTTP on `address`, endpoint `http://ADDRESS/mcp`, until
/// `shutdown` fires. Returns once the listener is bound, with the address it got (port 0 picks
/// a free port) and the task serving it.
pub async fn serve_http(
    server: McpToolServer,
    address: SocketAddr,
    shutdown: CancellationToken,
) -> Result<(SocketAddr, tokio::task::JoinHandle<()>), ServeError> {
    let config =
        StreamableHttpServerConfig::default().with_cancellation_token(shutdown.child_token());
    let service: StreamableHttpService<McpToolServer, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(server.clone()), Default::default(), config);
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|error| ServeError::Start(format!("binding {address}: {error}")))?;
    let bound = listener
        .local_addr()
        .map_err(|error| ServeError::Start(error.to_string()))?;
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(async move { shutdown.cancelled_owned().await })
            .await;
    });
    Ok((bound, task))
}

/// Why serving stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The server could not start (handshake failed, address in use).
    #[error("the MCP server could not start: {0}")]
    Start(String),
    /// The server stopped with an error.
    #[error("the MCP server stopped: {0}")]
    Stopped(String),
}
