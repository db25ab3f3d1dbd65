//! Pi's own command line (`pi-tool [options] [@files...] [messages...]`) as a Pi user types it,
//! against a local fake of the OpenAI Chat wire: print mode (`-p`) with piped input, `@file`
//! and several messages; `--mode json`; Pi's tool flags; `--name` and `--session-id`; the
//! options this program does not have refused with a reason.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use assert_cmd::Command;
use serde_json::Value;

fn answer(text: &str) -> support::Reply {
    let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]});
    support::Reply::sse(format!("data: {chunk}\n\ndata: [DONE]\n\n"))
}

/// `pi-tool` in `work` with its own agent directory, whose `models.json` names one local
/// server at `url` (as a user configures Ollama or llama.cpp once): no model flag is needed.
fn pi_tool(dirs: &tempfile::TempDir, url: &str) -> Command {
    let work = dirs.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let agent = dirs.path().join("agent");
    std::fs::create_dir_all(&agent).unwrap();
    let models = serde_json::json!({"providers": {"local": {
        "baseUrl": format!("{url}/v1"),
        "api": "openai-completions",
        "models": [{"id": "local-model", "contextWindow": 32768}]
    }}});
    // Written once: a test may give its own afterwards.
    if !agent.join("models.json").exists() {
        std::fs::write(agent.join("models.json"), models.to_string()).unwrap();
    }
    let mut command = Command::cargo_bin("pi-tool").unwrap();
    command
        .current_dir(&work)
        .env("PI_CODING_AGENT_DIR", &agent);
    // No key in the environment: the run must not depend on the machine's.
    for (name, _) in std::env::vars() {
        if name.ends_with("_API_KEY") || name.ends_with("_TOKEN") || name == "PI_TOOL_API_KEY" {
            command.env_remove(name);
        }
    }
    command
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|tool| tool["function"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn user_texts(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "user")
        .map(|message| match &message["content"] {
            Value::String(text) => text.clone(),
            blocks => blocks[0]["text"].as_str().unwrap_or_default().to_owned(),
        })
        .collect()
}

fn session_files(dirs: &tempfile::TempDir) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let root = dirs.path().join("agent/sessions");
    for dir in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        for file in std::fs::read_dir(dir.path()).unwrap().flatten() {
            files.push(file.path());
        }
    }
    files
}

#[test]
fn print_mode_sends_piped_input_files_and_each_message_then_prints_the_last_answer() {
    let dirs = tempfile::tempdir().unwrap();
    let (url, seen) = support::serve(vec![answer("first answer"), answer("second answer")]);
    let notes = dirs.path().join("work/notes.md");
    std::fs::create_dir_all(notes.parent().unwrap()).unwrap();
    std::fs::write(&notes, "remember the milk").unwrap();
    let output = pi_tool(&dirs, &url)
        .args(["-p", "@notes.md", "summarise", "now translate"])
        .write_stdin("piped text\n")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "second answer\n");
    let bodies = support::bodies(&seen);
    assert_eq!(bodies.len(), 2, "one request per message");
    let first = user_texts(&bodies[0]);
    let notes = std::fs::canonicalize(&notes).unwrap();
    assert_eq!(
        first,
        [format!(
            "piped text<file name=\"{}\">\nremember the milk\n</file>\nsummarise",
            notes.display()
        )]
    );
    // The second prompt continues the conversation.
    assert_eq!(user_texts(&bodies[1]).len(), 2);
    assert_eq!(user_texts(&bodies[1])[1], "now translate");
    // Pi's default tools, and no demonstration tool.
    let mut names = tool_names(&bodies[0]);
    names.sort();
    assert_eq!(names, ["bash", "edit", "read", "write"]);
    // A system prompt that names the working directory.
    let system = &bodies[0]["messages"][0];
    assert_eq!(system["role"], "system");
    assert!(system["content"].as_str().unwrap().contains("work"));
    // The model of models.json, by the id it gives.
    assert_eq!(bodies[0]["model"], "local-model");
    // Recorded in this directory's session, with the registry's provider name.
    let files = session_files(&dirs);
    assert_eq!(files.len(), 1);
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(text.contains(r#""provider":"local""#), "{text}");
}

#[test]
fn json_mode_prints_the_session_header_then_every_event() {
    let dirs = tempfile::tempdir().unwrap();
    let (url, _seen) = support::serve(vec![answer("hello")]);
    let output = pi_tool(&dirs, &url)
        .args(["--mode", "json", "hi"])
        .write_stdin("")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines[0]["type"], "session");
    assert_eq!(lines[0]["version"], 3);
    let types: Vec<&str> = lines[1..]
        .iter()
        .map(|line| line["type"].as_str().unwrap())
        .collect();
    assert_eq!(types.first(), Some(&"agent_start"));
    assert_eq!(types.last(), Some(&"agent_settled"));
    assert!(types.contains(&"agent_end"));
    assert!(types.contains(&"message_end"));
    assert!(types.contains(&"turn_end"));
}

#[test]
fn tool_flags_choose_what_is_offered() {
    for (flags, expected) in [
        (
            &["--tools", "read,ls,grep"][..],
            &["grep", "ls", "read"][..],
        ),
        (&["-t", "read", "-xt", "read"][..], &[][..]),
        (&["-xt", "bash,write"][..], &["edit", "read"][..]),
        (&["-nt"][..], &[][..]),
        (&["-nbt"][..], &[][..]),
    ] {
        let dirs = tempfile::tempdir().unwrap();
        let (url, seen) = support::serve(vec![answer("ok")]);
        let output = pi_tool(&dirs, &url)
            .args(flags)
            .args(["-p", "hi"])
            .write_stdin("")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{flags:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let mut names = tool_names(&support::bodies(&seen)[0]);
        names.sort();
        assert_eq!(names, expected, "{flags:?}");
    }
}

#[test]
fn a_named_session_and_a_session_id() {
    let dirs = tempfile::tempdir().unwrap();
    let (url, _seen) = support::serve(vec![answer("one"), answer("two")]);
    let output = pi_tool(&dirs, &url)
        .args(["-n", "release audit", "--session-id", "audit-1", "-p", "hi"])
        .write_stdin("")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let files = session_files(&dirs);
    assert_eq!(files.len(), 1);
    assert!(files[0].to_string_lossy().ends_with("_audit-1.jsonl"));
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(text.contains(r#""type":"session_info""#) && text.contains("release audit"));
    // The same id again continues that session.
    let output = pi_tool(&dirs, &url)
        .args(["--session-id", "audit-1", "-p", "again"])
        .write_stdin("")
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(session_files(&dirs).len(), 1);
    assert!(
        std::fs::read_to_string(&files[0])
            .unwrap()
            .contains("again")
    );
}

#[test]
fn options_pi_has_and_this_program_does_not_are_refused_with_a_reason() {
    let dirs = tempfile::tempdir().unwrap();
    for (flags, reason) in [
        (&["-e", "ext.ts"][..], "extensions are TypeScript"),
        (
            &["--theme", "dark.json"][..],
            "themes belong to the interactive mode",
        ),
        (&["install", "npm:some-extension"][..], "package commands"),
    ] {
        let output = pi_tool(&dirs, "http://127.0.0.1:9")
            .args(flags)
            .args(["-p", "hi"])
            .write_stdin("")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{flags:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(reason), "{flags:?}: {stderr}");
    }
}

#[test]
fn no_model_says_what_to_set() {
    let dirs = tempfile::tempdir().unwrap();
    let mut command = pi_tool(&dirs, "http://127.0.0.1:9");
    std::fs::remove_file(dirs.path().join("agent/models.json")).unwrap();
    let output = command.args(["-p", "hi"]).write_stdin("").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("No model available"), "{stderr}");
    assert!(stderr.contains("ANTHROPIC_API_KEY"), "{stderr}");
    assert!(stderr.contains("models.json"), "{stderr}");
    assert!(!stderr.contains("--faux"), "{stderr}");
}

#[test]
fn list_models_shows_the_models_json_provider_and_a_key_picks_a_catalog_model() {
    let dirs = tempfile::tempdir().unwrap();
    let output = pi_tool(&dirs, "http://127.0.0.1:9")
        .arg("--list-models")
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("local-model"), "{stdout}");
    assert!(
        !stdout.contains("claude"),
        "no key, no Anthropic model: {stdout}"
    );
    let with_key = pi_tool(&dirs, "http://127.0.0.1:9")
        .env("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
        .args(["--list-models", "sonnet"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&with_key.stdout);
    assert!(stdout.contains("anthropic"), "{stdout}");
    assert!(!stdout.contains("sk-ant-test"), "a key is never printed");
}

#[test]
fn the_model_flag_takes_a_pattern_and_a_thinking_suffix_and_continue_restores_it() {
    let dirs = tempfile::tempdir().unwrap();
    let (url, seen) = support::serve(vec![answer("one"), answer("two"), answer("three")]);
    let first = pi_tool(&dirs, &url);
    // Two models: without a flag or a session, the first is chosen.
    let models = serde_json::json!({"providers": {"local": {
        "baseUrl": format!("{url}/v1"),
        "api": "openai-completions",
        "models": [{"id": "first-model"}, {"id": "local-model"}]
    }}});
    std::fs::write(dirs.path().join("agent/models.json"), models.to_string()).unwrap();
    let output = { first }
        .args(["--model", "local/local-model:high", "-p", "hi"])
        .write_stdin("")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let file = &session_files(&dirs)[0];
    let text = std::fs::read_to_string(file).unwrap();
    // A model models.json does not mark as reasoning thinks `off`, as Pi clamps it.
    assert!(text.contains(r#""thinkingLevel":"off""#), "{text}");
    // -c: the session's model comes back without a flag.
    let output = pi_tool(&dirs, &url)
        .args(["-c", "-p", "again"])
        .write_stdin("")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(support::bodies(&seen)[1]["model"], "local-model");
    assert_eq!(session_files(&dirs).len(), 1);
    // A new session, no flag: the first model.
    let output = pi_tool(&dirs, &url)
        .args(["-p", "new"])
        .write_stdin("")
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(support::bodies(&seen)[2]["model"], "first-model");
}

#[test]
fn cost_from_the_prices_and_a_key_that_never_shows() {
    let dirs = tempfile::tempdir().unwrap();
    let usage = serde_json::json!({"choices": [{"index": 0, "delta": {"content": "priced"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}});
    let (url, seen) = support::serve(vec![support::Reply::sse(format!(
        "data: {usage}\n\ndata: [DONE]\n\n"
    ))]);
    let command = pi_tool(&dirs, &url);
    let models = serde_json::json!({"providers": {"local": {
        "baseUrl": format!("{url}/v1"),
        "api": "openai-completions",
        "models": [{"id": "local-model", "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}]
    }}});
    std::fs::write(dirs.path().join("agent/models.json"), models.to_string()).unwrap();
    let key = "sk-test-0123456789-never-shown";
    let output = { command }
        .args([
            "--model",
            "local-model",
            "--api-key",
            key,
            "--verbose",
            "--mode",
            "json",
            "hi",
        ])
        .write_stdin("")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    // The key reached the server, and nothing else.
    let requests = seen.lock().unwrap();
    assert!(
        requests[0]
            .headers
            .iter()
            .any(|header| header.eq_ignore_ascii_case(&format!("authorization: Bearer {key}"))),
        "{:?}",
        requests[0].headers
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains(key) && !stderr.contains(key));
    let file = &session_files(&dirs)[0];
    assert!(!std::fs::read_to_string(file).unwrap().contains(key));
    // 1000 in at $3/M and 100 out at $15/M.
    let end: Value = stdout
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|event| event["type"] == "message_end" && event["message"]["role"] == "assistant")
        .unwrap();
    let cost = end["message"]["usage"]["cost"]["total"].as_f64().unwrap();
    assert!((cost - 0.0045).abs() < 1e-12, "{cost}");
    assert!(stderr.contains("cost $0.0045"), "{stderr}");
    let stats = Command::cargo_bin("pi-tool")
        .unwrap()
        .env("PI_CODING_AGENT_DIR", dirs.path().join("agent"))
        .args(["session", "stats", "--json"])
        .arg(file)
        .output()
        .unwrap();
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(stats["tokens"]["input"], 1000);
    assert!((stats["cost"].as_f64().unwrap() - 0.0045).abs() < 1e-12);
}

#[test]
fn thinking_reaches_the_wire_for_a_reasoning_model_and_is_recorded() {
    let dirs = tempfile::tempdir().unwrap();
    let (url, seen) = support::serve(vec![answer("thought"), answer("plain")]);
    let command = pi_tool(&dirs, &url);
    let models = serde_json::json!({"providers": {"local": {
        "baseUrl": format!("{url}/v1"),
        "api": "openai-completions",
        "models": [{"id": "thinker", "reasoning": true}, {"id": "plain"}]
    }}});
    std::fs::write(dirs.path().join("agent/models.json"), models.to_string()).unwrap();
    let output = { command }
        .args(["--model", "thinker", "--thinking", "high", "-p", "hi"])
        .write_stdin("")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let bodies = support::bodies(&seen);
    assert_eq!(bodies[0]["reasoning_effort"], "high", "{}", bodies[0]);
    let file = &session_files(&dirs)[0];
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(r#""thinkingLevel":"high""#), "{text}");
    // A model that does not reason is sent no thinking, whatever the flag.
    let output = pi_tool(&dirs, &url)
        .args([
            "--no-session",
            "--model",
            "plain",
            "--thinking",
            "high",
            "-p",
            "hi",
        ])
        .write_stdin("")
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(support::bodies(&seen)[1].get("reasoning_effort").is_none());
}

#[test]
fn a_transient_failure_is_retried_as_pi_retries_it() {
    let dirs = tempfile::tempdir().unwrap();
    let overloaded = support::Reply::json(
        "503 Service Unavailable",
        r#"{"error":{"message":"The server is overloaded","type":"server_error"}}"#,
    );
    let (url, seen) = support::serve(vec![overloaded, answer("second time lucky")]);
    let command = pi_tool(&dirs, &url);
    // Pi's settings: short pauses, and no retry of the wire's own, so the run sees the 503.
    std::fs::write(
        dirs.path().join("agent/settings.json"),
        r#"{"retry": {"baseDelayMs": 10, "provider": {"maxRetries": 0}}}"#,
    )
    .unwrap();
    let output = { command }
        .args(["--mode", "json", "hi"])
        .write_stdin("")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let lines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let start = lines
        .iter()
        .find(|line| line["type"] == "auto_retry_start")
        .expect("auto_retry_start");
    assert_eq!(start["attempt"], 1);
    assert_eq!(start["maxAttempts"], 3);
    assert_eq!(start["delayMs"], 10);
    assert!(
        start["errorMessage"].as_str().unwrap().contains("503"),
        "{start}"
    );
    let end = lines
        .iter()
        .find(|line| line["type"] == "auto_retry_end")
        .expect("auto_retry_end");
    assert_eq!(end["success"], true);
    assert_eq!(support::bodies(&seen).len(), 2);
    // The retried request does not carry the failed answer.
    let second = &support::bodies(&seen)[1]["messages"];
    assert!(!second.to_string().contains("overloaded"), "{second}");
}

#[test]
fn block_images_sends_a_note_instead_of_the_image() {
    let dirs = tempfile::tempdir().unwrap();
    let (url, seen) = support::serve(vec![answer("no picture for me")]);
    let command = pi_tool(&dirs, &url);
    std::fs::write(
        dirs.path().join("agent/settings.json"),
        r#"{"images": {"blockImages": true}}"#,
    )
    .unwrap();
    let png = support::PNG_1X1;
    std::fs::write(dirs.path().join("work/dot.png"), png).unwrap();
    let output = { command }
        .args(["-p", "@dot.png", "what is it?"])
        .write_stdin("")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let body = support::bodies(&seen)[0].to_string();
    assert!(body.contains("Image reading is disabled."), "{body}");
    assert!(
        !body.contains("image_url") && !body.contains("base64"),
        "{body}"
    );
}
