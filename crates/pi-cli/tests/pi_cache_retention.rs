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

use serde_json::Value;

use support::pi_run::{
    AgentDirs, Program, anthropic_answer, cache_marks, chat_answer, print_args, run_ok,
};

/// Where `PI_CACHE_RETENTION` is set.
#[derive(Clone, Copy, Debug)]
enum Place {
    /// The environment (the key from `ANTHROPIC_API_KEY`).
    Environment,
    /// The `env` of auth.json's Anthropic entry (which holds the key).
    AuthEntry,
}

/// The body `program` sent for `-p hi` with `PI_CACHE_RETENTION` set to `retention`.
fn sent(program: &Program, retention: Option<&str>) -> Value {
    sent_with(program, retention, Place::Environment)
}

fn sent_with(program: &Program, retention: Option<&str>, place: Place) -> Value {
    let (url, seen) = support::serve(vec![anthropic_answer()]);
    let dirs = AgentDirs::anthropic_at(&url);
    let mut command = dirs.command(program);
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
            dirs.auth_json(&entry.to_string());
        }
    }
    command
        .args(print_args("anthropic", "claude-sonnet-4-5"))
        .args(["--tools", "read,bash", "hi"]);
    let (_, requests) = run_ok(program, &mut command, &seen);
    assert_eq!(requests.len(), 1, "{}", program.name());
    requests.into_iter().next().unwrap().body
}

const EPHEMERAL: &str = r#"{"type":"ephemeral"}"#;
const HOUR: &str = r#"{"type":"ephemeral","ttl":"1h"}"#;

/// The marks Pi places, sorted by path as [`cache_marks`] gives them.
fn expected(mark: &str) -> Vec<(String, Value)> {
    let mark: Value = serde_json::from_str(mark).unwrap();
    ["/messages/0/content/0", "/system/0", "/tools/1"]
        .into_iter()
        .map(|path| (path.to_owned(), mark.clone()))
        .collect()
}

#[test]
fn the_prompt_is_cached_for_five_minutes_or_an_hour() {
    let ours = &Program::pi_tool();
    assert_eq!(cache_marks(&sent(ours, None)), expected(EPHEMERAL));
    assert_eq!(cache_marks(&sent(ours, Some("long"))), expected(HOUR));
    // Pi reads only "long".
    assert_eq!(cache_marks(&sent(ours, Some("none"))), expected(EPHEMERAL));
}

#[test]
fn the_auth_entrys_env_sets_the_retention_for_its_provider() {
    let ours = &Program::pi_tool();
    let body = sent_with(ours, Some("long"), Place::AuthEntry);
    assert_eq!(cache_marks(&body), expected(HOUR));
    let body = sent_with(ours, None, Place::AuthEntry);
    assert_eq!(cache_marks(&body), expected(EPHEMERAL));
}

#[test]
#[ignore = "needs upstream Pi: run scripts/test.sh"]
fn cache_marks_are_where_pi_puts_them() {
    let pi = Program::upstream_pi();
    let cases = [
        (None, Place::Environment),
        (Some("long"), Place::Environment),
        (Some("short"), Place::Environment),
        (Some("long"), Place::AuthEntry),
    ];
    for (retention, place) in cases {
        let theirs = sent_with(&pi, retention, place);
        let ours = sent_with(&Program::pi_tool(), retention, place);
        assert_eq!(
            cache_marks(&ours),
            cache_marks(&theirs),
            "PI_CACHE_RETENTION={retention:?} in {place:?}"
        );
        assert_eq!(
            ours["system"].as_array().map(Vec::len),
            theirs["system"].as_array().map(Vec::len)
        );
    }
}

/// The Chat Completions body `program` sent to a models.json server (named `provider`, so
/// Pi's detection by name applies) with `PI_CACHE_RETENTION` set to `retention`.
fn chat_sent(program: &Program, provider: &str, retention: Option<&str>) -> Value {
    let (url, seen) = support::serve(vec![chat_answer()]);
    let dirs = AgentDirs::new();
    dirs.models_json(&serde_json::json!({"providers": {provider: {
        "baseUrl": format!("{url}/v1"), "api": "openai-completions", "apiKey": "none",
        "models": [{"id": "m"}]}}}));
    let mut command = dirs.command(program);
    if let Some(retention) = retention {
        command.env("PI_CACHE_RETENTION", retention);
    }
    command
        .args(print_args(provider, "m"))
        .args(["--no-tools", "hi"]);
    let (_, mut requests) = run_ok(program, &mut command, &seen);
    requests.remove(0).body
}

#[test]
fn chat_completions_ask_for_a_day_when_long() {
    let ours = &Program::pi_tool();
    let body = chat_sent(ours, "local", Some("long"));
    assert_eq!(body["prompt_cache_retention"], "24h");
    assert!(
        chat_sent(ours, "local", None)
            .get("prompt_cache_retention")
            .is_none()
    );
    // Pi's detection: Together does not offer the long retention.
    let body = chat_sent(ours, "together", Some("long"));
    assert!(body.get("prompt_cache_retention").is_none(), "{body}");
}

#[test]
#[ignore = "needs upstream Pi: run scripts/test.sh"]
fn chat_completions_retention_is_pis() {
    let pi = Program::upstream_pi();
    for (provider, retention) in [
        ("local", Some("long")),
        ("local", None),
        ("together", Some("long")),
    ] {
        let theirs = chat_sent(&pi, provider, retention);
        let ours = chat_sent(&Program::pi_tool(), provider, retention);
        assert_eq!(
            ours.get("prompt_cache_retention"),
            theirs.get("prompt_cache_retention"),
            "{provider} {retention:?}"
        );
    }
}

/// The Anthropic body `program` sent when the model's compat says the server takes no cache
/// mark on tools.
fn sent_without_tool_marks(program: &Program) -> Value {
    let (url, seen) = support::serve(vec![anthropic_answer()]);
    let dirs = AgentDirs::new();
    dirs.models_json(&serde_json::json!({"providers": {"anthropic": {"baseUrl": url,
        "modelOverrides": {"claude-sonnet-4-5": {"compat": {"supportsCacheControlOnTools": false}}}}}}));
    let mut command = dirs.command(program);
    command
        .env("ANTHROPIC_API_KEY", "sk-ant-api03-test")
        .args(print_args("anthropic", "claude-sonnet-4-5"))
        .args(["--tools", "read,bash", "hi"]);
    let (_, mut requests) = run_ok(program, &mut command, &seen);
    requests.remove(0).body
}

#[test]
fn a_server_refusing_marks_on_tools_gets_none_there() {
    let marks = cache_marks(&sent_without_tool_marks(&Program::pi_tool()));
    let paths: Vec<&str> = marks.iter().map(|(path, _)| path.as_str()).collect();
    assert_eq!(paths, ["/messages/0/content/0", "/system/0"]);
}

#[test]
#[ignore = "needs upstream Pi: run scripts/test.sh"]
fn marks_on_tools_follow_compat_as_in_pi() {
    assert_eq!(
        cache_marks(&sent_without_tool_marks(&Program::pi_tool())),
        cache_marks(&sent_without_tool_marks(&Program::upstream_pi()))
    );
}
