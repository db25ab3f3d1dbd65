//! One response, for any wire: build the request, send it (with retries), read the events, and
//! end with exactly one `done` or `error`, whatever happens: within the response's size limit,
//! its idle limit (time without an event) and its total time limit.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::StreamExt;
use pi_ai::{
    AssistantContent, AssistantMessageEvent, EventStream, Fragment, ModelInfo, Request,
    ServerAddress, StopReason, StreamAssembler,
};
use pi_tool::ToolDefinition;
use pi_tool::dialect::Dialect;
use serde_json::Value;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::http::{self, Failure, Post, RetryPolicy};
use crate::ids::ResponseIds;

/// What a wire says about one SSE event.
#[derive(Debug, Default)]
pub(crate) struct Feed {
    pub(crate) pieces: Vec<Fragment>,
    /// The wire's end-of-stream marker arrived.
    pub(crate) done: bool,
}

/// One SSE event's data as JSON; an `{"error": {"message": ...}}` object (every wire's in-stream
/// failure shape) is the failure it reports.
pub(crate) fn event_json(data: &str) -> Result<Value, String> {
    let event: Value = serde_json::from_str(data)
        .map_err(|error| format!("the provider sent an unreadable event: {error}"))?;
    match event.get("error").filter(|error| error.is_object()) {
        Some(error) => Err(error_message(Some(error))),
        None => Ok(event),
    }
}

/// The `message` of a provider's error object.
pub(crate) fn error_message(error: Option<&Value>) -> String {
    error
        .and_then(|error| error.get("message"))
        .and_then(Value::as_str)
        .unwrap_or("the provider reported an error")
        .to_owned()
}

/// Reads one response's events (state per response: indexes, ids seen).
pub(crate) trait Parser: Send {
    /// One event; `Err` is a failure the provider reported inside the stream.
    fn feed(&mut self, event: Option<&str>, data: &str) -> Result<Feed, String>;
}

/// How a wire's answer is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// Server-sent events (every wire but Bedrock's).
    Sse,
    /// AWS event-stream frames (`application/vnd.amazon.eventstream`).
    AwsEventStream,
}

/// A wire format: how to ask, and how to read the answer.
pub(crate) trait Wire: Send + Sync + 'static {
    /// The wire API's name on every message it makes, e.g. `openai-completions`.
    const API: &'static str;
    /// How the answer is framed.
    const FRAMING: Framing = Framing::Sse;
    /// The provider's name on every message it makes, e.g. `openai`.
    const PROVIDER: &'static str;
    /// The settings it was made with.
    fn config(&self) -> &crate::ProviderConfig;
    /// Which model answers.
    fn info(&self) -> ModelInfo {
        ModelInfo {
            api: Self::API.to_owned(),
            provider: self
                .config()
                .provider
                .clone()
                .unwrap_or_else(|| Self::PROVIDER.to_owned()),
            model: self.config().model.clone(),
        }
    }
    /// The JSON Schema flavour the tools are rendered in.
    fn dialect(&self) -> Dialect;
    /// The tools in this wire's shape; `Err` names the tool and the schema path it cannot take.
    fn render_tools(&self, tools: &[ToolDefinition]) -> Result<Value, String>;
    /// The request for `request`, with the tools already rendered.
    fn post(&self, request: &Request, tools: &Value) -> Result<Post, String>;
    /// A parser for one response to `request`.
    fn parser(&self, request: &Request) -> Box<dyn Parser>;
    /// Whether `post` already carries the configured extra headers (a wire that signs its
    /// requests adds them before signing, so the signature covers them).
    fn adds_extra_headers(&self) -> bool {
        false
    }
    /// The `Authorization` value to fetch just before sending (a short-lived token bought
    /// with a refresh token); `None` for the wires whose `post` carries its credentials.
    fn authorization(
        &self,
        _client: &reqwest::Client,
    ) -> Option<futures::future::BoxFuture<'static, Result<String, String>>> {
        None
    }
}

/// Declares a public provider type over a wire: the struct, `new(config)` and the `Provider`
/// impl, which are the same for every wire.
macro_rules! wire_provider {
    ($(#[$doc:meta])* $name:ident over $wire:ident, default $default:literal) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name($crate::driver::Model<$wire>);

        struct $wire {
            config: $crate::ProviderConfig,
        }

        impl $name {
            #[doc = concat!("A model on `config.base_url` (default `", $default, "`).")]
            pub fn new(config: $crate::ProviderConfig) -> Result<Self, $crate::ProviderError> {
                $crate::driver::Model::new($wire { config }, $default).map(Self)
            }
        }

        impl pi_ai::Provider for $name {
            fn model(&self) -> pi_ai::ModelInfo {
                self.0.info()
            }

            fn server(&self) -> Option<&pi_ai::ServerAddress> {
                self.0.server()
            }

            fn stream(
                &self,
                request: pi_ai::Request,
                signal: tokio_util::sync::CancellationToken,
            ) -> pi_ai::EventStream {
                self.0.stream(request, signal)
            }
        }
    };
}
pub(crate) use wire_provider;

/// Each tool's parameters rendered in `dialect`, shaped by `shape(tool, parameters)`; the first
/// schema the dialect cannot take stops it, naming the tool and the schema path.
pub(crate) fn render_each(
    tools: &[ToolDefinition],
    dialect: Dialect,
    shape: impl Fn(&ToolDefinition, Value) -> Value,
) -> Result<Vec<Value>, String> {
    tools
        .iter()
        .map(|tool| {
            dialect
                .render(&tool.parameters)
                .map(|parameters| shape(tool, parameters))
                .map_err(|error| format!("the tool {} cannot be sent: {error}", tool.name))
        })
        .collect()
}

/// A model behind a wire: what every public provider type wraps.
pub(crate) struct Model<W> {
    wire: Arc<W>,
    rendered: Arc<RenderedTools>,
    client: reqwest::Client,
    /// The base URL's host and port, read once for every `chat` span.
    server: Option<ServerAddress>,
}

/// The host and port of `base_url` (the scheme's default port when it names none); `None` for
/// a URL without a host. A URL that does not parse fails at the first request, not here.
fn server_of(base_url: &str) -> Option<ServerAddress> {
    let url = reqwest::Url::parse(base_url).ok()?;
    Some(ServerAddress {
        host: url.host_str()?.to_owned(),
        port: url.port_or_known_default()?,
    })
}

impl<W: Wire> Model<W> {
    /// A model over `wire`, whose base URL is `default_base` unless its config names one.
    pub(crate) fn new(wire: W, default_base: &str) -> Result<Self, crate::ProviderError> {
        if wire.config().strict_tools && wire.dialect() != Dialect::OpenAiStrict {
            return Err(crate::ProviderError::Unsupported(format!(
                "strict tools are an OpenAI feature; the {} wire has none",
                W::API
            )));
        }
        let client = crate::http::client(wire.config().read_timeout)?;
        let server = server_of(&wire.config().base(default_base));
        Ok(Self {
            wire: Arc::new(wire),
            rendered: Arc::default(),
            client,
            server,
        })
    }

    pub(crate) fn info(&self) -> ModelInfo {
        self.wire.info()
    }

    pub(crate) fn server(&self) -> Option<&ServerAddress> {
        self.server.as_ref()
    }

    pub(crate) fn stream(&self, request: Request, signal: CancellationToken) -> EventStream {
        let config = self.wire.config();
        let limits = Limits {
            retry: config.retry,
            idle: config.read_timeout,
            total: config.response_timeout,
            bytes: config.max_response_bytes,
        };
        drive(
            Arc::clone(&self.wire),
            Arc::clone(&self.rendered),
            self.client.clone(),
            limits,
            request,
            signal,
        )
    }
}

impl<W: Wire> std::fmt::Debug for Model<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The config's own Debug hides the key.
        f.debug_struct("Model")
            .field("config", self.wire.config())
            .finish_non_exhaustive()
    }
}

/// Tools rendered once and reused while the tool set stays the same (a run's every turn).
#[derive(Default)]
pub(crate) struct RenderedTools(Mutex<Option<(Arc<[ToolDefinition]>, Value)>>);

impl RenderedTools {
    fn get<W: Wire>(&self, wire: &W, tools: &Arc<[ToolDefinition]>) -> Result<Value, String> {
        let mut cached = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        // A run hands every turn the same list: the pointer answers without comparing.
        if let Some((definitions, rendered)) = cached.as_ref()
            && (Arc::ptr_eq(definitions, tools) || definitions[..] == tools[..])
        {
            return Ok(rendered.clone());
        }
        let rendered = wire.render_tools(tools)?;
        *cached = Some((Arc::clone(tools), rendered.clone()));
        Ok(rendered)
    }
}

/// What bounds one response.
#[derive(Debug, Clone, Copy)]
struct Limits {
    retry: RetryPolicy,
    /// The longest wait for the next event.
    idle: Duration,
    /// The longest the whole response may take.
    total: Duration,
    /// The most text, thinking and tool calls it may hold.
    bytes: usize,
}

/// `start + length`, or `None` for a limit too long to reach.
fn after(start: Instant, length: Duration) -> Option<Instant> {
    start.checked_add(length)
}

/// Waits until `deadline`; forever when there is none.
async fn until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// A duration as a person reads it in an error: `300 s`, `0.25 s`.
fn seconds(length: Duration) -> String {
    format!("{} s", length.as_secs_f64())
}

/// Runs one response of `wire` as an event stream. Dropping the stream drops the request.
fn drive<W: Wire>(
    wire: Arc<W>,
    rendered: Arc<RenderedTools>,
    client: reqwest::Client,
    limits: Limits,
    request: Request,
    signal: CancellationToken,
) -> EventStream {
    Box::pin(async_stream::stream! {
        let began = Instant::now();
        let deadline = after(began, limits.total);
        let too_slow = format!(
            "the response did not end within its time limit of {}",
            seconds(limits.total)
        );
        let info = wire.info();
        let dialect = wire.dialect();
        let (assembler, start) = StreamAssembler::start(&info.api, &info.provider, &info.model);
        let mut assembler = assembler.with_max_response_bytes(limits.bytes);
        let mut ids = ResponseIds::default();
        yield start;
        // The `Value` of the body is written out and dropped here: only its bytes stay.
        let post = rendered
            .get(wire.as_ref(), &request.tools)
            .and_then(|tools| wire.post(&request, &tools))
            .and_then(|post| {
                if wire.adds_extra_headers() {
                    Ok(post)
                } else {
                    post.extra_headers(&wire.config().headers)
                }
            });
        let post = match (post, wire.authorization(&client)) {
            (Ok(post), Some(fetch)) => {
                let value = tokio::select! {
                    value = fetch => value,
                    () = signal.cancelled() => Err("Request was aborted".to_owned()),
                    () = until(deadline) => Err(too_slow.clone()),
                };
                value.and_then(|value| post.sensitive_header("authorization", &value))
            }
            (post, _) => post,
        };
        let post = match post {
            Ok(post) => post,
            Err(message) => {
                for event in assembler.fail(StopReason::Error, message) {
                    yield event;
                }
                return;
            }
        };
        let sent = tokio::select! {
            sent = http::send(&client, &post, limits.retry, &signal) => sent,
            () = until(deadline) => Err(Failure::Error(too_slow.clone())),
        };
        drop(post);
        let response = match sent {
            Ok(response) => response,
            Err(failure) => {
                let (reason, message) = match failure {
                    Failure::Aborted => (StopReason::Aborted, "Request was aborted".to_owned()),
                    Failure::Error(message) => (StopReason::Error, message),
                };
                for event in assembler.fail(reason, message) {
                    yield event;
                }
                return;
            }
        };
        let mut parser = wire.parser(&request);
        // JSON escaping makes an event larger than what it carries; anything past this is no
        // honest event.
        let max_event = limits.bytes.saturating_mul(2).saturating_add(1 << 20);
        let events: futures::stream::BoxStream<'static, Result<(Option<String>, String), String>> =
            match W::FRAMING {
                Framing::Sse => http::events(response, max_event).boxed(),
                Framing::AwsEventStream => {
                    crate::event_frames::frames(response, max_event).boxed()
                }
            };
        futures::pin_mut!(events);
        loop {
            // Only events restart the idle clock: keep-alive comments never reach here.
            let idle_until = after(Instant::now(), limits.idle);
            let wake = match (idle_until, deadline) {
                (Some(idle), Some(total)) => Some(idle.min(total)),
                (idle, total) => idle.or(total),
            };
            let next = tokio::select! {
                next = events.next() => next,
                () = signal.cancelled() => {
                    for event in assembler.fail(StopReason::Aborted, "Request was aborted".to_owned()) {
                        yield event;
                    }
                    return;
                }
                () = until(wake) => {
                    let message = if deadline.is_some_and(|total| Instant::now() >= total) {
                        too_slow.clone()
                    } else {
                        format!(
                            "the provider sent no event for {} (keep-alive comments do not count)",
                            seconds(limits.idle)
                        )
                    };
                    for event in assembler.fail(StopReason::Error, message) {
                        yield event;
                    }
                    return;
                }
            };
            let (name, data) = match next {
                None => break,
                Some(Ok(event)) => event,
                Some(Err(message)) => {
                    for event in assembler.fail(StopReason::Error, message) {
                        yield event;
                    }
                    return;
                }
            };
            match parser.feed(name.as_deref(), &data) {
                Ok(feed) => {
                    for piece in feed.pieces {
                        for event in assembler.apply(ids.fragment(piece)) {
                            yield settle(dialect, &request.tools, event);
                        }
                    }
                    if assembler.over_limit().is_some() {
                        // Nothing more is read: the connection closes when `events` is dropped.
                        for event in assembler.finish() {
                            yield settle(dialect, &request.tools, event);
                        }
                        return;
                    }
                    if feed.done {
                        break;
                    }
                }
                Err(message) => {
                    for event in assembler.fail(StopReason::Error, message) {
                        yield event;
                    }
                    return;
                }
            }
        }
        for event in assembler.finish() {
            yield settle(dialect, &request.tools, event);
        }
    })
}

/// Undoes what the dialect made the model send differently (strict mode's `null`s for
/// optional properties) in the calls a response ends with, before anything validates them.
fn settle(
    dialect: Dialect,
    tools: &[ToolDefinition],
    mut event: AssistantMessageEvent,
) -> AssistantMessageEvent {
    if dialect != Dialect::OpenAiStrict {
        return event;
    }
    let normalize = |name: &str, arguments: &mut Value| {
        if let Some(tool) = tools.iter().find(|tool| tool.name == name)
            && let Some(normalized) = dialect.normalize_arguments(&tool.parameters, arguments)
        {
            *arguments = normalized;
        }
    };
    match &mut event {
        AssistantMessageEvent::ToolCallEnd { tool_call, .. } => {
            normalize(&tool_call.name, &mut tool_call.arguments);
        }
        AssistantMessageEvent::Done { message, .. } => {
            for block in &mut message.content {
                if let AssistantContent::ToolCall {
                    name, arguments, ..
                } = block
                {
                    normalize(name, arguments);
                }
            }
        }
        _ => {}
    }
    event
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use pi_ai::Provider;

    use crate::{Anthropic, Gemini, OpenAiChat, OpenAiResponses, ProviderConfig};

    fn server(provider: &dyn Provider) -> Option<(String, u16)> {
        provider
            .server()
            .map(|server| (server.host.clone(), server.port))
    }

    #[test]
    fn the_server_is_the_base_urls_host_and_port() {
        let config = || ProviderConfig::new("m");
        let at = |host: &str, port| Some((host.to_owned(), port));
        assert_eq!(
            server(&OpenAiChat::new(config()).unwrap()),
            at("api.openai.com", 443)
        );
        assert_eq!(
            server(&OpenAiResponses::new(config()).unwrap()),
            at("api.openai.com", 443)
        );
        assert_eq!(
            server(&Anthropic::new(config()).unwrap()),
            at("api.anthropic.com", 443)
        );
        assert_eq!(
            server(&Gemini::new(config()).unwrap()),
            at("generativelanguage.googleapis.com", 443)
        );
        let local = config().with_base_url("http://127.0.0.1:8080/v1/");
        assert_eq!(
            server(&OpenAiChat::new(local).unwrap()),
            at("127.0.0.1", 8080)
        );
        let plain = config().with_base_url("http://localhost/v1");
        assert_eq!(
            server(&OpenAiChat::new(plain).unwrap()),
            at("localhost", 80)
        );
        // Not a URL: no server to name (the first request says what is wrong).
        let broken = config().with_base_url("not a url");
        assert_eq!(server(&OpenAiChat::new(broken).unwrap()), None);
    }
}
