//! Any lines as JSON-RPC messages to the MCP server (the built-in tools), after a valid
//! handshake, over an in-memory transport as a stdio client would send them: the server never
//! panics, and once the client hangs up it stops.
#![no_main]

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use pi_mcp::McpToolServer;
use rmcp::ServiceExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap())
}

fuzz_target!(|data: &[u8]| {
    let server = McpToolServer::new(Arc::new(pi_test_tools::registry())).unwrap();
    runtime().block_on(async {
        let (client, transport) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(transport);
        let serving = tokio::spawn(async move {
            if let Ok(running) = server.serve((server_read, server_write)).await {
                let _ = running.waiting().await;
            }
        });
        let (mut client_read, mut client_write) = tokio::io::split(client);
        // Drain what the server says, so it never blocks on a full pipe.
        let reading = tokio::spawn(async move {
            let mut sink = vec![0; 1 << 16];
            while matches!(client_read.read(&mut sink).await, Ok(read) if read > 0) {}
        });
        let mut input = Vec::new();
        for line in [INITIALIZE, INITIALIZED] {
            input.extend_from_slice(line.as_bytes());
            input.push(b'\n');
        }
        input.extend_from_slice(data);
        input.push(b'\n');
        let _ = client_write.write_all(&input).await;
        let _ = client_write.shutdown().await;
        drop(client_write);
        // A slow test tool may be running; the server must stop within its steps' time.
        tokio::time::timeout(Duration::from_secs(30), serving)
            .await
            .expect("the server did not stop after the client hung up")
            .expect("the server task panicked");
        reading.abort();
    });
});
