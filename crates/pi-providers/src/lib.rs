//! Real models for the agent loop: each wire is a [`pi_ai::Provider`].
//!
//! - [`OpenAiChat`]: OpenAI Chat Completions, and through a base URL every OpenAI-compatible
//!   server (llama.cpp's server, Ollama, vLLM, OpenRouter, DeepSeek, Groq).
//! - [`OpenAiResponses`]: OpenAI Responses.
//! - [`Anthropic`]: Anthropic Messages.
//! - [`Gemini`]: Google Gemini (`streamGenerateContent?alt=sse`).
//!
//! Every wire streams server-sent events (read by the `sse-stream` crate from reqwest's byte
//! stream), maps text, thinking and tool-call fragments onto Pi's event protocol, renders the
//! tools in its own schema dialect (refusing, with the tool's name and the schema path, a schema
//! the provider cannot take, before any request is sent), sends tool results back the way it
//! wants them (with `isError` kept where the wire has a field for it and marked in the text
//! where it has none), retries what the official SDKs retry, and ends every failure as an
//! `error` (or, on cancellation, `aborted`) event with a clear `errorMessage`. API keys never
//! appear in errors or events.
//!
//! This crate is kept apart from `pi-ai` so that the message model, the loop, the MCP bridge
//! and the coding tools build without an HTTP or TLS stack.

mod anthropic;
mod config;
mod driver;
mod gemini;

mod http;
mod ids;
mod openai_chat;
mod openai_responses;
mod transcript;
mod turns;

pub use anthropic::Anthropic;
pub use config::{ProviderConfig, ProviderError, ToolChoice};

pub use gemini::Gemini;
pub use http::RetryPolicy;
pub use openai_chat::OpenAiChat;
pub use openai_responses::OpenAiResponses;
