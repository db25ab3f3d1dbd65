//! `pi-tool acp` on the raw pipe, as an editor starts it: `initialize` advertises what the
//! server does, a malformed message gets one JSON-RPC error and the process keeps serving,
//! `session/new` makes a session in the editor's directory, and a prompt streams the model's
//! text and ends `end_turn`, against a local fake of the OpenAI Chat wire named in
//! `models.json`. (The official ACP clients drive it in `acp_clients.rs`.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

fn answer(text: &str) -> support::Reply {
    let chunk =
        json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]});
    support::Reply::sse(format!("data: {chunk}\n\ndata: [DONE]\n\n"))
}

/// A work directory and an agent directory whose models.json names the fake at `url`.
fn dirs(url: &str) -> tempfile::TempDir {
    let dirs = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dirs.path().join("work")).unwrap();
    let agent = dirs.path().join("agent");
    std::fs::create_dir_all(&agent).unwrap();
    let models = json!({"providers": {"local": {
        "baseUrl": format!("{url}/v1"), "api": "openai-completions",
        "models": [{"id": "local-model"}]
    }}});
    std::fs::write(agent.join("models.json"), models.to_string()).unwrap();
    dirs
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Server {
    fn start(dirs: &tempfile::TempDir) -> Self {
        Self::start_with(dirs, &[])
    }

    /// The server with `options` of `acp`.
    fn start_with(dirs: &tempfile::TempDir, options: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pi-tool"))
            .args(["--sandbox", "landlock", "acp"])
            .args(options)
            .current_dir(dirs.path().join("work"))
            .env("PI_CODING_AGENT_DIR", dirs.path().join("agent"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // A test waiting for a message that never comes fails (stdout closes) instead of
        // hanging: the server is stopped after a minute.
        let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs(60));
            // Only while it is still our child: its pid may have been given to another.
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let parent = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|ppid| ppid.parse::<u32>().ok());
            if parent == Some(std::process::id()) {
                let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
            }
        });
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Self {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        assert!(
            self.stdout.read_line(&mut line).unwrap() > 0,
            "stdout closed"
        );
        serde_json::from_str(&line).unwrap()
    }

    /// Reads messages until the response to `id`, returning it and what came before.
    fn until_response(&mut self, id: u64) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            let message = self.read();
            if message["id"] == json!(id) && message.get("method").is_none() {
                return (message, before);
            }
            before.push(message);
        }
    }
}

#[test]
fn an_editor_initializes_creates_a_session_and_prompts_over_stdio() {
    let (url, seen) = support::serve(vec![answer("Hello from the model.")]);
    let dirs = dirs(&url);
    let work = dirs.path().join("work");
    let prompts = dirs.path().join("agent/prompts");
    std::fs::create_dir_all(&prompts).unwrap();
    std::fs::write(
        prompts.join("review.md"),
        "---\ndescription: Review a file\n---\nReview $1",
    )
    .unwrap();
    let mut server = Server::start(&dirs);
    server.send(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#,
    );
    let (initialized, _) = server.until_response(1);
    let result = &initialized["result"];
    assert_eq!(result["protocolVersion"], 1);
    assert_eq!(result["agentCapabilities"]["loadSession"], true);
    assert_eq!(
        result["agentCapabilities"]["promptCapabilities"]["embeddedContext"],
        true
    );
    assert_eq!(result["agentInfo"]["name"], "pi-tool");

    // No authentication is needed; a client that asks anyway is answered.
    server.send(r#"{"jsonrpc":"2.0","id":10,"method":"authenticate","params":{"methodId":"any"}}"#);
    let (authenticated, _) = server.until_response(10);
    assert!(authenticated.get("result").is_some(), "{authenticated}");

    // Bad messages: each gets one error, and the server goes on.
    server.send("not json");
    let parse = server.read();
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    server.send(r#"{"jsonrpc":"2.0","id":2,"method":"no/such/method","params":{}}"#);
    let (unknown, _) = server.until_response(2);
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    server.send(
        r#"{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":5,"mcpServers":[]}}"#,
    );
    let (bad_params, _) = server.until_response(3);
    assert_eq!(bad_params["error"]["code"], -32602, "{bad_params}");
    server.send(
        r#"{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}"#,
    );
    let (relative, _) = server.until_response(4);
    assert!(
        relative["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not an absolute path"),
        "{relative}"
    );
    server.send(
        r#"{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}"#,
    );
    let (no_session, _) = server.until_response(5);
    assert_eq!(no_session["error"]["message"], "no session \"nope\"");

    let new = json!({"jsonrpc":"2.0","id":6,"method":"session/new","params":{"cwd": work, "mcpServers":[]}});
    server.send(&new.to_string());
    let (created, _) = server.until_response(6);
    let session_id = created["result"]["sessionId"].as_str().unwrap().to_owned();
    let options = &created["result"]["configOptions"];
    assert_eq!(options[0]["id"], "model");
    assert_eq!(options[0]["currentValue"], "local/local-model");
    // The user's prompt template is the editor's slash command.
    let commands = server.read();
    let update = &commands["params"]["update"];
    assert_eq!(
        update["sessionUpdate"], "available_commands_update",
        "{commands}"
    );
    assert_eq!(update["availableCommands"][0]["name"], "review");
    assert_eq!(
        update["availableCommands"][0]["description"],
        "Review a file"
    );

    let prompt = json!({"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{
        "sessionId": session_id, "prompt": [{"type":"text","text":"Say hello"}]}});
    server.send(&prompt.to_string());
    let (done, updates) = server.until_response(7);
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    let text: String = updates
        .iter()
        .filter(|update| update["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        .map(|update| {
            assert_eq!(update["method"], "session/update");
            assert_eq!(update["params"]["sessionId"], session_id.as_str());
            update["params"]["update"]["content"]["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(text, "Hello from the model.");
    // The model was sent the prompt, with the editor's directory as the working directory.
    let bodies = support::bodies(&seen);
    let request = bodies[0].to_string();
    assert!(request.contains("Say hello"), "{request}");
    assert!(request.contains(&work.display().to_string()), "{request}");

    drop(server.stdin);
    let status = server.child.wait().unwrap();
    assert!(status.success(), "{status}");
}

fn tool_call(id: &str, name: &str, arguments: &Value) -> support::Reply {
    let chunk = json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
        {"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": arguments.to_string()}}
    ]}, "finish_reason": "tool_calls"}]});
    support::Reply::sse(format!("data: {chunk}\n\ndata: [DONE]\n\n"))
}

impl Server {
    fn initialize(&mut self) {
        self.send(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#,
        );
        self.until_response(1);
    }

    /// Runs a prompt, answering each permission request with the next of `answers`; the
    /// response, the updates and the permission requests.
    fn prompt(
        &mut self,
        id: u64,
        session_id: &str,
        text: &str,
        answers: &mut Vec<&str>,
    ) -> (Value, Vec<Value>, Vec<Value>) {
        let prompt = json!({"jsonrpc":"2.0","id":id,"method":"session/prompt","params":{
            "sessionId": session_id, "prompt": [{"type":"text","text":text}]}});
        self.send(&prompt.to_string());
        let mut updates = Vec::new();
        let mut asked = Vec::new();
        loop {
            let message = self.read();
            match message["method"].as_str() {
                Some("session/request_permission") => {
                    assert!(!answers.is_empty(), "unexpected question: {message}");
                    let answer = answers.remove(0);
                    let reply = json!({"jsonrpc":"2.0","id":message["id"],"result":{
                        "outcome":{"outcome":"selected","optionId":answer}}});
                    self.send(&reply.to_string());
                    asked.push(message);
                }
                Some(_) => updates.push(message),
                None if message["id"] == json!(id) => return (message, updates, asked),
                None => panic!("an unexpected response: {message}"),
            }
        }
    }
}

#[test]
fn an_editors_mcp_server_joins_the_session_and_always_answers_hold_for_it() {
    let echo = |id: &str, value: &str| tool_call(id, "echo", &json!({"value": value}));
    let (url, seen) = support::serve(vec![
        echo("call_1", "one"),
        answer("Echoed."),
        echo("call_2", "two"),
        answer("Echoed again."),
        tool_call("call_3", "bash", &json!({"command": "touch made.txt"})),
        answer("Refused."),
        tool_call("call_4", "bash", &json!({"command": "touch made.txt"})),
        answer("Refused again."),
    ]);
    let dirs = dirs(&url);
    let work = dirs.path().join("work");
    let mut server = Server::start(&dirs);
    server.initialize();
    // This program's own MCP server (`pi-tool serve`, stdio) offers `echo`.
    let new = json!({"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd": work,
        "mcpServers":[{"name":"demo","command":env!("CARGO_BIN_EXE_pi-tool"),"args":["serve"],
                       "env":[{"name":"DEMO_SETTING","value":"1"}]}]}});
    server.send(&new.to_string());
    let (created, _) = server.until_response(2);
    let session_id = created["result"]["sessionId"].as_str().unwrap().to_owned();

    // Allowed always: the second echo runs without a question.
    let mut answers = vec!["allow_always"];
    let (done, updates, asked) = server.prompt(3, &session_id, "echo one", &mut answers);
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["params"]["toolCall"]["toolCallId"], "call_1");
    let result = updates
        .iter()
        .find(|update| update["params"]["update"]["status"] == "completed")
        .unwrap();
    assert_eq!(
        result["params"]["update"]["content"][0]["content"]["text"],
        "one"
    );
    let (done, _, asked) = server.prompt(4, &session_id, "echo two", &mut answers);
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    assert!(asked.is_empty(), "{asked:?}");

    // Rejected always: the same command is refused without a question.
    let mut answers = vec!["reject_always"];
    let (_, _, asked) = server.prompt(5, &session_id, "touch it", &mut answers);
    assert_eq!(asked.len(), 1);
    let (_, updates, asked) = server.prompt(6, &session_id, "touch it again", &mut answers);
    assert!(asked.is_empty(), "{asked:?}");
    let failed = updates
        .iter()
        .find(|update| update["params"]["update"]["status"] == "failed")
        .unwrap();
    let text = failed["params"]["update"]["content"][0]["content"]["text"].to_string();
    assert!(text.contains("rejected"), "{text}");
    assert!(!work.join("made.txt").exists());
    // The model saw the echoed values.
    let bodies = support::bodies(&seen);
    assert!(bodies[1].to_string().contains("one"));
    drop(server.stdin);
    assert!(server.child.wait().unwrap().success());
}

#[test]
fn approval_modes_are_session_modes_the_editor_switches() {
    let write = |id: &str| tool_call(id, "write", &json!({"path": "made.txt", "content": "made"}));
    let (url, _seen) = support::serve(vec![
        write("call_1"),
        answer("Refused."),
        write("call_2"),
        answer("Written."),
    ]);
    let dirs = dirs(&url);
    let work = dirs.path().join("work");
    let mut server = Server::start(&dirs);
    server.initialize();
    let new = json!({"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd": work, "mcpServers":[]}});
    server.send(&new.to_string());
    let (created, _) = server.until_response(2);
    let session_id = created["result"]["sessionId"].as_str().unwrap().to_owned();
    let modes = &created["result"]["modes"];
    assert_eq!(modes["currentModeId"], "ask", "{created}");
    let ids: Vec<&str> = modes["availableModes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|mode| mode["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["read-only", "ask", "auto-edit", "full-auto"]);
    let set = |id: u64, mode: &str| {
        json!({"jsonrpc":"2.0","id":id,"method":"session/set_mode","params":{
            "sessionId": session_id, "modeId": mode}})
        .to_string()
    };
    server.send(&set(3, "yolo"));
    let (refused, _) = server.until_response(3);
    assert!(refused.get("error").is_some(), "{refused}");

    // Read-only: the write is refused without a question.
    server.send(&set(4, "read-only"));
    let (switched, _) = server.until_response(4);
    assert!(switched.get("result").is_some(), "{switched}");
    let (_, _, asked) = server.prompt(5, &session_id, "write it", &mut Vec::new());
    assert!(asked.is_empty());
    assert!(!work.join("made.txt").exists());

    // Auto-edit: an edit inside the project runs without a question.
    server.send(&set(6, "auto-edit"));
    server.until_response(6);
    let (done, _, asked) = server.prompt(7, &session_id, "write it", &mut Vec::new());
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    assert!(asked.is_empty());
    assert_eq!(
        std::fs::read_to_string(work.join("made.txt")).unwrap(),
        "made"
    );
    drop(server.stdin);
    assert!(server.child.wait().unwrap().success());
}

/// Every `.jsonl` file under `dir`, read.
fn session_files(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(session_files(&path));
        } else if path
            .extension()
            .is_some_and(|extension| extension == "jsonl")
        {
            found.push(std::fs::read_to_string(&path).unwrap());
        }
    }
    found
}

#[test]
fn an_editor_that_goes_away_mid_tool_leaves_every_call_answered_in_the_file() {
    let (url, _seen) = support::serve(vec![tool_call(
        "call_slow",
        "bash",
        &json!({"command": "sleep 30"}),
    )]);
    let dirs = dirs(&url);
    let work = dirs.path().join("work");
    let mut server = Server::start(&dirs);
    server.initialize();
    let new = json!({"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd": work, "mcpServers":[]}});
    server.send(&new.to_string());
    let (created, _) = server.until_response(2);
    let session_id = created["result"]["sessionId"].as_str().unwrap().to_owned();
    let prompt = json!({"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{
        "sessionId": session_id, "prompt": [{"type":"text","text":"run it"}]}});
    server.send(&prompt.to_string());
    loop {
        let message = server.read();
        if message["method"] == "session/request_permission" {
            let reply = json!({"jsonrpc":"2.0","id":message["id"],"result":{
                "outcome":{"outcome":"selected","optionId":"allow_once"}}});
            server.send(&reply.to_string());
        }
        if message["params"]["update"]["status"] == "in_progress" {
            break;
        }
    }
    let started = std::time::Instant::now();
    drop(server.stdin);
    assert!(server.child.wait().unwrap().success());
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let files = session_files(&dirs.path().join("agent"));
    let file = files
        .iter()
        .find(|text| text.contains("call_slow"))
        .expect("the session file");
    assert!(
        file.lines()
            .any(|line| line.contains("\"toolResult\"") && line.contains("call_slow")),
        "{file}"
    );
}

/// `session/fork` (advertised as `sessionCapabilities.fork`): the fork is a new session in its
/// own file holding the conversation so far, its next request carries it, and the session
/// forked from goes on untouched.
#[test]
fn a_forked_session_goes_on_from_a_copy_and_the_first_is_untouched() {
    let (url, seen) = support::serve(vec![
        answer("The first answer."),
        answer("The fork's answer."),
    ]);
    let dirs = dirs(&url);
    let work = dirs.path().join("work");
    let mut server = Server::start(&dirs);
    server.send(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#,
    );
    let (initialized, _) = server.until_response(1);
    assert!(
        initialized["result"]["agentCapabilities"]["sessionCapabilities"]["fork"].is_object(),
        "{initialized}"
    );
    let new = json!({"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd": work, "mcpServers":[]}});
    server.send(&new.to_string());
    let (created, _) = server.until_response(2);
    let first = created["result"]["sessionId"].as_str().unwrap().to_owned();
    let (done, _, _) = server.prompt(3, &first, "First question", &mut Vec::new());
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");

    let fork = json!({"jsonrpc":"2.0","id":4,"method":"session/fork","params":{
        "sessionId": first, "cwd": work, "mcpServers": []}});
    server.send(&fork.to_string());
    let (forked, _) = server.until_response(4);
    let second = forked["result"]["sessionId"]
        .as_str()
        .unwrap_or_else(|| panic!("{forked}"))
        .to_owned();
    assert_ne!(second, first);
    assert_eq!(
        forked["result"]["configOptions"][0]["currentValue"],
        "local/local-model"
    );
    let (done, _, _) = server.prompt(5, &second, "Second question", &mut Vec::new());
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    // The fork's request carries the first exchange.
    let bodies = support::bodies(&seen);
    assert_eq!(bodies.len(), 2);
    let request = bodies[1]["messages"].to_string();
    for wanted in ["First question", "The first answer.", "Second question"] {
        assert!(request.contains(wanted), "{wanted}: {request}");
    }
    // Forking a session that is not open is an error naming it.
    server.send(
        &json!({"jsonrpc":"2.0","id":6,"method":"session/fork","params":{
            "sessionId": "nope", "cwd": work, "mcpServers": []}})
        .to_string(),
    );
    let (unknown, _) = server.until_response(6);
    assert_eq!(unknown["error"]["message"], "no session \"nope\"");
    drop(server.stdin);
    assert!(server.child.wait().unwrap().success());
    // Two files: the first with its one exchange, the fork with both, naming its parent.
    let files = session_files(&dirs.path().join("agent"));
    assert_eq!(files.len(), 2, "{files:?}");
    let (fork_file, first_file): (Vec<&String>, Vec<&String>) = files
        .iter()
        .partition(|file| file.lines().next().unwrap().contains("parentSession"));
    let (first_file, fork_file) = (first_file[0], fork_file[0]);
    assert!(first_file.lines().next().unwrap().contains(&first));
    assert!(fork_file.lines().next().unwrap().contains(&second));
    assert!(!first_file.contains("Second question"), "{first_file}");
    assert!(first_file.contains("The first answer."), "{first_file}");
    assert!(fork_file.contains("The first answer."), "{fork_file}");
    assert!(fork_file.contains("The fork's answer."), "{fork_file}");
}

/// Each editor session reads the settings of its own directory: a trusted project elsewhere
/// whose `.pi/settings.json` turns the automatic retry off fails at the first 500, while a
/// session in the program's directory (the user's settings only) retries it; the project's
/// approval rules hold in its session only (its `read` refused there, allowed here).
#[test]
fn a_session_reads_the_settings_of_its_own_project() {
    let read = || tool_call("call_1", "read", &json!({"path": "notes.txt"}));
    let server_error = || {
        support::Reply::json(
            "500 Internal Server Error",
            r#"{"error":{"message":"Internal server error","type":"server_error"}}"#,
        )
    };
    let (url, seen) = support::serve(vec![
        server_error(),
        server_error(),
        answer("Retried and answered."),
        read(),
        answer("Refused there."),
        read(),
        answer("Read here."),
    ]);
    let dirs = dirs(&url);
    let work = dirs.path().join("work");
    let other = dirs.path().join("other");
    std::fs::create_dir_all(other.join(".pi")).unwrap();
    std::fs::write(
        other.join(".pi/settings.json"),
        r#"{"retry": {"enabled": false}, "permissions": {"deny": ["read(notes.txt)"]}}"#,
    )
    .unwrap();
    for dir in [&work, &other] {
        std::fs::write(dir.join("notes.txt"), "milk, eggs").unwrap();
    }
    let user = json!({
        "retry": {"baseDelayMs": 1, "provider": {"maxRetries": 0}},
        "permissions": {"trustedProjects": [other]},
    });
    std::fs::write(dirs.path().join("agent/settings.json"), user.to_string()).unwrap();
    let mut server = Server::start(&dirs);
    server.initialize();
    let mut open = |id: u64, cwd: &std::path::Path| {
        let new = json!({"jsonrpc":"2.0","id":id,"method":"session/new","params":{"cwd": cwd, "mcpServers":[]}});
        server.send(&new.to_string());
        let (created, _) = server.until_response(id);
        created["result"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("{created}"))
            .to_owned()
    };
    let elsewhere = open(2, &other);
    let here = open(3, &work);
    let (failed, _, _) = server.prompt(4, &elsewhere, "No retry here", &mut Vec::new());
    assert_eq!(support::bodies(&seen).len(), 1, "{failed}");
    let (answered, updates, _) = server.prompt(5, &here, "Retry here", &mut Vec::new());
    assert_eq!(answered["result"]["stopReason"], "end_turn", "{answered}");
    assert_eq!(support::bodies(&seen).len(), 3);
    assert!(
        updates
            .iter()
            .any(|update| update.to_string().contains("Retried and answered.")),
        "{updates:?}"
    );
    let tool_result = |request: &Value| {
        request["messages"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .find(|message| message["role"] == "tool")
            .map(|message| message["content"].to_string())
            .unwrap_or_else(|| panic!("no tool result: {request}"))
    };
    server.prompt(6, &elsewhere, "Read it there", &mut Vec::new());
    let refused = tool_result(&support::bodies(&seen)[4]);
    assert!(!refused.contains("milk, eggs"), "{refused}");
    server.prompt(7, &here, "Read it here", &mut Vec::new());
    let allowed = tool_result(&support::bodies(&seen)[6]);
    assert!(allowed.contains("milk, eggs"), "{allowed}");
    drop(server.stdin);
    assert!(server.child.wait().unwrap().success());
}

/// In `full-auto`, a call the sandbox refused may run outside it once the editor allows: in
/// a session in another project than the program's, a relative path still resolves in that
/// project, never in the program's directory (the tools offered outside the sandbox are the
/// session's own).
#[test]
fn a_call_let_out_of_the_sandbox_runs_in_its_own_sessions_project() {
    let (url, seen) = support::serve(vec![
        tool_call("call_1", "read", &json!({"path": "../neighbour.txt"})),
        answer("Read outside."),
    ]);
    let dirs = dirs(&url);
    // The program starts in <root>/work; the editor's session is in <root>/projects/other.
    // `../neighbour.txt` is a different file from each.
    let other = dirs.path().join("projects/other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(dirs.path().join("neighbour.txt"), "beside the program").unwrap();
    std::fs::write(
        dirs.path().join("projects/neighbour.txt"),
        "beside the second project",
    )
    .unwrap();
    let mut server = Server::start_with(&dirs, &["--approval", "full-auto"]);
    server.initialize();
    let new = json!({"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd": other, "mcpServers":[]}});
    server.send(&new.to_string());
    let (created, _) = server.until_response(2);
    let session = created["result"]["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(
        created["result"]["modes"]["currentModeId"], "full-auto",
        "{created}"
    );
    let (done, _, asked) = server.prompt(3, &session, "Read beside", &mut vec!["allow_once"]);
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    assert_eq!(asked.len(), 1, "the sandbox refusal asks: {asked:?}");
    assert!(
        asked[0].to_string().contains("outside the sandbox"),
        "{}",
        asked[0]
    );
    let bodies = support::bodies(&seen);
    assert_eq!(bodies.len(), 2);
    let read = bodies[1].to_string();
    assert!(read.contains("beside the second project"), "{read}");
    assert!(!read.contains("beside the program"), "{read}");
    drop(server.stdin);
    assert!(server.child.wait().unwrap().success());
}

/// Approval flags before `acp` are Pi's own options, which `acp` does not read: the server
/// refuses to start rather than drop a `--deny` without a word.
#[test]
fn approval_flags_before_the_subcommand_stop_the_start() {
    let dirs = dirs("http://127.0.0.1:9");
    let output = Command::new(env!("CARGO_BIN_EXE_pi-tool"))
        .args(["--deny", "read", "acp"])
        .current_dir(dirs.path().join("work"))
        .env("PI_CODING_AGENT_DIR", dirs.path().join("agent"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("go after the subcommand"), "{stderr}");
    assert!(output.stdout.is_empty());
}

/// The launcher an editor's terminal runs (`pi-tool __confined-shell LAUNCH COMMAND`) is
/// answered before anything else, and arguments it did not make are refused, saying so.
#[test]
fn the_terminals_launcher_refuses_arguments_it_did_not_make() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_pi-tool"))
        .args([pi_coding_tools::LAUNCHER_SUBCOMMAND, "{}", "true"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad arguments"), "{stderr}");
}

/// An MCP server the editor names by URL (`"type": "http"`, with its bearer token as a
/// header) joins the session as a stdio one does: its tool runs and answers.
#[test]
fn an_editors_http_mcp_server_joins_the_session() {
    let token = "0123456789abcdef0123456789abcdef";
    let mut mcp = Command::new(env!("CARGO_BIN_EXE_pi-tool"))
        .args(["serve", "--http", "127.0.0.1:0", "--token", token])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(mcp.stderr.take().unwrap()).lines();
    let mcp_url = lines
        .by_ref()
        .map(Result::unwrap)
        .find(|line| line.contains("http://"))
        .unwrap()
        .rsplit(' ')
        .next()
        .unwrap()
        .to_owned();
    // Keep draining its stderr so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});

    let (url, seen) = support::serve(vec![
        tool_call("call_1", "echo", &json!({"value": "over http"})),
        answer("Echoed."),
    ]);
    let dirs = dirs(&url);
    let work = dirs.path().join("work");
    let mut server = Server::start(&dirs);
    server.initialize();
    let new = json!({"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd": work,
        "mcpServers":[{"type":"http","name":"web","url": mcp_url,
                       "headers":[{"name":"Authorization","value": format!("Bearer {token}")}]}]}});
    server.send(&new.to_string());
    let (created, _) = server.until_response(2);
    let session_id = created["result"]["sessionId"]
        .as_str()
        .unwrap_or_else(|| panic!("{created}"))
        .to_owned();
    let mut answers = vec!["allow_once"];
    let (done, updates, _) = server.prompt(3, &session_id, "echo it", &mut answers);
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    let result = updates
        .iter()
        .find(|update| update["params"]["update"]["status"] == "completed")
        .unwrap_or_else(|| panic!("{updates:?}"));
    assert_eq!(
        result["params"]["update"]["content"][0]["content"]["text"],
        "over http"
    );
    assert_eq!(support::bodies(&seen).len(), 2);
    drop(server.stdin);
    assert!(server.child.wait().unwrap().success());
    let _ = mcp.kill();
    let _ = mcp.wait();
}
