//! `pi-tool agent --provider P --base-url URL --model M` end to end against a local fake of each
//! wire: the model calls the built-in `echo`, reads its result, and answers.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::io::Write;
use std::net::TcpListener;

mod support;

use assert_cmd::Command;
use serde_json::Value;

/// Serves each scripted SSE body once, in order, on its own connection; records requests.
fn fake(bodies: Vec<String>) -> (String, support::Seen) {
    support::serve(bodies.into_iter().map(support::Reply::sse).collect())
}

fn data(json: &str) -> String {
    format!("data: {json}\n\n")
}

fn event(name: &str, json: &str) -> String {
    format!("event: {name}\ndata: {json}\n\n")
}

fn openai() -> Vec<String> {
    vec![
        [
            data(r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"Let me echo. ","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"echo","arguments":""}}]},"finish_reason":null}]}"#),
            data(r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"value\":"}}]},"finish_reason":null}]}"#),
            data(r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Pi\"}"}}]},"finish_reason":"tool_calls"}]}"#),
            "data: [DONE]\n\n".to_owned(),
        ]
        .concat(),
        [
            data(r#"{"choices":[{"index":0,"delta":{"content":"echo said "},"finish_reason":null}]}"#),
            data(r#"{"choices":[{"index":0,"delta":{"content":"Pi."},"finish_reason":"stop"}]}"#),
            "data: [DONE]\n\n".to_owned(),
        ]
        .concat(),
    ]
}

fn openai_responses() -> Vec<String> {
    vec![
        [
            event("response.created", r#"{"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":[]},"sequence_number":0}"#),
            event("response.output_text.delta", r#"{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Let me echo. ","sequence_number":1}"#),
            event("response.output_item.added", r#"{"type":"response.output_item.added","item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"echo"},"output_index":1,"sequence_number":2}"#),
            event("response.function_call_arguments.delta", r#"{"type":"response.function_call_arguments.delta","delta":"{\"value\":\"Pi\"}","item_id":"fc_1","output_index":1,"sequence_number":3}"#),
            event("response.completed", r#"{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[]},"sequence_number":4}"#),
        ]
        .concat(),
        [
            event("response.output_text.delta", r#"{"type":"response.output_text.delta","item_id":"msg_2","output_index":0,"content_index":0,"delta":"echo said Pi.","sequence_number":0}"#),
            event("response.completed", r#"{"type":"response.completed","response":{"id":"resp_2","status":"completed","output":[]},"sequence_number":1}"#),
        ]
        .concat(),
    ]
}

fn anthropic() -> Vec<String> {
    let start = r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":5,"output_tokens":1}}}"#;
    vec![
        [
            event("message_start", start),
            event("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#),
            event("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me echo. "}}"#),
            event("content_block_stop", r#"{"type":"content_block_stop","index":0}"#),
            event("content_block_start", r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"echo","input":{}}}"#),
            event("content_block_delta", r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"value\": \"Pi\"}"}}"#),
            event("content_block_stop", r#"{"type":"content_block_stop","index":1}"#),
            event("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}"#),
            event("message_stop", r#"{"type":"message_stop"}"#),
        ]
        .concat(),
        [
            event("message_start", start),
            event("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#),
            event("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"echo said Pi."}}"#),
            event("content_block_stop", r#"{"type":"content_block_stop","index":0}"#),
            event("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}}"#),
            event("message_stop", r#"{"type":"message_stop"}"#),
        ]
        .concat(),
    ]
}

fn gemini() -> Vec<String> {
    vec![
        [
            data(r#"{"candidates":[{"content":{"parts":[{"text":"Let me echo. "}],"role":"model"},"index":0}]}"#),
            data(r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"echo","args":{"value":"Pi"},"id":"g1"}}],"role":"model"},"finishReason":"STOP","index":0}]}"#),
        ]
        .concat(),
        data(r#"{"candidates":[{"content":{"parts":[{"text":"echo said Pi."}],"role":"model"},"finishReason":"STOP","index":0}]}"#),
    ]
}

fn run(
    provider: &str,
    bodies: Vec<String>,
    base_suffix: &str,
    json: bool,
) -> (String, Vec<(String, Value)>) {
    let (url, seen) = fake(bodies);
    let mut args = vec![
        "agent".to_owned(),
        "--demo-tools".into(),
        "--provider".into(),
        provider.into(),
        "--model".into(),
        "test-model".into(),
        "--base-url".into(),
        format!("{url}{base_suffix}"),
        "Echo Pi".into(),
    ];
    if json {
        args.push("--json".into());
    }
    // The run's session goes to cargo's temporary directory, not the tester's `~/.pi`.
    let output = Command::cargo_bin("pi-tool")
        .unwrap()
        .env("PI_CODING_AGENT_DIR", env!("CARGO_TARGET_TMPDIR"))
        .args(&args)
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "{provider}: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let requests = seen
        .lock()
        .unwrap()
        .iter()
        .map(|request| (request.path.clone(), request.body.clone()))
        .collect();
    (stdout, requests)
}

#[test]
fn every_wire_completes_a_tool_using_run_with_a_live_view() {
    for (provider, bodies, suffix, path) in [
        ("openai", openai(), "/v1", "/v1/chat/completions"),
        (
            "openai-responses",
            openai_responses(),
            "/v1",
            "/v1/responses",
        ),
        ("anthropic", anthropic(), "", "/v1/messages"),
        (
            "gemini",
            gemini(),
            "",
            "/v1beta/models/test-model:streamGenerateContent?alt=sse",
        ),
    ] {
        let (stdout, requests) = run(provider, bodies, suffix, false);
        assert_eq!(
            stdout, "Let me echo. \n→ echo {\"value\":\"Pi\"}\n← echo: Pi\necho said Pi.\n",
            "{provider}"
        );
        assert_eq!(requests.len(), 2, "{provider}");
        assert_eq!(requests[0].0, path, "{provider}");
        // The second request carries echo's result.
        assert!(
            requests[1].1.to_string().contains("\"Pi\""),
            "{provider}: {}",
            requests[1].1
        );
    }
}

#[test]
fn json_prints_the_transcript() {
    let (stdout, _) = run("openai", openai(), "/v1", true);
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[1]["stopReason"], "toolUse");
    assert_eq!(lines[2]["role"], "toolResult");
    assert_eq!(lines[2]["content"][0]["text"], "Pi");
    assert_eq!(lines[3]["stopReason"], "stop");
}

#[test]
fn a_hosted_provider_without_a_key_is_refused_clearly() {
    let output = Command::cargo_bin("pi-tool")
        .unwrap()
        .env_remove("ANTHROPIC_API_KEY")
        .args([
            "agent",
            "--no-session",
            "--provider",
            "anthropic",
            "--model",
            "m",
            "hi",
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("ANTHROPIC_API_KEY"));
}

/// Answers one request with `piece` written again and again (at most `times`, `pause` apart)
/// until the client hangs up.
fn endless(piece: &'static str, times: usize, pause: std::time::Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let Some((_, mut stream)) = support::read_request(stream) else {
            return;
        };
        let head =
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
        if stream.write_all(head.as_bytes()).is_err() {
            return;
        }
        for _ in 0..times {
            if stream.write_all(piece.as_bytes()).is_err() {
                return;
            }
            std::thread::sleep(pause);
        }
    });
    format!("http://{address}/v1")
}

/// `pi-tool agent` against `url` with `flags`: exit code, stderr, seconds taken.
fn agent_against(url: &str, flags: &[&str]) -> (Option<i32>, String, f64) {
    let started = std::time::Instant::now();
    let output = Command::cargo_bin("pi-tool")
        .unwrap()
        .args([
            "agent",
            "--provider",
            "openai",
            "--model",
            "m",
            "--base-url",
            url,
        ])
        .arg("--no-session")
        .args(flags)
        .arg("go")
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        started.elapsed().as_secs_f64(),
    )
}

const TEXT_CHUNK: &str = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"},\"finish_reason\":null}]}\n\n";

#[test]
fn a_response_past_max_response_bytes_ends_the_run_with_an_error() {
    // 128 bytes of text per event, up to 64 MiB of them, as fast as they go.
    let url = endless(TEXT_CHUNK, 1 << 19, std::time::Duration::ZERO);
    let (code, stderr, took) = agent_against(&url, &["--max-response-bytes", "256KiB"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "the run ended: Error: the model's response passed the limit of 256 KiB (text, \
             thinking and tool calls together)"
        ),
        "{stderr}"
    );
    assert!(took < 20.0, "{took}");
}

#[test]
fn keepalive_comments_meet_the_idle_timeout_and_a_trickle_the_response_timeout() {
    let keepalive = endless(
        ": keepalive\n\n",
        1500,
        std::time::Duration::from_millis(20),
    );
    let (code, stderr, took) = agent_against(&keepalive, &["--idle-timeout", "0.5"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("the provider sent no event for 0.5 s (keep-alive comments do not count)"),
        "{stderr}"
    );
    assert!(took < 10.0, "{took}");

    let trickle = endless(TEXT_CHUNK, 600, std::time::Duration::from_millis(50));
    let (code, stderr, took) = agent_against(&trickle, &["--response-timeout", "1.5"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("the response did not end within its time limit of 1.5 s"),
        "{stderr}"
    );
    assert!(took < 10.0, "{took}");
}

#[test]
fn tool_timeout_ends_a_call_that_runs_too_long() {
    let dir = tempfile::tempdir().unwrap();
    let script = serde_json::json!([
        {"content": [{"type": "toolCall", "id": "slow", "name": "bash",
                      "arguments": {"command": "sleep 3; touch late"}}]},
        {"content": [{"type": "text", "text": "done"}]}
    ]);
    let script_path = dir.path().join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let started = std::time::Instant::now();
    let output = Command::cargo_bin("pi-tool")
        .unwrap()
        .arg("--coding-tools")
        .arg(dir.path())
        .args(["agent", "--approval", "full-auto", "--faux"])
        .arg(&script_path)
        .args(["--tool-timeout", "1", "--no-session", "--json", "run it"])
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    let took = started.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let messages: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let result = messages
        .iter()
        .find(|message| message["role"] == "toolResult")
        .unwrap();
    assert_eq!(result["toolCallId"], "slow");
    assert_eq!(result["isError"], true);
    assert!(result.to_string().contains("timed out"), "{result}");
    assert!(took < std::time::Duration::from_secs(3), "{took:?}");
    // The command was ended with its call: it never gets to write.
    std::thread::sleep(std::time::Duration::from_secs(3));
    assert!(!dir.path().join("late").exists());
}
