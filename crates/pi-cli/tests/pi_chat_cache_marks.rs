//! Anthropic's cache marks on Chat Completions, as Pi 0.80.6 places them for servers that
//! ask for them (compat `cacheControlFormat: "anthropic"`: OpenRouter's `anthropic/` models
//! by detection and in the catalog, or any models.json model): the system prompt, the last
//! tool, the last message with text; an hour when `PI_CACHE_RETENTION=long` and the server
//! keeps caches long. Both programs run the same command line against the same scripted
//! server and every mark of the request body is compared.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use serde_json::{Value, json};

use support::pi_run::{AgentDirs, Program, cache_marks, chat_answer, print_args, run_ok};

/// A case: the models.json provider entry (`{url}` is the fake's address), the provider and
/// model on the command line, the key variable, `PI_CACHE_RETENTION`.
struct Case {
    provider: &'static str,
    model: &'static str,
    entry: Value,
    key: &'static str,
    retention: Option<&'static str>,
}

fn openrouter(retention: Option<&'static str>) -> Case {
    Case {
        provider: "openrouter",
        model: "anthropic/claude-sonnet-4.5",
        entry: json!({"baseUrl": "{url}/api/v1"}),
        key: "OPENROUTER_API_KEY",
        retention,
    }
}

fn local(compat: Value, retention: Option<&'static str>) -> Case {
    Case {
        provider: "proxy",
        model: "claude",
        entry: json!({"baseUrl": "{url}/v1", "api": "openai-completions", "apiKey": "none",
            "models": [{"id": "claude", "compat": compat}]}),
        key: "UNUSED_VARIABLE",
        retention,
    }
}

fn sent(program: &Program, case: &Case) -> Value {
    let (url, seen) = support::serve(vec![chat_answer()]);
    let dirs = AgentDirs::new();
    let entry: Value =
        serde_json::from_str(&case.entry.to_string().replace("{url}", &url)).unwrap();
    dirs.models_json(&json!({"providers": {case.provider: entry}}));
    let mut command = dirs.command(program);
    command
        .args(print_args(case.provider, case.model))
        .args(["--tools", "read,bash", "hi"])
        .env(case.key, "sk-or-test");
    if let Some(retention) = case.retention {
        command.env("PI_CACHE_RETENTION", retention);
    }
    let (_, requests) = run_ok(program, &mut command, &seen);
    assert_eq!(requests.len(), 1, "{}", program.name());
    requests.into_iter().next().unwrap().body
}

fn marks_at(paths: &[&str], mark: &Value) -> Vec<(String, Value)> {
    let mut marks: Vec<_> = paths
        .iter()
        .map(|path| ((*path).to_owned(), mark.clone()))
        .collect();
    marks.sort_by(|a, b| a.0.cmp(&b.0));
    marks
}

const MARKED: [&str; 3] = ["/messages/0/content/0", "/messages/1/content/0", "/tools/1"];

#[test]
fn servers_in_front_of_claude_get_cache_marks() {
    let ours = Program::pi_tool();
    let five_minutes = json!({"type": "ephemeral"});
    let hour = json!({"type": "ephemeral", "ttl": "1h"});
    let body = sent(&ours, &openrouter(None));
    assert_eq!(
        cache_marks(&body),
        marks_at(&MARKED, &five_minutes),
        "{body}"
    );
    assert_eq!(
        cache_marks(&sent(&ours, &openrouter(Some("long")))),
        marks_at(&MARKED, &hour)
    );
    let asked = local(json!({"cacheControlFormat": "anthropic"}), None);
    assert_eq!(
        cache_marks(&sent(&ours, &asked)),
        marks_at(&MARKED, &five_minutes)
    );
    let short_only = local(
        json!({"cacheControlFormat": "anthropic", "supportsLongCacheRetention": false}),
        Some("long"),
    );
    assert_eq!(
        cache_marks(&sent(&ours, &short_only)),
        marks_at(&MARKED, &five_minutes)
    );
    assert!(cache_marks(&sent(&ours, &local(json!({}), None))).is_empty());
}

#[test]
#[ignore = "needs upstream Pi: run scripts/test.sh"]
fn cache_marks_are_where_pi_puts_them() {
    let pi = Program::upstream_pi();
    let ours = Program::pi_tool();
    let cases = [
        ("openrouter", openrouter(None)),
        ("openrouter long", openrouter(Some("long"))),
        (
            "compat",
            local(json!({"cacheControlFormat": "anthropic"}), None),
        ),
        (
            "compat long, short only",
            local(
                json!({"cacheControlFormat": "anthropic", "supportsLongCacheRetention": false}),
                Some("long"),
            ),
        ),
        ("no compat", local(json!({}), Some("long"))),
    ];
    for (name, case) in cases {
        let theirs = sent(&pi, &case);
        let ours = sent(&ours, &case);
        assert_eq!(cache_marks(&ours), cache_marks(&theirs), "{name}");
        assert_eq!(
            ours["messages"][0]["role"], theirs["messages"][0]["role"],
            "{name}"
        );
    }
}
