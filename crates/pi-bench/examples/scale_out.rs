//! The client side of `scripts/scale-out.sh`: many MCP clients calling `echo` through a load
//! balancer in front of several `pi-tool serve --http` instances, while the script kills one.
//! A call that fails (its backend died under it, or its session went with it) is retried on a
//! fresh connection: `echo` is idempotent, so a retry cannot do anything twice that matters.
//! Every answer is checked against its request; the run fails if a call is lost (no right
//! answer after every retry) or crossed (someone else's answer).
//!
//! Usage: scale_out URL TOKEN [CLIENTS] [SECONDS]
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::process::ExitCode;
use std::time::{Duration, Instant};

mod support;

use pi_mcp::McpClient;
use pi_tool::{CallContext, ToolCall, ToolRegistry, execute_tool_call};
use serde_json::json;

/// Attempts per call before it counts as lost.
const ATTEMPTS: usize = 40;

#[derive(Default)]
struct Tally {
    answered: usize,
    retries: usize,
    reconnects: usize,
    lost: usize,
    crossed: usize,
    latencies: Vec<Duration>,
}

async fn connect(url: &str, token: &str) -> Option<(McpClient, ToolRegistry)> {
    let client = McpClient::connect_http_with_token(url, token).await.ok()?;
    let mut tools = ToolRegistry::default();
    client.register_into(&mut tools).await.ok()?;
    Some((client, tools))
}

async fn client(url: String, token: String, index: usize, deadline: Instant) -> Tally {
    let mut tally = Tally::default();
    let mut connection = None;
    let mut n = 0u64;
    while Instant::now() < deadline {
        n += 1;
        let value = format!("client{index}-call{n}");
        let call = ToolCall::new(format!("{index}-{n}"), "echo", json!({"value": value}));
        let started = Instant::now();
        let mut answered = false;
        for attempt in 0..ATTEMPTS {
            if attempt > 0 {
                tally.retries += 1;
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            if connection.is_none() {
                connection = connect(&url, &token).await;
                tally.reconnects += 1;
            }
            let Some((_, tools)) = &connection else {
                continue;
            };
            let result = execute_tool_call(&call, tools, CallContext::default()).await;
            if result.is_error {
                // The backend or the session is gone: start over on a fresh connection.
                connection = None;
                continue;
            }
            if result.text() != value || result.tool_call_id != call.id {
                tally.crossed += 1;
            }
            answered = true;
            break;
        }
        if answered {
            tally.answered += 1;
            tally.latencies.push(started.elapsed());
        } else {
            tally.lost += 1;
        }
    }
    tally
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let url = args
        .first()
        .expect("usage: scale_out URL TOKEN [CLIENTS] [SECONDS]")
        .clone();
    let token = args
        .get(1)
        .expect("usage: scale_out URL TOKEN [CLIENTS] [SECONDS]")
        .clone();
    let clients: usize = args.get(2).map_or(16, |v| v.parse().unwrap());
    let seconds: f64 = args.get(3).map_or(10.0, |v| v.parse().unwrap());
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(seconds);
    let tasks: Vec<_> = (0..clients)
        .map(|index| tokio::spawn(client(url.clone(), token.clone(), index, deadline)))
        .collect();
    let mut total = Tally::default();
    for task in tasks {
        let tally = task.await.unwrap();
        total.answered += tally.answered;
        total.retries += tally.retries;
        total.reconnects += tally.reconnects;
        total.lost += tally.lost;
        total.crossed += tally.crossed;
        total.latencies.extend(tally.latencies);
    }
    total.latencies.sort();
    let at = |p: f64| {
        let index = ((total.latencies.len().max(1) - 1) as f64 * p).round() as usize;
        total
            .latencies
            .get(index)
            .map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    println!(
        "| {} | {:.0} | {:.2} | {:.2} | {} | {} | {} | {} |",
        total.answered,
        total.answered as f64 / started.elapsed().as_secs_f64(),
        at(0.5),
        at(0.99),
        total.retries,
        total.reconnects.saturating_sub(clients),
        total.lost,
        total.crossed
    );
    if total.lost == 0 && total.crossed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
