//! Whether `pi-tool serve --http` gives back the memory of deleted sessions: starts the server
//! (its own process, so its resident set is its own), then ROUNDS times opens SESSIONS sessions
//! (`initialize` and `notifications/initialized`, all open at once) and deletes them all,
//! reading the server's RSS once it has settled after each step, and again 12 s after the
//! deletions. Prints a table.
//!
//! Usage: session_churn PI_TOOL_BINARY [SESSIONS] [ROUNDS]
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

mod support;

const TOKEN: &str = "session-churn-token";
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"churn","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// RSS once it has stopped moving for a while (sessions end asynchronously).
fn settled_rss(pid: u32) -> u64 {
    let mut last = rss_kib(pid);
    let mut still = 0;
    for _ in 0..60 {
        std::thread::sleep(Duration::from_millis(250));
        let now = rss_kib(pid);
        still = if now == last { still + 1 } else { 0 };
        last = now;
        if still >= 4 {
            break;
        }
    }
    last
}

/// One request on a kept-alive connection; returns the status and the session header.
fn request(
    stream: &mut BufReader<TcpStream>,
    method: &str,
    body: &str,
    session: Option<&str>,
) -> (u16, Option<String>) {
    let mut head = format!(
        "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n\
         Authorization: Bearer {TOKEN}\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(session) = session {
        head.push_str(&format!("Mcp-Session-Id: {session}\r\n"));
    }
    head.push_str("\r\n");
    head.push_str(body);
    stream.get_mut().write_all(head.as_bytes()).unwrap();
    let mut line = String::new();
    stream.read_line(&mut line).unwrap();
    let status = line.split(' ').nth(1).unwrap().parse().unwrap();
    let (mut length, mut chunked, mut id) = (0, false, None);
    loop {
        line.clear();
        stream.read_line(&mut line).unwrap();
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':').unwrap();
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().unwrap(),
            "transfer-encoding" => chunked = value.contains("chunked"),
            "mcp-session-id" => id = Some(value.trim().to_owned()),
            _ => {}
        }
    }
    if chunked {
        loop {
            line.clear();
            stream.read_line(&mut line).unwrap();
            let size = usize::from_str_radix(line.trim(), 16).unwrap();
            let mut chunk = vec![0; size + 2];
            stream.read_exact(&mut chunk).unwrap();
            if size == 0 {
                break;
            }
        }
    } else {
        let mut body = vec![0; length];
        stream.read_exact(&mut body).unwrap();
    }
    (status, id)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let binary = args
        .first()
        .expect("usage: session_churn PI_TOOL_BINARY [SESSIONS] [ROUNDS]");
    let sessions: usize = args.get(1).map_or(1024, |v| v.parse().unwrap());
    let rounds: usize = args.get(2).map_or(3, |v| v.parse().unwrap());
    let port = support::free_port();
    let address = format!("127.0.0.1:{port}");
    let max = (sessions + 16).to_string();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = runtime.block_on(support::start_server(
        binary,
        &[
            "serve",
            "--test-tools",
            "--http",
            &address,
            "--max-sessions",
            &max,
            "--max-sessions-per-peer",
            &max,
        ],
        &[("PI_TOOL_TOKEN", TOKEN)],
        port,
    ));
    let pid = server.id().unwrap();
    let started = settled_rss(pid);
    println!("| server RSS (KiB) | {sessions} sessions open | all deleted | 12 s later |");
    println!("|---|---|---|---|");
    println!("| started: {started} | | | |");
    for round in 1..=rounds {
        // A connection per round: the server closes one idle for its header timeout.
        let mut stream = BufReader::new(TcpStream::connect(("127.0.0.1", port)).unwrap());
        let mut ids = Vec::with_capacity(sessions);
        for _ in 0..sessions {
            let (status, id) = request(&mut stream, "POST", INITIALIZE, None);
            assert_eq!(status, 200);
            let id = id.unwrap();
            let (status, _) = request(&mut stream, "POST", INITIALIZED, Some(&id));
            assert_eq!(status, 202);
            ids.push(id);
        }
        let open = settled_rss(pid);
        for id in &ids {
            let (status, _) = request(&mut stream, "DELETE", "", Some(id));
            assert_eq!(status, 200);
        }
        let deleted = settled_rss(pid);
        // An allocator may give freed memory back some seconds later (jemalloc's decay: 10 s).
        std::thread::sleep(Duration::from_secs(12));
        let later = settled_rss(pid);
        println!("| round {round} | {open} | {deleted} | {later} |");
    }
    drop(server);
}
