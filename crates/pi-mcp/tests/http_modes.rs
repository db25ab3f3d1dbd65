//! Our MCP client against our HTTP server, in both modes: with sessions (the default) and
//! stateless (`HttpAccess::stateless`), where progress still streams within each call.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::sync::{Arc, Mutex};

use pi_mcp::{HttpAccess, McpClient, McpToolServer, serve_http};
use pi_tool::{CallContext, ProgressCallback, ToolCall, ToolRegistry, builtin, execute_tool_call};
use serde_json::json;
use tokio_util::sync::CancellationToken;

async fn round_trip(access: HttpAccess) {
    let token = access.token().to_owned();
    let shutdown = CancellationToken::new();
    let server = McpToolServer::new(Arc::new(pi_test_tools::registry())).unwrap();
    let (address, _task) = serve_http(
        server,
        "127.0.0.1:0".parse().unwrap(),
        access,
        shutdown.clone(),
    )
    .await
    .unwrap();
    let client = McpClient::connect_http_with_token(&format!("http://{address}/mcp"), &token)
        .await
        .unwrap();
    let mut tools = ToolRegistry::default();
    client.register_into(&mut tools).await.unwrap();

    let echo = ToolCall::new("c1", "echo", json!({"value": "Pi"}));
    let result = execute_tool_call(&echo, &tools, CallContext::default()).await;
    assert_eq!((result.text().as_str(), result.is_error), ("Pi", false));

    let seen = Arc::new(Mutex::new(Vec::new()));
    let progress = {
        let seen = Arc::clone(&seen);
        ProgressCallback::new(move |update| seen.lock().unwrap().push(update.details))
    };
    let slow = ToolCall::new("c2", "slow", json!({"steps": 3}));
    let context = CallContext {
        signal: None,
        report_progress: Some(progress),
    };
    let result = execute_tool_call(&slow, &tools, context).await;
    assert_eq!(result.text(), "done after 3 steps");
    assert_eq!(seen.lock().unwrap().len(), 3, "{:?}", seen.lock().unwrap());
    shutdown.cancel();
}

#[tokio::test]
async fn the_client_works_with_sessions() {
    round_trip(HttpAccess::generated().unwrap()).await;
}

#[tokio::test]
async fn the_client_works_stateless() {
    round_trip(HttpAccess::generated().unwrap().stateless()).await;
}

/// A failure to connect keeps the error underneath it, for logs and `downcast_ref`.
#[tokio::test]
async fn a_failed_connection_keeps_its_cause() {
    let Err(error) = McpClient::connect_stdio("/definitely/not/a/server", &[]).await else {
        panic!("connected to nothing")
    };
    // The cause is said once: by the chain, not again in the message.
    assert_eq!(
        error.to_string(),
        "could not connect to the MCP server /definitely/not/a/server"
    );
    assert!(
        pi_tool::error_text(&error)
            .starts_with("could not connect to the MCP server /definitely/not/a/server: "),
        "{error}"
    );
    let cause = std::error::Error::source(&error).expect("a source");
    let io = cause
        .downcast_ref::<std::io::Error>()
        .expect("the spawn's io::Error");
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
}

#[tokio::test]
async fn an_address_in_use_is_a_bind_error_holding_the_system_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap();
    let server = McpToolServer::new(Arc::new(builtin::registry())).unwrap();
    let refused = serve_http(
        server,
        address,
        HttpAccess::generated().unwrap(),
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert_eq!(
        refused.to_string(),
        format!("the MCP server could not bind {address}")
    );
    assert!(
        pi_tool::error_text(&refused)
            .starts_with(&format!("the MCP server could not bind {address}: ")),
        "{refused}"
    );
    let source = std::error::Error::source(&refused).unwrap();
    let io = source.downcast_ref::<std::io::Error>().unwrap();
    assert_eq!(io.kind(), std::io::ErrorKind::AddrInUse);
}
