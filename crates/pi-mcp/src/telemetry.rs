//! The MCP `tools/call` spans on both ends of the bridge, with W3C trace context carried in
//! the request's `_meta` (`traceparent`, `tracestate`, as SEP-414 reserves them), so one trace
//! runs from the agent through our client into our server.

use pi_telemetry::ErrorType;
use pi_telemetry::spans::{self, McpSide};
use pi_tool::{ToolError, ToolOutput};
use rmcp::model::{CallToolRequestParams, RequestMetaObject};
use tracing::Span;

/// Our client's span for a call of `tool`.
pub(crate) fn client_span(tool: &str) -> Span {
    spans::mcp_tools_call(McpSide::Client, tool, None)
}

/// Puts the client span's trace context into the request's `_meta`.
pub(crate) fn carry_context(span: &Span, params: &mut CallToolRequestParams) {
    if let Some((parent, state)) = pi_telemetry::context::outgoing(span) {
        let meta = params.meta.get_or_insert_default();
        meta.set_traceparent(parent);
        if let Some(state) = state {
            meta.set_tracestate(state);
        }
    }
}

/// Marks the client span failed when the call did not come back as a result.
pub(crate) fn record_outcome(
    span: &Span,
    outcome: Result<ToolOutput, ToolError>,
) -> Result<ToolOutput, ToolError> {
    if outcome.is_err() {
        spans::record_error(span, ErrorType::ToolError);
    }
    outcome
}

/// Our server's span for a call of `tool`, a child of the caller's span when `_meta` carries
/// its trace context.
pub(crate) fn server_span(tool: &str, meta: &RequestMetaObject) -> Span {
    let span = spans::mcp_tools_call(McpSide::Server, tool, None);
    if let Some(parent) = meta.get_traceparent() {
        pi_telemetry::context::adopt(&span, parent, meta.get_tracestate());
    }
    span
}

/// Marks the server span (the current one while a call runs) failed, as the call's typed
/// outcome says.
pub(crate) fn record_failure(kind: pi_tool::FailureKind) {
    spans::record_error(&Span::current(), ErrorType::from(kind));
}

/// Marks the server span failed when the answer is a protocol error (an unknown tool).
pub(crate) fn record_answer<T, E>(span: &Span, answer: Result<T, E>) -> Result<T, E> {
    if answer.is_err() {
        spans::record_error(span, ErrorType::UnknownTool);
    }
    answer
}
