//! A scripted provider: the responses are given up front and streamed like a real model's.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::StreamExt;
use pi_tool::now_millis;
use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::{
    AssistantContent, AssistantMessage, AssistantMessageEvent, EventStream, ModelInfo, Provider,
    Request, StopReason, Usage,
};

/// A script that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("faux script response {index}: {reason}")]
pub struct FauxScriptError {
    /// Which element (0-based).
    pub index: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// Answers request k with scripted response k, streamed in small chunks: text and thinking a
/// few characters at a time, tool-call arguments as fragments of their JSON text. Honours
/// cancellation between chunks (`aborted`, `Request was aborted`); once the script is used up,
/// every further request ends with `error`, `No more faux responses queued`.
///
/// ```
/// use pi_ai::{FauxProvider, Provider, Request, AssistantMessageEvent};
/// use futures::StreamExt;
/// use serde_json::json;
///
/// let faux = FauxProvider::from_script(&json!([
///     {"content": [{"type": "text", "text": "hello there"}]}
/// ])).unwrap();
/// let events: Vec<_> = futures::executor::block_on(
///     faux.stream(Request::default(), Default::default()).collect());
/// match events.last().unwrap() {
///     AssistantMessageEvent::Done { message, .. } => assert_eq!(message.text(), "hello there"),
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Debug, Clone)]
pub struct FauxProvider {
    state: Arc<Mutex<FauxState>>,
    chunk_chars: usize,
    chunk_delay: Option<Duration>,
    /// Whether requests are kept for [`FauxProvider::requests`].
    records: bool,
}

#[derive(Debug, Default)]
struct FauxState {
    responses: VecDeque<AssistantMessage>,
    requests: Vec<Request>,
}

/// One scripted response as written in a script file: Pi's assistant shape, with everything
/// but `content` optional.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ScriptedResponse {
    content: Vec<AssistantContent>,
    #[serde(default)]
    stop_reason: Option<StopReason>,
    #[serde(default)]
    error_message: Option<String>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    response_id: Option<String>,
}

const FAUX_API: &str = "faux";

impl FauxProvider {
    /// A provider answering with `responses`, in order.
    pub fn new(responses: impl IntoIterator<Item = AssistantMessage>) -> Self {
        Self {
            state: Arc::new(Mutex::new(FauxState {
                responses: responses.into_iter().collect(),
                requests: Vec::new(),
            })),
            chunk_chars: 4,
            chunk_delay: None,
            records: false,
        }
    }

    /// Reads a script: a JSON array whose element k is the assistant message returned on the
    /// k-th request (`content` blocks of type text, thinking or toolCall; `stopReason` defaults
    /// to `toolUse` when there are tool calls and `stop` otherwise).
    pub fn from_script(script: &Value) -> Result<Self, FauxScriptError> {
        let Value::Array(elements) = script else {
            return Err(FauxScriptError {
                index: 0,
                reason: "a script is a JSON array of assistant messages".into(),
            });
        };
        let responses = elements
            .iter()
            .enumerate()
            .map(|(index, element)| {
                let scripted =
                    ScriptedResponse::deserialize(element).map_err(|error| FauxScriptError {
                        index,
                        reason: error.to_string(),
                    })?;
                Ok(Self::response(scripted))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self::new(responses))
    }

    fn response(scripted: ScriptedResponse) -> AssistantMessage {
        let calls_tools = scripted
            .content
            .iter()
            .any(|block| matches!(block, AssistantContent::ToolCall { .. }));
        let default_reason = if calls_tools {
            StopReason::ToolUse
        } else {
            StopReason::Stop
        };
        AssistantMessage {
            content: scripted.content,
            api: FAUX_API.into(),
            provider: FAUX_API.into(),
            model: FAUX_API.into(),
            usage: scripted.usage.unwrap_or_default(),
            stop_reason: scripted.stop_reason.unwrap_or(default_reason),
            error_message: scripted.error_message,
            timestamp: 0,
            response_id: scripted.response_id,
        }
    }

    /// Characters per text chunk (and per argument fragment); at least 1.
    #[must_use]
    pub fn with_chunk_chars(mut self, chars: usize) -> Self {
        self.chunk_chars = chars.max(1);
        self
    }

    /// Keeps every request for [`FauxProvider::requests`]. Off by default: a kept request holds
    /// its turn's transcript, so an agent loop must copy the transcript to append to it.
    #[must_use]
    pub fn recording_requests(mut self) -> Self {
        self.records = true;
        self
    }

    /// A pause before each chunk, as a real model's token rate would impose.
    #[must_use]
    pub fn with_chunk_delay(mut self, delay: Duration) -> Self {
        self.chunk_delay = Some(delay);
        self
    }

    /// Every request received so far, in order, when built with
    /// [`FauxProvider::recording_requests`]; otherwise none.
    pub fn requests(&self) -> Vec<Request> {
        self.lock().requests.clone()
    }

    /// How many scripted responses are left.
    pub fn remaining(&self) -> usize {
        self.lock().responses.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FauxState> {
        // A panic elsewhere while holding the lock leaves the script usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Provider for FauxProvider {
    fn model(&self) -> ModelInfo {
        ModelInfo {
            api: FAUX_API.into(),
            provider: FAUX_API.into(),
            model: FAUX_API.into(),
        }
    }

    fn stream(&self, request: Request, signal: CancellationToken) -> EventStream {
        let next = {
            let mut state = self.lock();
            if self.records {
                state.requests.push(request);
            }
            state.responses.pop_front()
        };
        let Some(response) = next else {
            let exhausted = failure(
                StopReason::Error,
                "No more faux responses queued",
                empty_message(),
            );
            return futures::stream::iter([exhausted]).boxed();
        };
        let delay = self.chunk_delay;
        // Streamed one event at a time from the response, none built ahead.
        let events = crate::MessageEvents::new(response, self.chunk_chars);
        futures::stream::unfold(
            (events, signal, false),
            move |(mut events, signal, ended)| async move {
                if ended {
                    return None;
                }
                if let Some(delay) = delay {
                    tokio::select! {
                        () = tokio::time::sleep(delay) => {}
                        () = signal.cancelled() => {}
                    }
                } else {
                    tokio::task::yield_now().await;
                }
                if signal.is_cancelled() {
                    let mut so_far = events.started().unwrap_or_else(empty_message);
                    so_far.timestamp = now_millis();
                    let aborted = failure(StopReason::Aborted, "Request was aborted", so_far);
                    return Some((aborted, (events, signal, true)));
                }
                let event = events.next()?;
                let last = matches!(
                    event,
                    AssistantMessageEvent::Done { .. } | AssistantMessageEvent::Error { .. }
                );
                Some((event, (events, signal, last)))
            },
        )
        .boxed()
    }
}

fn empty_message() -> AssistantMessage {
    AssistantMessage {
        content: Vec::new(),
        api: FAUX_API.into(),
        provider: FAUX_API.into(),
        model: FAUX_API.into(),
        usage: Usage::default(),
        stop_reason: StopReason::Stop,
        error_message: None,
        timestamp: now_millis(),
        response_id: None,
    }
}

fn failure(reason: StopReason, text: &str, mut message: AssistantMessage) -> AssistantMessageEvent {
    message.stop_reason = reason;
    message.error_message = Some(text.to_owned());
    AssistantMessageEvent::error(reason, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AssistantMessageBuilder;
    use serde_json::json;

    async fn collect(faux: &FauxProvider, signal: CancellationToken) -> Vec<AssistantMessageEvent> {
        faux.stream(Request::default(), signal).collect().await
    }

    #[tokio::test]
    async fn requests_are_kept_only_when_asked() {
        let script = json!([{"content": [{"type": "text", "text": "a"}]}]);
        let quiet = FauxProvider::from_script(&script).unwrap();
        collect(&quiet, CancellationToken::new()).await;
        assert!(quiet.requests().is_empty());
        let recording = FauxProvider::from_script(&script)
            .unwrap()
            .recording_requests();
        collect(&recording, CancellationToken::new()).await;
        assert_eq!(recording.requests(), [Request::default()]);
    }

    #[tokio::test]
    async fn streams_tool_arguments_as_json_fragments() {
        let faux = FauxProvider::from_script(&json!([{"content": [
            {"type": "thinking", "thinking": "let me see"},
            {"type": "toolCall", "id": "c1", "name": "echo", "arguments": {"value": "Pi"}}
        ]}]))
        .unwrap()
        .recording_requests();
        let events = collect(&faux, CancellationToken::new()).await;
        let fragments: String = events
            .iter()
            .filter_map(|event| match event {
                AssistantMessageEvent::ToolCallDelta { delta, .. } => Some(delta.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(fragments, r#"{"value":"Pi"}"#);
        let deltas = events
            .iter()
            .filter(|event| matches!(event, AssistantMessageEvent::ToolCallDelta { .. }))
            .count();
        assert!(deltas > 1, "arguments arrive in several fragments");

        let mut builder = AssistantMessageBuilder::new(empty_message());
        for event in &events {
            builder.apply(event);
        }
        let message = builder.finish();
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        assert_eq!(message.tool_calls()[0].arguments, json!({"value": "Pi"}));
        assert_eq!(faux.requests().len(), 1);
    }

    #[tokio::test]
    async fn an_exhausted_script_ends_with_a_clear_error() {
        let faux = FauxProvider::new([]);
        let events = collect(&faux, CancellationToken::new()).await;
        assert_eq!(events.len(), 1);
        match &events[0] {
            AssistantMessageEvent::Error { reason, error } => {
                assert_eq!(*reason, StopReason::Error);
                assert_eq!(
                    error.error_message.as_deref(),
                    Some("No more faux responses queued")
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn cancellation_ends_the_stream_as_aborted() {
        let faux = FauxProvider::from_script(
            &json!([{"content": [{"type": "text", "text": "a long answer indeed"}]}]),
        )
        .unwrap()
        .with_chunk_chars(1);
        let signal = CancellationToken::new();
        let mut stream = faux.stream(Request::default(), signal.clone());
        let first = stream.next().await.unwrap();
        assert!(matches!(first, AssistantMessageEvent::Start { .. }));
        signal.cancel();
        let rest: Vec<_> = stream.collect().await;
        assert_eq!(rest.len(), 1);
        match &rest[0] {
            AssistantMessageEvent::Error { reason, error } => {
                assert_eq!(*reason, StopReason::Aborted);
                assert_eq!(error.error_message.as_deref(), Some("Request was aborted"));
            }
            other => panic!("{other:?}"),
        }
    }

    /// A chunk delay paces the stream (one pause before each event), and a cancellation during
    /// a pause ends it then, as aborted, instead of after the pause.
    #[tokio::test(start_paused = true)]
    async fn a_chunk_delay_paces_the_stream_and_a_cancel_in_a_pause_aborts_it() {
        let script = json!([{"content": [{"type": "text", "text": "a paced answer"}]}]);
        let delay = Duration::from_millis(100);
        let paced = FauxProvider::from_script(&script)
            .unwrap()
            .with_chunk_delay(delay);
        let started = tokio::time::Instant::now();
        let events = collect(&paced, CancellationToken::new()).await;
        assert!(events.len() >= 3, "{events:?}");
        let count = u32::try_from(events.len()).unwrap();
        assert_eq!(started.elapsed(), delay * count);

        let cancelled = FauxProvider::from_script(&script)
            .unwrap()
            .with_chunk_delay(delay);
        let signal = CancellationToken::new();
        let canceller = signal.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(250)).await;
            canceller.cancel();
        });
        let started = tokio::time::Instant::now();
        let events = collect(&cancelled, signal).await;
        assert_eq!(started.elapsed(), Duration::from_millis(250));
        assert_eq!(events.len(), 3, "two events, then the abort: {events:?}");
        assert!(
            matches!(
                events.last(),
                Some(AssistantMessageEvent::Error {
                    reason: StopReason::Aborted,
                    ..
                })
            ),
            "{events:?}"
        );
    }

    #[test]
    fn scripts_must_be_arrays_of_messages() {
        assert!(FauxProvider::from_script(&json!({"content": []})).is_err());
        let error =
            FauxProvider::from_script(&json!([{"content": [{"type": "video"}]}])).unwrap_err();
        assert_eq!(error.index, 0);
    }
}
