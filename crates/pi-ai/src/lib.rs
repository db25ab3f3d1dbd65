//! Pi's model side: the messages of a conversation, the events a provider streams, the
//! [`Provider`] trait every model adapter implements, and a scripted [`FauxProvider`] for tests
//! and offline demos.
//!
//! JSON shapes are Pi's (camelCase, `role`/`type` tags, millisecond timestamps), so Pi
//! transcripts and ours read each other.
//!
//! Why a crate of its own: the model side is what the loop, the session files and every
//! provider share, and it must not bring a wire with it. The wires live in `pi-providers`
//! (reqwest, TLS); this crate depends only on `pi-tool`, so the loop, the sessions and the
//! tests build and run against the [`FauxProvider`] without any HTTP stack.

mod arguments;
mod assembler;
mod builder;
mod event;
mod faux;
mod json_size;
mod message;
mod provider;
mod replay;
mod thinking;

pub use arguments::{ArgumentBuffer, parse_arguments};
pub use assembler::{
    DEFAULT_MAX_RESPONSE_BYTES, Fragment, MAX_ARGUMENT_BYTES, MAX_TOOL_CALLS_PER_RESPONSE,
    REDACTED_THINKING, StreamAssembler,
};
pub use builder::{AssistantMessageBuilder, PARTIAL_KEPT_BYTES};
pub use event::AssistantMessageEvent;
pub use faux::{FauxProvider, FauxScriptError};
pub use json_size::{json_len, serialized_len};
pub use message::{
    AssistantContent, AssistantMessage, Cost, Message, StopReason, TranscriptError, Usage,
    UserContent, UserMessage, read_transcript, write_transcript,
};
pub use provider::{EventStream, ModelInfo, Provider, Request, ServerAddress};
pub use replay::{MessageEvents, message_events};
pub use thinking::{
    LevelMapping, ThinkingBudgets, ThinkingLevel, ThinkingLevelMap, UnknownThinkingLevel,
};
