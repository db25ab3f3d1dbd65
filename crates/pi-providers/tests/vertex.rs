//! Gemini on Google Vertex AI against a local fake: with an API key (Vertex's express path and
//! `x-goog-api-key`), and with application default credentials from `gcloud auth
//! application-default login` (the refresh token exchanged once at the token endpoint the file
//! names, the access token sent as a bearer to the project's and location's path, and reused
//! on the next turn).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::sync::Arc;

use pi_agent::{Agent, AgentConfig, EndReason};
use pi_ai::{Message, UserMessage};
use pi_providers::{ProviderConfig, Vertex, VertexSettings};
use serde_json::json;
use support::{Fake, Reply, sse, travel_tools};
use tokio_util::sync::CancellationToken;

const TWO_CALLS: &str = include_str!("fixtures/gemini_two_calls.sse");
const FINAL_TEXT: &str = include_str!("fixtures/gemini_final_text.sse");
/// A key made for this test alone (`openssl genrsa 2048`), and its public half.
const PRIVATE_KEY: &str = include_str!("fixtures/vertex_test_service_account.key.pem");
const PUBLIC_KEY: &str = include_str!("fixtures/vertex_test_service_account.pub.pem");

async fn run(provider: Vertex) -> pi_agent::AgentRun {
    let config = AgentConfig::new(Arc::new(provider), Arc::new(travel_tools()))
        .with_system_prompt("You are a travel assistant.");
    Agent::new(config)
        .run(
            Vec::new(),
            vec![UserMessage::text("Weather and time in Tokyo?").into()],
            CancellationToken::new(),
        )
        .await
}

#[tokio::test]
async fn an_api_key_goes_to_vertex_express_path() {
    let fake = Fake::start(vec![
        Reply::sse(sse(TWO_CALLS)),
        Reply::sse(sse(FINAL_TEXT)),
    ])
    .await;
    let config = ProviderConfig::new("gemini-2.5-flash")
        .with_base_url(fake.url(""))
        .with_api_key("vertex-key-123");
    let provider = Vertex::new(config, VertexSettings::from_lookup(|_| None)).unwrap();
    let run = run(provider).await;
    assert_eq!(run.end, EndReason::Completed, "{:?}", run.error);
    let Some(Message::Assistant(last)) = run.messages.last() else {
        panic!()
    };
    assert_eq!(last.api, "google-vertex");
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].path,
        "/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    assert_eq!(requests[0].headers["x-goog-api-key"], "vertex-key-123");
    assert!(!requests[0].headers.contains_key("authorization"));
    // As Pi's Vertex client: no tool choice when the model may choose.
    assert!(requests[0].body.get("toolConfig").is_none());
    let weather = &requests[0].body["tools"][0]["functionDeclarations"][0];
    assert_eq!(weather["name"], "get_weather");
    // The JSON Schema as it is, as Pi's Vertex client sends it.
    assert_eq!(
        weather["parametersJsonSchema"]["additionalProperties"],
        false
    );
}

#[tokio::test]
async fn application_default_credentials_buy_one_token_for_the_run() {
    let fake = Fake::start(vec![
        Reply::error(
            200,
            r#"{"access_token":"ya29.access-token","expires_in":3599,"token_type":"Bearer"}"#,
        ),
        Reply::sse(sse(TWO_CALLS)),
        Reply::sse(sse(FINAL_TEXT)),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("application_default_credentials.json");
    let credentials = json!({"type": "authorized_user", "client_id": "id.apps.googleusercontent.com",
        "client_secret": "client-secret", "refresh_token": "1//refresh-token",
        "token_uri": fake.url("/token")});
    std::fs::write(&file, credentials.to_string()).unwrap();
    let settings = VertexSettings {
        project: Some("my-project".into()),
        location: Some("europe-west4".into()),
        credentials_file: Some(file),
    };
    let config = ProviderConfig::new("gemini-2.5-flash").with_base_url(fake.url(""));
    let run = run(Vertex::new(config, settings).unwrap()).await;
    assert_eq!(run.end, EndReason::Completed, "{:?}", run.error);
    let requests = fake.requests();
    assert_eq!(requests.len(), 3, "one token exchange, two model requests");
    assert_eq!(requests[0].path, "/token");
    assert_eq!(
        requests[0].headers["content-type"],
        "application/x-www-form-urlencoded"
    );
    for request in &requests[1..] {
        assert_eq!(
            request.path,
            "/v1/projects/my-project/locations/europe-west4/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        );
        assert_eq!(request.headers["authorization"], "Bearer ya29.access-token");
    }
}

#[tokio::test]
async fn a_refused_token_exchange_ends_the_answer_with_googles_reason() {
    let fake = Fake::start(vec![Reply::error(
        400,
        r#"{"error":"invalid_grant","error_description":"Token has been expired or revoked."}"#,
    )])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("adc.json");
    let credentials = json!({"type": "authorized_user", "client_id": "id", "client_secret": "s",
        "refresh_token": "r", "token_uri": fake.url("/token")});
    std::fs::write(&file, credentials.to_string()).unwrap();
    let settings = VertexSettings {
        project: Some("p".into()),
        location: Some("global".into()),
        credentials_file: Some(file),
    };
    let config = ProviderConfig::new("gemini-2.5-flash").with_base_url(fake.url(""));
    let run = run(Vertex::new(config, settings).unwrap()).await;
    assert_eq!(run.end, EndReason::Error);
    let error = run.error.unwrap();
    assert!(
        error.contains("Google's token exchange failed: 400: Token has been expired or revoked."),
        "{error}"
    );
    assert_eq!(fake.requests().len(), 1);
}

#[tokio::test]
async fn a_service_account_signs_its_token_request() {
    let fake = Fake::start(vec![
        Reply::error(200, r#"{"access_token":"ya29.sa-token","expires_in":3600}"#),
        Reply::sse(sse(FINAL_TEXT)),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("service-account.json");
    let token_uri = fake.url("/token");
    let key = json!({"type": "service_account", "project_id": "my-project",
        "private_key_id": "key-1", "private_key": PRIVATE_KEY,
        "client_email": "agent@my-project.iam.gserviceaccount.com", "token_uri": token_uri});
    std::fs::write(&file, key.to_string()).unwrap();
    let settings = VertexSettings {
        project: Some("my-project".into()),
        location: Some("us-central1".into()),
        credentials_file: Some(file),
    };
    let config = ProviderConfig::new("gemini-2.5-flash").with_base_url(fake.url(""));
    let run = run(Vertex::new(config, settings).unwrap()).await;
    assert_eq!(run.end, EndReason::Completed, "{:?}", run.error);
    let requests = fake.requests();
    assert_eq!(requests[0].path, "/token");
    let form: std::collections::HashMap<String, String> =
        url::form_urlencoded::parse(requests[0].raw.as_bytes())
            .into_owned()
            .collect();
    assert_eq!(
        form["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    // The assertion verifies with the key's public half, for Google's token endpoint.
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::RS256);
    validation.set_audience(&[token_uri.as_str()]);
    let decoded = jsonwebtoken::decode::<serde_json::Value>(
        &form["assertion"],
        &jsonwebtoken::DecodingKey::from_rsa_pem(PUBLIC_KEY.as_bytes()).unwrap(),
        &validation,
    )
    .unwrap();
    assert_eq!(decoded.header.kid.as_deref(), Some("key-1"));
    assert_eq!(
        decoded.claims["iss"],
        "agent@my-project.iam.gserviceaccount.com"
    );
    assert_eq!(
        decoded.claims["scope"],
        "https://www.googleapis.com/auth/cloud-platform"
    );
    assert_eq!(requests[1].headers["authorization"], "Bearer ya29.sa-token");
}
