//! Serving a tool registry over MCP: the rmcp handler that lists the tools and answers each
//! `tools/call` through the one call path, with its time limit and its client's cancellation.
//! The transports are in `serve.rs`, the HTTP access settings in `http_access.rs`, a call's
//! progress notifications in `call_progress.rs`.

use std::sync::Arc;
use std::time::Duration;

use pi_tool::dialect::Dialect;
use pi_tool::{
    CANCEL_GRACE, CallContext, FailureKind, ToolCall, ToolRegistry, UnsupportedSchema,
    prepare_tool_call,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};

use crate::call_progress::ProgressSender;
use crate::convert::to_call_tool_result;
use crate::sessions::CallStop;

/// An MCP server for a [`ToolRegistry`]. Cheap to clone; clones serve the same tools.
#[derive(Clone)]
pub struct McpToolServer {
    tools: Arc<ToolRegistry>,
    listed: Arc<Vec<Tool>>,
    call_timeout: Option<Duration>,
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
    /// [`pi_tool::CANCEL_GRACE`] to stop, and the client gets an `isError` result saying the
    /// call timed out (the same text the agent loop gives the model). No limit by default.
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
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let call = ToolCall::new(request_id(&context), request.name.to_string(), arguments);
        let prepared = match prepare_tool_call(&call, &self.tools) {
            Ok(prepared) => prepared,
            // MCP: an unknown tool is a protocol error; bad arguments are a result the model
            // reads.
            Err(failure) if failure.kind() == FailureKind::UnknownTool => {
                return Err(ErrorData::invalid_params(
                    format!("Unknown tool: {}", request.name),
                    None,
                ));
            }
            Err(failure) => {
                crate::telemetry::record_failure(failure.kind());
                return Ok(to_call_tool_result(failure.message()).into());
            }
        };
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
        // token, made only when needed) when the client or its session goes.
        let signal = match &stop {
            Some(_) => context.ct.child_token(),
            None => context.ct.clone(),
        };
        let call_context = CallContext {
            signal: Some(signal.clone()),
            report_progress: progress.as_ref().map(ProgressSender::callback),
        };
        let running = prepared.run_within(call_context, self.call_timeout, CANCEL_GRACE);
        let executed = match stop {
            None => running.await,
            Some(stop) => {
                let stopped = async {
                    stop.cancelled().await;
                    // The call sees its signal cancelled and answers within the grace.
                    signal.cancel();
                    std::future::pending::<std::convert::Infallible>().await
                };
                tokio::select! {
                    executed = running => executed,
                    never = stopped => match never {},
                }
            }
        };
        if let Some(kind) = executed.failure {
            crate::telemetry::record_failure(kind);
        }
        let result = executed.message;
        // Progress stops at completion: everything reported goes out before the result.
        if let Some(progress) = progress {
            progress.finish().await;
        }
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
