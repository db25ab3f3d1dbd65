//! `pi-tool agent`'s sessions end to end: every run recorded in Pi's format under
//! `PI_CODING_AGENT_DIR`, `-c`, `--session`, `--fork`, `--no-session`, `-r`, the `session`
//! command, a file deleted mid-run, and a session written by upstream Pi continued by us.
//!
//! (Over 500 lines on purpose: each file under `tests/` is its own binary that links the whole
//! crate stack, so one file per behaviour area keeps CI's link time and disk down; the tests
//! inside are independent and share only the helpers at the top.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::io::Write;
use std::path::{Path, PathBuf};

mod support;

use assert_cmd::Command;
use serde_json::{Value, json};
use tempfile::TempDir;

/// A temporary agent directory and a working directory inside the same temporary tree.
struct Home {
    root: TempDir,
}

impl Home {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("work")).unwrap();
        Self { root }
    }

    fn agent_dir(&self) -> PathBuf {
        self.root.path().join("agent")
    }

    fn work(&self) -> PathBuf {
        self.root.path().join("work").canonicalize().unwrap()
    }

    /// `pi-tool` run in the working directory with the agent directory moved here.
    fn pi_tool(&self) -> Command {
        let mut command = Command::cargo_bin("pi-tool").unwrap();
        command
            .current_dir(self.work())
            .env("PI_CODING_AGENT_DIR", self.agent_dir())
            .env_remove("PI_CODING_AGENT_SESSION_DIR");
        command
    }

    /// This working directory's session files.
    fn sessions(&self) -> Vec<PathBuf> {
        let dir = self.agent_dir().join("sessions").join(encode(&self.work()));
        let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
            Ok(entries) => entries.map(|entry| entry.unwrap().path()).collect(),
            Err(_) => Vec::new(),
        };
        files.sort();
        files
    }

    /// A faux script file answering each request with one of `answers`.
    fn script(&self, name: &str, answers: &[&str]) -> String {
        let script: Vec<Value> = answers
            .iter()
            .map(|text| json!({"content": [{"type": "text", "text": text}]}))
            .collect();
        let path = self.root.path().join(name);
        std::fs::write(&path, serde_json::to_vec(&script).unwrap()).unwrap();
        path.to_str().unwrap().to_owned()
    }
}

/// Pi's directory name for a cwd.
fn encode(cwd: &Path) -> String {
    let text = cwd.to_str().unwrap();
    format!(
        "--{}--",
        text.trim_start_matches('/').replace(['/', '\\', ':'], "-")
    )
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn stdout_lines(output: &std::process::Output) -> Vec<Value> {
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
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

/// A local OpenAI-compatible server answering each request with the next text, recording
/// each request.
fn openai_server(answers: &[&str]) -> (String, support::Seen) {
    let replies = answers
        .iter()
        .map(|text| {
            let delta = json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": "stop"}]});
            support::Reply::sse(format!("data: {delta}\n\ndata: [DONE]\n\n"))
        })
        .collect();
    let (url, seen) = support::serve(replies);
    (format!("{url}/v1"), seen)
}

/// The texts of a request's messages, in order (role, then the content as text).
fn request_texts(request: &Value) -> Vec<(String, String)> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|message| {
            let text = content_text(&message["content"]);
            (message["role"].as_str().unwrap().to_owned(), text)
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

#[test]
fn a_run_is_recorded_and_dash_c_sends_it_with_the_next_request() {
    let home = Home::new();
    let (url, seen) = openai_server(&["first answer", "second answer"]);
    let agent = |extra: &[&str], prompt: &str| {
        let mut command = home.pi_tool();
        command.args([
            "agent",
            "--json",
            "--provider",
            "openai",
            "--model",
            "m",
            "--base-url",
            &url,
            "--api-key",
            "k",
        ]);
        command.args(extra).arg(prompt).output().unwrap()
    };
    let first = agent(&[], "first question");
    success(&first);
    let files = home.sessions();
    assert_eq!(files.len(), 1, "one session file for the run");
    let written = lines(&files[0]);
    assert_eq!(written[0]["type"], "session");
    assert_eq!(written[0]["version"], 3);
    assert_eq!(written[0]["cwd"], home.work().to_str().unwrap());
    let types: Vec<&str> = written[1..]
        .iter()
        .map(|entry| entry["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "model_change",
            "thinking_level_change",
            "message",
            "message"
        ]
    );
    assert_eq!(written[1]["modelId"], "m");
    assert_eq!(written[2]["thinkingLevel"], "off");
    assert_eq!(written[3]["message"]["content"], "first question");
    assert_eq!(written[4]["message"]["role"], "assistant");
    assert_eq!(written[4]["parentId"], written[3]["id"]);

    let second = agent(&["-c"], "second question");
    success(&second);
    assert_eq!(home.sessions(), files, "-c appends to the same file");
    let requests = support::bodies(&seen);
    assert_eq!(requests.len(), 2);
    assert_eq!(
        conversation_texts(&requests[1]),
        [
            ("user".to_owned(), "first question".to_owned()),
            ("assistant".to_owned(), "first answer".to_owned()),
            ("user".to_owned(), "second question".to_owned()),
        ]
    );
    // The transcript `--json` prints is this run's own messages.
    let transcript = stdout_lines(&second);
    assert_eq!(transcript.len(), 2);
    assert_eq!(transcript[1]["content"][0]["text"], "second answer");

    // The file loads, and its context is both runs.
    let context = home
        .pi_tool()
        .args(["session", "context", files[0].to_str().unwrap()])
        .output()
        .unwrap();
    success(&context);
    assert!(context.stderr.is_empty(), "a clean file: nothing reported");
    let messages = stdout_lines(&context);
    let roles: Vec<&str> = messages
        .iter()
        .map(|message| message["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant"]);
    assert_eq!(messages[3]["content"][0]["text"], "second answer");
}

#[test]
fn session_by_id_prefix_fork_and_no_session() {
    let home = Home::new();
    let script = home.script("answers.json", &["one"]);
    let run = |extra: &[&str]| {
        let output = home
            .pi_tool()
            .args(["agent", "--json", "--faux", &script])
            .args(extra)
            .arg("hello")
            .output()
            .unwrap();
        success(&output);
        output
    };
    run(&[]);
    let files = home.sessions();
    assert_eq!(files.len(), 1);
    let original = files[0].clone();
    let id = lines(&original)[0]["id"].as_str().unwrap().to_owned();

    // --session by an id prefix appends to that file.
    run(&["--session", &id[..18]]);
    assert_eq!(home.sessions(), std::slice::from_ref(&original));
    let entries = lines(&original);
    assert_eq!(entries.len(), 1 + 2 + 2 + 2, "header, changes, two runs");
    assert_eq!(
        entries
            .iter()
            .filter(|entry| entry["type"] == "model_change")
            .count(),
        1,
        "the same model is not recorded twice"
    );

    // --fork makes a new file holding every entry, naming its parent; the original is unchanged.
    let before = std::fs::read(&original).unwrap();
    run(&["--fork", &id[..18]]);
    assert_eq!(std::fs::read(&original).unwrap(), before);
    let files = home.sessions();
    assert_eq!(files.len(), 2);
    let fork = files.iter().find(|file| **file != original).unwrap();
    let forked = lines(fork);
    assert_eq!(forked[0]["parentSession"], original.to_str().unwrap());
    assert_ne!(forked[0]["id"], id);
    assert_eq!(
        forked.len(),
        entries.len() + 2,
        "every entry, then this run's two"
    );
    assert_eq!(forked[1..entries.len()], entries[1..]);

    // A path opens that file; a path that does not exist is created there.
    let elsewhere = home.root.path().join("elsewhere.jsonl");
    run(&["--session", elsewhere.to_str().unwrap()]);
    assert_eq!(lines(&elsewhere).len(), 1 + 2 + 2);

    // --no-session writes nothing.
    run(&["--no-session"]);
    assert_eq!(home.sessions().len(), 2);
    let fresh = Home::new();
    let script = fresh.script("answers.json", &["one"]);
    let output = fresh
        .pi_tool()
        .args(["agent", "--faux", &script, "--no-session", "hi"])
        .output()
        .unwrap();
    success(&output);
    assert!(!fresh.agent_dir().exists(), "no directory made either");

    // An id prefix nothing starts with is an error naming where it looked.
    let missing = home
        .pi_tool()
        .args(["agent", "--faux", &script, "--session", "ffff", "hi"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(
        stderr.contains("no session id starts with \"ffff\""),
        "{stderr}"
    );
}

#[test]
fn session_list_context_tree_and_resume() {
    let home = Home::new();
    let script = home.script("answers.json", &["first answer"]);
    for prompt in ["older", "newer"] {
        let output = home
            .pi_tool()
            .args(["agent", "--faux", &script, prompt])
            .output()
            .unwrap();
        success(&output);
        // File times order the list: keep the two runs apart.
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let list = home
        .pi_tool()
        .args(["session", "list", "--json"])
        .output()
        .unwrap();
    success(&list);
    let listed: Value = serde_json::from_slice(&list.stdout).unwrap();
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0]["firstMessage"], "newer", "newest first");
    assert_eq!(listed[1]["firstMessage"], "older");
    assert_eq!(listed[0]["entryCount"], 4);
    assert_eq!(listed[0]["messageCount"], 2);
    assert_eq!(listed[0]["cwd"], home.work().to_str().unwrap());

    // -r --json prints the same list and runs nothing (no prompt needed).
    let resume = home
        .pi_tool()
        .args(["agent", "-r", "--json"])
        .output()
        .unwrap();
    success(&resume);
    assert_eq!(
        serde_json::from_slice::<Value>(&resume.stdout).unwrap(),
        serde_json::from_slice::<Value>(&list.stdout).unwrap()
    );

    // The plain list has one line per session.
    let text = home.pi_tool().args(["session", "list"]).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert_eq!(text.lines().count(), 2);
    assert!(text.lines().next().unwrap().ends_with("newer"), "{text}");

    // -r picks by number on stdin and continues that session.
    let older = listed[1]["path"].as_str().unwrap().to_owned();
    let picked = home
        .pi_tool()
        .args(["agent", "--faux", &script, "-r", "again"])
        .write_stdin("2\n")
        .output()
        .unwrap();
    success(&picked);
    let stderr = String::from_utf8_lossy(&picked.stderr);
    assert!(
        stderr.contains("  2. ") && stderr.contains("older"),
        "{stderr}"
    );
    let entries = lines(Path::new(&older));
    assert_eq!(
        entries.last().unwrap()["message"]["content"][0]["text"],
        "first answer"
    );
    assert_eq!(entries[entries.len() - 2]["message"]["content"], "again");

    // The tree marks the leaf; a label shows beside its entry; --leaf builds an earlier context.
    let leaf = entries.last().unwrap()["id"].as_str().unwrap().to_owned();
    let first_user = entries[3]["id"].as_str().unwrap().to_owned();
    let label = json!({"type": "label", "id": "1abe1abe", "parentId": leaf,
        "timestamp": "2026-01-01T00:00:00.000Z", "targetId": first_user, "label": "start"});
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&older)
        .unwrap();
    writeln!(file, "{label}").unwrap();
    drop(file);
    let tree = home
        .pi_tool()
        .args(["session", "tree", &older])
        .output()
        .unwrap();
    success(&tree);
    let tree = String::from_utf8(tree.stdout).unwrap();
    let tree_lines: Vec<&str> = tree.lines().collect();
    assert!(tree_lines[0].starts_with("session "), "{tree}");
    assert!(tree_lines[1].contains("model: faux/faux"), "{tree}");
    assert!(tree_lines[3].contains("user: older [start]"), "{tree}");
    assert!(
        tree_lines.last().unwrap().contains("label") && tree.trim_end().ends_with("<- leaf"),
        "{tree}"
    );

    let at = home
        .pi_tool()
        .args(["session", "context", &older, "--leaf", &first_user])
        .output()
        .unwrap();
    success(&at);
    let messages = stdout_lines(&at);
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["content"], "older");
}

#[test]
fn a_branch_point_indents_its_children_in_the_tree() {
    let home = Home::new();
    let path = home.root.path().join("branched.jsonl");
    let entry = |id: &str, parent: Value, text: &str, ms: u32| {
        json!({"type": "message", "id": id, "parentId": parent,
            "timestamp": format!("2026-01-01T00:00:00.{ms:03}Z"),
            "message": {"role": "user", "content": text, "timestamp": 1}})
    };
    let header = json!({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"});
    let text = [
        header,
        entry("aaaaaaaa", Value::Null, "root", 1),
        entry("bbbbbbbb", json!("aaaaaaaa"), "left", 2),
        entry("cccccccc", json!("aaaaaaaa"), "right", 3),
        entry("dddddddd", json!("cccccccc"), "right on", 4),
    ]
    .iter()
    .map(|line| format!("{line}\n"))
    .collect::<String>();
    std::fs::write(&path, text).unwrap();
    let tree = home
        .pi_tool()
        .args(["session", "tree", path.to_str().unwrap()])
        .output()
        .unwrap();
    success(&tree);
    assert_eq!(
        String::from_utf8(tree.stdout).unwrap(),
        "session s  cwd /w\n\
         aaaaaaaa user: root\n  \
         bbbbbbbb user: left\n  \
         cccccccc user: right\n  \
         dddddddd user: right on  <- leaf\n"
    );
}

#[test]
fn a_session_file_deleted_mid_run_stops_the_run_and_is_not_recreated() {
    let home = Home::new();
    let sessions = home.work().join("sessions");
    let script = home.root.path().join("delete.json");
    std::fs::write(
        &script,
        json!([
            {"content": [{"type": "toolCall", "id": "c1", "name": "bash",
                "arguments": {"command": "rm sessions/*.jsonl"}}]},
            {"content": [{"type": "text", "text": "never sent"}]}
        ])
        .to_string(),
    )
    .unwrap();
    let output = home
        .pi_tool()
        .arg("--coding-tools")
        .arg(home.work())
        .args(["agent", "--approval", "full-auto", "--json", "--faux"])
        .arg(&script)
        .args(["--session-dir", "sessions", "remove it"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the session could not be written, so the run was stopped")
            && stderr.contains("was deleted while the session was open"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(&sessions).unwrap().count(),
        0,
        "no headless file is recreated"
    );
    // The transcript still shows the call and its result; the second response was never asked for.
    let transcript = stdout_lines(&output);
    assert!(
        transcript
            .iter()
            .all(|message| message["content"][0]["text"] != "never sent"),
        "{transcript:?}"
    );
}

/// Sessions written by upstream Pi 0.80.6 (pi-session's golden files) continue with
/// `agent --session FILE`: the request carries every message of Pi's context, then the prompt.
#[test]
fn a_session_pi_wrote_continues_and_the_request_carries_all_its_messages() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../pi-session/tests/pi");
    for name in ["all-types", "compactions", "forked"] {
        let home = Home::new();
        let copy = home.root.path().join(format!("{name}.jsonl"));
        std::fs::copy(golden.join(format!("{name}.jsonl")), &copy).unwrap();
        let expected: Value = serde_json::from_slice(
            &std::fs::read(golden.join(format!("{name}.context.json"))).unwrap(),
        )
        .unwrap();
        let before = std::fs::read(&copy).unwrap();

        // Our reading of Pi's file is Pi's own context.
        let context = home
            .pi_tool()
            .args(["session", "context", copy.to_str().unwrap()])
            .output()
            .unwrap();
        success(&context);
        let ours = stdout_lines(&context);
        assert_eq!(
            ours.len(),
            expected["messages"].as_array().unwrap().len(),
            "{name}"
        );

        let (url, seen) = openai_server(&["continued"]);
        let output = home
            .pi_tool()
            .args(["agent", "--json", "--provider", "openai", "--model", "m"])
            .args(["--base-url", &url, "--api-key", "k", "--session"])
            .arg(&copy)
            .arg("one more thing")
            .output()
            .unwrap();
        success(&output);
        let request = support::bodies(&seen)[0].clone();
        let sent = request_texts(&request);
        // Every message of the context, in order, then the prompt.
        let mut position = 0;
        for message in &ours {
            let text = content_text(&message["content"]);
            let role = match message["role"].as_str().unwrap() {
                "toolResult" => "tool",
                other => other,
            };
            let found = sent[position..]
                .iter()
                .position(|(sent_role, sent_text)| sent_role == role && sent_text.contains(&text))
                .unwrap_or_else(|| panic!("{name}: {role} {text:?} not sent in order: {sent:?}"));
            position += found + 1;
        }
        assert_eq!(
            sent.last().unwrap(),
            &("user".to_owned(), "one more thing".to_owned())
        );
        assert_eq!(
            sent.len(),
            position + 1,
            "{name}: nothing else sent: {sent:?}"
        );

        // Pi's lines are untouched; ours follow them.
        let after = std::fs::read(&copy).unwrap();
        assert_eq!(after[..before.len()], before[..], "{name}");
        let added: Vec<Value> = String::from_utf8(after[before.len()..].to_vec())
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let kinds: Vec<&str> = added
            .iter()
            .map(|entry| entry["type"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["model_change", "message", "message"], "{name}");
        assert_eq!(added[0]["parentId"], expected["leafId"], "{name}");
    }
}

/// The text of a message's content: a string, or its text blocks joined (empty for an
/// assistant message of tool calls only, whose OpenAI content is null).
fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

#[test]
fn a_torn_last_line_is_reported_and_the_run_appends_after_it() {
    let home = Home::new();
    let script = home.script("answers.json", &["one", "two"]);
    let first = home
        .pi_tool()
        .args(["agent", "--faux", &script, "hello"])
        .output()
        .unwrap();
    success(&first);
    let file = home.sessions()[0].clone();
    let mut torn = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    write!(torn, r#"{{"type":"message","id":"torn","#).unwrap();
    drop(torn);
    let kept = std::fs::read(&file).unwrap();

    let second = home
        .pi_tool()
        .args(["agent", "--json", "--faux", &script, "-c", "again"])
        .output()
        .unwrap();
    success(&second);
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(stderr.contains("torn last line at byte"), "{stderr}");
    let after = std::fs::read(&file).unwrap();
    assert_eq!(after[..kept.len()], kept[..], "nothing rewritten");
    let context = home
        .pi_tool()
        .args(["session", "context", file.to_str().unwrap()])
        .output()
        .unwrap();
    success(&context);
    let roles: Vec<String> = stdout_lines(&context)
        .iter()
        .map(|message| message["role"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant"]);
    assert!(
        String::from_utf8_lossy(&context.stderr).contains("skipped"),
        "the torn line, now followed by others, is skipped and reported"
    );
}

/// S-rows of the attack round: a session file's text (a first message, a name, an entry) with
/// escape sequences that would set the title and the clipboard or hide text is shown by
/// `session list` and `session tree` as visible text, never sent to the terminal.
#[test]
fn session_list_and_tree_show_a_files_escapes_as_text() {
    let home = Home::new();
    let dir = home.agent_dir().join("sessions").join(encode(&home.work()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("hostile.jsonl");
    let mut session = pi_session::Session::create_at(&file, &home.work());
    session
        .append_message_value(json!({
            "role": "user",
            "content": "\u{1b}]0;pwned\u{7}\u{1b}]52;c;cm0gLXJmIH4K\u{7}\u{1b}[8mhidden\u{202e}txt",
            "timestamp": 1
        }))
        .unwrap();
    session.sync().unwrap();
    drop(session);
    for args in [
        vec!["session", "list"],
        vec!["session", "tree", file.to_str().unwrap()],
    ] {
        let output = home.pi_tool().args(&args).output().unwrap();
        success(&output);
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\u{202e}'),
            "{args:?}: {text:?}"
        );
        assert!(text.contains("\\e]0;pwned"), "{args:?}: {text}");
    }
}

/// S3: 2,000 nested branch points (each entry has two children, one going on) print in
/// output proportional to the file: indentation stops at 32 levels and the depth is written.
#[test]
fn a_deeply_branched_tree_prints_in_proportion_to_the_file() {
    let home = Home::new();
    let path = home.root.path().join("deep.jsonl");
    let mut text = String::from(
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}\n",
    );
    let mut parent = Value::Null;
    for level in 0..2000 {
        for side in ["a", "b"] {
            let id = format!("{side}{level:07}");
            let line = json!({"type": "message", "id": id, "parentId": parent,
                "timestamp": "2026-01-01T00:00:00.000Z",
                "message": {"role": "user", "content": "x", "timestamp": 1}});
            text.push_str(&format!("{line}\n"));
        }
        parent = json!(format!("a{level:07}"));
    }
    std::fs::write(&path, &text).unwrap();
    let tree = home
        .pi_tool()
        .args(["session", "tree", path.to_str().unwrap()])
        .output()
        .unwrap();
    success(&tree);
    let shown = String::from_utf8(tree.stdout).unwrap();
    assert!(
        shown.len() < text.len(),
        "{} bytes of tree for a {} byte file",
        shown.len(),
        text.len()
    );
    assert!(
        shown.contains("[depth 1999] b0001999 user: x"),
        "{}",
        &shown[shown.len() - 300..]
    );
}

/// `session export` (by id prefix, to Pi's default name in the working directory) and Pi's
/// own `--export IN OUT`: one self-contained page each, the first message on it, its escape
/// sequences and markup shown as text; a file that is not a session is an error and no page.
#[test]
fn session_export_and_pis_export_flag_write_one_page() {
    let home = Home::new();
    let dir = home.agent_dir().join("sessions").join(encode(&home.work()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("2026-12-07T10-00-00-000Z_exportme.jsonl");
    let mut session = pi_session::Session::create_at(&file, &home.work());
    session
        .append_message_value(json!({
            "role": "user",
            "content": "fix <script>alert(1)</script> \u{1b}]52;c;eA==\u{7}",
            "timestamp": 1
        }))
        .unwrap();
    session.sync().unwrap();
    let id = session.id().to_owned();
    drop(session);
    let output = home
        .pi_tool()
        .args(["session", "export", &id[..8]])
        .output()
        .unwrap();
    success(&output);
    let page = home
        .work()
        .join("pi-session-2026-12-07T10-00-00-000Z_exportme.html");
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!(
            "Exported to: {}\n",
            page.file_name().unwrap().to_str().unwrap()
        )
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("fix &lt;script&gt;alert(1)&lt;/script&gt; \\u{1b}]52;c;eA==\\u{7}"));
    assert!(!html.contains("<script"));

    let out = home.root.path().join("chosen.html");
    let output = home
        .pi_tool()
        .args(["--export", file.to_str().unwrap(), out.to_str().unwrap()])
        .output()
        .unwrap();
    success(&output);
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!("Exported to: {}\n", out.display())
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        html,
        "the same page"
    );

    let not_a_session = home.root.path().join("notes.txt");
    std::fs::write(&not_a_session, "hello").unwrap();
    let refused = home.root.path().join("refused.html");
    let output = home
        .pi_tool()
        .args([
            "--export",
            not_a_session.to_str().unwrap(),
            refused.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("could not read the session"));
    assert!(!refused.exists());
}
