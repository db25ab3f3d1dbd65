//! The bearer token against guessing: a token too short for an address others can reach is
//! refused there, and tries at it are slowed per address while clients with it are served.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use pi_mcp::{HttpAccess, McpToolServer, ServeError, serve_http};
use pi_tool::builtin;
use tokio_util::sync::CancellationToken;

const TOKEN: &str = "0123456789abcdef0123456789abcdef";
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

fn server() -> McpToolServer {
    McpToolServer::new(Arc::new(builtin::registry())).unwrap()
}

/// One `initialize` with `token`; the answer's status, its body read whole (so a kept-alive
/// connection can be used again).
async fn initialize(client: &reqwest::Client, url: &str, token: &str) -> u16 {
    let response = client
        .post(url)
        .header("Authorization", format!("Bearer {token}"))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(INITIALIZE)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    response.bytes().await.unwrap();
    status
}

fn client_from(address: Ipv4Addr) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(IpAddr::V4(address))
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_short_token_is_refused_where_others_can_reach_and_allowed_on_loopback() {
    // Refused before anything is bound.
    let reachable: SocketAddr = "0.0.0.0:0".parse().unwrap();
    let refused = serve_http(
        server(),
        reachable,
        HttpAccess::new("zq").unwrap(),
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(refused, ServeError::WeakToken { .. }),
        "{refused:?}"
    );
    assert!(
        refused.to_string().starts_with(
            "the MCP server will not start: 0.0.0.0:0 is reachable from other machines and \
             the token holds at most 9 bits (2 characters of lowercase letters, 26 possible \
             each); 128 are needed"
        ),
        "{refused}"
    );
    let shutdown = CancellationToken::new();
    let served = serve_http(
        server(),
        "127.0.0.1:0".parse().unwrap(),
        HttpAccess::new("zq").unwrap(),
        shutdown.clone(),
    )
    .await;
    assert!(served.is_ok(), "loopback is served: {:?}", served.err());
    shutdown.cancel();
}

/// Eight connections at a time guess for three seconds from 127.0.0.1: about ten answers at
/// once and then one a second, however many connections. Meanwhile a client that had shown the
/// token on its kept-alive connection, and a client from another address (127.0.0.2), are
/// served at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guesses_are_slowed_per_address_and_the_token_still_works() {
    let shutdown = CancellationToken::new();
    let (address, _task) = serve_http(
        server(),
        "127.0.0.1:0".parse().unwrap(),
        HttpAccess::new(TOKEN).unwrap().stateless(),
        shutdown.clone(),
    )
    .await
    .unwrap();
    let url = format!("http://{address}/mcp");
    let kept = client_from(Ipv4Addr::LOCALHOST);
    assert_eq!(initialize(&kept, &url, TOKEN).await, 200);

    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    let answered = Arc::new(AtomicUsize::new(0));
    let guessers: Vec<_> = (0..8)
        .map(|guesser| {
            let (url, answered) = (url.clone(), Arc::clone(&answered));
            tokio::spawn(async move {
                let client = client_from(Ipv4Addr::LOCALHOST);
                for n in 0.. {
                    let guess = format!("{guesser}-{n}-{}", &TOKEN[8..]);
                    let Ok(status) =
                        tokio::time::timeout_at(deadline, initialize(&client, &url, &guess)).await
                    else {
                        break;
                    };
                    assert!(matches!(status, 401 | 429), "{status}");
                    answered.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();

    tokio::time::sleep(Duration::from_millis(1500)).await;
    for (who, client) in [
        ("the kept-alive client", &kept),
        ("another address", &client_from(Ipv4Addr::new(127, 0, 0, 2))),
    ] {
        let started = Instant::now();
        assert_eq!(initialize(client, &url, TOKEN).await, 200, "{who}");
        assert!(
            started.elapsed() < Duration::from_millis(500),
            "{who} waited {:?}",
            started.elapsed()
        );
    }
    for guesser in guessers {
        guesser.await.unwrap();
    }
    let answered = answered.load(Ordering::Relaxed);
    // Ten at once, then one at each of 1, 2 and 3 s (the last may just make it).
    assert!(
        (10..=14).contains(&answered),
        "{answered} guesses answered in 3 s"
    );
    shutdown.cancel();
}
