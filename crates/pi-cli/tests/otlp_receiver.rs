//! The OTLP export, received by a real decoder: `scripts/otlp-receiver.py` decodes each
//! export with the official `opentelemetry-proto` package, over HTTP/protobuf and over gRPC
//! (its service stubs, served by `grpcio`; both installed into `.venv/` by
//! `scripts/setup-python-peers.sh`). One `pi-tool agent` run over a scripted model calls a
//! batch in parallel (a success, an unknown tool, and through an MCP round trip to our own
//! `serve` a success, a panic and a time-out), and every span is checked the same way for
//! both protocols: names, kinds, parents, ids, error types, one trace across the MCP bridge;
//! and the three metrics arrive.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::path::{Path, PathBuf};
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

fn read_lines(file: &Path) -> Vec<Value> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
#[ignore = "needs opentelemetry-proto in .venv: scripts/test.sh installs it and runs this"]
fn an_agent_run_with_an_mcp_round_trip_is_one_trace_at_a_real_receiver_over_http() {
    run_and_check("http/protobuf");
}

#[test]
#[ignore = "needs opentelemetry-proto and grpcio in .venv: scripts/test.sh installs them and runs this"]
fn an_agent_run_with_an_mcp_round_trip_is_one_trace_at_a_real_receiver_over_grpc() {
    run_and_check("grpc");
}

/// One run exported with `protocol` (as `OTEL_EXPORTER_OTLP_PROTOCOL` names it), checked.
fn run_and_check(protocol: &str) {
    let python = python();
    let dir = tempfile::tempdir().unwrap();
    let port_file = dir.path().join("port");
    let spans_file = dir.path().join("spans.jsonl");
    let metrics_file = dir.path().join("metrics.jsonl");
    let mut receiver = Command::new(python);
    receiver
        .arg(workspace().join("scripts/otlp-receiver.py"))
        .arg("--metrics")
        .arg(&metrics_file);
    if protocol == "grpc" {
        receiver.arg("--grpc");
    }
    let _receiver = Receiver(receiver.args([&port_file, &spans_file]).spawn().unwrap());
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
            "--demo-tools",
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
        .args(["--otlp-protocol", protocol])
        .arg("go")
        // The `serve` child finds the collector through the standard variables.
        .env(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            format!("http://127.0.0.1:{port}"),
        )
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
        .env("OTEL_SERVICE_NAME", "pi-tool-test")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    // Both processes flushed at exit; the server's batch may land a moment later.
    wait_for(|| read_lines(&spans_file).len() >= 10, "ten spans");
    let spans = read_lines(&spans_file);
    let names: Vec<_> = spans.iter().map(|s| s["name"].clone()).collect();

    let runs = spans_named(&spans, "invoke_agent pi");
    assert_eq!(runs.len(), 1, "{names:?}");
    let run = runs[0];
    assert_eq!(run["kind"], "internal");
    assert_eq!(run["service"], "pi-tool-test");
    let trace = &run["trace_id"];
    for span in &spans {
        assert_eq!(&span["trace_id"], trace, "one trace: {span}");
        // Only the conventions' attributes: not the bridge's `tracing` target.
        assert!(span["attributes"].get("target").is_none(), "{span}");
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
        // Token counts are ints, as the conventions type them (not their text).
        for count in ["gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"] {
            assert!(chat["attributes"][count].is_i64(), "{count}: {chat}");
        }
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

    // The metrics, from both processes, flushed with the spans.
    let metric_names = |service: &str| -> Vec<Value> {
        read_lines(&metrics_file)
            .into_iter()
            .filter(|metric| metric["service"] == service && metric["count"].as_u64() > Some(0))
            .map(|metric| metric["name"].clone())
            .collect()
    };
    let expected = [
        "gen_ai.client.token.usage",
        "gen_ai.client.operation.duration",
        "gen_ai.execute_tool.duration",
    ];
    wait_for(
        || {
            expected
                .iter()
                .all(|name| metric_names("pi-tool-test").contains(&json!(name)))
        },
        "the three metrics",
    );
}
