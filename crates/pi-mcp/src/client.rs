//! Importing an MCP server's tools into a [`ToolRegistry`].
//!
//! Each remote tool becomes a dynamic tool: its `inputSchema` is compiled locally, arguments are
//! validated (and undeclared fields dropped) before anything is sent, cancellation and progress
//! are forwarded, and a server that is dead, crashes or hangs gives paired `isError` results
//! after a time limit, never a hang.

use std::sync::Arc;
use std::time::Duration;

use pi_tool::environment::ToolEnvironment;
use pi_tool::schema::DynamicSchema;
use pi_tool::{
    Content, FnTool, RegisteredTool, ToolContext, ToolError, ToolOutput, ToolRegistry, ToolUpdate,
    image, text,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientRequest, ContentBlock, ProgressNotificationParam,
    Request, ServerResult, Tool,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;

use crate::import_names::{ImportedTool, local_name};
use crate::progress::ProgressRouter;

/// How long a remote call may take by default before it is answered with a time-out error.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// What went wrong talking to an MCP server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server could not be started or reached, or the handshake failed.
    #[error("could not connect to the MCP server {target}")]
    Connect {
        /// The command or URL.
        target: String,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A request failed.
    #[error("the MCP server failed: {what}")]
    Request {
        /// What was asked, or what went wrong without an underlying error (a time-out).
        what: String,
        /// The underlying failure, when there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// A tool's inputSchema does not compile, so it cannot be validated locally.
    #[error("the MCP tool {tool} has an unusable inputSchema")]
    Schema {
        /// The tool.
        tool: String,
        /// Why.
        #[source]
        source: pi_tool::schema::SchemaError,
    },
    /// A remote tool's name is already taken in the registry.
    #[error(transparent)]
    Registry(#[from] pi_tool::RegistryError),
}

/// Receives the server's progress notifications and hands each to the call it belongs to.
impl ClientHandler for ProgressRouter {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.route(params);
    }
}

/// A connection to one MCP server.
pub struct McpClient {
    service: Arc<RunningService<RoleClient, ProgressRouter>>,
    call_timeout: Duration,
    /// The command or URL it was connected to, which its tools are marked as imported from.
    target: String,
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("call_timeout", &self.call_timeout)
            .finish_non_exhaustive()
    }
}

impl McpClient {
    /// Starts `command` with `args` and speaks MCP over its stdin and stdout. The server gets
    /// this process's environment without its secrets (see [`pi_tool::environment`]).
    pub async fn connect_stdio(command: &str, args: &[String]) -> Result<Self, ClientError> {
        Self::connect_stdio_in(command, args, &ToolEnvironment::new()).await
    }

    /// As [`McpClient::connect_stdio`], the server started in `environment` (the secrets it
    /// needs passed on purpose).
    pub async fn connect_stdio_in(
        command: &str,
        args: &[String],
        environment: &ToolEnvironment,
    ) -> Result<Self, ClientError> {
        Self::connect_stdio_with(command, args, &[], environment).await
    }

    /// As [`McpClient::connect_stdio_in`], with `variables` set in the server's environment
    /// (the values its user gave for it, as an editor's MCP settings do).
    pub async fn connect_stdio_with(
        command: &str,
        args: &[String],
        variables: &[(String, String)],
        environment: &ToolEnvironment,
    ) -> Result<Self, ClientError> {
        let mut child = tokio::process::Command::new(command);
        child.args(args);
        // A server we cannot vet gets no API key or token of ours unless passed on purpose.
        for name in environment.withheld() {
            child.env_remove(name);
        }
        // Given for this server by its user: on purpose.
        child.envs(variables.iter().map(|(name, value)| (name, value)));
        let transport = TokioChildProcess::new(child).map_err(|error| ClientError::Connect {
            target: command.to_owned(),
            source: Box::new(error),
        })?;
        Self::start(command, transport).await
    }

    /// Connects to a streamable HTTP endpoint, e.g. `http://127.0.0.1:8000/mcp`.
    pub async fn connect_http(url: &str) -> Result<Self, ClientError> {
        Self::start(url, StreamableHttpClientTransport::from_uri(url.to_owned())).await
    }

    /// Connects to a streamable HTTP endpoint that wants `Authorization: Bearer <token>` (as
    /// `pi-tool serve --http` does).
    pub async fn connect_http_with_token(url: &str, token: &str) -> Result<Self, ClientError> {
        let config =
            rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
                url.to_owned(),
            )
            .auth_header(token.to_owned());
        Self::start(url, StreamableHttpClientTransport::from_config(config)).await
    }

    async fn start<T, E, A>(target: &str, transport: T) -> Result<Self, ClientError>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let service = ProgressRouter::default()
            .serve(transport)
            .await
            .map_err(|error| ClientError::Connect {
                target: target.to_owned(),
                source: Box::new(error),
            })?;
        Ok(Self {
            service: Arc::new(service),
            call_timeout: DEFAULT_CALL_TIMEOUT,
            target: target.to_owned(),
        })
    }

    /// Sets how long a call may take before it is answered with a time-out error.
    #[must_use]
    pub fn with_call_timeout(mut self, limit: Duration) -> Self {
        self.call_timeout = limit;
        self
    }

    /// The server's tools, as it lists them.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        tokio::time::timeout(self.call_timeout, self.service.list_all_tools())
            .await
            .map_err(|_| ClientError::Request {
                what: "tools/list timed out".into(),
                source: None,
            })?
            .map_err(|error| ClientError::Request {
                what: "tools/list".into(),
                source: Some(Box::new(error)),
            })
    }

    /// Registers every tool of the server into `registry` as a dynamic tool; returns their
    /// names. A tool whose name is taken or reserved is registered as
    /// `mcp__<server>__<name>` instead (see [`McpClient::import_into`]); one whose inputSchema
    /// does not compile, or whose new name is taken too, stops the registration with an error
    /// naming it.
    pub async fn register_into(
        &self,
        registry: &mut ToolRegistry,
    ) -> Result<Vec<String>, ClientError> {
        self.register_into_prefixed(registry, "").await
    }

    /// Like [`McpClient::register_into`], with every local name prefixed (`py_` makes the
    /// server's `echo` the local `py_echo`), so that two sources of tools can share a registry.
    /// Calls still go out under the server's own names.
    pub async fn register_into_prefixed(
        &self,
        registry: &mut ToolRegistry,
        prefix: &str,
    ) -> Result<Vec<String>, ClientError> {
        let imported = self.import_into(registry, prefix).await?;
        Ok(imported.into_iter().map(|tool| tool.name).collect())
    }

    /// Registers every tool of the server into `registry` as a dynamic tool, named `prefix`
    /// and its own name, unless that name is taken in `registry` or reserved
    /// ([`crate::RESERVED_TOOL_NAMES`]): such a tool is named `mcp__<server>__<name>`, so that
    /// no imported tool stands in for one of ours or is judged by the approvals as one. Returns
    /// each tool's names, saying which were renamed. A tool whose inputSchema does not compile,
    /// or whose new name is taken too, stops the registration with an error naming it.
    pub async fn import_into(
        &self,
        registry: &mut ToolRegistry,
        prefix: &str,
    ) -> Result<Vec<ImportedTool>, ClientError> {
        let server = self.server_name();
        let mut imported = Vec::new();
        for tool in self.list_tools().await? {
            let remote_name = tool.name.to_string();
            let (name, renamed) = local_name(registry, prefix, server.as_deref(), &remote_name);
            registry.register(self.remote_tool(tool, &name)?)?;
            imported.push(ImportedTool {
                name,
                remote_name,
                renamed,
            });
        }
        Ok(imported)
    }

    /// The name the server gave itself in its handshake (`serverInfo.name`): its own claim.
    pub fn server_name(&self) -> Option<String> {
        self.service
            .peer_info()
            .and_then(|info| info.server_info.as_ref().map(|server| server.name.clone()))
    }

    /// One remote tool as a local, validated tool named `local_name`, marked as imported from
    /// the server's command or URL ([`RegisteredTool::import_source`]).
    pub fn remote_tool(&self, tool: Tool, local_name: &str) -> Result<RegisteredTool, ClientError> {
        let name = tool.name.to_string();
        let schema = DynamicSchema::new(Value::Object(tool.input_schema.as_ref().clone()))
            .map_err(|error| ClientError::Schema {
                tool: name.clone(),
                source: error,
            })?;
        let description = tool.description.map(|d| d.to_string()).unwrap_or_default();
        let service = Arc::clone(&self.service);
        let limit = self.call_timeout;
        let remote_name = name.clone();
        // The server's hints are kept for display; approvals read none of them (`imported`):
        // a server can claim `readOnlyHint` for a tool that deletes files.
        let hints = crate::convert::from_mcp_annotations(tool.annotations.as_ref());
        Ok(RegisteredTool::new(
            FnTool::new(
                local_name,
                description,
                schema,
                move |arguments: Value, context: ToolContext| {
                    let service = Arc::clone(&service);
                    let name = remote_name.clone();
                    async move { call_remote(&service, name, arguments, context, limit).await }
                },
            )
            .with_annotations(hints),
        )
        .imported_from(self.target.as_str()))
    }
}

async fn call_remote(
    service: &RunningService<RoleClient, ProgressRouter>,
    name: String,
    arguments: Value,
    context: ToolContext,
    limit: Duration,
) -> Result<ToolOutput, ToolError> {
    let span = crate::telemetry::client_span(&name);
    let mut params = CallToolRequestParams::new(name);
    if let Value::Object(map) = arguments {
        params = params.with_arguments(map);
    }
    crate::telemetry::carry_context(&span, &mut params);
    let sent = send_call(service, params, context, limit);
    crate::telemetry::record_outcome(
        &span,
        tracing::Instrument::instrument(sent, span.clone()).await,
    )
}

/// Sends one `tools/call` and waits for its answer within `limit`, forwarding progress.
async fn send_call(
    service: &RunningService<RoleClient, ProgressRouter>,
    params: CallToolRequestParams,
    context: ToolContext,
    limit: Duration,
) -> Result<ToolOutput, ToolError> {
    let handle = service
        .send_cancellable_request(
            ClientRequest::CallToolRequest(Request::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await
        .map_err(|error| {
            ToolError::with_source(
                format!("the MCP server could not be reached: {error}"),
                error,
            )
        })?;
    let mut progress = service.service().subscribe(handle.progress_token.clone());
    let signal = context.signal().clone();
    let id = handle.id.clone();
    let peer = handle.peer.clone();
    let response = async move {
        tokio::select! {
            response = handle.await_response() => Ok(response),
            () = signal.cancelled() => Err(()),
        }
    };
    // Progress is forwarded inside this future (no task to outlive it) while the call is
    // pending; what arrived just before the result is delivered before it.
    let outcome = {
        let answer = tokio::time::timeout(limit, response);
        tokio::pin!(answer);
        let forward = async {
            while let Some(notification) = progress.next().await {
                context.update(progress_update(notification));
            }
        };
        tokio::select! {
            outcome = &mut answer => outcome,
            // The route closed (it does not while subscribed): just wait for the answer.
            () = forward => answer.await,
        }
    };
    while let Some(notification) = progress.try_next() {
        context.update(progress_update(notification));
    }
    match outcome {
        Ok(Ok(Ok(ServerResult::CallToolResult(result)))) => Ok(from_call_tool_result(result)),
        Ok(Ok(Ok(_))) => Err(ToolError::new(
            "the MCP server answered tools/call with something else",
        )),
        Ok(Ok(Err(error))) => Err(ToolError::with_source(
            format!("the MCP server failed: {error}"),
            error,
        )),
        Ok(Err(())) => {
            notify_cancelled(&peer, id).await;
            Err(ToolError::new("cancelled"))
        }
        Err(_) => {
            notify_cancelled(&peer, id).await;
            Err(ToolError::new(format!(
                "the MCP server did not answer within {} s",
                limit.as_secs_f64()
            )))
        }
    }
}

/// A server's `notifications/progress` as a partial result: readable text (`2/4: copying`) and
/// every field kept in the details.
fn progress_update(notification: ProgressNotificationParam) -> ToolUpdate {
    let ProgressNotificationParam {
        progress,
        total,
        message,
        ..
    } = notification;
    let mut line = match total {
        Some(total) => format!("{progress}/{total}"),
        None => progress.to_string(),
    };
    if let Some(message) = &message {
        line.push_str(": ");
        line.push_str(message);
    }
    let mut details = serde_json::Map::new();
    details.insert("progress".into(), json_number(progress));
    if let Some(total) = total {
        details.insert("total".into(), json_number(total));
    }
    if let Some(message) = message {
        details.insert("message".into(), Value::String(message));
    }
    ToolUpdate::new(vec![text(line)]).with_details(Value::Object(details))
}

/// A progress figure as JSON: whole numbers as integers (`2`, not `2.0`).
fn json_number(figure: f64) -> Value {
    #[expect(
        clippy::cast_possible_truncation,
        reason = "only whole figures within i64 are converted"
    )]
    let whole = (figure.fract() == 0.0 && figure.abs() < 9e15).then_some(figure as i64);
    match whole {
        Some(whole) => Value::from(whole),
        None => serde_json::Number::from_f64(figure).map_or(Value::Null, Value::Number),
    }
}

/// Tells the server to stop working on a request we gave up on.
async fn notify_cancelled(peer: &rmcp::Peer<RoleClient>, id: rmcp::model::RequestId) {
    let params = rmcp::model::CancelledNotificationParam::new(
        Some(id),
        Some("the client gave up".to_owned()),
    );
    let _ = peer.notify_cancelled(params).await;
}

/// An MCP result as our output: content, `structuredContent` as details, `isError` kept.
pub fn from_call_tool_result(result: CallToolResult) -> ToolOutput {
    let content: Vec<Content> = result
        .content
        .into_iter()
        .map(|block| match block {
            ContentBlock::Text(block) => text(block.text),
            ContentBlock::Image(block) => image(block.data, block.mime_type),
            other => text(format!(
                "[{} content omitted]",
                serde_json::to_value(&other)
                    .ok()
                    .and_then(|v| v.get("type").and_then(Value::as_str).map(str::to_owned))
                    .unwrap_or_else(|| "unsupported".to_owned())
            )),
        })
        .collect();
    let mut output = ToolOutput::new(content);
    output.details = result.structured_content;
    output.is_error = result.is_error;
    output
}
