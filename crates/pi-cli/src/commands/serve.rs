//! `pi-tool serve [--http 127.0.0.1:PORT]`: the built-in tools as an MCP server.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use pi_mcp::{HttpAccess, McpToolServer, serve_http, serve_stdio};
use pi_tool::ToolRegistry;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Serve streamable HTTP on this address (endpoint http://ADDRESS/mcp) instead of stdio.
    /// Loopback unless you say otherwise.
    #[arg(long, value_name = "HOST:PORT")]
    http: Option<SocketAddr>,
    /// The bearer token every HTTP request must carry. Without one, a random token is made and
    /// printed once on stderr (loopback only: an address others can reach needs your own).
    #[arg(long, env = "PI_TOOL_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Also let browser pages from this origin in (loopback origins always are); repeatable.
    #[arg(long, value_name = "ORIGIN")]
    allow_origin: Vec<String>,
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
            let (mut access, made) = match &args.token {
                Some(token) => (HttpAccess::new(token.clone())?, false),
                None => (HttpAccess::generated()?, true),
            };
            for origin in &args.allow_origin {
                access = access.with_allowed_origin(origin.clone());
            }
            let token = access.token().to_owned();
            let shutdown = CancellationToken::new();
            let (bound, task) = serve_http(server, address, access, shutdown.clone()).await?;
            eprintln!("pi-tool: serving MCP on http://{bound}/mcp");
            if made {
                eprintln!("pi-tool: bearer token (send `Authorization: Bearer <token>`): {token}");
            }
            tokio::select! {
                _ = tokio::signal::ctrl_c() => shutdown.cancel(),
                _ = task => {}
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
