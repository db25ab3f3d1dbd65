//! The bearer token against guessing: a token too short for an address others can reach is
//! refused there.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::net::SocketAddr;
use std::sync::Arc;

use pi_mcp::{HttpAccess, McpToolServer, ServeError, serve_http};
use pi_tool::builtin;
use tokio_util::sync::CancellationToken;

fn server() -> McpToolServer {
    McpToolServer::new(Arc::new(builtin::registry())).unwrap()
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
