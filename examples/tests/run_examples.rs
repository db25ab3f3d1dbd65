//! Runs every example as a user would, and checks what it prints. `cargo test` builds the
//! examples before it runs the tests, into `target/<profile>/examples/`, next to this test's
//! own directory; a missing binary fails the test, saying how to build it.
//!
//! The agent over OpenAI is pointed at a local scripted server replaying the reference's
//! recorded OpenAI stream (`crates/pi-providers/tests/fixtures/`), through the same variables a
//! user sets for a real one.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

// The scripted HTTP server of pi-cli's tests, shared rather than copied.
#[path = "../../crates/pi-cli/tests/support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};

use pi_mcp::McpClient;
use pi_tool::{CallContext, ToolCall, ToolRegistry, execute_tool_call};
use serde_json::json;
use support::{Reply, bodies, serve};

/// The path of the example binary `name`, built by this `cargo test`.
fn example(name: &str) -> PathBuf {
    let test = std::env::current_exe().unwrap();
    let profile_dir = test.parent().and_then(|deps| deps.parent()).unwrap();
    let path = profile_dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "{} is not built: run `cargo test -p pi-examples`, which builds the examples first",
        path.display()
    );
    path
}

/// Runs an example to its end; panics with its output unless it succeeded.
fn run(command: &mut Command) -> String {
    let Output {
        status,
        stdout,
        stderr,
    } = command.output().unwrap();
    let stdout = String::from_utf8(stdout).unwrap();
    let stderr = String::from_utf8_lossy(&stderr);
    assert!(
        status.success(),
        "{status}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    stdout
}

#[test]
fn typed_tool_shows_its_schema_a_result_and_a_refusal() {
    let out = run(&mut Command::new(example("typed_tool")));
    assert!(out.contains(r#""name": "echo""#), "{out}");
    assert!(out.contains(r#""maximum": 5"#), "{out}");
    assert!(
        out.contains(r#""content":[{"type":"text","text":"PiPi"}]"#),
        "{out}"
    );
    assert!(out.contains(r#""details":{"times":2}"#), "{out}");
    assert!(out.contains("isError=true Tool echo failed"), "{out}");
}

#[test]
fn dynamic_tool_fills_in_defaults_and_refuses_bad_arguments() {
    let out = run(&mut Command::new(example("dynamic_tool")));
    assert!(out.contains("21 °C = 69.8 °F"), "{out}");
    assert!(
        out.contains("isError=true Tool convert_temperature failed"),
        "{out}"
    );
}

#[test]
fn custom_provider_drives_the_loop() {
    let out = run(&mut Command::new(example("custom_provider")));
    assert!(out.contains("The tool said HELLO PI."), "{out}");
}

/// The reference's two parallel calls (`get_weather`, `get_time`) as OpenAI streamed them,
/// with the blank line after each event that the fixture's transcript leaves out.
fn recorded_stream(lines: &str) -> String {
    lines
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| format!("{line}\n\n"))
        .collect()
}

#[test]
fn openai_agent_runs_over_the_chat_wire() {
    let (url, seen) = serve(vec![
        Reply::sse(recorded_stream(include_str!(
            "../../crates/pi-providers/tests/fixtures/openai_two_calls.sse"
        ))),
        Reply::sse(recorded_stream(include_str!(
            "../../crates/pi-providers/tests/fixtures/openai_final_text.sse"
        ))),
    ]);
    let out = run(Command::new(example("openai_agent"))
        .env("OPENAI_BASE_URL", format!("{url}/v1"))
        .env("OPENAI_API_KEY", "sk-example")
        .env_remove("OPENAI_MODEL"));
    assert!(
        out.contains(r#"→ get_weather {"city":"Tokyo","unit":"celsius"}"#),
        "{out}"
    );
    assert!(
        out.contains("← get_weather: Tokyo: 21°C, clear sky"),
        "{out}"
    );
    assert!(out.contains("← get_time: 14:05 in Asia/Tokyo"), "{out}");
    assert!(out.ends_with("Tokyo: 21°C, 14:05.\n"), "{out}");

    let sent = bodies(&seen);
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0]["model"], "gpt-4.1-mini");
    let tools: Vec<_> = sent[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].clone())
        .collect();
    assert_eq!(tools, [json!("get_weather"), json!("get_time")]);
    // The second request carries both results back, paired with their calls.
    let results: Vec<_> = sent[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "tool")
        .map(|message| (message["tool_call_id"].clone(), message["content"].clone()))
        .collect();
    assert_eq!(
        results,
        [
            (
                json!("call_SB7pIL63nRHhVPr41Ve8o9Ez"),
                json!("Tokyo: 21°C, clear sky")
            ),
            (
                json!("call_IKNfdX1VNcWs6GHnVB0afHS6"),
                json!("14:05 in Asia/Tokyo")
            ),
        ]
    );
}

#[test]
fn openai_agent_without_a_key_or_a_server_says_what_to_set() {
    let output = Command::new(example("openai_agent"))
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("set OPENAI_API_KEY"), "{stderr}");
}

/// Lists the server's tools and calls `word_count` through them, as an MCP host would.
async fn count_words_through(client: &McpClient) {
    let mut tools = ToolRegistry::default();
    let names = client.register_into(&mut tools).await.unwrap();
    assert_eq!(names, ["word_count", "echo"]);
    let call = ToolCall::new("c1", "word_count", json!({"text": "one two three"}));
    let result = execute_tool_call(&call, &tools, CallContext::default()).await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.text(), "3");
}

#[tokio::test]
async fn mcp_server_serves_over_stdio() {
    let program = example("mcp_server");
    let client = McpClient::connect_stdio(program.to_str().unwrap(), &[])
        .await
        .unwrap();
    count_words_through(&client).await;
}

/// A child process that is killed when the test ends, whether it passed or not.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn mcp_server_serves_over_http_with_a_token() {
    let mut server = KillOnDrop(
        Command::new(example("mcp_server"))
            .args(["--http", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let (url, token) = line.trim().split_once(' ').unwrap();
    // The token is required: without it the server answers 401 and nothing is listed.
    assert!(McpClient::connect_http(url).await.is_err());
    let client = McpClient::connect_http_with_token(url, token)
        .await
        .unwrap();
    count_words_through(&client).await;
}

#[test]
fn session_resume_continues_from_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(Command::new(example("session_resume")).arg(dir.path()));
    // user, assistant (call), tool result, assistant; then the same plus the new prompt.
    assert!(out.contains("run 1 wrote 4 messages"), "{out}");
    assert!(
        out.contains("run 2 sent the model 5 messages; it answered: Earlier, echo said Pi."),
        "{out}"
    );
    assert!(out.contains("the session now holds 6 messages"), "{out}");
    let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(files.len(), 1, "one session file");
}
