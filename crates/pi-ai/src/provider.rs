//! The provider contract: a request in, a stream of events out, never an error outside it.

use std::sync::Arc;

use futures::stream::BoxStream;
use pi_tool::ToolDefinition;
use tokio_util::sync::CancellationToken;

use crate::{AssistantMessageEvent, Message};

/// The events of one response.
pub type EventStream = BoxStream<'static, AssistantMessageEvent>;

/// What a model is asked: the system prompt, the conversation, the tools it may call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Request {
    /// The system prompt.
    pub system_prompt: Option<String>,
    /// The conversation so far. Shared, not copied: an agent loop hands every turn's request
    /// the transcript it keeps, and appends to it (copy-on-write) once the response is in.
    /// `vec![..].into()` makes one.
    pub messages: Arc<Vec<Message>>,
    /// The tools, as the provider is shown them: one shared list for every turn of a run
    /// (`Vec::new().into()` for none).
    pub tools: Arc<[ToolDefinition]>,
}

/// Which model answers: stamped on every assistant message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelInfo {
    /// The wire API, e.g. `openai-completions`.
    pub api: String,
    /// The provider, e.g. `openai`.
    pub provider: String,
    /// The model id.
    pub model: String,
}

/// Where a model is served over the network: what telemetry reports as `server.address` and
/// `server.port`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerAddress {
    /// The host name or IP address, as the base URL names it.
    pub host: String,
    /// The port, the scheme's default when the URL names none.
    pub port: u16,
}

/// A model behind some wire format (OpenAI, Anthropic, Gemini, a script).
///
/// The contract, Pi's: `stream` never fails outside the stream. A failure of the request, the
/// model or the connection ends the stream with an `error` event whose message has stopReason
/// `error` (or `aborted` when `signal` fired) and an `errorMessage`. The token reaches the
/// provider so it can stop the request.
pub trait Provider: Send + Sync {
    /// Which model this is.
    fn model(&self) -> ModelInfo;

    /// Where the model is served, for a provider that talks to a server; `None` (the default)
    /// for one that does not, such as a script.
    fn server(&self) -> Option<&ServerAddress> {
        None
    }

    /// Starts one response.
    fn stream(&self, request: Request, signal: CancellationToken) -> EventStream;
}
