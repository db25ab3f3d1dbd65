//! The MCP bridge, on rmcp (the official Rust SDK).
//!
//! Why a crate of its own: MCP brings rmcp, axum and hyper, which the contract and the loop
//! must not need. A registry goes out over MCP, or a server's tools come in as registry
//! entries; either way the rest of the workspace only sees `pi-tool`'s types.
//!
//! - [`McpToolServer`] serves any [`pi_tool::ToolRegistry`] to MCP clients, over stdio
//!   ([`serve_stdio`]) or streamable HTTP ([`serve_http`], endpoint `/mcp`). Every `tools/call`
//!   goes through [`pi_tool::execute_tool_call`], so MCP clients get the course's results and
//!   error texts: invalid arguments and failing tools are `isError` results the model can read,
//!   panics and hangs stay inside their call, cancellation and progress are wired through.
//! - [`McpClient`] connects to any MCP server (a stdio command or an HTTP URL) and registers
//!   its tools into a registry as dynamic tools, validated locally before a call is sent.
//! - [`convert`] maps results and content between the two worlds.

mod bearer;
mod call_progress;
mod client;
mod connections;
pub mod convert;
mod guesses;
mod http_access;
mod import_names;
mod progress;
mod serve;
mod server;
mod sessions;
mod telemetry;
mod token_strength;

pub use client::{ClientError, DEFAULT_CALL_TIMEOUT, McpClient, from_call_tool_result};
pub use http_access::HttpAccess;
pub use import_names::{ImportedTool, RESERVED_TOOL_NAMES};
pub use serve::{ServeError, serve_http, serve_stdio, serve_stdio_until};
pub use server::McpToolServer;
pub use token_strength::{MIN_TOKEN_BITS, TokenStrength};
