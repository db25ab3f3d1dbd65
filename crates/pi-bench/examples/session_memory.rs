//! Memory of `pi-tool serve --http` per idle session and per in-flight call: starts the server
//! (a separate process, so its resident set is its own), reads its RSS, opens SESSIONS sessions
//! and reads it again, then keeps CALLS calls of the test tool `slow` in flight and reads it once
//! more. Prints a table. Run by `scripts/mcp-load.sh` after the load table.
//!
//! Usage: session_memory PI_TOOL_BINARY [SESSIONS] [CALLS]
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::sync::Arc;
use std::time::Duration;

mod support;

use pi_mcp::McpClient;
use pi_tool::{CallContext, ToolCall, ToolRegistry, execute_tool_call};
use serde_json::json;

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// RSS once it has stopped moving (allocator caches settle after a burst).
async fn settled_rss(pid: u32) -> u64 {
    let mut last = rss_kib(pid);
    for _ in 0..20 {
        tokio::time::sleep(Duration::from_millis(150)).await;
        let now = rss_kib(pid);
        if now == last {
            break;
        }
        last = now;
    }
    last
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let binary = args
        .first()
        .expect("usage: session_memory PI_TOOL_BINARY [SESSIONS] [CALLS]");
    let sessions: usize = args.get(1).map_or(500, |v| v.parse().unwrap());
    let calls: usize = args.get(2).map_or(500, |v| v.parse().unwrap());
    let port = support::free_port();
    let token = "session-memory-token";
    let (address, max_sessions) = (format!("127.0.0.1:{port}"), (sessions + 16).to_string());
    let max_connections = (2 * sessions + 64).to_string();
    let mut server = support::start_server(
        binary,
        &[
            "serve",
            "--test-tools",
            "--http",
            &address,
            "--max-sessions",
            &max_sessions,
            // One address opens them all, each client on connections of its own.
            "--max-sessions-per-peer",
            &max_sessions,
            "--max-connections",
            &max_connections,
            "--max-connections-per-peer",
            &max_connections,
        ],
        &[("PI_TOOL_TOKEN", token)],
        port,
    )
    .await;
    let pid = server.id().unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let first = McpClient::connect_http_with_token(&url, token)
        .await
        .expect("the server did not start");
    let base = settled_rss(pid).await;

    let mut open = Vec::with_capacity(sessions);
    for _ in 0..sessions {
        open.push(
            McpClient::connect_http_with_token(&url, token)
                .await
                .unwrap(),
        );
    }
    let with_sessions = settled_rss(pid).await;

    let mut tools = ToolRegistry::default();
    first.register_into(&mut tools).await.unwrap();
    let tools = Arc::new(tools);
    let running: Vec<_> = (0..calls)
        .map(|n| {
            let tools = Arc::clone(&tools);
            tokio::spawn(async move {
                let call = ToolCall::new(format!("c{n}"), "slow", json!({"steps": 300}));
                execute_tool_call(&call, &tools, CallContext::default()).await
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(800)).await;
    let with_calls = settled_rss(pid).await;
    for task in running {
        let result = task.await.unwrap();
        assert!(!result.is_error, "{}", result.text());
    }
    drop(open);
    let _ = server.kill().await;

    let per = |after: u64, before: u64, n: usize| {
        (after.saturating_sub(before) as f64 * 1024.0) / n as f64
    };
    println!("| server RSS | KiB | per item |");
    println!("|---|---|---|");
    println!("| started, one session | {base} | |");
    println!(
        "| + {sessions} idle sessions | {with_sessions} | {:.1} KiB per session |",
        per(with_sessions, base, sessions) / 1024.0
    );
    println!(
        "| + {calls} calls in flight (on one session) | {with_calls} | {:.1} KiB per call |",
        per(with_calls, with_sessions, calls) / 1024.0
    );
}
