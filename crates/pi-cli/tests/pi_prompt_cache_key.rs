//! The session's id on the OpenAI wires, as Pi 0.80.6 sends it: `prompt_cache_key` in the
//! body (Responses unless caching is off; Azure always; Chat Completions to OpenAI's own host
//! or with the long retention) and the session headers (Responses: `session_id` and
//! `x-client-request-id`; Chat Completions: the affinity headers when compat asks; OpenCode:
//! `x-opencode-session` and `x-opencode-client`, Pi's attribution). Both
//! programs run the same command line, with the same `--session-id`, against the same
//! scripted server, and the bodies' and headers' session fields are compared.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use serde_json::{Value, json};

use support::pi_run::{
    AgentDirs, Program, chat_answer, header, print_args, responses_answer, run_ok,
};

const SESSION: &str = "0190f3a2-7b1c-7d4e-9f00-1234567890ab";

/// One run's session fields: the body's `prompt_cache_key` and `prompt_cache_retention`, and
/// the session headers.
#[derive(Debug, PartialEq)]
struct SessionFields {
    cache_key: Option<Value>,
    retention: Option<Value>,
    headers: Vec<(&'static str, Option<String>)>,
}

fn fields(request: &support::SeenRequest) -> SessionFields {
    SessionFields {
        cache_key: request.body.get("prompt_cache_key").cloned(),
        retention: request.body.get("prompt_cache_retention").cloned(),
        headers: [
            "session_id",
            "x-client-request-id",
            "x-session-affinity",
            "x-opencode-session",
            "x-opencode-client",
        ]
        .into_iter()
        .map(|name| (name, header(request, name)))
        .collect(),
    }
}

/// A case: the provider entry of models.json (its base URL's `{url}` filled in), the provider
/// and model on the command line, the key variable, and `PI_CACHE_RETENTION`.
struct Case {
    provider: &'static str,
    model: &'static str,
    entry: Value,
    key: (&'static str, &'static str),
    retention: Option<&'static str>,
    /// The model speaks Chat Completions (else Responses).
    chat: bool,
}

fn sent(program: &Program, case: &Case) -> SessionFields {
    let answer = if case.chat {
        chat_answer()
    } else {
        responses_answer()
    };
    let (url, seen) = support::serve(vec![answer]);
    let dirs = AgentDirs::new();
    let entry = case.entry.to_string().replace("{url}", &url);
    let entry: Value = serde_json::from_str(&entry).unwrap();
    dirs.models_json(&json!({"providers": {case.provider: entry}}));
    let mut command = dirs.command(program);
    command
        .args(print_args(case.provider, case.model))
        .args(["--session-id", SESSION, "--no-tools", "hi"])
        .env(case.key.0, case.key.1);
    if let Some(retention) = case.retention {
        command.env("PI_CACHE_RETENTION", retention);
    }
    let (_, requests) = run_ok(program, &mut command, &seen);
    assert_eq!(requests.len(), 1, "{}", program.name());
    fields(&requests[0])
}

fn chat(
    provider: &'static str,
    path: &str,
    compat: Value,
    retention: Option<&'static str>,
) -> Case {
    Case {
        provider,
        model: "m",
        entry: json!({"baseUrl": format!("{{url}}{path}"), "api": "openai-completions",
            "apiKey": "none", "models": [{"id": "m", "compat": compat}]}),
        key: ("UNUSED_VARIABLE", ""),
        retention,
        chat: true,
    }
}

fn responses(retention: Option<&'static str>, compat: Value) -> Case {
    Case {
        provider: "openai",
        model: "gpt-4o",
        entry: json!({"baseUrl": "{url}/v1", "modelOverrides": {"gpt-4o": {"compat": compat}}}),
        key: ("OPENAI_API_KEY", "sk-test"),
        retention,
        chat: false,
    }
}

fn azure(retention: Option<&'static str>) -> Case {
    Case {
        provider: "azure-openai-responses",
        model: "gpt-4o",
        entry: json!({"baseUrl": "{url}/openai/v1"}),
        key: ("AZURE_OPENAI_API_KEY", "azure-test"),
        retention,
        chat: false,
    }
}

fn opencode() -> Case {
    Case {
        provider: "opencode",
        model: "big-pickle",
        entry: json!({"baseUrl": "{url}/zen/v1"}),
        key: ("OPENCODE_API_KEY", "sk-opencode-test"),
        retention: None,
        chat: true,
    }
}

fn cases() -> Vec<(&'static str, Case)> {
    vec![
        ("opencode", opencode()),
        ("responses", responses(None, json!({}))),
        ("responses long", responses(Some("long"), json!({}))),
        (
            "responses without the session_id header",
            responses(None, json!({"sendSessionIdHeader": false})),
        ),
        ("azure", azure(None)),
        ("azure long", azure(Some("long"))),
        // A path naming OpenAI's host: Pi looks for it anywhere in the base URL.
        (
            "chat at openai",
            chat("local", "/api.openai.com/v1", json!({}), None),
        ),
        ("chat local", chat("local", "/v1", json!({}), None)),
        (
            "chat local long",
            chat("local", "/v1", json!({}), Some("long")),
        ),
        (
            "chat together long",
            chat("together", "/v1", json!({}), Some("long")),
        ),
        (
            "chat with affinity headers",
            chat(
                "local",
                "/v1",
                json!({"sendSessionAffinityHeaders": true}),
                None,
            ),
        ),
    ]
}

#[test]
fn the_session_id_goes_where_pi_sends_it() {
    let ours = Program::pi_tool();
    let key = Some(json!(SESSION));
    let id = || Some(SESSION.to_owned());
    let run = |case: &Case| sent(&ours, case);

    let plain = run(&responses(None, json!({})));
    assert_eq!(plain.cache_key, key);
    assert_eq!(plain.retention, None);
    assert_eq!(plain.headers[0], ("session_id", id()));
    assert_eq!(plain.headers[1], ("x-client-request-id", id()));
    let long = run(&responses(Some("long"), json!({})));
    assert_eq!(
        (long.cache_key, long.retention),
        (key.clone(), Some(json!("24h")))
    );
    let quiet = run(&responses(None, json!({"sendSessionIdHeader": false})));
    assert_eq!(quiet.headers[0], ("session_id", None));

    let azure_long = run(&azure(Some("long")));
    assert_eq!(
        (azure_long.cache_key, azure_long.retention),
        (key.clone(), None)
    );

    assert_eq!(
        run(&chat("local", "/api.openai.com/v1", json!({}), None)).cache_key,
        key
    );
    assert_eq!(run(&chat("local", "/v1", json!({}), None)).cache_key, None);
    assert_eq!(
        run(&chat("local", "/v1", json!({}), Some("long"))).cache_key,
        key
    );
    assert_eq!(
        run(&chat("together", "/v1", json!({}), Some("long"))).cache_key,
        None
    );
    let affinity = run(&chat(
        "local",
        "/v1",
        json!({"sendSessionAffinityHeaders": true}),
        None,
    ));
    assert!(
        affinity.headers[..3]
            .iter()
            .all(|(_, value)| *value == id()),
        "{affinity:?}"
    );
    assert_eq!(affinity.headers[3], ("x-opencode-session", None));
    let opencode = run(&opencode());
    assert_eq!(opencode.headers[3], ("x-opencode-session", id()));
    assert_eq!(
        opencode.headers[4],
        ("x-opencode-client", Some("pi".to_owned()))
    );
}

#[test]
#[ignore = "needs upstream Pi: run scripts/test.sh"]
fn session_fields_are_pis() {
    let pi = Program::upstream_pi();
    let ours = Program::pi_tool();
    for (name, case) in cases() {
        assert_eq!(sent(&ours, &case), sent(&pi, &case), "{name}");
    }
}
