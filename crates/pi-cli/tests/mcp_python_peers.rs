//! The official MCP Python SDK, installed by `scripts/setup-python-peers.sh`, as a client of
//! `pi-tool serve` over stdio and over streamable HTTP.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python() -> PathBuf {
    let python = std::env::var_os("PI_PEER_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join(".venv/bin/python"));
    assert!(
        python.exists(),
        "{} is missing: run scripts/test.sh (or scripts/setup-python-peers.sh) to install the MCP Python SDK",
        python.display()
    );
    python
}

fn client_script() -> PathBuf {
    workspace().join("crates/pi-mcp/tests/peers/python_client.py")
}

fn assert_all_checks_pass(output: std::process::Output) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains(" passed, 0 failed"),
        "python client failed:\n{stdout}\n{stderr}"
    );
}

#[test]
#[ignore = "needs the MCP Python SDK in .venv: scripts/test.sh installs it and runs this"]
fn python_sdk_client_over_stdio() {
    let output = Command::new(python())
        .arg(client_script())
        .arg("--stdio")
        .arg(env!("CARGO_BIN_EXE_pi-tool"))
        .output()
        .unwrap();
    assert_all_checks_pass(output);
}

/// Kills the server however the test ends, so that no orphan keeps the test's pipes open.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
#[ignore = "needs the MCP Python SDK in .venv: scripts/test.sh installs it and runs this"]
fn python_sdk_client_over_streamable_http() {
    let python = python();
    let server = Command::new(env!("CARGO_BIN_EXE_pi-tool"))
        .args([
            "serve",
            "--test-tools",
            "--http",
            "127.0.0.1:0",
            "--token",
            "peer-token",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut server = KillOnDrop(server);
    let mut lines = BufReader::new(server.0.stderr.take().unwrap()).lines();
    // The address line, past any warning printed before it (a short token on loopback).
    let url = lines
        .by_ref()
        .map(Result::unwrap)
        .find(|line| line.contains("http://"))
        .unwrap()
        .rsplit(' ')
        .next()
        .unwrap()
        .to_owned();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    // Keep draining the server's stderr (panic reports) so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    let output = Command::new(python)
        .arg(client_script())
        .args(["--url", &url, "--token", "peer-token"])
        .output()
        .unwrap();
    drop(server);
    assert_all_checks_pass(output);
}

#[test]
#[ignore = "needs the MCP Python SDK in .venv: scripts/test.sh installs it and runs this"]
fn agent_uses_a_python_sdk_servers_tools() {
    let dir = std::env::temp_dir().join(format!("pi-agent-mcp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        r#"[{"content":[{"type":"toolCall","id":"s1","name":"py_shout","arguments":{"text":"hello"}},
                         {"type":"toolCall","id":"s2","name":"echo","arguments":{"value":"local"}},
                         {"type":"toolCall","id":"s3","name":"py_greet","arguments":{"name":"Ada"}}]},
            {"content":[{"type":"text","text":"done"}]}]"#,
    )
    .unwrap();
    let server = format!(
        "{} {}",
        python().display(),
        workspace()
            .join("crates/pi-mcp/tests/peers/python_server.py")
            .display()
    );
    let output = Command::new(env!("CARGO_BIN_EXE_pi-tool"))
        .args([
            "agent",
            "--demo-tools",
            "--approval",
            "full-auto",
            "--json",
            "--no-session",
            "--faux",
            script.to_str().unwrap(),
            "go",
            "--mcp",
            &server,
            "--mcp-prefix",
            "py_",
        ])
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let transcript: Vec<serde_json::Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(transcript[2]["toolCallId"], "s1");
    assert_eq!(transcript[2]["content"][0]["text"], "HELLO");
    assert_eq!(transcript[3]["toolCallId"], "s2");
    assert_eq!(transcript[3]["content"][0]["text"], "local");
    // Only the required argument: the server's own broken defaults do not refuse it.
    assert_eq!(transcript[4]["toolCallId"], "s3");
    assert_eq!(transcript[4]["isError"], false, "{}", transcript[4]);
    assert_eq!(transcript[4]["content"][0]["text"], "Hello Ada");
}

/// `pi-tool mcp call` with only the required argument of a tool whose advertised defaults break
/// their own schema (`title: str = None` in the Python SDK).
#[test]
#[ignore = "needs the MCP Python SDK in .venv: scripts/test.sh installs it and runs this"]
fn mcp_call_takes_a_python_sdk_tool_with_only_its_required_arguments() {
    let output = Command::new(env!("CARGO_BIN_EXE_pi-tool"))
        .args(["mcp", "call", "greet", r#"{"name":"Ada"}"#, "--"])
        .arg(python())
        .arg(workspace().join("crates/pi-mcp/tests/peers/python_server.py"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(result["content"][0]["text"], "Hello Ada");
    assert_eq!(result["isError"], false);
}
