//! The examples of `pi --help` (Pi 0.80.6), typed as a Pi user types them with `pi-tool` in
//! place of `pi`, against local fakes of the OpenAI Responses and Anthropic wires named in the
//! agent directory's `models.json` (the built-in providers' base URLs overridden, as Pi allows),
//! with keys in the environment: each request is checked for its server path, model id, key
//! header and thinking parameters. Without a terminal the interactive examples run as Pi's
//! print mode does.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use assert_cmd::Command;

const OPENAI_KEY: &str = "sk-openai-example-key";
const ANTHROPIC_KEY: &str = "sk-ant-example-key";

fn event(name: &str, json: &str) -> String {
    format!("event: {name}\ndata: {json}\n\n")
}

/// One answer in the wire the request went to (the fake answers whichever it is asked).
fn anthropic_answer(text: &str) -> String {
    let start = r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":5,"output_tokens":1}}}"#;
    let delta = serde_json::json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":text}});
    [
        event("message_start", start),
        event(
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        ),
        event("content_block_delta", &delta.to_string()),
        event(
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        event(
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}}"#,
        ),
        event("message_stop", r#"{"type":"message_stop"}"#),
    ]
    .concat()
}

fn responses_answer(text: &str) -> String {
    let delta = serde_json::json!({"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":text,"sequence_number":0});
    [
        event("response.output_text.delta", &delta.to_string()),
        event(
            "response.completed",
            r#"{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[]},"sequence_number":1}"#,
        ),
    ]
    .concat()
}

/// A fake that answers `count` requests, each in the wire its path names.
fn fake(count: usize) -> (String, support::Seen) {
    use std::net::TcpListener;
    use std::sync::{Arc, Mutex};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let seen: support::Seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    std::thread::spawn(move || {
        for _ in 0..count {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let Some((request, mut stream)) = support::read_request(stream) else {
                continue;
            };
            let body = if request.path.ends_with("/messages") {
                anthropic_answer("An answer.")
            } else {
                responses_answer("An answer.")
            };
            record.lock().unwrap().push(request);
            support::respond(&mut stream, &support::Reply::sse(body));
        }
    });
    (format!("http://{address}"), seen)
}

struct Setup {
    dirs: tempfile::TempDir,
    seen: support::Seen,
}

fn setup(requests: usize) -> Setup {
    let dirs = tempfile::tempdir().unwrap();
    let (url, seen) = fake(requests);
    let agent = dirs.path().join("agent");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::create_dir_all(dirs.path().join("work/src")).unwrap();
    let models = serde_json::json!({"providers": {
        "openai": {"baseUrl": format!("{url}/v1")},
        "anthropic": {"baseUrl": url},
    }});
    std::fs::write(agent.join("models.json"), models.to_string()).unwrap();
    Setup { dirs, seen }
}

impl Setup {
    fn pi(&self, args: &[&str]) -> std::process::Output {
        let mut command = Command::cargo_bin("pi-tool").unwrap();
        command
            .current_dir(self.dirs.path().join("work"))
            .env("PI_CODING_AGENT_DIR", self.dirs.path().join("agent"));
        for (name, _) in std::env::vars() {
            if name.ends_with("_API_KEY") || name.ends_with("_TOKEN") || name.starts_with("AWS_") {
                command.env_remove(name);
            }
        }
        command
            .env("OPENAI_API_KEY", OPENAI_KEY)
            .env("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
            .args(args)
            .write_stdin("")
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let output = self.pi(args);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "{args:?}: {stderr}");
        for key in [OPENAI_KEY, ANTHROPIC_KEY] {
            assert!(!stderr.contains(key), "{args:?} printed a key");
            assert!(!String::from_utf8_lossy(&output.stdout).contains(key));
        }
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn requests(&self) -> Vec<support::SeenRequest> {
        self.seen.lock().unwrap().clone()
    }
}

fn header(request: &support::SeenRequest, name: &str) -> Option<String> {
    request.headers.iter().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name)
            .then(|| value.trim().to_owned())
    })
}

fn is_anthropic(request: &support::SeenRequest) -> bool {
    request.path == "/v1/messages" && header(request, "x-api-key").as_deref() == Some(ANTHROPIC_KEY)
}

fn is_openai(request: &support::SeenRequest, model: &str) -> bool {
    request.path == "/v1/responses"
        && header(request, "authorization").as_deref() == Some(&format!("Bearer {OPENAI_KEY}"))
        && request.body["model"] == model
}

#[test]
fn non_interactive_and_the_default_model() {
    // pi -p "List all .ts files in src/"
    let setup = setup(1);
    assert_eq!(
        setup.ok(&["-p", "List all .ts files in src/"]),
        "An answer.\n"
    );
    let request = &setup.requests()[0];
    // The first provider of Pi's order with a key: Anthropic, its default model.
    assert!(
        is_anthropic(request),
        "{} {:?}",
        request.path,
        request.headers
    );
    assert_eq!(request.body["model"], "claude-opus-4-8");
}

#[test]
fn interactive_with_an_initial_prompt_and_several_messages() {
    // pi "List all .ts files in src/"   and   pi "Read package.json" "What dependencies do we have?"
    let setup = setup(3);
    setup.ok(&["List all .ts files in src/"]);
    setup.ok(&["Read package.json", "What dependencies do we have?"]);
    let requests = setup.requests();
    assert_eq!(requests.len(), 3);
    let last = &requests[2].body["messages"];
    let texts = last.to_string();
    assert!(texts.contains("Read package.json") && texts.contains("What dependencies"));
}

#[test]
fn files_in_the_initial_message() {
    // pi @prompt.md @image.png "What color is the sky?"
    let setup = setup(1);
    let work = setup.dirs.path().join("work");
    std::fs::write(work.join("prompt.md"), "Answer in one word.").unwrap();
    let png = support::PNG_1X1;
    std::fs::write(work.join("image.png"), png).unwrap();
    setup.ok(&["@prompt.md", "@image.png", "What color is the sky?"]);
    let body = &setup.requests()[0].body;
    let content = &body["messages"][0]["content"];
    let text = content.to_string();
    assert!(text.contains("Answer in one word."), "{text}");
    assert!(text.contains("What color is the sky?"));
    assert!(
        content
            .as_array()
            .unwrap()
            .iter()
            .any(|block| block["type"] == "image" && block["source"]["media_type"] == "image/png"),
        "{content}"
    );
}

#[test]
fn continue_the_previous_session() {
    // pi --continue "What did we discuss?"
    let setup = setup(2);
    setup.ok(&["We discussed the weather."]);
    setup.ok(&["--continue", "What did we discuss?"]);
    let second = &setup.requests()[1].body["messages"];
    assert!(second.to_string().contains("We discussed the weather."));
}

#[test]
fn a_named_session() {
    // pi --name "Refactor auth module"   (no message: nothing is sent)
    let setup = setup(0);
    setup.ok(&["--name", "Refactor auth module"]);
    assert!(setup.requests().is_empty());
}

#[test]
fn a_provider_and_a_model() {
    // pi --provider openai --model gpt-4o-mini "Help me refactor this code"
    // pi --model openai/gpt-4o "Help me refactor this code"
    let setup = setup(2);
    setup.ok(&[
        "--provider",
        "openai",
        "--model",
        "gpt-4o-mini",
        "Help me refactor this code",
    ]);
    setup.ok(&["--model", "openai/gpt-4o", "Help me refactor this code"]);
    let requests = setup.requests();
    assert!(
        is_openai(&requests[0], "gpt-4o-mini"),
        "{:?}",
        requests[0].body
    );
    assert!(is_openai(&requests[1], "gpt-4o"), "{:?}", requests[1].body);
}

#[test]
fn a_model_with_a_thinking_suffix_and_the_thinking_flag() {
    // pi --model sonnet:high "Solve this complex problem": Pi 0.80.6 resolves `sonnet` to an
    // Amazon Bedrock model and, with no AWS credentials, says so ("No API key found for
    // amazon-bedrock"); so do we.
    let setup = setup(2);
    let output = setup.pi(&["--model", "sonnet:high", "Solve this complex problem"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("amazon-bedrock"), "{stderr}");
    // With the provider named, the same pattern is Anthropic's, thinking high.
    setup.ok(&[
        "--model",
        "anthropic/sonnet:high",
        "Solve this complex problem",
    ]);
    // pi --thinking high "Solve this complex problem": the default model, as Pi sends it
    // (Claude Opus 4.8 thinks adaptively, its thoughts summarised).
    setup.ok(&["--thinking", "high", "Solve this complex problem"]);
    let requests = setup.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[0].body["model"]
            .as_str()
            .unwrap()
            .contains("sonnet")
    );
    for request in &requests {
        assert!(is_anthropic(request), "{}", request.path);
        let thinking = &request.body["thinking"];
        assert!(
            thinking["type"] == "enabled" || thinking["type"] == "adaptive",
            "{}",
            request.body
        );
    }
    assert_eq!(requests[1].body["model"], "claude-opus-4-8");
    assert_eq!(
        requests[1].body["thinking"],
        serde_json::json!({"type": "adaptive", "display": "summarized"})
    );
}

#[test]
fn model_scopes_need_no_request() {
    // pi --models claude-sonnet,claude-haiku,gpt-4o   and the others that only open the editor
    let setup = setup(0);
    setup.ok(&["--models", "claude-sonnet,claude-haiku,gpt-4o"]);
    setup.ok(&["--models", "github-copilot/*"]);
    setup.ok(&["--models", "sonnet:high,haiku:low"]);
    assert!(setup.requests().is_empty());
}

#[test]
fn read_only_tools_and_an_excluded_tool() {
    // pi --tools read,grep,find,ls -p "Review the code in src/"
    // pi --exclude-tools ask_question
    let setup = setup(1);
    setup.ok(&[
        "--tools",
        "read,grep,find,ls",
        "-p",
        "Review the code in src/",
    ]);
    let tools: Vec<String> = setup.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(tools, ["read", "grep", "find", "ls"]);
    let output = setup.pi(&["--exclude-tools", "ask_question"]);
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("ask_question"));
}

#[test]
fn export_writes_the_page_or_says_why_not() {
    // pi --export ~/.pi/agent/sessions/--path--/session.jsonl
    let setup = setup(0);
    let output = setup.pi(&["--export", "session.jsonl", "output.html"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("could not read the session session.jsonl"),
        "{stderr}"
    );
}
