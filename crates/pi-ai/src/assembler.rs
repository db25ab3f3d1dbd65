//! What every provider shares once its own wire format is read: turning text, thinking and
//! tool-call fragments into Pi's event protocol, and assembling the final message in linear
//! time.
//!
//! A provider parses its stream into [`Fragment`]s; the [`StreamAssembler`] keeps the content blocks
//! (a text block closes when a tool call starts, tool calls are keyed by the wire's own index
//! or item id so that interleaved fragments land in the right call), appends argument fragments
//! to one buffer per call and parses each buffer exactly once, when the response ends. Total
//! work is linear in the size of the arguments (upstream re-parses the whole buffer on every
//! delta, which is quadratic).

use crate::json_size::json_len;
use crate::{AssistantContent, AssistantMessage, AssistantMessageEvent, StopReason, Usage};
use pi_tool::{ArcStr, ToolCall, now_millis};
use serde_json::Value;

/// One thing a provider read from its stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Fragment {
    /// More answer text.
    Text(String),
    /// More reasoning text.
    Thinking(String),
    /// A tool call began; `key` is how later fragments name it (an index, an item id).
    ToolStart {
        /// The wire's name for this call in later fragments.
        key: String,
        /// The call id.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// More of a call's argument text.
    ToolArguments {
        /// The call's key, as given at its start.
        key: String,
        /// The new text (not JSON by itself).
        fragment: String,
    },
    /// A whole call at once (Gemini sends calls complete).
    ToolWhole {
        /// The call id.
        id: String,
        /// The tool's name.
        name: String,
        /// Its arguments.
        arguments: Value,
        /// Opaque provider data to send back with the call (Gemini's `thoughtSignature`).
        signature: Option<String>,
    },
    /// Token usage so far (cumulative: the last one wins).
    Usage(Usage),
    /// Why the model stopped, as the wire says it.
    Stop(StopReason),
    /// The provider's id of the response; the first one a response names is kept.
    ResponseId(String),
}

/// Which kind of text block streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Thinking,
}

/// The block being written, if any.
enum Open {
    None,
    Block {
        kind: Kind,
        index: usize,
        text: String,
    },
}

/// A tool call being streamed.
struct PendingCall {
    key: String,
    index: usize,
    id: ArcStr,
    name: ArcStr,
    arguments: ArgumentBuffer,
}

/// A tool call's argument text while it streams: fragments are appended (amortised constant
/// time each) and the whole is parsed exactly once, when the call ends. Total work is linear in
/// the argument size however it is split.
///
/// ```
/// use pi_ai::ArgumentBuffer;
///
/// let mut buffer = ArgumentBuffer::default();
/// for fragment in ["{\"pa", "th\":\"a", ".rs\"}"] {
///     buffer.push(fragment);
/// }
/// assert_eq!(buffer.finish(), serde_json::json!({"path": "a.rs"}));
/// // Text that is not JSON stays text, for validation to refuse; nothing is guessed.
/// let mut broken = ArgumentBuffer::default();
/// broken.push("{\"path\":");
/// assert_eq!(broken.finish(), serde_json::json!("{\"path\":"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArgumentBuffer {
    /// UTF-8 by construction: only whole `&str` fragments are appended.
    bytes: Vec<u8>,
}

impl ArgumentBuffer {
    /// Appends a fragment.
    #[inline]
    pub fn push(&mut self, fragment: &str) {
        let bytes = fragment.as_bytes();
        // Local servers often send a byte or two at a time: a push costs about a nanosecond,
        // a `memcpy` call several.
        match bytes {
            [byte] => self.bytes.push(*byte),
            [first, second] => {
                self.bytes.push(*first);
                self.bytes.push(*second);
            }
            _ => self.bytes.extend_from_slice(bytes),
        }
    }

    /// How many bytes are buffered.
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }

    /// The arguments, parsed once (see [`parse_arguments`]).
    pub fn finish(self) -> Value {
        match String::from_utf8(self.bytes) {
            Ok(text) => parse_owned(text),
            // Unreachable (only `&str`s go in); kept total rather than asserted.
            Err(error) => parse_arguments(&String::from_utf8_lossy(error.as_bytes())),
        }
    }
}

/// Folds [`Fragment`]s into Pi's events and the final message: what every provider needs
/// between its wire format and the loop.
///
/// ```
/// use pi_ai::{AssistantMessageEvent, Fragment, StopReason, StreamAssembler};
///
/// let (mut assembler, _start) = StreamAssembler::start("my-api", "me", "my-model");
/// let mut events = Vec::new();
/// events.extend(assembler.apply(Fragment::Text("Let me look.".into())));
/// events.extend(assembler.apply(Fragment::ToolStart { key: "0".into(), id: "c1".into(), name: "read".into() }));
/// for piece in ["{\"path\":", "\"a.rs\"}"] {
///     events.extend(assembler.apply(Fragment::ToolArguments { key: "0".into(), fragment: piece.into() }));
/// }
/// events.extend(assembler.apply(Fragment::Stop(StopReason::ToolUse)));
/// events.extend(assembler.finish());
/// let Some(AssistantMessageEvent::Done { message, .. }) = events.last() else { panic!() };
/// assert_eq!(message.tool_calls()[0].arguments, serde_json::json!({"path": "a.rs"}));
/// ```
pub struct StreamAssembler {
    message: AssistantMessage,
    open: Open,
    calls: Vec<PendingCall>,
    stop: Option<StopReason>,
    /// Bytes of text, thinking, call ids, names and arguments taken so far.
    kept: usize,
    /// The most `kept` may reach.
    max_response_bytes: usize,
    /// Set when a limit was passed: nothing more is kept and the response fails with this.
    over_limit: Option<String>,
}

/// The most argument text one tool call may stream: 16 MiB (what `pi-tool run` takes per
/// line). A call beyond it stops being buffered and its response ends with stopReason `error`
/// saying so; the call then gets a paired refusal, as every call of a failed response does.
pub const MAX_ARGUMENT_BYTES: usize = 16 << 20;

/// The most one response may hold by default: 32 MiB of text, thinking and tool calls (ids,
/// names, arguments) together. A model streaming without end, or many calls each under
/// [`MAX_ARGUMENT_BYTES`], would otherwise grow the process without bound. See
/// [`StreamAssembler::with_max_response_bytes`].
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 32 << 20;

impl StreamAssembler {
    /// Starts a response of `model` behind `api`/`provider`: the assembler and the `start`
    /// event.
    pub fn start(api: &str, provider: &str, model: &str) -> (Self, AssistantMessageEvent) {
        let message = AssistantMessage {
            content: Vec::new(),
            api: api.to_owned(),
            provider: provider.to_owned(),
            model: model.to_owned(),
            usage: Usage::default(),
            stop_reason: StopReason::Stop,
            error_message: None,
            timestamp: now_millis(),
            response_id: None,
        };
        let start = AssistantMessageEvent::Start {
            partial: message.clone(),
        };
        (
            Self {
                message,
                open: Open::None,
                calls: Vec::new(),
                stop: None,
                kept: 0,
                max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
                over_limit: None,
            },
            start,
        )
    }

    /// Bounds the response: once its text, thinking and tool calls (ids, names, arguments)
    /// together would pass `limit` bytes, nothing more is kept, [`Self::over_limit`] says so and
    /// the response ends as an `error` naming the limit (default
    /// [`DEFAULT_MAX_RESPONSE_BYTES`]).
    #[must_use]
    pub fn with_max_response_bytes(mut self, limit: usize) -> Self {
        self.max_response_bytes = limit;
        self
    }

    /// Why the response can take nothing more (its size limit or a call's was passed), if so.
    /// A reader should stop reading and call [`Self::finish`], which ends it as an `error`.
    pub fn over_limit(&self) -> Option<&str> {
        self.over_limit.as_deref()
    }

    /// Counts `size` more bytes against the response's limit; `false` (and the response marked
    /// failed) when they do not fit.
    fn take(&mut self, size: usize) -> bool {
        let total = self.kept.saturating_add(size);
        if total > self.max_response_bytes {
            self.over_limit = Some(format!(
                "the model's response passed the limit of {} (text, thinking and tool calls \
                 together)",
                amount(self.max_response_bytes)
            ));
            return false;
        }
        self.kept = total;
        true
    }

    /// Applies one fragment; returns the events it makes. After a limit was passed nothing
    /// more is kept (see [`Self::over_limit`]).
    pub fn apply(&mut self, fragment: Fragment) -> Vec<AssistantMessageEvent> {
        let mut events = Vec::new();
        if self.over_limit.is_some() {
            return events;
        }
        let size = match &fragment {
            Fragment::Text(text) | Fragment::Thinking(text) => text.len(),
            Fragment::ToolStart { id, name, .. } => id.len().saturating_add(name.len()),
            Fragment::ToolArguments { fragment, .. } => fragment.len(),
            Fragment::ToolWhole {
                id,
                name,
                arguments,
                signature,
            } => id
                .len()
                .saturating_add(name.len())
                .saturating_add(json_len(arguments))
                .saturating_add(signature.as_ref().map_or(0, String::len)),
            Fragment::ResponseId(id) => id.len(),
            Fragment::Usage(_) | Fragment::Stop(_) => 0,
        };
        if !self.take(size) {
            return events;
        }
        match fragment {
            Fragment::Text(delta) if !delta.is_empty() => {
                self.stream_text(Kind::Text, delta, &mut events);
            }
            Fragment::Thinking(delta) if !delta.is_empty() => {
                self.stream_text(Kind::Thinking, delta, &mut events);
            }
            Fragment::Text(_) | Fragment::Thinking(_) => {}
            Fragment::ToolStart { key, id, name } => {
                // Made shared once here: every message and event after this holds the same.
                let (id, name) = (ArcStr::from(id), ArcStr::from(name));
                self.close(&mut events);
                let index = self.reserve();
                events.push(AssistantMessageEvent::ToolCallStart {
                    content_index: index,
                    id: id.clone(),
                    name: name.clone(),
                });
                self.calls.push(PendingCall {
                    key,
                    index,
                    id,
                    name,
                    arguments: ArgumentBuffer::default(),
                });
            }
            Fragment::ToolArguments { key, fragment } => {
                if let Some(call) = self.calls.iter_mut().find(|call| call.key == key)
                    && !fragment.is_empty()
                {
                    if call.arguments.len() + fragment.len() > MAX_ARGUMENT_BYTES {
                        // Nothing more is kept: the response fails.
                        call.arguments = ArgumentBuffer::default();
                        self.over_limit = Some(format!(
                            "the model sent more than {} MiB of arguments for the call {} ({})",
                            MAX_ARGUMENT_BYTES >> 20,
                            call.id,
                            call.name
                        ));
                        return events;
                    }
                    call.arguments.push(&fragment);
                    events.push(AssistantMessageEvent::ToolCallDelta {
                        content_index: call.index,
                        delta: fragment,
                    });
                }
            }
            Fragment::ToolWhole {
                id,
                name,
                arguments,
                signature,
            } => {
                let (id, name) = (ArcStr::from(id), ArcStr::from(name));
                self.close(&mut events);
                let index = self.reserve();
                events.push(AssistantMessageEvent::ToolCallStart {
                    content_index: index,
                    id: id.clone(),
                    name: name.clone(),
                });
                self.put(
                    index,
                    AssistantContent::ToolCall {
                        id: id.clone(),
                        name: name.clone(),
                        arguments: arguments.clone(),
                        thought_signature: signature,
                    },
                );
                events.push(AssistantMessageEvent::ToolCallEnd {
                    content_index: index,
                    tool_call: ToolCall::new(id, name, arguments),
                });
            }
            Fragment::Usage(usage) => self.message.usage = usage,
            Fragment::Stop(reason) => self.stop = Some(reason),
            Fragment::ResponseId(id) => {
                self.message.response_id.get_or_insert(id);
            }
        }
        events
    }

    /// Ends the response normally: closes every block, parses every call's arguments once,
    /// and gives the final events (`done`, or `error` when the wire never said it stopped).
    pub fn finish(mut self) -> Vec<AssistantMessageEvent> {
        if let Some(message) = self.over_limit.take() {
            return self.fail(StopReason::Error, message);
        }
        let mut events = Vec::new();
        self.close(&mut events);
        self.close_calls(&mut events);
        match self.stop {
            Some(mut reason) => {
                let has_calls = self
                    .message
                    .content
                    .iter()
                    .any(|block| matches!(block, AssistantContent::ToolCall { .. }));
                // Some wires (Gemini) say STOP for tool calls.
                if reason == StopReason::Stop && has_calls {
                    reason = StopReason::ToolUse;
                }
                self.message.stop_reason = reason;
                self.message.timestamp = now_millis();
                events.push(AssistantMessageEvent::Done {
                    reason,
                    message: self.message,
                });
            }
            None => events.push(failed(
                self.message,
                StopReason::Error,
                "the stream ended before the response was complete".to_owned(),
            )),
        }
        events
    }

    /// Ends the response with a failure (`error` or `aborted`), keeping what arrived.
    pub fn fail(mut self, reason: StopReason, message: String) -> Vec<AssistantMessageEvent> {
        let mut events = Vec::new();
        self.close(&mut events);
        self.close_calls(&mut events);
        events.push(failed(self.message, reason, message));
        events
    }

    /// More text of `kind`: continues the open block of that kind, or closes what is open and
    /// starts one.
    fn stream_text(&mut self, kind: Kind, delta: String, events: &mut Vec<AssistantMessageEvent>) {
        if !matches!(&self.open, Open::Block { kind: open, .. } if *open == kind) {
            self.close(events);
            let content_index = self.reserve();
            events.push(match kind {
                Kind::Text => AssistantMessageEvent::TextStart { content_index },
                Kind::Thinking => AssistantMessageEvent::ThinkingStart { content_index },
            });
            self.open = Open::Block {
                kind,
                index: content_index,
                text: String::new(),
            };
        }
        if let Open::Block { index, text, .. } = &mut self.open {
            text.push_str(&delta);
            let content_index = *index;
            events.push(match kind {
                Kind::Text => AssistantMessageEvent::TextDelta {
                    content_index,
                    delta,
                },
                Kind::Thinking => AssistantMessageEvent::ThinkingDelta {
                    content_index,
                    delta,
                },
            });
        }
    }

    /// The next content index (a placeholder keeps indexes dense).
    fn reserve(&mut self) -> usize {
        self.message.content.push(AssistantContent::text(""));
        self.message.content.len() - 1
    }

    fn put(&mut self, index: usize, block: AssistantContent) {
        if let Some(slot) = self.message.content.get_mut(index) {
            *slot = block;
        }
    }

    fn close(&mut self, events: &mut Vec<AssistantMessageEvent>) {
        let Open::Block { kind, index, text } = std::mem::replace(&mut self.open, Open::None)
        else {
            return;
        };
        match kind {
            Kind::Text => {
                self.put(index, AssistantContent::text(text.clone()));
                events.push(AssistantMessageEvent::TextEnd {
                    content_index: index,
                    content: text,
                });
            }
            Kind::Thinking => {
                self.put(
                    index,
                    AssistantContent::Thinking {
                        thinking: text.clone(),
                        thinking_signature: None,
                        redacted: None,
                    },
                );
                events.push(AssistantMessageEvent::ThinkingEnd {
                    content_index: index,
                    content: text,
                });
            }
        }
    }

    /// Parses each call's argument text, once. Text that is not a JSON object is kept as a
    /// string: validation then refuses the call with a paired error result, and nothing runs on
    /// guessed arguments.
    fn close_calls(&mut self, events: &mut Vec<AssistantMessageEvent>) {
        for call in std::mem::take(&mut self.calls) {
            let arguments = call.arguments.finish();
            self.put(
                call.index,
                AssistantContent::tool_call(call.id.clone(), call.name.clone(), arguments.clone()),
            );
            events.push(AssistantMessageEvent::ToolCallEnd {
                content_index: call.index,
                tool_call: ToolCall::new(call.id, call.name, arguments),
            });
        }
    }
}

/// A call's complete argument text as JSON: empty means no arguments (`{}`); anything that is
/// not JSON stays the text it was, for validation to refuse.
pub fn parse_arguments(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// [`parse_arguments`] of text it may keep: text that is not JSON becomes the value without a
/// copy.
fn parse_owned(text: String) -> Value {
    if text.trim().is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(_) => Value::String(text),
    }
}

/// `bytes` for a person: whole MiB or KiB when it is one, else bytes.
fn amount(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

fn failed(
    mut message: AssistantMessage,
    reason: StopReason,
    error: String,
) -> AssistantMessageEvent {
    message.stop_reason = reason;
    message.error_message = Some(error);
    message.timestamp = now_millis();
    AssistantMessageEvent::Error {
        reason,
        error: message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_past_the_limit_fail_the_response_and_are_not_kept() {
        let (mut assembler, _) = StreamAssembler::start("api", "p", "m");
        assembler.apply(Fragment::ToolStart {
            key: "0".into(),
            id: "c1".into(),
            name: "write".into(),
        });
        let mebibyte = "x".repeat(1 << 20);
        let mut deltas = 0;
        for _ in 0..20 {
            let events = assembler.apply(Fragment::ToolArguments {
                key: "0".into(),
                fragment: mebibyte.clone(),
            });
            deltas += events.len();
        }
        assert_eq!(deltas, 16, "the deltas up to the limit are shown");
        assert_eq!(assembler.calls[0].arguments.len(), 0);
        assembler.apply(Fragment::Stop(StopReason::ToolUse));
        let events = assembler.finish();
        let Some(AssistantMessageEvent::Error { reason, error }) = events.last() else {
            panic!("{events:?}")
        };
        assert_eq!(*reason, StopReason::Error);
        assert_eq!(
            error.error_message.as_deref(),
            Some("the model sent more than 16 MiB of arguments for the call c1 (write)")
        );
        assert_eq!(error.tool_calls()[0].id, "c1");
    }

    #[test]
    fn text_thinking_and_calls_count_together_against_the_response_limit() {
        let (assembler, _) = StreamAssembler::start("api", "p", "m");
        let mut assembler = assembler.with_max_response_bytes(100);
        assembler.apply(Fragment::Thinking("t".repeat(30)));
        assembler.apply(Fragment::Text("x".repeat(30)));
        assembler.apply(Fragment::ToolStart {
            key: "0".into(),
            id: "c1".into(),
            name: "echo".into(),
        });
        // 30 + 30 + 6 so far: 34 bytes of arguments fit, 35 do not.
        assembler.apply(Fragment::ToolArguments {
            key: "0".into(),
            fragment: "a".repeat(34),
        });
        assert_eq!(assembler.over_limit(), None);
        let events = assembler.apply(Fragment::Text("y".into()));
        assert!(events.is_empty(), "{events:?}");
        assert_eq!(
            assembler.over_limit(),
            Some(
                "the model's response passed the limit of 100 bytes (text, thinking and tool \
                 calls together)"
            )
        );
        // Nothing more is kept, whatever comes.
        assert!(assembler.apply(Fragment::Text("z".repeat(1000))).is_empty());
        assembler.apply(Fragment::Stop(StopReason::Stop));
        let Some(AssistantMessageEvent::Error { error, .. }) = assembler.finish().pop() else {
            panic!()
        };
        assert_eq!(error.text(), "x".repeat(30));
        assert_eq!(error.tool_calls()[0].arguments, json!("a".repeat(34)));
    }

    #[test]
    fn whole_calls_count_by_their_json_length() {
        let (assembler, _) = StreamAssembler::start("api", "p", "m");
        let mut assembler = assembler.with_max_response_bytes(2 << 10);
        let whole = |n: usize| Fragment::ToolWhole {
            id: format!("c{n}"),
            name: "f".into(),
            arguments: json!({"v": "x".repeat(500)}),
            signature: None,
        };
        // Each call is 2 + 1 + 508 bytes: four fit in 2 KiB, the fifth does not.
        for n in 0..4 {
            assert!(!assembler.apply(whole(n)).is_empty());
        }
        assert!(assembler.apply(whole(4)).is_empty());
        assert!(
            assembler
                .over_limit()
                .is_some_and(|why| why.contains("the limit of 2 KiB"))
        );
    }

    fn pieces(list: Vec<Fragment>) -> AssistantMessage {
        let (mut assembler, _) = StreamAssembler::start("api", "p", "m");
        for fragment in list {
            assembler.apply(fragment);
        }
        match assembler.finish().pop() {
            Some(AssistantMessageEvent::Done { message, .. }) => message,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn interleaved_fragments_land_in_their_own_calls() {
        let message = pieces(vec![
            Fragment::Text("Checking.".into()),
            Fragment::ToolStart {
                key: "0".into(),
                id: "a".into(),
                name: "f".into(),
            },
            Fragment::ToolStart {
                key: "1".into(),
                id: "b".into(),
                name: "g".into(),
            },
            Fragment::ToolArguments {
                key: "1".into(),
                fragment: "{\"y\":".into(),
            },
            Fragment::ToolArguments {
                key: "0".into(),
                fragment: "{\"x\":1}".into(),
            },
            Fragment::ToolArguments {
                key: "1".into(),
                fragment: "2}".into(),
            },
            Fragment::Stop(StopReason::ToolUse),
        ]);
        assert_eq!(message.text(), "Checking.");
        let calls = message.tool_calls();
        assert_eq!(calls[0].arguments, json!({"x": 1}));
        assert_eq!(calls[1].arguments, json!({"y": 2}));
        assert_eq!(message.stop_reason, StopReason::ToolUse);
    }

    #[test]
    fn the_first_response_id_is_kept_on_done_and_on_failure() {
        let message = pieces(vec![
            Fragment::ResponseId("resp-1".into()),
            Fragment::Text("hi".into()),
            // Gemini repeats its id on every chunk; a different later one is not the response's.
            Fragment::ResponseId("resp-2".into()),
            Fragment::Stop(StopReason::Stop),
        ]);
        assert_eq!(message.response_id.as_deref(), Some("resp-1"));
        let (mut assembler, _) = StreamAssembler::start("api", "p", "m");
        assembler.apply(Fragment::ResponseId("resp-3".into()));
        let Some(AssistantMessageEvent::Error { error, .. }) =
            assembler.fail(StopReason::Error, "cut".into()).pop()
        else {
            panic!()
        };
        assert_eq!(error.response_id.as_deref(), Some("resp-3"));
    }

    #[test]
    fn broken_arguments_stay_text_and_a_missing_stop_is_an_error() {
        assert_eq!(parse_arguments(""), json!({}));
        assert_eq!(parse_arguments("{\"a\":"), json!("{\"a\":"));
        let (mut assembler, _) = StreamAssembler::start("api", "p", "m");
        assembler.apply(Fragment::Text("half".into()));
        match assembler.finish().pop() {
            Some(AssistantMessageEvent::Error { reason, error }) => {
                assert_eq!(reason, StopReason::Error);
                assert_eq!(error.text(), "half");
                assert!(error.error_message.unwrap().contains("ended before"));
            }
            other => panic!("{other:?}"),
        }
    }
}
