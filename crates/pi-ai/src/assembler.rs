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

use crate::arguments::ArgumentBuffer;
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
    /// Opaque provider data that must go back with the thinking being written (Anthropic's
    /// signature, OpenAI Responses' reasoning item, Gemini's `thoughtSignature`): it replaces
    /// the signature of the open thinking block, or opens an empty one (reasoning that
    /// arrives encrypted, with no text).
    ThinkingSignature(String),
    /// Opaque provider data for the text being written (OpenAI Responses' message item id,
    /// Gemini's `thoughtSignature`): it replaces the signature of the open text block, if any.
    TextSignature(String),
    /// A thinking block the provider redacted, whole: its opaque payload.
    RedactedThinking(String),
    /// The wire closed its block: the next text or thinking starts a new one.
    EndBlock,
}

/// What a redacted thinking block reads as.
pub const REDACTED_THINKING: &str = "[Reasoning redacted]";

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
        signature: Option<String>,
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
    /// Tool calls started so far (see [`MAX_TOOL_CALLS_PER_RESPONSE`]).
    tool_calls: usize,
}

/// The most argument text one tool call may stream: 16 MiB (what `pi-tool run` takes per
/// line). A call beyond it stops being buffered and its response ends with stopReason `error`
/// saying so; the call then gets a paired refusal, as every call of a failed response does.
pub const MAX_ARGUMENT_BYTES: usize = 16 << 20;

/// The most tool calls one response may hold: 1,024 (eight times the calls an agent runs from
/// one response). A response of 200,000 tiny calls fits in 3 MB, far under the size limit, and
/// would cost every later request a refusal per call: past this many, nothing more is kept
/// and the response ends with stopReason `error` saying so (its calls each get a paired
/// refusal, as every call of a failed response does).
pub const MAX_TOOL_CALLS_PER_RESPONSE: usize = 1024;

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
        let start = AssistantMessageEvent::start(message.clone());
        (
            Self {
                message,
                open: Open::None,
                calls: Vec::new(),
                stop: None,
                kept: 0,
                max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
                over_limit: None,
                tool_calls: 0,
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
            Fragment::Text(text)
            | Fragment::Thinking(text)
            | Fragment::ThinkingSignature(text)
            | Fragment::TextSignature(text)
            | Fragment::RedactedThinking(text) => text.len(),
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
            Fragment::Usage(_) | Fragment::Stop(_) | Fragment::EndBlock => 0,
        };
        if !self.take(size) {
            return events;
        }
        if matches!(
            fragment,
            Fragment::ToolStart { .. } | Fragment::ToolWhole { .. }
        ) {
            if self.tool_calls == MAX_TOOL_CALLS_PER_RESPONSE {
                self.over_limit = Some(format!(
                    "the model's response has more than {MAX_TOOL_CALLS_PER_RESPONSE} tool calls"
                ));
                return events;
            }
            self.tool_calls += 1;
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
                // Searched from the newest: arguments almost always follow their own start,
                // so a response of many calls costs one comparison per fragment, not one per
                // earlier call (200,000 calls took minutes).
                if let Some(call) = self.calls.iter_mut().rev().find(|call| call.key == key)
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
            Fragment::ThinkingSignature(signature) => {
                if !matches!(
                    &self.open,
                    Open::Block {
                        kind: Kind::Thinking,
                        ..
                    }
                ) {
                    self.close(&mut events);
                    let content_index = self.reserve();
                    events.push(AssistantMessageEvent::ThinkingStart { content_index });
                    self.open = Open::Block {
                        kind: Kind::Thinking,
                        index: content_index,
                        text: String::new(),
                        signature: None,
                    };
                }
                self.sign(Kind::Thinking, signature);
            }
            Fragment::TextSignature(signature) => self.sign(Kind::Text, signature),
            Fragment::RedactedThinking(data) => {
                self.close(&mut events);
                let content_index = self.reserve();
                events.push(AssistantMessageEvent::ThinkingStart { content_index });
                self.put(
                    content_index,
                    AssistantContent::Thinking {
                        thinking: REDACTED_THINKING.to_owned(),
                        thinking_signature: Some(data),
                        redacted: Some(true),
                    },
                );
                events.push(AssistantMessageEvent::ThinkingEnd {
                    content_index,
                    content: REDACTED_THINKING.to_owned(),
                });
            }
            Fragment::EndBlock => self.close(&mut events),
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
                events.push(AssistantMessageEvent::done(reason, self.message));
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
                signature: None,
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

    /// Sets the signature of the open block when it is of `kind`.
    fn sign(&mut self, kind: Kind, new: String) {
        if let Open::Block {
            kind: open,
            signature,
            ..
        } = &mut self.open
            && *open == kind
        {
            *signature = Some(new);
        }
    }

    fn close(&mut self, events: &mut Vec<AssistantMessageEvent>) {
        let Open::Block {
            kind,
            index,
            text,
            signature,
        } = std::mem::replace(&mut self.open, Open::None)
        else {
            return;
        };
        match kind {
            Kind::Text => {
                self.put(
                    index,
                    AssistantContent::Text {
                        text: text.clone(),
                        text_signature: signature,
                    },
                );
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
                        thinking_signature: signature,
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
    AssistantMessageEvent::error(reason, message)
}

#[cfg(test)]
mod tests;
