//! Soak: `pi-tool serve --http` under concurrent load for a bounded time, with slow,
//! progress-reporting, panicking, hanging and cancelled calls mixed in, and clients that drop
//! their connection mid-call without closing their session. Prints calls, calls/s, p50/p99,
//! lost and crossed responses (both must be 0), hung calls answered by their time limit, and
//! the server's RSS and open file descriptors at start, end, and once the abandoned sessions
//! have expired. Exits non-zero when anything was lost, crossed or left unanswered.
//!
//! Run: `scripts/soak.sh [SECONDS] [CLIENTS]` (builds in release; default 600 s, 32 clients).
//! Usage: soak PI_TOOL_BINARY [SECONDS] [CLIENTS]
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod support;

use pi_mcp::McpClient;
use pi_tool::{CallContext, ProgressCallback, ToolCall, ToolRegistry, execute_tool_call};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

const TOKEN: &str = "soak-token";
/// The server's `--call-timeout`.
const CALL_LIMIT: Duration = Duration::from_secs(1);
/// The server's `--session-idle`.
const SESSION_IDLE: Duration = Duration::from_secs(5);
/// A call not answered within this is lost.
const LOST_AFTER: Duration = Duration::from_secs(15);

#[derive(Default)]
struct Tally {
    calls: u64,
    lost: u64,
    crossed: u64,
    wrong: Vec<String>,
    hung: u64,
    hung_answered_in_time: u64,
    cancelled: u64,
    panics: u64,
    progress_calls: u64,
    disconnects: u64,
    echo_latencies: Vec<Duration>,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        self.calls += other.calls;
        self.lost += other.lost;
        self.crossed += other.crossed;
        self.wrong.extend(other.wrong);
        self.hung += other.hung;
        self.hung_answered_in_time += other.hung_answered_in_time;
        self.cancelled += other.cancelled;
        self.panics += other.panics;
        self.progress_calls += other.progress_calls;
        self.disconnects += other.disconnects;
        self.echo_latencies.extend(other.echo_latencies);
    }
}

/// The server's resident memory (kB) and open descriptors, from `/proc`.
fn footprint(pid: u32) -> (u64, usize) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let rss = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0);
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count);
    (rss, fds)
}

/// One MCP client making calls of every kind until `deadline`.
async fn mixed_client(url: String, index: usize, deadline: Instant) -> Tally {
    let mut tally = Tally::default();
    let client = McpClient::connect_http_with_token(&url, TOKEN)
        .await
        .expect("connect");
    let mut tools = ToolRegistry::default();
    client.register_into(&mut tools).await.expect("list tools");
    let mut n = 0_u64;
    while Instant::now() < deadline {
        n += 1;
        let id = format!("c{index}-{n}");
        let value = format!("v{index}-{n}");
        tally.calls += 1;
        match n % 10 {
            0..=5 => {
                let call = ToolCall::new(&id, "echo", json!({"value": value}));
                let sent = Instant::now();
                let Some(result) = answered(&call, &tools, CallContext::default()).await else {
                    tally.lost += 1;
                    continue;
                };
                tally.echo_latencies.push(sent.elapsed());
                if result.tool_call_id != id || result.is_error || result.text() != value {
                    tally.crossed += 1;
                    tally.wrong.push(format!("echo {id}: {result:?}"));
                }
            }
            6 => {
                tally.progress_calls += 1;
                let seen = Arc::new(Mutex::new(Vec::<f64>::new()));
                let progress = {
                    let seen = Arc::clone(&seen);
                    ProgressCallback::new(move |update| {
                        let step = update
                            .details
                            .as_ref()
                            .and_then(|details| details.get("progress"))
                            .and_then(Value::as_f64)
                            .unwrap_or(-1.0);
                        seen.lock().unwrap().push(step);
                    })
                };
                let call = ToolCall::new(&id, "slow", json!({"steps": 3}));
                let context = CallContext {
                    signal: None,
                    report_progress: Some(progress),
                };
                let Some(result) = answered(&call, &tools, context).await else {
                    tally.lost += 1;
                    continue;
                };
                let steps = seen.lock().unwrap().clone();
                let increasing = steps.windows(2).all(|pair| pair[0] < pair[1]);
                if result.tool_call_id != id || result.text() != "done after 3 steps" || !increasing
                {
                    tally.crossed += 1;
                    tally.wrong.push(format!("slow {id}: {steps:?} {result:?}"));
                }
            }
            7 => {
                tally.panics += 1;
                let call = ToolCall::new(&id, "explode", json!({"value": value}));
                let Some(result) = answered(&call, &tools, CallContext::default()).await else {
                    tally.lost += 1;
                    continue;
                };
                if result.tool_call_id != id || !result.is_error || !result.text().contains(&value)
                {
                    tally.crossed += 1;
                    tally.wrong.push(format!("explode {id}: {result:?}"));
                }
            }
            8 => {
                tally.hung += 1;
                let call = ToolCall::new(&id, "hang", json!({"value": value}));
                let sent = Instant::now();
                let Some(result) = answered(&call, &tools, CallContext::default()).await else {
                    tally.lost += 1;
                    continue;
                };
                // The limit, one second of grace, and room for a loaded machine.
                if result.is_error
                    && result.text().contains("调用超时")
                    && sent.elapsed() < CALL_LIMIT + Duration::from_secs(4)
                {
                    tally.hung_answered_in_time += 1;
                } else {
                    tally
                        .wrong
                        .push(format!("hang {id}: {:?} {result:?}", sent.elapsed()));
                }
            }
            _ => {
                tally.cancelled += 1;
                let signal = CancellationToken::new();
                let cancel = signal.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(30)).await;
                    cancel.cancel();
                });
                let call = ToolCall::new(&id, "slow", json!({"steps": 100}));
                let context = CallContext {
                    signal: Some(signal),
                    report_progress: None,
                };
                let Some(result) = answered(&call, &tools, context).await else {
                    tally.lost += 1;
                    continue;
                };
                if result.tool_call_id != id || !result.is_error {
                    tally.crossed += 1;
                    tally.wrong.push(format!("cancelled {id}: {result:?}"));
                }
            }
        }
    }
    tally
}

/// The call's result, or `None` when none came within [`LOST_AFTER`].
async fn answered(
    call: &ToolCall,
    tools: &ToolRegistry,
    context: CallContext,
) -> Option<pi_tool::ToolResultMessage> {
    tokio::time::timeout(LOST_AFTER, execute_tool_call(call, tools, context))
        .await
        .ok()
}

/// One raw HTTP/1.1 request on its own connection; the whole answer as text (`read` false:
/// the connection is dropped 50 ms after the request is sent, answer unread).
async fn raw(port: u16, method: &str, session: Option<&str>, body: &str, read: bool) -> String {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let mut head = format!(
        "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: 2025-06-18\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(session) = session {
        head.push_str(&format!("Mcp-Session-Id: {session}\r\n"));
    }
    head.push_str("\r\n");
    head.push_str(body);
    stream.write_all(head.as_bytes()).await.expect("write");
    if !read {
        tokio::time::sleep(Duration::from_millis(50)).await;
        return String::new();
    }
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(LOST_AFTER, stream.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).into_owned()
}

/// A client that opens a session, starts a long call, and drops the connection mid-call; every
/// other time it never ends its session (left for the idle expiry).
async fn disconnecting_client(port: u16, deadline: Instant) -> Tally {
    let mut tally = Tally::default();
    let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}"#;
    let mut n = 0_u64;
    while Instant::now() < deadline {
        n += 1;
        let answer = raw(port, "POST", None, initialize, true).await;
        let Some(session) = answer.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        }) else {
            tally.wrong.push(format!(
                "no session: {}",
                answer.lines().next().unwrap_or("")
            ));
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        raw(
            port,
            "POST",
            Some(&session),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            true,
        )
        .await;
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": "slow", "arguments": {"steps": 100}}});
        raw(port, "POST", Some(&session), &call.to_string(), false).await;
        tally.disconnects += 1;
        if n.is_multiple_of(2) {
            raw(port, "DELETE", Some(&session), "", true).await;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tally
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let binary = args
        .get(1)
        .expect("usage: soak PI_TOOL_BINARY [SECONDS] [CLIENTS]")
        .clone();
    let seconds: f64 = args.get(2).map_or(600.0, |v| v.parse().unwrap());
    let clients: usize = args.get(3).map_or(32, |v| v.parse().unwrap());
    let port = support::free_port();
    let address = format!("127.0.0.1:{port}");
    let (limit, idle_after) = (
        CALL_LIMIT.as_secs_f64().to_string(),
        SESSION_IDLE.as_secs_f64().to_string(),
    );
    let mut server = support::start_server(
        &binary,
        &[
            "serve",
            "--http",
            &address,
            "--token",
            TOKEN,
            "--test-tools",
            "--call-timeout",
            &limit,
            "--session-idle",
            &idle_after,
            // Every client is on this one address, and the disconnecting ones leave sessions
            // open until they expire: the per-address caps are for hostile peers.
            "--max-sessions-per-peer",
            "1024",
            "--max-connections-per-peer",
            "512",
        ],
        &[],
        port,
    )
    .await;
    let pid = server.id().unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let idle = footprint(pid);
    let started = Instant::now();
    let duration = Duration::from_secs_f64(seconds);
    let deadline = started + duration;
    let disconnecting = (clients / 8).max(1);
    println!(
        "soak: {seconds} s, {clients} mixed clients + {disconnecting} disconnecting, server pid {pid}"
    );
    let mut tasks = Vec::new();
    for index in 0..clients {
        tasks.push(tokio::spawn(mixed_client(url.clone(), index, deadline)));
    }
    for _ in 0..disconnecting {
        tasks.push(tokio::spawn(disconnecting_client(port, deadline)));
    }
    // "Start" is measured once the load has warmed up; then every tenth of the run, so that a
    // plateau (the allocator's high-water mark) can be told from a leak (a steady climb).
    tokio::time::sleep(Duration::from_secs_f64((seconds / 10.0).clamp(1.0, 30.0))).await;
    let warm = footprint(pid);
    let warm_at = started.elapsed();
    let sampler = tokio::spawn(async move {
        let mut samples = Vec::new();
        for tenth in 1..=10_u32 {
            let at = started + duration.mul_f64(f64::from(tenth) / 10.0);
            tokio::time::sleep_until((at - Duration::from_millis(200)).into()).await;
            samples.push(footprint(pid));
        }
        samples
    });
    let mut tally = Tally::default();
    for task in tasks {
        tally.merge(task.await.unwrap());
    }
    let elapsed = started.elapsed();
    let end = footprint(pid);
    let samples = sampler.await.unwrap();
    // Every client is gone: the sessions they left open expire.
    tokio::time::sleep(SESSION_IDLE + Duration::from_secs(3)).await;
    let after = footprint(pid);
    let alive = server.try_wait().unwrap().is_none();
    let _ = server.kill().await;

    tally.echo_latencies.sort();
    println!("\n| measure | value |\n|---|---|");
    println!("| calls | {} |", tally.calls);
    println!(
        "| calls/s | {:.0} |",
        tally.calls as f64 / elapsed.as_secs_f64()
    );
    println!(
        "| echo p50 / p99 ms | {:.2} / {:.2} |",
        support::percentile_ms(&tally.echo_latencies, 0.5),
        support::percentile_ms(&tally.echo_latencies, 0.99)
    );
    println!(
        "| progress calls / panics / cancelled | {} / {} / {} |",
        tally.progress_calls, tally.panics, tally.cancelled
    );
    println!(
        "| hung calls answered by the {} s limit | {} of {} |",
        CALL_LIMIT.as_secs(),
        tally.hung_answered_in_time,
        tally.hung
    );
    println!("| disconnects mid-call | {} |", tally.disconnects);
    println!("| lost | {} |", tally.lost);
    println!("| crossed | {} |", tally.crossed);
    println!("| other wrong answers | {} |", tally.wrong.len());
    println!(
        "| RSS kB: idle / start ({:.0} s) / end / sessions expired | {} / {} / {} / {} |",
        warm_at.as_secs_f64(),
        idle.0,
        warm.0,
        end.0,
        after.0
    );
    println!(
        "| open fds: idle / start / end / sessions expired | {} / {} / {} / {} |",
        idle.1, warm.1, end.1, after.1
    );
    println!(
        "| RSS kB at each tenth of the run | {} |",
        samples
            .iter()
            .map(|(rss, _)| rss.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    // Flat: the second half of the run adds under 5% (a leak climbs all the way).
    let half = samples.get(4).map_or(0, |sample| sample.0);
    let last = samples.last().map_or(0, |sample| sample.0);
    let flat = last <= half + half / 20;
    println!("| RSS flat over the second half | {flat} ({half} → {last} kB) |");
    println!("| server alive at the end | {alive} |");
    for wrong in tally.wrong.iter().take(10) {
        println!("wrong: {wrong}");
    }
    let ok = tally.lost == 0
        && tally.crossed == 0
        && tally.wrong.is_empty()
        && tally.hung_answered_in_time == tally.hung
        && flat
        && alive;
    if !ok {
        std::process::exit(1);
    }
}
