//! The spans, built in one place so their field names can be checked against the registry.
//!
//! Every span is at INFO level under the target `pi_telemetry`, with `otel.name` and
//! `otel.kind`. A span's name is joined as text only when the span is enabled (the macro
//! evaluates field values after the level check) and handed over as a `&str`: a
//! `format_args!` would cost the bridge a pass through the formatting machinery per span
//! (about 1,000 instructions, callgrind).

use opentelemetry::{Array, StringValue, Value};
use tracing::field::Empty;
use tracing::{Span, info_span};
use tracing_opentelemetry::OpenTelemetrySpanExt;

use crate::{ErrorType, names};

/// The target every span here uses, for subscribers that filter by target.
pub const TARGET: &str = "pi_telemetry";

/// `invoke_agent {agent}` (INTERNAL): one run of the agent loop.
pub fn invoke_agent(agent_name: &str, provider: &str, conversation_id: Option<&str>) -> Span {
    info_span!(
        target: "pi_telemetry",
        "invoke_agent",
        otel.name = ["invoke_agent ", agent_name].concat().as_str(),
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = "invoke_agent",
        gen_ai.agent.name = agent_name,
        gen_ai.provider.name = provider,
        gen_ai.conversation.id = conversation_id,
        error.type = Empty,
    )
}

/// `chat {model}` (CLIENT): one model request, to `server` (host and port) when the model is
/// served over the network.
pub fn chat(
    provider: &str,
    model: &str,
    conversation_id: Option<&str>,
    server: Option<(&str, u16)>,
) -> Span {
    info_span!(
        target: "pi_telemetry",
        "chat",
        otel.name = ["chat ", model].concat().as_str(),
        otel.kind = "client",
        otel.status_code = Empty,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider,
        gen_ai.request.model = model,
        gen_ai.conversation.id = conversation_id,
        gen_ai.response.model = Empty,
        gen_ai.response.id = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.usage.cache_read.input_tokens = Empty,
        gen_ai.usage.cache_creation.input_tokens = Empty,
        gen_ai.output.messages = Empty,
        server.address = server.map(|(address, _)| address),
        server.port = server.map(|(_, port)| i64::from(port)),
        error.type = Empty,
    )
}

/// What a model request produced, for [`record_chat_response`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ChatResponse<'a> {
    /// The model that answered.
    pub model: &'a str,
    /// The provider's id of the response, when the wire gave one.
    pub id: Option<&'a str>,
    /// Why it stopped, in the conventions' words (`stop`, `length`, `tool_call`, `error`).
    pub finish_reason: &'static str,
    /// Input tokens, cache reads and writes included (as the conventions count them).
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read_tokens: u64,
    /// Input tokens written to the prompt cache.
    pub cache_creation_tokens: u64,
}

/// Records a response on its `chat` span.
pub fn record_chat_response(span: &Span, response: &ChatResponse<'_>) {
    if span.is_disabled() {
        return;
    }
    span.record("gen_ai.response.model", response.model);
    if let Some(id) = response.id {
        span.record("gen_ai.response.id", id);
    }
    // The conventions type the reasons as a string array, which a `tracing` field cannot
    // carry: the array goes to the OpenTelemetry span itself through the bridge (other
    // subscribers do not see it). One reason: we ask for one choice.
    span.set_attribute(
        names::GEN_AI_RESPONSE_FINISH_REASONS,
        Value::Array(Array::String(vec![StringValue::from(
            response.finish_reason,
        )])),
    );
    span.record("gen_ai.usage.input_tokens", count(response.input_tokens));
    span.record("gen_ai.usage.output_tokens", count(response.output_tokens));
    span.record(
        "gen_ai.usage.cache_read.input_tokens",
        count(response.cache_read_tokens),
    );
    span.record(
        "gen_ai.usage.cache_creation.input_tokens",
        count(response.cache_creation_tokens),
    );
}

/// A token count as the conventions type it (an int). Recorded as `i64` because the bridge
/// (tracing-opentelemetry 0.34) has no `u64` case and would send a `u64` as its text.
fn count(tokens: u64) -> i64 {
    i64::try_from(tokens).unwrap_or(i64::MAX)
}

/// `execute_tool {tool}` (INTERNAL): one tool call, with our paired call id.
pub fn execute_tool(tool_name: &str, call_id: &str, tool_type: &str) -> Span {
    info_span!(
        target: "pi_telemetry",
        "execute_tool",
        otel.name = ["execute_tool ", tool_name].concat().as_str(),
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = tool_name,
        gen_ai.tool.call.id = call_id,
        gen_ai.tool.type = tool_type,
        gen_ai.tool.call.arguments = Empty,
        gen_ai.tool.call.result = Empty,
        error.type = Empty,
    )
}

/// Which end of an MCP `tools/call` a span is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpSide {
    /// Our client calling a server's tool (CLIENT).
    Client,
    /// Our server answering a call (SERVER).
    Server,
}

/// `tools/call {tool}` on either end of the MCP bridge.
pub fn mcp_tools_call(side: McpSide, tool_name: &str, request_id: Option<&str>) -> Span {
    let kind = match side {
        McpSide::Client => "client",
        McpSide::Server => "server",
    };
    info_span!(
        target: "pi_telemetry",
        "tools/call",
        otel.name = ["tools/call ", tool_name].concat().as_str(),
        otel.kind = kind,
        otel.status_code = Empty,
        mcp.method.name = "tools/call",
        jsonrpc.request.id = request_id,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = tool_name,
        error.type = Empty,
    )
}

/// `pi_tool.compaction` (INTERNAL): a compaction's summary request. No convention names
/// compaction yet, so the span is in our own `pi_tool.` namespace.
pub fn compaction(provider: &str, model: &str) -> Span {
    info_span!(
        target: "pi_telemetry",
        "pi_tool.compaction",
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.provider.name = provider,
        gen_ai.request.model = model,
        error.type = Empty,
    )
}

/// Marks `span` failed with `error`.
pub fn record_error(span: &Span, error: ErrorType) {
    span.record("error.type", error.as_str());
    span.record("otel.status_code", "error");
}

/// Records opt-in content (`gen_ai.tool.call.arguments`, `.result`, `gen_ai.output.messages`)
/// when [`crate::capture_content`] allows it; `content` is only called then.
pub fn record_content(span: &Span, field: &'static str, content: impl FnOnce() -> String) {
    if !span.is_disabled() && crate::capture_content() {
        span.record(field, content().as_str());
    }
}

/// Whether a subscriber wants our spans at all: callers check it before gathering what a span
/// needs, so a process without one pays only this check.
pub fn enabled() -> bool {
    tracing::enabled!(target: "pi_telemetry", tracing::Level::INFO)
}
