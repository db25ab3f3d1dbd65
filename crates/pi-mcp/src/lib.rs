//! The MCP bridge, on rmcp (the official Rust SDK).
//!
//! - [`McpToolServer`] serves any [`pi_tool::ToolRegistry`] to MCP clients, over stdio
//!   ([`serve_stdio`]) or streamable HTTP ([`serve_http`], endpoint `/mcp`). Every `tools/call`
//!   goes through [`pi_tool::execute_tool_call`], so MCP clients get the course's results and
//!   error texts: invalid arguments and failing tools are `isError` results the model can read,
//!   panics and hangs stay inside their call, cancellation and progress are wired through.
//! - [`McpClient`] connects to any MCP server (a stdio command or an HTTP URL) and registers
//!   its tools into a registry as dynamic tools, validated locally before a call is sent.
//! - [`convert`] maps results and content between the two worlds.

mod client;
mod connections;
pub mod convert;
mod progress;
mod server;
mod sessions;
mod telemetry;

pub use client::{ClientError, DEFAULT_CALL_TIMEOUT, McpClient, from_call_tool_result};
pub use server::{
    HttpAccess, McpToolServer, ServeError, serve_http, serve_stdio, serve_stdio_until,
};
