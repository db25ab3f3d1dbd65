//! `pi-tool serve [--http 127.0.0.1:PORT]`: the built-in tools as an MCP server.
//!
//! A stop signal ends serving. Over stdio the calls still running are cancelled first (a `bash`
//! command's process group is ended) and their results sent if they arrive within rmcp's
//! two-second drain; over HTTP the server stops and the calls are dropped with it, which ends
//! their commands too.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use pi_mcp::{HttpAccess, McpToolServer, serve_http, serve_stdio_until};
use pi_tool::ToolRegistry;
use tokio_util::sync::CancellationToken;

use crate::shutdown::Shutdown;

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Serve streamable HTTP on this address (endpoint http://ADDRESS/mcp) instead of stdio.
    /// Loopback unless you say otherwise.
    #[arg(long, value_name = "HOST:PORT")]
    http: Option<SocketAddr>,
    /// The bearer token every HTTP request must carry. Without one, a random token is made and
    /// printed once on stderr (loopback only: an address others can reach needs your own, of
    /// at least 128 bits: 32 random hex or 22 random base64url characters).
    #[arg(long, env = "PI_TOOL_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Also let browser pages from this origin in (loopback origins always are); repeatable.
    #[arg(long, value_name = "ORIGIN")]
    allow_origin: Vec<String>,
    /// Answer every call within this many seconds: a tool still running is cancelled and the
    /// call gets an isError result saying it timed out.
    #[arg(long, value_name = "SECONDS")]
    call_timeout: Option<f64>,
    /// HTTP without sessions: every request stands alone, so any of several instances behind a
    /// load balancer can answer it (no affinity needed).
    #[arg(long, requires = "http")]
    stateless: bool,
    /// HTTP: at most this many sessions open at once (503 beyond).
    #[arg(long, value_name = "N", default_value_t = 1024)]
    max_sessions: usize,
    /// HTTP: close a session after this many seconds without a request.
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0)]
    session_idle: f64,
    /// HTTP: at most this many sessions open at once from one IP address (503 beyond).
    #[arg(long, value_name = "N", default_value_t = 64)]
    max_sessions_per_peer: usize,
    /// HTTP: close a connection that has not sent a whole request head within this many
    /// seconds, or that stays this long idle between requests.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    header_timeout: f64,
    /// HTTP: at most this many connections open at once (keep it below `ulimit -n`). Beyond,
    /// the oldest connection that has not yet sent the token is closed, or the new one refused.
    #[arg(long, value_name = "N", default_value_t = 512)]
    max_connections: usize,
    /// HTTP: at most this many connections open at once from one IP address.
    #[arg(long, value_name = "N", default_value_t = 128)]
    max_connections_per_peer: usize,
    /// Also serve `slow` (progress, cancellation), `explode` (a panic) and `hang` (never ends,
    /// ignores cancellation), for testing hosts.
    #[arg(long)]
    test_tools: bool,
}

/// Seconds from the command line as a duration, refused when negative or not finite.
fn seconds(name: &str, value: f64) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(value)
        .map_err(|_| anyhow::anyhow!("--{name} takes a number of seconds, not {value}"))
}

pub(crate) async fn run(
    args: ServeArgs,
    tools: ToolRegistry,
    shutdown: &Shutdown,
) -> anyhow::Result<ExitCode> {
    let tools = if args.test_tools {
        pi_test_tools::registry()
    } else {
        tools
    };
    let mut server = McpToolServer::new(Arc::new(tools))?;
    if let Some(limit) = args.call_timeout {
        server = server.with_call_timeout(seconds("call-timeout", limit)?);
    }
    match args.http {
        None => serve_stdio_until(server, shutdown.token().clone()).await?,
        Some(address) => {
            let (mut access, made) = match &args.token {
                Some(token) => (HttpAccess::new(token.clone())?, false),
                None => (HttpAccess::generated()?, true),
            };
            for origin in &args.allow_origin {
                access = access.with_allowed_origin(origin.clone());
            }
            access = access
                .with_max_sessions(args.max_sessions)
                .with_max_sessions_per_peer(args.max_sessions_per_peer)
                .with_session_idle(seconds("session-idle", args.session_idle)?)
                .with_header_timeout(seconds("header-timeout", args.header_timeout)?)
                .with_max_connections(args.max_connections)
                .with_max_connections_per_peer(args.max_connections_per_peer);
            if args.stateless {
                access = access.stateless();
            }
            let token = access.token().to_owned();
            let strength = access.token_strength();
            // Elsewhere `serve_http` refuses it; on loopback the local programs can still try.
            if address.ip().is_loopback() && !strength.is_enough() {
                report!(
                    "pi-tool: warning: {strength}; served anyway because {address} is loopback, \
                     where any local program may try it"
                );
            }
            let stop_serving = CancellationToken::new();
            let (bound, task) = serve_http(server, address, access, stop_serving.clone()).await?;
            report!("pi-tool: serving MCP on http://{bound}/mcp");
            if made {
                report!("pi-tool: bearer token (send `Authorization: Bearer <token>`): {token}");
            }
            tokio::select! {
                () = shutdown.token().cancelled() => stop_serving.cancel(),
                _ = task => {}
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
