//! The loop's OpenTelemetry GenAI spans and metrics (names and shapes in `pi-telemetry`):
//! `invoke_agent` around a run, `chat` around each model request, `execute_tool` around each
//! call. Kept here so the loop's files only wrap their futures.

use std::future::Future;

use futures::future::{BoxFuture, Either};
use pi_ai::{AssistantMessage, StopReason};
use pi_telemetry::spans::{self, ChatResponse};
use pi_telemetry::{ErrorType, metrics};
use pi_tool::{ExecutedCall, ToolCall};
use tracing::{Instrument, Span};

use crate::AgentConfig;

/// What the spans of a run say about it beyond the model: the agent's name and the
/// conversation (session) it belongs to.
#[derive(Debug, Clone, Default)]
pub struct RunLabels {
    /// `gen_ai.agent.name`; `pi` when unset.
    pub agent_name: Option<String>,
    /// `gen_ai.conversation.id`: the session id, when there is a session.
    pub conversation_id: Option<String>,
}

impl AgentConfig {
    /// Names the agent on its `invoke_agent` spans.
    #[must_use]
    pub fn with_agent_name(mut self, name: impl Into<String>) -> Self {
        self.labels.agent_name = Some(name.into());
        self
    }

    /// Ties the run's spans to a conversation (`gen_ai.conversation.id`, our session id).
    #[must_use]
    pub fn with_conversation_id(mut self, id: impl Into<String>) -> Self {
        self.labels.conversation_id = Some(id.into());
        self
    }
}

/// The `invoke_agent` span of a run (disabled when nobody listens).
pub(crate) fn run_span(config: &AgentConfig) -> Span {
    if !spans::enabled() {
        return Span::none();
    }
    let model = config.provider.model();
    spans::invoke_agent(
        config.labels.agent_name.as_deref().unwrap_or("pi"),
        &model.provider,
        config.labels.conversation_id.as_deref(),
    )
}

/// Runs one model request under its `chat` span (a child of the run's, not entered while the
/// response streams) and records what came back. The traced path is boxed, so the untraced
/// one keeps the request's future as small as it was.
pub(crate) fn traced_response<'a, F>(
    config: &'a AgentConfig,
    respond: F,
) -> Either<F, BoxFuture<'a, AssistantMessage>>
where
    F: Future<Output = AssistantMessage> + Send + 'a,
{
    let started = metrics::start();
    if started.is_none() && !spans::enabled() {
        return Either::Left(respond);
    }
    Either::Right(Box::pin(chat(config, respond, started)))
}

async fn chat(
    config: &AgentConfig,
    respond: impl Future<Output = AssistantMessage>,
    started: Option<std::time::Instant>,
) -> AssistantMessage {
    let model = config.provider.model();
    let span = spans::chat(
        &model.provider,
        &model.model,
        config.labels.conversation_id.as_deref(),
        config
            .provider
            .server()
            .map(|server| (server.host.as_str(), server.port)),
    );
    // The request runs without entering its span: a streamed response is polled once per
    // chunk, and every enter and exit of a span costs the OpenTelemetry bridge about 1,200
    // instructions (callgrind: 15 per turn of two calls on a scripted model, a sixth of
    // tracing's whole cost). Nothing under a request makes spans of its own; the span is
    // still the request's from start to end, a child of the run's.
    let message = respond.await;
    let usage = &message.usage;
    let input = usage.input + usage.cache_read + usage.cache_write;
    spans::record_chat_response(
        &span,
        &ChatResponse {
            model: &message.model,
            id: message.response_id.as_deref(),
            finish_reason: finish_reason(message.stop_reason),
            input_tokens: input,
            output_tokens: usage.output,
            cache_read_tokens: usage.cache_read,
            cache_creation_tokens: usage.cache_write,
        },
    );
    spans::record_content(&span, "gen_ai.output.messages", || {
        serde_json::to_string(&message.content).unwrap_or_default()
    });
    let error = matches!(message.stop_reason, StopReason::Error | StopReason::Aborted)
        .then_some(ErrorType::ModelError);
    if let Some(error) = error {
        spans::record_error(&span, error);
    }
    metrics::record_chat(
        started,
        &model.provider,
        &model.model,
        Some((input, usage.output)),
        error,
    );
    message
}

/// The conventions' finish reasons for ours.
fn finish_reason(reason: StopReason) -> &'static str {
    match reason {
        StopReason::Stop => "stop",
        StopReason::Length => "length",
        StopReason::ToolUse => "tool_call",
        StopReason::Error => "error",
        StopReason::Aborted => "aborted",
    }
}

/// Wraps a call's future in its `execute_tool` span and duration metric. Must be called where
/// the call is spawned, so the span's parent is the run's. Untouched when nobody listens;
/// the traced path is boxed, so the untraced one moves no bigger a future than before.
pub(crate) fn instrument_call<F>(
    call: &ToolCall,
    run: F,
) -> Either<F, BoxFuture<'static, ExecutedCall>>
where
    F: Future<Output = ExecutedCall> + Send + 'static,
{
    let started = metrics::start();
    if started.is_none() && !spans::enabled() {
        return Either::Left(run);
    }
    let span = spans::execute_tool(&call.name, &call.id, "function");
    spans::record_content(&span, "gen_ai.tool.call.arguments", || {
        call.arguments.to_string()
    });
    let name = call.name.clone();
    Either::Right(Box::pin(async move {
        let executed = run.instrument(span.clone()).await;
        let error = executed.failure.map(ErrorType::from);
        if let Some(error) = error {
            spans::record_error(&span, error);
        }
        spans::record_content(&span, "gen_ai.tool.call.result", || {
            serde_json::to_string(&executed.message.content).unwrap_or_default()
        });
        metrics::record_tool(started, &name, error);
        executed
    }))
}
