//! Your own tools served over MCP from your own program, so that any MCP host (Claude Desktop,
//! an IDE, `pi-tool mcp`, another agent) can list and call them. Calls are checked against the
//! same schema as in-process calls, and answered with the same results.
//!
//! Over stdio (the host starts this program):
//!   `cargo run --example mcp_server`
//! Over streamable HTTP (prints the endpoint and the bearer token clients must send):
//!   `cargo run --example mcp_server -- --http 127.0.0.1:8000`

use std::sync::Arc;

use pi_mcp::{HttpAccess, McpToolServer, serve_http, serve_stdio};
use pi_tool::{FnTool, ToolParams, ToolRegistry, builtin};
use tokio_util::sync::CancellationToken;

/// The parameters of `word_count`.
#[derive(ToolParams)]
struct WordCountParams {
    /// The text whose words to count
    text: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let word_count = FnTool::typed(
        "word_count",
        "Count the words in a text",
        |p: WordCountParams, _cx| async move { Ok(p.text.split_whitespace().count().to_string()) },
    );
    // Any registry can be served: here one tool of ours and the library's `echo`.
    let tools = ToolRegistry::builder()
        .tool(word_count)
        .tool(builtin::echo())
        .build()?;
    // Renders every schema for MCP once; a schema MCP cannot carry is refused here.
    let server = McpToolServer::new(Arc::new(tools))?;

    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().position(|arg| arg == "--http") {
        // Stdio: stdout belongs to the protocol, so nothing else may print there.
        None => serve_stdio(server).await?,
        Some(at) => {
            let address = args.get(at + 1).ok_or("--http needs an address")?.parse()?;
            // A random token, required as `Authorization: Bearer ...` on every request.
            let access = HttpAccess::generated()?;
            let token = access.token().to_owned();
            let shutdown = CancellationToken::new();
            let (bound, server_task) =
                serve_http(server, address, access, shutdown.clone()).await?;
            println!("http://{bound}/mcp {token}");
            // Serve until Ctrl-C, then let the calls in flight answer before exiting.
            tokio::signal::ctrl_c().await?;
            shutdown.cancel();
            server_task.await?;
        }
    }
    Ok(())
}
