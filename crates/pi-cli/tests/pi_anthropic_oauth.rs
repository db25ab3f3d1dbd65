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

use serde_json::Value;

const TOKEN: &str = "sk-ant-oat01-oracle-token";

use support::pi_run::{AgentDirs, Program, anthropic_answer as answer, header, print_args, run_ok};

/// How the token reaches the program.
#[derive(Clone, Copy)]
enum Source {
    Variable,
    AuthFile,
}

/// What `program` sent for `-p hi` with the token from `source`.
fn sent(program: &Program, source: Source) -> support::SeenRequest {
    let (url, seen) = support::serve(vec![answer()]);
    let dirs = AgentDirs::anthropic_at(&url);
    let mut command = dirs.command(program);
    match source {
        Source::Variable => {
            command.env("ANTHROPIC_OAUTH_TOKEN", TOKEN);
        }
        Source::AuthFile => {
            let login = serde_json::json!({"anthropic": {"type": "oauth", "access": TOKEN,
                "refresh": "refresh-token", "expires": 4_102_444_800_000_u64}});
            dirs.auth_json(&login.to_string());
        }
    }
    command
        .args(print_args("anthropic", "claude-sonnet-4-5"))
        .args(["--tools", "read,bash", "hi"]);
    let (output, requests) = run_ok(program, &mut command, &seen);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains(TOKEN) && !String::from_utf8_lossy(&output.stdout).contains(TOKEN));
    assert_eq!(requests.len(), 1, "{}", program.name());
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
    let pi = Program::upstream_pi();
    for source in [Source::Variable, Source::AuthFile] {
        let theirs = sent(&pi, source);
        let ours = sent(&Program::pi_tool(), source);
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
        let ours = sent(&Program::pi_tool(), source);
        let headers = subscription_headers(&ours);
        assert!(headers.contains(&("authorization".to_owned(), format!("Bearer {TOKEN}"))));
        assert!(!headers.iter().any(|(name, _)| name == "x-api-key"));
        assert_eq!(
            ours.body["system"][0]["text"],
            "You are Claude Code, Anthropic's official CLI for Claude."
        );
    }
}

const EXPIRED_ACCESS: &str = "sk-ant-oat01-expired";
const OLD_REFRESH: &str = "sk-ant-ort01-old-refresh";
const NEW_ACCESS: &str = "sk-ant-oat01-renewed";
const NEW_REFRESH: &str = "sk-ant-ort01-new-refresh";

/// Pi's token endpoint, which a preloaded module sends to the fake instead (Pi has no
/// setting for it).
const PI_TOKEN_URL: &str = "https://platform.claude.com/v1/oauth/token";

/// A run of `-p hi` on an agent directory whose auth.json holds an expired Anthropic login
/// beside an OpenAI key: the token endpoint and the Messages API are one fake, answering
/// `token_reply` then the model's answer.
struct Renewal {
    output: std::process::Output,
    seen: Vec<support::SeenRequest>,
    auth_before: String,
    auth_after: String,
    lock_left: bool,
    started: u64,
}

fn now_millis() -> u64 {
    u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

fn renewal(program: &Program, token_reply: support::Reply) -> Renewal {
    let (url, seen) = support::serve(vec![token_reply, answer()]);
    let dirs = AgentDirs::anthropic_at(&url);
    let login = serde_json::json!({
        "openai": {"type": "api_key", "key": "sk-openai-kept"},
        "anthropic": {"type": "oauth", "refresh": OLD_REFRESH, "access": EXPIRED_ACCESS,
            "expires": 1_000_u64},
        "zai": {"type": "api_key", "key": "$ZAI_KEY", "env": {"A": "b"}}
    });
    let auth_before = serde_json::to_string_pretty(&login).unwrap();
    let file = dirs.auth_json(&auth_before);
    let token_url = format!("{url}/v1/oauth/token");
    let node_options = dirs.node_redirect(PI_TOKEN_URL, &token_url);
    let started = now_millis();
    let output = dirs
        .command(program)
        .args(print_args("anthropic", "claude-sonnet-4-5"))
        .args(["--no-tools", "hi"])
        .env("PI_TEST_ANTHROPIC_TOKEN_URL", &token_url)
        .env("NODE_OPTIONS", node_options)
        .output()
        .unwrap();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{}: auth.json mode", program.name());
    let seen = seen.lock().unwrap().clone();
    Renewal {
        output,
        seen,
        auth_before,
        auth_after: std::fs::read_to_string(&file).unwrap(),
        lock_left: dirs.agent.join("auth.json.lock").exists(),
        started,
    }
}

fn token_answer() -> support::Reply {
    support::Reply::json(
        "200 OK",
        format!(
            r#"{{"token_type":"Bearer","access_token":"{NEW_ACCESS}","refresh_token":"{NEW_REFRESH}","expires_in":28800}}"#
        ),
    )
}

fn bearer(request: &support::SeenRequest) -> Option<String> {
    header(request, "authorization")
}

/// Checks a successful renewal by `program` and gives the renewed entry.
fn check_renewed(program: &str, run: &Renewal) -> Value {
    let stderr = String::from_utf8_lossy(&run.output.stderr);
    assert!(run.output.status.success(), "{program}: {stderr}");
    assert_eq!(run.seen.len(), 2, "{program}: {:?}", run.seen);
    let token = &run.seen[0];
    assert_eq!(token.path, "/v1/oauth/token", "{program}");
    assert_eq!(token.body["grant_type"], "refresh_token");
    assert_eq!(token.body["refresh_token"], OLD_REFRESH);
    assert_eq!(
        bearer(&run.seen[1]).as_deref(),
        Some(format!("Bearer {NEW_ACCESS}").as_str()),
        "{program}"
    );
    assert!(!run.lock_left, "{program} left auth.json.lock behind");
    let after: Value = serde_json::from_str(&run.auth_after).unwrap();
    let before: Value = serde_json::from_str(&run.auth_before).unwrap();
    // Every other entry as it was.
    assert_eq!(after["openai"], before["openai"], "{program}");
    assert_eq!(after["zai"], before["zai"], "{program}");
    assert_eq!(after.as_object().unwrap().len(), 3, "{program}");
    let entry = after["anthropic"].clone();
    assert_eq!(entry["type"], "oauth");
    assert_eq!(entry["access"], NEW_ACCESS);
    assert_eq!(entry["refresh"], NEW_REFRESH);
    // 8 hours from the start, less Pi's five minutes.
    let expires = entry["expires"].as_u64().unwrap();
    let lowest = run.started + 28_800_000 - 300_000;
    assert!(
        (lowest..lowest + 60_000).contains(&expires),
        "{program}: expires {expires}"
    );
    for output in [&run.output.stdout, &run.output.stderr] {
        let text = String::from_utf8_lossy(output);
        for token in [OLD_REFRESH, NEW_ACCESS, NEW_REFRESH, EXPIRED_ACCESS] {
            assert!(!text.contains(token), "{program} printed a token: {text}");
        }
    }
    entry
}

#[test]
fn an_expired_login_is_renewed_and_written_back_beside_the_other_entries() {
    let run = renewal(&Program::pi_tool(), token_answer());
    check_renewed("pi-tool", &run);
    assert_eq!(
        run.seen[0].body["client_id"],
        "9d1c250a-e61b-44d9-88ed-5944d1962f5e"
    );
    // Written as Pi writes it: two-space JSON, the entries in their order.
    let keys: Vec<String> = serde_json::from_str::<serde_json::Map<String, Value>>(&run.auth_after)
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, ["openai", "anthropic", "zai"]);
    assert!(
        run.auth_after
            .starts_with("{\n  \"openai\": {\n    \"type\"")
    );
}

#[test]
fn a_refused_renewal_is_a_clear_error_and_leaves_the_file_as_it_was() {
    let refused = support::Reply::json(
        "400 Bad Request",
        r#"{"error":"invalid_grant","error_description":"Refresh token not found or invalid"}"#,
    );
    let run = renewal(&Program::pi_tool(), refused);
    let stderr = String::from_utf8_lossy(&run.output.stderr);
    assert!(!run.output.status.success(), "{stderr}");
    assert!(
        stderr.contains("the subscription login (OAuth) for anthropic in")
            && stderr.contains("has expired and could not be renewed")
            && stderr.contains("answered 400: Refresh token not found or invalid")
            && stderr.contains("log in again"),
        "{stderr}"
    );
    assert!(
        !stderr.contains(OLD_REFRESH) && !stderr.contains(EXPIRED_ACCESS),
        "{stderr}"
    );
    assert_eq!(run.auth_after, run.auth_before);
    assert!(!run.lock_left);
    // No request went to the model with the expired token.
    assert_eq!(run.seen.len(), 1);
}

#[test]
#[ignore = "needs upstream Pi: run scripts/test.sh"]
fn an_expired_login_is_renewed_as_pi_renews_it() {
    let theirs = renewal(&Program::upstream_pi(), token_answer());
    let ours = renewal(&Program::pi_tool(), token_answer());
    let their_entry = check_renewed("pi", &theirs);
    let our_entry = check_renewed("pi-tool", &ours);
    assert_eq!(ours.seen[0].body, theirs.seen[0].body);
    assert_eq!(ours.seen[0].path, theirs.seen[0].path);
    let content_type = |request: &support::SeenRequest| header(request, "content-type");
    assert_eq!(content_type(&ours.seen[0]), content_type(&theirs.seen[0]));
    let mut ours_fields: Vec<&String> = our_entry.as_object().unwrap().keys().collect();
    let mut their_fields: Vec<&String> = their_entry.as_object().unwrap().keys().collect();
    ours_fields.sort();
    their_fields.sort();
    assert_eq!(ours_fields, their_fields);
}

#[test]
fn two_programs_renewing_at_once_ask_the_endpoint_once() {
    // One token answer only: a second refresh would get a model answer and fail.
    let (url, seen) = support::serve(vec![token_answer(), answer(), answer()]);
    let dirs = AgentDirs::anthropic_at(&url);
    let login = serde_json::json!({"anthropic": {"type": "oauth", "refresh": OLD_REFRESH,
        "access": EXPIRED_ACCESS, "expires": 1_000_u64}});
    dirs.auth_json(&login.to_string());
    let token_url = format!("{url}/v1/oauth/token");
    let start = || {
        dirs.command(&Program::pi_tool())
            .args(print_args("anthropic", "claude-sonnet-4-5"))
            .args(["--no-tools", "hi"])
            .env("PI_TEST_ANTHROPIC_TOKEN_URL", &token_url)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (first, second) = (start(), start());
    for child in [first, second] {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let seen = seen.lock().unwrap();
    let token_requests = seen
        .iter()
        .filter(|request| request.path == "/v1/oauth/token")
        .count();
    assert_eq!(token_requests, 1, "{seen:?}");
    for request in seen.iter().filter(|request| request.path == "/v1/messages") {
        assert_eq!(
            bearer(request).as_deref(),
            Some(format!("Bearer {NEW_ACCESS}").as_str())
        );
    }
    assert!(!dirs.agent.join("auth.json.lock").exists());
}

/// A token answer that is expired as soon as it is given: five minutes, which is Pi's margin.
fn short_token_answer(number: usize) -> support::Reply {
    support::Reply::json(
        "200 OK",
        format!(
            r#"{{"token_type":"Bearer","access_token":"sk-ant-oat01-short-{number}","refresh_token":"sk-ant-ort01-short-{number}","expires_in":300}}"#
        ),
    )
}

/// `-p one two` (two prompts, one session) on an expired login whose every renewal is
/// expired at once: the requests `program` made, in order, and auth.json afterwards.
fn renewed_each_request(program: &Program) -> (Vec<support::SeenRequest>, Value) {
    let tokens = (1..=6).map(short_token_answer).collect();
    let (url, seen) = support::serve_routes(vec![
        ("/oauth/token", tokens),
        ("/v1/messages", vec![answer(), answer()]),
    ]);
    let dirs = AgentDirs::anthropic_at(&url);
    let login = serde_json::json!({"anthropic": {"type": "oauth", "refresh": OLD_REFRESH,
        "access": EXPIRED_ACCESS, "expires": 1_000_u64}});
    let file = dirs.auth_json(&login.to_string());
    let token_url = format!("{url}/v1/oauth/token");
    let mut command = dirs.command(program);
    command
        .args(print_args("anthropic", "claude-sonnet-4-5"))
        .args(["--no-tools", "one", "two"])
        .env("PI_TEST_ANTHROPIC_TOKEN_URL", &token_url)
        .env("NODE_OPTIONS", dirs.node_redirect(PI_TOKEN_URL, &token_url));
    let (_, requests) = run_ok(program, &mut command, &seen);
    let after = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    (requests, after)
}

/// Checks that every model request of `requests` came right after a renewal and carried the
/// token it gave, and that each renewal used the refresh token the one before gave.
fn check_renewed_before_each_request(
    program: &str,
    requests: &[support::SeenRequest],
    after: &Value,
) {
    let messages: Vec<usize> = (0..requests.len())
        .filter(|&index| requests[index].path == "/v1/messages")
        .collect();
    assert_eq!(messages.len(), 2, "{program}: {requests:?}");
    let mut refresh = OLD_REFRESH.to_owned();
    let mut issued = 0;
    for (index, request) in requests.iter().enumerate() {
        if request.path.ends_with("/oauth/token") {
            assert_eq!(request.body["refresh_token"], refresh.as_str(), "{program}");
            issued += 1;
            refresh = format!("sk-ant-ort01-short-{issued}");
        } else {
            assert!(
                index > 0 && requests[index - 1].path.ends_with("/oauth/token"),
                "{program}: request {index} was not preceded by a renewal: {requests:?}"
            );
            assert_eq!(
                bearer(request).as_deref(),
                Some(format!("Bearer sk-ant-oat01-short-{issued}").as_str()),
                "{program}"
            );
        }
    }
    assert_eq!(
        after["anthropic"]["access"],
        format!("sk-ant-oat01-short-{issued}"),
        "{program}"
    );
    assert_eq!(after["anthropic"]["refresh"], refresh.as_str(), "{program}");
}

#[test]
fn a_login_expiring_mid_session_is_renewed_before_each_request() {
    let (requests, after) = renewed_each_request(&Program::pi_tool());
    check_renewed_before_each_request("pi-tool", &requests, &after);
}

#[test]
#[ignore = "needs upstream Pi: run scripts/test.sh"]
fn a_login_expiring_mid_session_is_renewed_as_pi_renews_it() {
    let (requests, after) = renewed_each_request(&Program::upstream_pi());
    check_renewed_before_each_request("pi", &requests, &after);
}
