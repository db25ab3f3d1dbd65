//! `--provider google-vertex` from the command line: `pi-tool -p` reaches a scripted Vertex
//! endpoint (the provider's `baseUrl` overridden in models.json, as Pi allows) with
//! `GOOGLE_CLOUD_API_KEY`, or with gcloud's application default credentials for a project and
//! location; and, beside Pi 0.80.6 on the same command line and key, sends the same request:
//! path, key header and body (the system prompt's and tools' own texts aside).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use support::pi_run::{AgentDirs, Program, header, print_args};

use serde_json::{Value, json};

const KEY: &str = "vertex-api-key-example";

fn answer() -> support::Reply {
    let chunk = json!({"candidates": [{"content": {"role": "model",
        "parts": [{"text": "Hello from Vertex."}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 4, "totalTokenCount": 13},
        "modelVersion": "gemini-2.5-flash", "responseId": "resp-1"});
    support::Reply::sse(format!("data: {chunk}\n\n"))
}

/// Runs `program` on `-p hi` for a Vertex model with `vars`, against a fake answering
/// `replies`; gives the output and what the fake saw.
fn run(
    program: &Program,
    replies: Vec<support::Reply>,
    vars: &[(&str, String)],
) -> (std::process::Output, Vec<support::SeenRequest>) {
    let (url, seen) = support::serve(replies);
    let dirs = AgentDirs::new();
    dirs.models_json(&json!({"providers": {"google-vertex": {"baseUrl": url}}}));
    let mut command = dirs.command(program);
    for (name, value) in vars {
        command.env(name, value.replace("{url}", &url));
    }
    let output = command
        .args(print_args("google-vertex", "gemini-2.5-flash"))
        .args(["--tools", "read", "hi"])
        .output()
        .unwrap();
    let requests = seen.lock().unwrap().clone();
    (output, requests)
}

fn ours() -> Program {
    Program::pi_tool()
}

#[test]
fn pi_tool_answers_from_vertex_with_an_api_key() {
    let (output, requests) = run(
        &ours(),
        vec![answer()],
        &[("GOOGLE_CLOUD_API_KEY", KEY.to_owned())],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("Hello from Vertex."), "{stdout}");
    assert!(!stdout.contains(KEY) && !stderr.contains(KEY));
    assert_eq!(
        requests[0].path,
        "/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    assert_eq!(header(&requests[0], "x-goog-api-key").as_deref(), Some(KEY));
}

#[test]
fn pi_tool_answers_from_vertex_with_gcloud_credentials() {
    let token = support::Reply::json(
        "200 OK",
        r#"{"access_token":"ya29.cli-token","expires_in":3599,"token_type":"Bearer"}"#,
    );
    let (url, seen) = support::serve(vec![token, answer()]);
    let dirs = AgentDirs::new();
    // gcloud's file, its token endpoint pointed at the fake.
    let url_file = dirs.path().join("application_default_credentials.json");
    let credentials = json!({"type": "authorized_user", "client_id": "id",
        "client_secret": "s", "refresh_token": "1//refresh", "token_uri": format!("{url}/token")});
    std::fs::write(&url_file, credentials.to_string()).unwrap();
    dirs.models_json(&json!({"providers": {"google-vertex": {"baseUrl": url}}}));
    let output = dirs
        .command(&ours())
        .args(print_args("google-vertex", "gemini-2.5-flash"))
        .arg("hi")
        .env("GOOGLE_APPLICATION_CREDENTIALS", &url_file)
        .env("GOOGLE_CLOUD_PROJECT", "my-project")
        .env("GOOGLE_CLOUD_LOCATION", "us-central1")
        .output()
        .unwrap();
    let requests = seen.lock().unwrap().clone();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("Hello from Vertex."));
    assert_eq!(requests[0].path, "/token");
    assert_eq!(
        requests[1].path,
        "/v1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    assert_eq!(
        header(&requests[1], "authorization").as_deref(),
        Some("Bearer ya29.cli-token")
    );
}

/// The body with the texts that differ by design (our own system prompt, tool descriptions
/// and schemas) taken out.
fn comparable(body: &Value) -> Value {
    let mut body = body.clone();
    body["systemInstruction"] = json!("<system prompt>");
    for tools in body["tools"].as_array_mut().unwrap() {
        for tool in tools["functionDeclarations"].as_array_mut().unwrap() {
            tool["description"] = json!("<description>");
            tool["parametersJsonSchema"] = json!("<schema>");
        }
    }
    body
}

#[test]
#[ignore = "needs upstream Pi: run scripts/test.sh"]
fn pi_tool_sends_vertex_what_pi_sends() {
    let vars = [("GOOGLE_CLOUD_API_KEY", KEY.to_owned())];
    let (theirs_output, theirs) = run(&Program::upstream_pi(), vec![answer()], &vars);
    let (ours_output, ours) = run(&ours(), vec![answer()], &vars);
    for output in [&theirs_output, &ours_output] {
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(String::from_utf8_lossy(&output.stdout).contains("Hello from Vertex."));
    }
    assert_eq!(ours[0].path, theirs[0].path);
    assert_eq!(
        header(&ours[0], "x-goog-api-key"),
        header(&theirs[0], "x-goog-api-key")
    );
    assert_eq!(comparable(&ours[0].body), comparable(&theirs[0].body));
}
