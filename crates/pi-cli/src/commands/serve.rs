//! `pi-tool serve [--http 127.0.0.1:PORT]`: the built-in tools as an MCP server.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use pi_mcp::{McpToolServer, serve_http, serve_stdio};
use pi_tool::ToolRegistry;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Serve streamable HTTP on this address (endpoint http://ADDRESS/mcp) instead of stdio.
    /// Loopback unless you say otherwise.
    #[arg(long, value_name = "HOST:PORT")]
    http: Option<SocketAddr>,
    /// Also serve `slow` (progress, cancellation) and `explode` (a panic), for testing hosts.
    #[arg(long)]
    test_tools: bool,
}

pub(crate) async fn run(args: ServeArgs, tools: ToolRegistry) -> anyhow::Result<ExitCode> {
    let tools = if args.test_tools {
        pi_tool::builtin::test_registry()
    } else {
        tools
    };
    let server = McpToolServer::new(Arc::new(tools))?;
    match args.http {
        None => serve_stdio(server).await?,
        Some(address) => {
            let shutdown = CancellationToken::new();
            let (bound, task) = serve_http(server, address, shutdown.clone()).await?;
            eprintln!("pi-tool: serving MCP on http://{bound}/mcp");
            tokio::select! {
                _ = tokio::signal::ctrl_c() => shutdown.cancel(),
                _ = task => {}
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
