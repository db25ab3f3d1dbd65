//! Real models for the agent loop: each wire is a [`pi_ai::Provider`].
//!
//! - [`OpenAiChat`]: OpenAI Chat Completions, and through a base URL every OpenAI-compatible
//!   server (llama.cpp's server, Ollama, vLLM, OpenRouter, DeepSeek, Groq).
//! - [`OpenAiResponses`]: OpenAI Responses.
//! - [`Anthropic`]: Anthropic Messages.
//! - [`Gemini`]: Google Gemini (`streamGenerateContent?alt=sse`).
//! - [`AzureOpenAi`]: Azure OpenAI, on the Responses wire (its URL forms normalised, its
//!   `api-key` header).
//! - [`Vertex`]: Gemini on Google Vertex AI, with an API key or application default
//!   credentials (gcloud's user login, or a service-account key).
//! - [`Bedrock`]: Amazon Bedrock's Converse streaming API, signed with SigV4 by the AWS
//!   signer (or with a Bedrock bearer token), its answer read from AWS event-stream frames.
//!
//! Each wire asks for the configured thinking level ([`ProviderConfig::thinking`]) the way Pi
//! asks for it there, sends the configured extra headers, and reads a `models.json` `compat`
//! block ([`ModelCompat`]).
//!
//! Every wire but Bedrock's streams server-sent events (read from reqwest's byte stream, each event bounded),
//! maps text, thinking and tool-call fragments onto Pi's event protocol, renders the
//! tools in its own schema dialect (refusing, with the tool's name and the schema path, a schema
//! the provider cannot take, before any request is sent), sends tool results back the way it
//! wants them (with `isError` kept where the wire has a field for it and marked in the text
//! where it has none), retries what the official SDKs retry, and ends every failure as an
//! `error` (or, on cancellation, `aborted`) event with a clear `errorMessage`. API keys never
//! appear in errors or events.
//!
//! Every response is bounded: in size ([`ProviderConfig::max_response_bytes`], text, thinking
//! and tool calls together), in time without an event ([`ProviderConfig::read_timeout`];
//! keep-alive comments do not count) and in time overall ([`ProviderConfig::response_timeout`]).
//! Call ids are unique within a response: a repeated one is renamed (`call_7` → `call_7_2`) and
//! the transcript then carries the new name, so the call and its result go back paired.
//!
//! This crate is kept apart from `pi-ai` so that the message model, the loop, the MCP bridge
//! and the coding tools build without an HTTP or TLS stack.

mod anthropic;
mod anthropic_oauth;
mod aws_credentials;
mod aws_process_credentials;
mod azure;
mod bedrock;
mod cache_retention;
mod chat_cache_marks;
mod compat;
mod config;
mod driver;
mod event_frames;
mod gemini;

mod http;
mod ids;
pub mod login_refresh;
mod openai_chat;
mod openai_responses;
mod sse;
mod thinking;
mod transcript;
mod turns;
mod vertex;

pub use anthropic::Anthropic;
pub use aws_credentials::{AwsKeys, BedrockAuth, BedrockSettings};
pub use aws_process_credentials::ProcessCredentials;
pub use azure::{AzureOpenAi, AzureSettings, azure_base_url, parse_deployment_map};
pub use bedrock::Bedrock;
pub use cache_retention::{CACHE_RETENTION_VARIABLE, CacheRetention};
pub use compat::{MaxTokensField, ModelCompat, ThinkingFormat};
pub use config::{DEFAULT_RESPONSE_TIMEOUT, ProviderConfig, ProviderError, ToolChoice};
pub use pi_ai::{DEFAULT_MAX_RESPONSE_BYTES, ThinkingBudgets, ThinkingLevel, ThinkingLevelMap};

pub use gemini::Gemini;
pub use http::RetryPolicy;
pub use openai_chat::OpenAiChat;
pub use openai_responses::OpenAiResponses;
pub use vertex::{Vertex, VertexSettings};
