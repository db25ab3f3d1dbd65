//! One response, for any wire: build the request, send it (with retries), read the events, and
//! end with exactly one `done` or `error`, whatever happens.

use std::sync::{Arc, Mutex, PoisonError};

use futures::StreamExt;
use pi_ai::{EventStream, ModelInfo, Request, StopReason};
use pi_tool::ToolDefinition;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::http::{self, Failure, Post, RetryPolicy};
use pi_ai::{Fragment, StreamAssembler};

/// What a wire says about one SSE event.
#[derive(Debug, Default)]
pub(crate) struct Feed {
    pub(crate) pieces: Vec<Fragment>,
    /// The wire's end-of-stream marker arrived.
    pub(crate) done: bool,
}

/// Reads one response's events (state per response: indexes, ids seen).
pub(crate) trait Parser: Send {
    /// One event; `Err` is a failure the provider reported inside the stream.
    fn feed(&mut self, event: Option<&str>, data: &str) -> Result<Feed, String>;
}

/// A wire format: how to ask, and how to read the answer.
pub(crate) trait Wire: Send + Sync + 'static {
    /// Which model answers.
    fn info(&self) -> ModelInfo;
    /// The tools in this wire's shape; `Err` names the tool and the schema path it cannot take.
    fn render_tools(&self, tools: &[ToolDefinition]) -> Result<Value, String>;
    /// The request for `request`, with the tools already rendered.
    fn post(&self, request: &Request, tools: &Value) -> Result<Post, String>;
    /// A parser for one response.
    fn parser(&self) -> Box<dyn Parser>;
}

/// Tools rendered once and reused while the tool set stays the same (a run's every turn).
#[derive(Default)]
pub(crate) struct RenderedTools(Mutex<Option<(Vec<ToolDefinition>, Value)>>);

impl RenderedTools {
    fn get(&self, wire: &dyn Wire, tools: &[ToolDefinition]) -> Result<Value, String> {
        let mut cached = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((definitions, rendered)) = cached.as_ref()
            && definitions.as_slice() == tools
        {
            return Ok(rendered.clone());
        }
        let rendered = wire.render_tools(tools)?;
        *cached = Some((tools.to_vec(), rendered.clone()));
        Ok(rendered)
    }
}

/// Runs one response of `wire` as an event stream. Dropping the stream drops the request.
pub(crate) fn drive<W: Wire>(
    wire: Arc<W>,
    rendered: Arc<RenderedTools>,
    client: reqwest::Client,
    retry: RetryPolicy,
    request: Request,
    cancel: CancellationToken,
) -> EventStream {
    Box::pin(async_stream::stream! {
        let info = wire.info();
        let (mut assembler, start) = StreamAssembler::start(&info.api, &info.provider, &info.model);
        yield start;
        let post = rendered
            .get(wire.as_ref(), &request.tools)
            .and_then(|tools| wire.post(&request, &tools));
        let post = match post {
            Ok(post) => post,
            Err(message) => {
                for event in assembler.fail(StopReason::Error, message) {
                    yield event;
                }
                return;
            }
        };
        let response = match http::send(&client, &post, retry, &cancel).await {
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
        let mut parser = wire.parser();
        let events = http::events(response);
        futures::pin_mut!(events);
        loop {
            let next = tokio::select! {
                next = events.next() => next,
                () = cancel.cancelled() => {
                    for event in assembler.fail(StopReason::Aborted, "Request was aborted".to_owned()) {
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
                        for event in assembler.apply(piece) {
                            yield event;
                        }
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
            yield event;
        }
    })
}
