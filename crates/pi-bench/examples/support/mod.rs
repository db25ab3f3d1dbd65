//! What the MCP examples (load, soak, scale-out, session memory) share: a free port, a server
//! process that is accepting connections, and latency percentiles.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::time::Duration;

/// A loopback port nobody listens on right now.
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `program` with `args` (and `env`), its output discarded, killed when dropped, and
/// waits until `port` accepts connections.
pub(crate) async fn start_server(
    program: &str,
    args: &[&str],
    env: &[(&str, &str)],
    port: u16,
) -> tokio::process::Child {
    let child = tokio::process::Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    child
}

/// The `p` quantile of sorted latencies, in milliseconds (0 when there are none).
pub(crate) fn percentile_ms(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)].as_secs_f64() * 1e3
}
