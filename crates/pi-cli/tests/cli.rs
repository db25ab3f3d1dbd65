//! The `pi-tool` binary end to end: tools, call, run.
//!
//! (Over 500 lines on purpose: each file under `tests/` is its own binary that links the whole
//! crate stack, so one file per behaviour area keeps CI's link time and disk down; the tests
//! inside are independent and share only the helpers at the top.)
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use assert_cmd::Command;
use serde_json::{Value, json};

/// `pi-tool` with its agent directory (where `agent` records sessions) in cargo's directory
/// for test files, not the user's `~/.pi/agent`.
fn pi_tool() -> Command {
    let agent_dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("pi-cli-agent-dir");
    let mut command = Command::cargo_bin("pi-tool").unwrap();
    command.env("PI_CODING_AGENT_DIR", agent_dir);
    command
}

/// Parses one JSON line and drops its timestamp after checking it is a number.
fn result_line(line: &str) -> Value {
    let mut value: Value = serde_json::from_str(line).unwrap();
    let timestamp = value.as_object_mut().unwrap().remove("timestamp").unwrap();
    assert!(timestamp.as_u64().is_some());
    value
}

#[test]
fn call_prints_the_specs_echo_result() {
    let output = pi_tool()
        .args(["call", "echo", r#"{"value":"Pi","ignored":"drop me"}"#])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "one JSON line");
    assert_eq!(
        result_line(stdout.trim_end()),
        json!({
            "role": "toolResult",
            "toolCallId": "call-1",
            "toolName": "echo",
            "content": [{"type": "text", "text": "Pi"}],
            "details": {"source": "echo"},
            "isError": false
        })
    );
}

#[test]
fn call_with_an_error_result_exits_1_and_keeps_the_id() {
    let output = pi_tool()
        .args(["call", "echo", r#"{"value":1}"#, "--id", "abc"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let result = result_line(String::from_utf8(output.stdout).unwrap().trim_end());
    assert_eq!(result["toolCallId"], "abc");
    assert_eq!(
        result["content"][0]["text"],
        "Tool echo failed: 必须是 string"
    );

    let unknown = pi_tool().args(["call", "nope", "{}"]).output().unwrap();
    assert_eq!(unknown.status.code(), Some(1));
    let result = result_line(String::from_utf8(unknown.stdout).unwrap().trim_end());
    assert_eq!(result["content"][0]["text"], "Tool nope failed: 未知工具");
}

#[test]
fn call_with_arguments_that_are_not_json_exits_2_with_a_clear_error() {
    let output = pi_tool().args(["call", "echo", "{value"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("not valid JSON"), "{stderr}");
}

#[test]
fn tools_prints_the_definitions() {
    let output = pi_tool().arg("tools").output().unwrap();
    assert!(output.status.success());
    let definitions: Value = serde_json::from_slice(&output.stdout).unwrap();
    let names: Vec<&str> = definitions
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["echo", "uppercase"]);
    assert_eq!(
        definitions[0]["parameters"],
        json!({"type": "object", "properties": {"value": {"type": "string"}},
               "required": ["value"], "additionalProperties": false})
    );
}

#[test]
fn run_answers_every_line_in_input_order() {
    let mut input = String::new();
    for index in 0..200 {
        let name = if index % 2 == 0 { "echo" } else { "uppercase" };
        input.push_str(
            &json!({"type": "toolCall", "id": format!("c{index}"), "name": name,
                    "arguments": {"value": format!("v{index}")}})
            .to_string(),
        );
        input.push('\n');
    }
    input.push_str("not json\n");
    input.push_str("{\"id\":\"only-id\"}\n");
    input.push('\n');
    input.push_str(
        "{\"type\":\"toolCall\",\"id\":\"last\",\"name\":\"echo\",\"arguments\":{\"value\":2}}\r\n",
    );

    let output = pi_tool().arg("run").write_stdin(input).output().unwrap();
    assert!(output.status.success());
    let lines: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(result_line)
        .collect();
    assert_eq!(lines.len(), 204, "one result per input line");
    for (index, line) in lines.iter().take(200).enumerate() {
        assert_eq!(line["toolCallId"], format!("c{index}"));
        let expected = if index % 2 == 0 {
            format!("v{index}")
        } else {
            format!("V{index}")
        };
        assert_eq!(line["content"][0]["text"], expected);
        assert_eq!(line["isError"], false);
    }
    assert_eq!(lines[200]["toolCallId"], "line-201");
    assert_eq!(lines[200]["isError"], true);
    assert!(
        lines[200]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Tool call failed: line 201 is not valid JSON")
    );
    assert_eq!(lines[201]["toolCallId"], "only-id");
    assert_eq!(lines[201]["isError"], true);
    assert_eq!(lines[202]["toolCallId"], "line-203");
    assert_eq!(lines[203]["toolCallId"], "last");
    assert_eq!(
        lines[203]["content"][0]["text"],
        "Tool echo failed: 必须是 string"
    );
}

#[test]
fn run_on_empty_input_prints_nothing() {
    let output = pi_tool().arg("run").write_stdin("").output().unwrap();
    assert!(output.status.success());
    assert!(output.stdout.is_empty());
}

#[test]
fn tools_renders_each_dialect_and_refuses_unknown_ones() {
    for dialect in ["openai", "openai-strict", "anthropic", "gemini", "mcp"] {
        let output = pi_tool()
            .args(["tools", "--dialect", dialect])
            .output()
            .unwrap();
        assert!(output.status.success(), "{dialect}");
        let definitions: Value = serde_json::from_slice(&output.stdout).unwrap();
        let parameters = &definitions[0]["parameters"];
        assert_eq!(parameters["type"], "object", "{dialect}");
        let expected = if dialect == "gemini" {
            None
        } else {
            Some(&json!(false))
        };
        assert_eq!(
            parameters.get("additionalProperties"),
            expected,
            "{dialect}"
        );
    }
    let output = pi_tool()
        .args(["tools", "--dialect", "claude"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn check_prints_parsed_arguments_or_the_model_facing_error() {
    let dir = std::env::temp_dir().join(format!("pi-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let schema = dir.join("read.json");
    std::fs::write(
        &schema,
        json!({"name": "read", "description": "d", "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"},
                           "limit": {"type": "integer", "minimum": 1, "default": 100}},
            "required": ["path"]}})
        .to_string(),
    )
    .unwrap();
    let schema = schema.to_str().unwrap();

    let ok = pi_tool()
        .args(["check", schema, r#"{"path":"a","x":1}"#])
        .output()
        .unwrap();
    assert_eq!(ok.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(ok.stdout).unwrap(),
        "{\"path\":\"a\",\"limit\":100}\n"
    );

    let bad = pi_tool()
        .args(["check", schema, r#"{"limit":0}"#])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(bad.stdout).unwrap(),
        "参数有 2 处错误：\n- path: 必须是 string，但缺失\n- limit: 必须 >= 1，收到 number 0\n"
    );

    let not_json = pi_tool().args(["check", schema, "{"]).output().unwrap();
    assert_eq!(not_json.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_jsonl_answers_every_line_in_order() {
    let input = [
        r#"{"schema":{"type":"object","properties":{"a":{"type":"string"}}},"arguments":{"a":"x","b":1}}"#,
        "junk",
        r#"{"schema":{"type":5},"arguments":{}}"#,
        r#"{"arguments":{}}"#,
        r#"{"schema":{"type":"object","properties":{"n":{"type":"integer"}}},"arguments":{"n":"1"}}"#,
        // A Python SDK tool's defaults break their own schema: only the valid one is filled.
        r#"{"schema":{"type":"object","properties":{"name":{"type":"string"},"title":{"type":"string","default":null},"loud":{"type":"boolean","default":"false"},"times":{"type":"integer","default":1}},"required":["name"]},"arguments":{"name":"Ada"}}"#,
    ]
    .join("\n");
    let output = pi_tool()
        .args(["check", "--jsonl"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(output.status.success());
    let lines: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0], json!({"ok": true, "value": {"a": "x"}}));
    assert_eq!(
        lines[5],
        json!({"ok": true, "value": {"name": "Ada", "times": 1}})
    );
    for line in &lines[1..5] {
        assert_eq!(line["ok"], false);
        assert!(!line["error"].as_str().unwrap().is_empty());
    }
    assert_eq!(lines[4]["error"], "必须是 integer");
}

fn demo_script() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/faux/echo_uppercase.json")
        .to_str()
        .unwrap()
        .to_owned()
}

#[test]
fn agent_runs_the_offline_demo_end_to_end() {
    let output = pi_tool()
        .args([
            "agent",
            "--demo-tools",
            "--json",
            "--faux",
            &demo_script(),
            "Echo Pi, and shout it",
            "--events",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let transcript: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let roles: Vec<&str> = transcript
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["user", "assistant", "toolResult", "toolResult", "assistant"]
    );
    assert_eq!(transcript[2]["toolCallId"], "call-1");
    assert_eq!(transcript[2]["content"][0]["text"], "Pi");
    assert_eq!(transcript[3]["toolCallId"], "call-2");
    assert_eq!(transcript[3]["content"][0]["text"], "PI");
    assert_eq!(transcript[4]["stopReason"], "stop");
    assert_eq!(
        transcript[4]["content"][0]["text"],
        "echo said Pi and uppercase said PI."
    );

    let events: Vec<Value> = String::from_utf8(output.stderr)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    // With `--json`, the files that went into the system prompt come first, then the run.
    assert_eq!(events[0]["type"], "system_prompt");
    assert_eq!(events[1]["type"], "agent_start");
    assert_eq!(events.last().unwrap()["type"], "agent_end");
    assert_eq!(events.last().unwrap()["reason"], "completed");
    let ends = events
        .iter()
        .filter(|e| e["type"] == "tool_execution_end")
        .count();
    assert_eq!(ends, 2);
}

#[test]
fn agent_with_an_exhausted_script_says_why_and_exits_1() {
    let dir = std::env::temp_dir().join(format!("pi-agent-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("one.json");
    std::fs::write(
        &script,
        r#"[{"content":[{"type":"toolCall","id":"a","name":"echo","arguments":{"value":"x"}}]}]"#,
    )
    .unwrap();
    let output = pi_tool()
        .args(["agent", "--json", "--faux", script.to_str().unwrap(), "go"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8(output.stderr)
            .unwrap()
            .contains("No more faux responses queued")
    );

    std::fs::write(&script, r#"{"not": "an array"}"#).unwrap();
    let bad = pi_tool()
        .args(["agent", "--json", "--faux", script.to_str().unwrap(), "go"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mcp_tools_and_call_reach_any_stdio_server() {
    let me = env!("CARGO_BIN_EXE_pi-tool");
    let listed = pi_tool()
        .args(["mcp", "tools", "--", me, "serve"])
        .output()
        .unwrap();
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let definitions: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(definitions[1]["name"], "uppercase");

    let called = pi_tool()
        .args([
            "mcp",
            "call",
            "uppercase",
            r#"{"value":"via mcp"}"#,
            "--id",
            "m1",
            "--",
            me,
            "serve",
        ])
        .output()
        .unwrap();
    assert_eq!(called.status.code(), Some(0));
    let result = result_line(String::from_utf8(called.stdout).unwrap().trim_end());
    assert_eq!(result["toolCallId"], "m1");
    assert_eq!(result["content"][0]["text"], "VIA MCP");

    let refused = pi_tool()
        .args(["mcp", "call", "echo", r#"{"value":3}"#, "--", me, "serve"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    let result = result_line(String::from_utf8(refused.stdout).unwrap().trim_end());
    assert_eq!(
        result["content"][0]["text"],
        "Tool echo failed: 必须是 string"
    );

    // Images survive the round trip through MCP.
    let picture = pi_tool()
        .args([
            "mcp",
            "call",
            "pixel",
            r#"{"value":"p"}"#,
            "--",
            me,
            "serve",
            "--test-tools",
        ])
        .output()
        .unwrap();
    assert_eq!(picture.status.code(), Some(0));
    let result = result_line(String::from_utf8(picture.stdout).unwrap().trim_end());
    assert_eq!(result["content"][1]["type"], "image");
    assert_eq!(result["content"][1]["mimeType"], "image/png");

    let nowhere = pi_tool().args(["mcp", "tools"]).output().unwrap();
    assert_eq!(nowhere.status.code(), Some(2));
}

#[test]
fn serve_speaks_json_rpc_on_stdio_and_refuses_unknown_methods() {
    let requests = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"value":"Pi","ignored":"drop me"}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"frobnicate"}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#,
    ];
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pi-tool"))
        .arg("serve")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    use std::io::{BufRead, Write};
    for request in requests {
        writeln!(stdin, "{request}").unwrap();
    }
    let mut replies = std::collections::HashMap::new();
    for line in std::io::BufReader::new(stdout).lines() {
        let reply: Value = serde_json::from_str(&line.unwrap()).unwrap();
        replies.insert(reply["id"].as_i64().unwrap(), reply);
        if replies.len() == 4 {
            break;
        }
    }
    drop(stdin);
    child.kill().ok();
    child.wait().unwrap();
    assert_eq!(replies[&2]["result"]["content"][0]["text"], "Pi");
    assert_eq!(replies[&2]["result"]["isError"], false);
    assert_eq!(replies[&3]["error"]["code"], -32601);
    assert_eq!(replies[&4]["error"]["code"], -32602);
    assert_eq!(replies[&4]["error"]["message"], "Unknown tool: nope");
}

#[test]
fn coding_tools_work_in_the_directory_given() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let write = pi_tool()
        .args([
            "--coding-tools",
            root,
            "call",
            "write",
            r#"{"path":"notes/a.txt","content":"one\ntwo\n"}"#,
        ])
        .output()
        .unwrap();
    assert_eq!(
        write.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&write.stdout)
    );
    let read = pi_tool()
        .args([
            "call",
            "read",
            r#"{"path":"notes/a.txt","offset":2}"#,
            "--coding-tools",
            root,
        ])
        .output()
        .unwrap();
    let result = result_line(String::from_utf8(read.stdout).unwrap().trim_end());
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "two\n"}])
    );
    let grep = pi_tool()
        .args([
            "--coding-tools",
            root,
            "call",
            "grep",
            r#"{"pattern":"two"}"#,
        ])
        .output()
        .unwrap();
    let result = result_line(String::from_utf8(grep.stdout).unwrap().trim_end());
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "notes/a.txt:2: two"}])
    );
    let listed = pi_tool()
        .args(["--coding-tools", root, "tools"])
        .output()
        .unwrap();
    let names: Vec<String> = serde_json::from_slice::<Vec<Value>>(&listed.stdout)
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "echo",
            "uppercase",
            "read",
            "write",
            "edit",
            "bash",
            "grep",
            "find",
            "ls"
        ]
    );
}

#[test]
fn agent_drives_the_coding_tools_in_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/faux/coding_tools.json");
    let output = pi_tool()
        .args([
            "--coding-tools",
            dir.path().to_str().unwrap(),
            "agent",
            "--approval",
            "auto-edit",
            "--json",
            "--faux",
        ])
        .arg(&script)
        .arg("Keep a todo list")
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let texts: Vec<(String, String)> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|message| message["role"] == "toolResult")
        .map(|result| {
            (
                result["toolName"].as_str().unwrap().to_owned(),
                result["content"][0]["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        texts,
        [
            (
                "write".to_owned(),
                "Successfully wrote 24 bytes to notes/todo.md".to_owned()
            ),
            ("ls".to_owned(), "todo.md".to_owned()),
            ("grep".to_owned(), "todo.md:2: - ship the tools".to_owned()),
            ("bash".to_owned(), "2\n".to_owned()),
        ]
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes/todo.md")).unwrap(),
        "# Todo\n- ship the tools\n"
    );
}

#[test]
fn run_answers_an_oversized_line_and_keeps_going() {
    let huge = format!(
        r#"{{"type":"toolCall","id":"big","name":"echo","arguments":{{"value":"{}"}}}}"#,
        "x".repeat(17 * 1024 * 1024)
    );
    let input = format!(
        "{huge}\n{}\n",
        r#"{"type":"toolCall","id":"small","name":"echo","arguments":{"value":"ok"}}"#
    );
    let output = pi_tool().arg("run").write_stdin(input).output().unwrap();
    assert!(output.status.success());
    let lines: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["isError"], true);
    assert!(
        lines[0]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("over the 16777216-byte limit")
    );
    assert_eq!(lines[1]["toolCallId"], "small");
    assert_eq!(lines[1]["content"][0]["text"], "ok");
}

/// The failures of `agent` read in Pi's English by default (models are prompted in English);
/// `--wording course` gives the course's texts, which the one-shot commands keep by default.
#[test]
fn agent_speaks_pis_words_and_the_wording_flag_switches_them() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    std::fs::write(
        &script,
        json!([
            {"content": [{"type": "toolCall", "id": "c1", "name": "nope", "arguments": {}}]},
            {"content": [{"type": "text", "text": "done"}]}
        ])
        .to_string(),
    )
    .unwrap();
    let failure = |wording: Option<&str>| {
        let mut command = pi_tool();
        if let Some(wording) = wording {
            command.args(["--wording", wording]);
        }
        let output = command
            .args(["agent", "--json", "--faux"])
            .arg(&script)
            .arg("go")
            .output()
            .unwrap();
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .find(|message| message["role"] == "toolResult")
            .map(|result| result["content"][0]["text"].as_str().unwrap().to_owned())
            .unwrap()
    };
    assert_eq!(failure(None), "Tool nope not found");
    assert_eq!(failure(Some("pi")), "Tool nope not found");
    assert_eq!(failure(Some("course")), "Tool nope failed: 未知工具");
    let call = pi_tool().args(["call", "nope", "{}"]).output().unwrap();
    assert!(String::from_utf8_lossy(&call.stdout).contains("未知工具"));
}

/// `--sandbox landlock` puts `bash` under Landlock alone; `call` keeps the full-output file it
/// prints the path of (the workspace's own default removes them at exit).
#[cfg(target_os = "linux")]
#[test]
fn the_sandbox_flag_and_kept_output_files() {
    let dir = tempfile::tempdir().unwrap();
    let output = pi_tool()
        .args([
            "--coding-tools",
            dir.path().to_str().unwrap(),
            "--sandbox",
            "landlock",
        ])
        .args(["call", "bash", r#"{"command":"seq 1 30000"}"#])
        .output()
        .unwrap();
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    let details = &result["details"];
    assert!(
        details["sandbox"].as_str().unwrap().starts_with("landlock"),
        "{details}"
    );
    let path = details["fullOutputPath"].as_str().unwrap();
    assert_eq!(
        std::fs::read_to_string(path).unwrap().lines().count(),
        30000
    );
    std::fs::remove_file(path).unwrap();
}

/// X15: a new file's mode is 0666 less the umask for confined writes too (the confined
/// thread may not read `/proc/self/status`; the umask was taken as 022 and `umask 077`
/// gave world-readable files).
#[test]
fn a_written_file_gets_the_callers_umask_confined_or_not() {
    let binary = assert_cmd::cargo::cargo_bin("pi-tool");
    for umask in ["077", "002", "022"] {
        for confinement in [None, Some("--unconfined-file-tools")] {
            let dir = tempfile::tempdir().unwrap();
            let output = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("umask {umask}; exec \"$@\""))
                .arg("sh")
                .arg(&binary)
                .args(confinement)
                .arg("--coding-tools")
                .arg(dir.path())
                .args(["call", "write", r#"{"path":"new.txt","content":"x"}"#])
                .output()
                .unwrap();
            assert!(output.status.success(), "{output:?}");
            let stderr = String::from_utf8_lossy(&output.stderr);
            if confinement.is_none() && stderr.contains("cannot hold the file tools") {
                eprintln!("note: no Landlock here, the confined case ran unconfined: {stderr}");
            }
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(dir.path().join("new.txt"))
                .unwrap()
                .permissions()
                .mode()
                & 0o777;
            let expected = 0o666 & !u32::from_str_radix(umask, 8).unwrap();
            assert_eq!(mode, expected, "umask {umask} {confinement:?}: {mode:o}");
        }
    }
}
/// The model read `OPENAI_API_KEY`, `GITHUB_TOKEN` and `PI_TOOL_TOKEN` in `bash`'s environment
/// and, under Landlock, the `--api-key` on pi-tool's own command line. `bash` gets no secret now
/// (but one passed on purpose), and the key is off the command line; the environment it moved
/// into cannot be read from the sandbox.
#[test]
fn bash_reads_no_secret_in_its_environment_or_our_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let command =
        "env; echo; tr '\\0' ' ' < /proc/$PPID/cmdline; echo; tr '\\0' ' ' < /proc/$PPID/environ";
    let script = json!([
        {"content": [{"type": "toolCall", "id": "c", "name": "bash", "arguments": {"command": command}}]},
        {"content": [{"type": "text", "text": "ok"}]}
    ]);
    std::fs::write(dir.path().join("s.json"), script.to_string()).unwrap();
    for (sandbox, passed) in [
        ("landlock", false),
        ("strongest", false),
        ("landlock", true),
    ] {
        let mut run = pi_tool();
        run.current_dir(dir.path())
            .env("OPENAI_API_KEY", "sk-ENV-SECRET")
            .env("GITHUB_TOKEN", "ghp_ENV-SECRET")
            .env("PI_TOOL_TOKEN", "pt-ENV-SECRET")
            .env("GIT_AUTHOR_NAME", "kept-author")
            .args(["--coding-tools", ".", "--sandbox", sandbox]);
        if passed {
            run.args(["--pass-env", "GITHUB_TOKEN"]);
        }
        let output = run
            .args(["agent", "--approval", "full-auto", "--no-session", "--json"])
            .args(["--faux", "s.json", "go", "--api-key", "sk-FLAG-SECRET"])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains("kept-author"),
            "{sandbox}: bash did not run: {stdout}"
        );
        for secret in ["sk-ENV-SECRET", "pt-ENV-SECRET", "sk-FLAG-SECRET"] {
            assert!(
                !stdout.contains(secret),
                "{sandbox}: {secret} leaked: {stdout}"
            );
        }
        assert_eq!(
            stdout.contains("ghp_ENV-SECRET"),
            passed,
            "{sandbox}: {stdout}"
        );
    }
}

/// An MCP server we start gets our environment without its secrets, but one passed on purpose.
#[test]
fn an_mcp_server_we_start_gets_no_secret() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("env.txt");
    for passed in [false, true] {
        let mut run = pi_tool();
        run.env("OPENAI_API_KEY", "sk-ENV-SECRET");
        if passed {
            run.args(["--pass-env", "OPENAI_API_KEY"]);
        }
        // Not a real server: it writes what it got and ends, which fails the handshake.
        run.args(["mcp", "tools", "--", "sh", "-c"])
            .arg(format!("env > {}", seen.display()))
            .output()
            .unwrap();
        let environment = std::fs::read_to_string(&seen).unwrap();
        assert!(environment.contains("PATH="), "{environment}");
        assert_eq!(
            environment.contains("sk-ENV-SECRET"),
            passed,
            "{environment}"
        );
    }
}

/// Where bubblewrap is missing, one warning at start says what Landlock alone leaves open and
/// how to get the stronger sandbox; `--sandbox bubblewrap` refuses to run `bash` at all, and
/// `--sandbox landlock` (chosen knowingly) warns of nothing.
#[test]
fn without_bubblewrap_one_warning_and_sandbox_bubblewrap_refuses() {
    // A PATH with a shell and no `bwrap`.
    let bin = tempfile::tempdir().unwrap();
    for program in ["bash", "sh"] {
        let found = ["/usr/bin", "/bin"]
            .iter()
            .map(|directory| std::path::Path::new(directory).join(program))
            .find(|path| path.exists())
            .unwrap();
        std::os::unix::fs::symlink(found, bin.path().join(program)).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let run = |sandbox: &str| {
        let output = pi_tool()
            .env("PATH", bin.path())
            .args(["--coding-tools"])
            .arg(dir.path())
            .args([
                "--sandbox",
                sandbox,
                "call",
                "bash",
                r#"{"command":"echo ran"}"#,
            ])
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (stdout, stderr) = run("strongest");
    assert!(stdout.contains("ran"), "{stdout}");
    assert_eq!(
        stderr.matches("bubblewrap is not installed").count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("Landlock alone"), "{stderr}");
    assert!(stderr.contains("Unix sockets"), "{stderr}");
    assert!(stderr.contains("install bubblewrap"), "{stderr}");

    let (stdout, stderr) = run("bubblewrap");
    assert!(!stdout.contains("ran\\n"), "{stdout}");
    assert!(stdout.contains("bash refused"), "{stdout}");
    assert!(stderr.contains("bash will refuse to run"), "{stderr}");

    let (stdout, stderr) = run("landlock");
    assert!(stdout.contains("ran"), "{stdout}");
    assert!(!stderr.contains("bubblewrap"), "{stderr}");

    // Pi's command line probes while it reads the session, and warns once all the same, also
    // when it answers before any session is read (`--list-models`).
    let agent = tempfile::tempdir().unwrap();
    let output = pi_tool()
        .env("PATH", bin.path())
        .env("PI_CODING_AGENT_DIR", agent.path())
        .current_dir(dir.path())
        .args(["--list-models", "no-such-model"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.matches("bubblewrap is not installed").count(),
        1,
        "{output:?}"
    );
}

/// X10: with the temporary directory full, a command that ran still shows the tail of its
/// output, and says the whole could not be kept (it answered "Could not keep the output" and
/// lost all of it). Needs root to mount a small tmpfs as that directory.
#[test]
#[ignore = "needs root to mount a full tmpfs: run by scripts/test.sh"]
fn a_full_temporary_directory_loses_no_output() {
    let root = tempfile::tempdir().unwrap();
    let work = root.path().join("work");
    let tmp = root.path().join("tmp");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
        .arg(&tmp)
        .status()
        .unwrap();
    assert!(
        mounted.success(),
        "mounting a tmpfs needs root (scripts/test.sh runs as root in CI)"
    );
    struct Unmount(std::path::PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(tmp.clone());
    // Fill it.
    let _ = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "head -c 1048576 /dev/zero > {}/fill",
            tmp.display()
        ))
        .status();
    let output = pi_tool()
        .env("TMPDIR", &tmp)
        .arg("--coding-tools")
        .arg(&work)
        .args([
            "call",
            "bash",
            r#"{"command":"touch ran.txt; seq 1 100000; echo THE-LAST-LINE"}"#,
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(work.join("ran.txt").exists());
    assert!(stdout.contains("THE-LAST-LINE"), "{stdout}");
    assert!(stdout.contains("could not be kept"), "{stdout}");
}
