//! Load benchmark: many concurrent MCP clients calling `echo` over streamable HTTP on loopback
//! for a bounded time, against our server and against peer servers (the official Python and
//! TypeScript SDKs'), in the same run. Every response is checked against its request (none
//! lost, none crossed).
//!
//! Run: `scripts/mcp-load.sh` (builds in release, installs the peers, prints the table).
//! Usage: load CLIENTS SECONDS [NAME PROGRAM SCRIPT]...   (each peer runs `PROGRAM SCRIPT --http PORT`)
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::sync::Arc;
use std::time::{Duration, Instant};

mod support;

use pi_mcp::{HttpAccess, McpClient, McpToolServer, serve_http};
use pi_tool::{CallContext, ToolCall, ToolRegistry, builtin, execute_tool_call};
use serde_json::json;
use tokio_util::sync::CancellationToken;

struct Outcome {
    calls: usize,
    mismatches: usize,
    failures: usize,
    latencies: Vec<Duration>,
    elapsed: Duration,
}

async fn load(url: &str, token: Option<&str>, clients: usize, duration: Duration) -> Outcome {
    let mut tasks = Vec::new();
    let started = Instant::now();
    let deadline = started + duration;
    for client_index in 0..clients {
        let url = url.to_owned();
        let token = token.map(str::to_owned);
        tasks.push(tokio::spawn(async move {
            let client = match &token {
                Some(token) => McpClient::connect_http_with_token(&url, token).await,
                None => McpClient::connect_http(&url).await,
            }
            .expect("connect");
            let mut tools = ToolRegistry::default();
            client.register_into(&mut tools).await.expect("list tools");
            let (mut calls, mut mismatches, mut failures, mut latencies) = (0, 0, 0, Vec::new());
            let mut n = 0u64;
            while Instant::now() < deadline {
                n += 1;
                let value = format!("c{client_index}-{n}");
                let call = ToolCall::new(format!("id-{n}"), "echo", json!({"value": value}));
                let sent = Instant::now();
                let result = execute_tool_call(&call, &tools, CallContext::default()).await;
                latencies.push(sent.elapsed());
                calls += 1;
                if result.is_error {
                    failures += 1;
                } else if result.text() != value || result.tool_call_id != call.id {
                    mismatches += 1;
                }
            }
            drop(client);
            (calls, mismatches, failures, latencies)
        }));
    }
    let mut outcome = Outcome {
        calls: 0,
        mismatches: 0,
        failures: 0,
        latencies: Vec::new(),
        elapsed: Duration::ZERO,
    };
    for task in tasks {
        let (calls, mismatches, failures, latencies) = task.await.unwrap();
        outcome.calls += calls;
        outcome.mismatches += mismatches;
        outcome.failures += failures;
        outcome.latencies.extend(latencies);
    }
    outcome.elapsed = started.elapsed();
    outcome.latencies.sort();
    outcome
}

fn row(name: &str, outcome: &Outcome) -> (f64, f64) {
    let rate = outcome.calls as f64 / outcome.elapsed.as_secs_f64();
    let p99 = support::percentile_ms(&outcome.latencies, 0.99);
    println!(
        "| {name} | {} | {rate:.0} | {:.2} | {p99:.2} | {} | {} |",
        outcome.calls,
        support::percentile_ms(&outcome.latencies, 0.50),
        outcome.mismatches,
        outcome.failures,
    );
    (rate, p99)
}

/// A peer server started for the run.
struct Peer {
    name: String,
    url: String,
    _process: tokio::process::Child,
}

async fn start_peer(name: &str, program: &str, script: &str) -> Peer {
    let port = support::free_port();
    let process =
        support::start_server(program, &[script, "--http", &port.to_string()], &[], port).await;
    Peer {
        name: name.to_owned(),
        url: format!("http://127.0.0.1:{port}/mcp"),
        _process: process,
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let clients: usize = args.first().map_or(32, |v| v.parse().unwrap());
    let seconds: f64 = args.get(1).map_or(5.0, |v| v.parse().unwrap());
    let duration = Duration::from_secs_f64(seconds);

    let shutdown = CancellationToken::new();
    let server = McpToolServer::new(Arc::new(builtin::registry())).unwrap();
    // Every client is on this one address: the per-address caps are for hostile peers.
    let access = HttpAccess::generated()
        .unwrap()
        .with_max_sessions_per_peer(usize::MAX)
        .with_max_connections_per_peer(usize::MAX);
    let token = access.token().to_owned();
    let (ours, _task) = serve_http(
        server,
        "127.0.0.1:0".parse().unwrap(),
        access,
        shutdown.clone(),
    )
    .await
    .unwrap();
    let our_url = format!("http://{ours}/mcp");
    let mut peers = Vec::new();
    for peer in args.get(2..).unwrap_or_default().chunks(3) {
        if let [name, program, script] = peer {
            peers.push(start_peer(name, program, script).await);
        }
    }

    println!(
        "{clients} concurrent clients, {seconds} s each, echo over streamable HTTP on loopback\n"
    );
    println!("| server | calls | calls/s | p50 ms | p99 ms | mismatched | failed |");
    println!("|---|---|---|---|---|---|---|");
    let (our_rate, our_p99) = row(
        "pi-tool (Rust, rmcp)",
        &load(&our_url, Some(&token), clients, duration).await,
    );
    let mut ratios = Vec::new();
    for peer in &peers {
        let (rate, p99) = row(&peer.name, &load(&peer.url, None, clients, duration).await);
        ratios.push((peer.name.clone(), rate, p99));
    }
    println!();
    for (name, rate, p99) in ratios {
        println!(
            "against {name}: {:.1}x the calls/s, p99 {our_p99:.2} ms against {p99:.2} ms",
            our_rate / rate,
        );
    }

    // One client on one kept-alive connection, each call waiting for the last: the case a
    // Nagle stall (a server without TCP_NODELAY) turns into ~40 ms per call.
    println!("\n1 kept-alive client, sequential calls, {seconds} s\n");
    println!("| server | calls | calls/s | p50 ms | p99 ms | mismatched | failed |");
    println!("|---|---|---|---|---|---|---|");
    row(
        "pi-tool (Rust, rmcp)",
        &load(&our_url, Some(&token), 1, duration).await,
    );
    for peer in &peers {
        row(&peer.name, &load(&peer.url, None, 1, duration).await);
    }
    shutdown.cancel();
}
