//! Our MCP client against a server built on the official MCP Python SDK (installed by
//! `scripts/setup-python-peers.sh`), over stdio and streamable HTTP.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pi_mcp::McpClient;
use pi_tool::{
    CallContext, ProgressCallback, ToolCall, ToolRegistry, ToolResultMessage, execute_tool_call,
};
use serde_json::{Value, json};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python() -> String {
    let python = std::env::var_os("PI_PEER_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join(".venv/bin/python"));
    assert!(
        python.exists(),
        "{} is missing: run scripts/test.sh (or scripts/setup-python-peers.sh) to install the MCP Python SDK",
        python.display()
    );
    python.to_str().unwrap().to_owned()
}

fn server_script() -> String {
    workspace()
        .join("crates/pi-mcp/tests/peers/python_server.py")
        .to_str()
        .unwrap()
        .to_owned()
}

async fn call(tools: &ToolRegistry, name: &str, arguments: Value) -> ToolResultMessage {
    execute_tool_call(
        &ToolCall::new("call-1", name, arguments),
        tools,
        CallContext::default(),
    )
    .await
}

async fn exercise(client: McpClient) {
    let client = client.with_call_timeout(Duration::from_secs(2));
    let mut tools = ToolRegistry::default();
    let names = client.register_into(&mut tools).await.unwrap();
    assert_eq!(
        names,
        [
            "add",
            "echo",
            "greet",
            "shout",
            "fail",
            "progress",
            "hang",
            "die",
            "call_count"
        ]
    );

    let sum = call(
        &tools,
        "add",
        json!({"a": 2, "b": 3, "extra": "dropped locally"}),
    )
    .await;
    assert!(!sum.is_error, "{}", sum.text());
    assert_eq!(sum.text(), "5");
    assert_eq!(sum.details, Some(json!({"result": 5})));

    assert_eq!(
        call(&tools, "shout", json!({"text": "pi"})).await.text(),
        "PI"
    );

    // The server advertises defaults that break their own schema (`title: str = None`): the
    // call with only the required argument is valid, and only `times`' valid default is sent.
    let greet_schema = tools.get("greet").unwrap().json_schema().unwrap().clone();
    assert_eq!(greet_schema["properties"]["title"]["default"], Value::Null);
    assert_eq!(
        greet_schema["properties"]["loud"]["default"],
        json!("false")
    );
    let greeted = call(&tools, "greet", json!({"name": "Ada"})).await;
    assert!(!greeted.is_error, "{}", greeted.text());
    assert_eq!(greeted.text(), "Hello Ada");
    let loud = call(
        &tools,
        "greet",
        json!({"name": "Ada", "title": "Dr", "loud": true}),
    )
    .await;
    assert_eq!(loud.text(), "HELLO DR ADA");

    let failed = call(&tools, "fail", json!({"message": "no way"})).await;
    assert!(failed.is_error);
    assert!(failed.text().contains("no way"), "{}", failed.text());

    // Arguments are checked here, against the server's own inputSchema: nothing is sent.
    let before = call(&tools, "call_count", json!({})).await.text();
    let invalid = call(&tools, "add", json!({"a": "two", "b": 3})).await;
    assert!(invalid.is_error);
    assert_eq!(
        invalid.text(),
        r#"Tool add failed: a: 必须是 integer，收到 string "two""#
    );
    assert_eq!(call(&tools, "call_count", json!({})).await.text(), before);

    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let progress = execute_tool_call(
        &ToolCall::new("p", "progress", json!({"steps": 4})),
        &tools,
        CallContext {
            signal: None,
            report_progress: Some(ProgressCallback::new(move |content| {
                sink.lock().unwrap().push(content);
            })),
        },
    )
    .await;
    assert_eq!(progress.text(), "4 steps");
    // Every notification arrives whole (progress, total, message) and in order, before the
    // result.
    let seen = seen.lock().unwrap().clone();
    let texts: Vec<String> = seen.iter().map(pi_tool::ToolUpdate::text).collect();
    assert_eq!(
        texts,
        ["1/4: step 1", "2/4: step 2", "3/4: step 3", "4/4: step 4"]
    );
    assert_eq!(
        seen[1].details,
        Some(json!({"progress": 2, "total": 4, "message": "step 2"}))
    );

    let hung = call(&tools, "hang", json!({})).await;
    assert!(hung.is_error);
    assert_eq!(
        hung.text(),
        "Tool hang failed: the MCP server did not answer within 2 s"
    );

    let died = call(&tools, "die", json!({})).await;
    assert!(died.is_error, "{}", died.text());
    let after = tokio::time::timeout(
        Duration::from_secs(5),
        call(&tools, "shout", json!({"text": "x"})),
    )
    .await
    .expect("a dead server gives an answer, not a hang");
    assert!(after.is_error);
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK in .venv: scripts/test.sh installs it and runs this"]
async fn our_client_drives_a_python_sdk_server_over_stdio() {
    let client = McpClient::connect_stdio(&python(), &[server_script()])
        .await
        .unwrap();
    exercise(client).await;
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK in .venv: scripts/test.sh installs it and runs this"]
async fn our_client_drives_a_python_sdk_server_over_http() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut server = tokio::process::Command::new(python())
        .args([server_script(), "--http".into(), port.to_string()])
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut client = None;
    for _ in 0..100 {
        if let Ok(connected) = McpClient::connect_http(&url).await {
            client = Some(connected);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    exercise(client.expect("the python server came up")).await;
    let _ = server.kill().await;
}
