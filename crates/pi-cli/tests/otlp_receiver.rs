//! The OTLP export, received by a real decoder: `scripts/otlp-receiver.py` decodes each
//! OTLP/HTTP request with the official `opentelemetry-proto` package (installed into `.venv/`
//! by `scripts/setup-python-peers.sh`). One `pi-tool agent` run over a scripted model calls a
//! batch in parallel (a success, an unknown tool, and through an MCP round trip to our own
//! `serve` a success, a panic and a time-out), and every span is checked: names, kinds, parents, ids, error types, one
//! trace across the MCP bridge.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python() -> PathBuf {
    let python = std::env::var_os("PI_PEER_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join(".venv/bin/python"));
    assert!(
        python.exists(),
        "{} is missing: run scripts/test.sh (or scripts/setup-python-peers.sh) to install opentelemetry-proto",
        python.display()
    );
    python
}

/// The receiver, ended when dropped.
struct Receiver(Child);

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn wait_for(mut ready: impl FnMut() -> bool, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !ready() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn spans_named<'a>(spans: &'a [Value], name: &str) -> Vec<&'a Value> {
    spans.iter().filter(|span| span["name"] == name).collect()
}

#[test]
#[ignore = "needs opentelemetry-proto in .venv: scripts/test.sh installs it and runs this"]
fn an_agent_run_with_an_mcp_round_trip_is_one_trace_at_a_real_receiver() {
    let python = python();
    let dir = tempfile::tempdir().unwrap();
    let (port_file, spans_file) = (dir.path().join("port"), dir.path().join("spans.jsonl"));
    let _receiver = Receiver(
        Command::new(python)
            .arg(workspace().join("scripts/otlp-receiver.py"))
            .args([&port_file, &spans_file])
            .spawn()
            .unwrap(),
    );
    wait_for(
        || std::fs::read_to_string(&port_file).is_ok_and(|p| !p.is_empty()),
        "the receiver",
    );
    let port = std::fs::read_to_string(&port_file).unwrap();

    let script = dir.path().join("script.json");
    let call = |id: &str, name: &str, arguments: Value| json!({"type": "toolCall", "id": id, "name": name, "arguments": arguments});
    std::fs::write(
        &script,
        json!([
            {"content": [
                call("c-ok", "echo", json!({"value": "Pi"})),
                call("c-panic", "m_explode", json!({"value": "boom"})),
                call("c-unknown", "nope", json!({})),
                call("c-slow", "m_slow", json!({"steps": 500})),
                call("c-mcp", "m_echo", json!({"value": "remote"})),
            ], "responseId": "resp-1"},
            {"content": [{"type": "text", "text": "done"}]}
        ])
        .to_string(),
    )
    .unwrap();
    let pi_tool = env!("CARGO_BIN_EXE_pi-tool");
    let output = Command::new(pi_tool)
        .args([
            "agent",
            "--json",
            "--no-session",
            "--approval",
            "yolo",
            "--tool-timeout",
            "0.5",
        ])
        .arg("--faux")
        .arg(&script)
        .args([
            "--mcp",
            &format!("{pi_tool} serve --test-tools"),
            "--mcp-prefix",
            "m_",
        ])
        .args(["--otlp", &format!("http://127.0.0.1:{port}")])
        .arg("go")
        // The `serve` child finds the collector through the standard variable.
        .env(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            format!("http://127.0.0.1:{port}"),
        )
        .env("OTEL_SERVICE_NAME", "pi-tool-test")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let read = || -> Vec<Value> {
        std::fs::read_to_string(&spans_file)
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    };
    // Both processes flushed at exit; the server's batch may land a moment later.
    wait_for(|| read().len() >= 10, "ten spans");
    let spans = read();
    let names: Vec<_> = spans.iter().map(|s| s["name"].clone()).collect();

    let runs = spans_named(&spans, "invoke_agent pi");
    assert_eq!(runs.len(), 1, "{names:?}");
    let run = runs[0];
    assert_eq!(run["kind"], "internal");
    assert_eq!(run["service"], "pi-tool-test");
    let trace = &run["trace_id"];
    for span in &spans {
        assert_eq!(&span["trace_id"], trace, "one trace: {span}");
    }

    let chats = spans_named(&spans, "chat faux");
    assert_eq!(chats.len(), 2, "{names:?}");
    // The finish reasons arrive as the conventions' string array; the response id as given.
    let reasons: Vec<_> = chats
        .iter()
        .map(|chat| chat["attributes"]["gen_ai.response.finish_reasons"].clone())
        .collect();
    assert!(reasons.contains(&json!(["tool_call"])), "{reasons:?}");
    assert!(reasons.contains(&json!(["stop"])), "{reasons:?}");
    assert_eq!(
        chats
            .iter()
            .filter(|chat| chat["attributes"]["gen_ai.response.id"] == "resp-1")
            .count(),
        1
    );
    for chat in chats {
        assert_eq!(chat["kind"], "client");
        assert_eq!(chat["parent_span_id"], run["span_id"]);
        assert_eq!(chat["attributes"]["gen_ai.operation.name"], "chat");
        assert_eq!(chat["attributes"]["gen_ai.request.model"], "faux");
    }

    let expected = [
        ("c-ok", "execute_tool echo", None),
        ("c-panic", "execute_tool m_explode", Some("tool_error")),
        ("c-unknown", "execute_tool nope", Some("unknown_tool")),
        ("c-slow", "execute_tool m_slow", Some("timeout")),
        ("c-mcp", "execute_tool m_echo", None),
    ];
    for (id, name, error) in expected {
        let calls: Vec<_> = spans
            .iter()
            .filter(|span| span["attributes"]["gen_ai.tool.call.id"] == id)
            .collect();
        assert_eq!(calls.len(), 1, "one execute_tool span for {id}: {names:?}");
        let span = calls[0];
        assert_eq!(span["name"], name);
        assert_eq!(span["kind"], "internal");
        assert_eq!(span["parent_span_id"], run["span_id"]);
        assert_eq!(span["attributes"]["gen_ai.operation.name"], "execute_tool");
        assert_eq!(span["attributes"]["error.type"].as_str(), error, "{id}");
    }

    // The MCP bridge: our client's span under the call's, our server's under the client's.
    let mcp_call = spans
        .iter()
        .find(|span| span["attributes"]["gen_ai.tool.call.id"] == "c-mcp")
        .unwrap();
    let bridge = spans_named(&spans, "tools/call echo");
    let client = bridge
        .iter()
        .find(|s| s["kind"] == "client")
        .expect("client span");
    let server = bridge
        .iter()
        .find(|s| s["kind"] == "server")
        .expect("server span");
    assert_eq!(client["parent_span_id"], mcp_call["span_id"]);
    assert_eq!(server["parent_span_id"], client["span_id"]);
    assert_eq!(server["attributes"]["mcp.method.name"], "tools/call");

    // The panic is told apart where it happened, on our server; our client sees an error
    // result, which is all MCP carries.
    let exploded = spans_named(&spans, "tools/call explode");
    let server = exploded
        .iter()
        .find(|s| s["kind"] == "server")
        .expect("the server's span of the panicking call");
    assert_eq!(server["attributes"]["error.type"], "panic");
}
