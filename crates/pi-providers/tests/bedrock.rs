//! Amazon Bedrock's Converse stream against a local fake that checks each request's SigV4
//! signature by recomputing it with the AWS signer (a wrong key is refused with 403, as
//! Bedrock refuses it) and answers in real `application/vnd.amazon.eventstream` frames
//! written by the AWS event-stream codec: reasoning with its signature, text, a tool call,
//! usage, and an exception frame.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use aws_credential_types::Credentials;
use aws_sigv4::http_request::{
    PayloadChecksumKind, SignableBody, SignableRequest, SigningSettings, sign,
};
use aws_sigv4::sign::v4;
use aws_smithy_eventstream::frame::write_message_to;
use aws_smithy_types::event_stream::{Header, HeaderValue, Message as Frame};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::response::Response;
use pi_agent::{Agent, AgentConfig, EndReason};
use pi_ai::{AssistantContent, Message, StopReason, UserMessage};
use pi_providers::{AwsKeys, Bedrock, BedrockAuth, BedrockSettings, ProviderConfig};
use serde_json::{Value, json};
use support::travel_tools;
use tokio_util::sync::CancellationToken;

const ACCESS_KEY: &str = "AKIDEXAMPLE";
const SECRET: &str = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
const SESSION: &str = "session-token-example";
const MODEL: &str = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";

/// One event frame as Bedrock writes it.
fn event(kind: &str, payload: &Value) -> Vec<u8> {
    let frame = Frame::new(payload.to_string().into_bytes())
        .add_header(Header::new(
            ":event-type",
            HeaderValue::String(kind.to_owned().into()),
        ))
        .add_header(Header::new(
            ":content-type",
            HeaderValue::String("application/json".into()),
        ))
        .add_header(Header::new(
            ":message-type",
            HeaderValue::String("event".into()),
        ));
    let mut bytes = Vec::new();
    write_message_to(&frame, &mut bytes).unwrap();
    bytes
}

/// An exception frame as Bedrock writes one mid-stream.
fn exception(kind: &str, message: &str) -> Vec<u8> {
    let frame = Frame::new(json!({"message": message}).to_string().into_bytes())
        .add_header(Header::new(
            ":exception-type",
            HeaderValue::String(kind.to_owned().into()),
        ))
        .add_header(Header::new(
            ":content-type",
            HeaderValue::String("application/json".into()),
        ))
        .add_header(Header::new(
            ":message-type",
            HeaderValue::String("exception".into()),
        ));
    let mut bytes = Vec::new();
    write_message_to(&frame, &mut bytes).unwrap();
    bytes
}

fn thinking_text_and_call() -> Vec<u8> {
    [
        event("messageStart", &json!({"role": "assistant"})),
        event(
            "contentBlockDelta",
            &json!({"contentBlockIndex": 0,
            "delta": {"reasoningContent": {"text": "The user wants weather."}}}),
        ),
        event(
            "contentBlockDelta",
            &json!({"contentBlockIndex": 0,
            "delta": {"reasoningContent": {"signature": "sig-part-1"}}}),
        ),
        event(
            "contentBlockDelta",
            &json!({"contentBlockIndex": 0,
            "delta": {"reasoningContent": {"signature": "sig-part-2"}}}),
        ),
        event("contentBlockStop", &json!({"contentBlockIndex": 0})),
        event(
            "contentBlockDelta",
            &json!({"contentBlockIndex": 1,
            "delta": {"text": "Checking Tokyo."}}),
        ),
        event("contentBlockStop", &json!({"contentBlockIndex": 1})),
        event(
            "contentBlockStart",
            &json!({"contentBlockIndex": 2,
            "start": {"toolUse": {"toolUseId": "tooluse_abc123", "name": "get_weather"}}}),
        ),
        event(
            "contentBlockDelta",
            &json!({"contentBlockIndex": 2,
            "delta": {"toolUse": {"input": "{\"city\": \"Tok"}}}),
        ),
        event(
            "contentBlockDelta",
            &json!({"contentBlockIndex": 2,
            "delta": {"toolUse": {"input": "yo\", \"unit\": \"celsius\"}"}}}),
        ),
        event("contentBlockStop", &json!({"contentBlockIndex": 2})),
        event("messageStop", &json!({"stopReason": "tool_use"})),
        event(
            "metadata",
            &json!({"usage": {"inputTokens": 410, "outputTokens": 57,
            "totalTokens": 467, "cacheReadInputTokens": 100, "cacheWriteInputTokens": 0},
            "metrics": {"latencyMs": 900}}),
        ),
    ]
    .concat()
}

fn final_text() -> Vec<u8> {
    [
        event("messageStart", &json!({"role": "assistant"})),
        event(
            "contentBlockDelta",
            &json!({"contentBlockIndex": 0,
            "delta": {"text": "Tokyo: 21°C."}}),
        ),
        event("contentBlockStop", &json!({"contentBlockIndex": 0})),
        event("messageStop", &json!({"stopReason": "end_turn"})),
        event(
            "metadata",
            &json!({"usage": {"inputTokens": 500, "outputTokens": 8,
            "totalTokens": 508}}),
        ),
    ]
    .concat()
}

/// What the fake saw of one request.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    headers: HeaderMap,
    body: Value,
    /// The signature recomputed with the AWS signer matched the one sent.
    signature_ok: bool,
}

#[derive(Clone)]
struct Fake {
    replies: Arc<Mutex<Vec<Vec<u8>>>>,
    seen: Arc<Mutex<Vec<Seen>>>,
}

/// `YYYYMMDDTHHMMSSZ` as a time (the signer's own format).
fn amz_time(text: &str) -> SystemTime {
    let number = |range: std::ops::Range<usize>| text[range].parse::<i64>().unwrap();
    let (year, month, day) = (number(0..4), number(4..6), number(6..8));
    let (hour, minute, second) = (number(9..11), number(11..13), number(13..15));
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second;
    SystemTime::UNIX_EPOCH + Duration::from_secs(u64::try_from(seconds).unwrap())
}

/// Recomputes the request's SigV4 signature with the fake's own copy of the key.
fn signature_matches(path: &str, headers: &HeaderMap, body: &[u8]) -> bool {
    let header = |name: &str| headers.get(name).map(|v| v.to_str().unwrap().to_owned());
    let Some(authorization) = header("authorization") else {
        return false;
    };
    if !authorization.starts_with("AWS4-HMAC-SHA256 ") {
        return false;
    }
    let field = |name: &str| {
        authorization
            .split([',', ' '])
            .find_map(|part| part.trim().strip_prefix(name))
            .unwrap_or_default()
            .to_owned()
    };
    let credential = field("Credential=");
    let scope: Vec<&str> = credential.split('/').collect();
    let (access_key, region, service) = (scope[0], scope[2], scope[3]);
    if access_key != ACCESS_KEY || service != "bedrock" {
        return false;
    }
    let signed = field("SignedHeaders=");
    let own = ["x-amz-date", "x-amz-content-sha256", "x-amz-security-token"];
    let listed: Vec<(String, String)> = signed
        .split(';')
        .filter(|name| !own.contains(name))
        .map(|name| (name.to_owned(), header(name).unwrap_or_default()))
        .collect();
    let identity = Credentials::new(
        ACCESS_KEY,
        SECRET,
        header("x-amz-security-token"),
        None,
        "fake",
    )
    .into();
    let mut settings = SigningSettings::default();
    settings.payload_checksum_kind = PayloadChecksumKind::XAmzSha256;
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name("bedrock")
        .time(amz_time(&header("x-amz-date").unwrap()))
        .settings(settings)
        .build()
        .unwrap()
        .into();
    let url = format!("http://{}{path}", header("host").unwrap());
    let request = SignableRequest::new(
        "POST",
        url,
        listed
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str())),
        SignableBody::Bytes(body),
    )
    .unwrap();
    let (_, expected) = sign(request, &params).unwrap().into_parts();
    field("Signature=") == expected
}

async fn answer(State(fake): State<Fake>, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    let headers = request.headers().clone();
    let bytes = axum::body::to_bytes(request.into_body(), usize::MAX)
        .await
        .unwrap();
    let signature_ok = signature_matches(&path, &headers, &bytes);
    fake.seen.lock().unwrap().push(Seen {
        path,
        headers,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        signature_ok,
    });
    if !signature_ok {
        return Response::builder()
            .status(403)
            .header("x-amzn-errortype", "InvalidSignatureException")
            .body(Body::from(
                r#"{"message":"The request signature we calculated does not match the signature you provided."}"#,
            ))
            .unwrap();
    }
    let reply = {
        let mut replies = fake.replies.lock().unwrap();
        if replies.is_empty() {
            Vec::new()
        } else {
            replies.remove(0)
        }
    };
    Response::builder()
        .status(200)
        .header("content-type", "application/vnd.amazon.eventstream")
        // Small pieces, so frames arrive split across reads.
        .body(Body::from_stream(async_stream::stream! {
            for piece in reply.chunks(29) {
                yield Ok::<_, std::io::Error>(piece.to_vec());
            }
        }))
        .unwrap()
}

async fn start(replies: Vec<Vec<u8>>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let fake = Fake {
        replies: Arc::new(Mutex::new(replies)),
        seen: Arc::default(),
    };
    let seen = Arc::clone(&fake.seen);
    let app = axum::Router::new().fallback(answer).with_state(fake);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{address}"), seen)
}

fn keys(secret: &str) -> BedrockSettings {
    let vars = [
        ("AWS_ACCESS_KEY_ID", ACCESS_KEY),
        ("AWS_SECRET_ACCESS_KEY", secret),
        ("AWS_SESSION_TOKEN", SESSION),
        ("AWS_REGION", "eu-west-1"),
    ];
    BedrockSettings::from_lookup(
        |name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        },
        None,
    )
}

fn config(url: &str) -> ProviderConfig {
    ProviderConfig::new(MODEL)
        .with_base_url(url)
        .with_reasoning(true)
        .with_model_max_tokens(64_000)
        .with_thinking(pi_ai::ThinkingLevel::High)
}

#[tokio::test]
async fn a_tool_using_run_with_reasoning_completes_over_signed_converse_stream() {
    let (url, seen) = start(vec![thinking_text_and_call(), final_text()]).await;
    let settings = keys(SECRET);
    assert!(matches!(
        settings.auth,
        Ok(BedrockAuth::Keys(AwsKeys { .. }))
    ));
    let provider = Bedrock::new(config(&url), settings).unwrap();
    let agent = AgentConfig::new(Arc::new(provider), Arc::new(travel_tools()))
        .with_system_prompt("You are a travel assistant.");
    let run = Agent::new(agent)
        .run(
            Vec::new(),
            vec![UserMessage::text("Weather in Tokyo?").into()],
            CancellationToken::new(),
        )
        .await;
    assert_eq!(run.end, EndReason::Completed, "{:?}", run.error);
    let Message::Assistant(first) = &run.messages[1] else {
        panic!()
    };
    assert_eq!(first.stop_reason, StopReason::ToolUse);
    assert_eq!(first.api, "bedrock-converse-stream");
    assert_eq!(
        first.content[0],
        AssistantContent::Thinking {
            thinking: "The user wants weather.".into(),
            thinking_signature: Some("sig-part-1sig-part-2".into()),
            redacted: None,
        }
    );
    assert_eq!(first.text(), "Checking Tokyo.");
    let calls = first.tool_calls();
    assert_eq!(calls[0].id, "tooluse_abc123");
    assert_eq!(
        calls[0].arguments,
        json!({"city": "Tokyo", "unit": "celsius"})
    );
    assert_eq!(
        (
            first.usage.input,
            first.usage.output,
            first.usage.cache_read,
            first.usage.total_tokens
        ),
        (410, 57, 100, 467)
    );
    let Some(Message::Assistant(last)) = run.messages.last() else {
        panic!()
    };
    assert_eq!(last.text(), "Tokyo: 21°C.");
    assert_eq!(last.stop_reason, StopReason::Stop);

    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    for request in &seen {
        assert!(request.signature_ok, "{request:?}");
        assert_eq!(
            request.path,
            "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
        );
        assert_eq!(request.headers["x-amz-security-token"], SESSION);
        let authorization = request.headers["authorization"].to_str().unwrap();
        assert!(
            authorization.contains("/eu-west-1/bedrock/aws4_request"),
            "{authorization}"
        );
    }
    let first_body = &seen[0].body;
    assert_eq!(
        first_body["system"],
        json!([{"text": "You are a travel assistant."}, {"cachePoint": {"type": "default"}}])
    );
    assert_eq!(
        first_body["toolConfig"]["tools"][0]["toolSpec"]["name"],
        "get_weather"
    );
    assert_eq!(
        first_body["additionalModelRequestFields"]["thinking"],
        json!({"type": "enabled", "budget_tokens": 16384, "display": "summarized"})
    );
    assert_eq!(first_body["inferenceConfig"], json!({"maxTokens": 64000}));
    // The second request carries the reasoning (signed), the call and its result back.
    let history = &seen[1].body["messages"];
    assert_eq!(
        history[1]["content"][0],
        json!({"reasoningContent": {"reasoningText":
            {"text": "The user wants weather.", "signature": "sig-part-1sig-part-2"}}})
    );
    assert_eq!(history[1]["content"][1], json!({"text": "Checking Tokyo."}));
    assert_eq!(
        history[1]["content"][2],
        json!({"toolUse": {"toolUseId": "tooluse_abc123", "name": "get_weather",
            "input": {"city": "Tokyo", "unit": "celsius"}}})
    );
    assert_eq!(history[2]["role"], "user");
    assert_eq!(history[2]["content"][0]["toolResult"]["status"], "success");
    assert_eq!(
        history[2]["content"][0]["toolResult"]["toolUseId"],
        "tooluse_abc123"
    );
    assert_eq!(
        history[2]["content"].as_array().unwrap().last().unwrap(),
        &json!({"cachePoint": {"type": "default"}})
    );
}

async fn one_turn(provider: Bedrock) -> pi_agent::AgentRun {
    let agent = AgentConfig::new(Arc::new(provider), Arc::new(travel_tools()));
    Agent::new(agent)
        .run(
            Vec::new(),
            vec![UserMessage::text("hi").into()],
            CancellationToken::new(),
        )
        .await
}

#[tokio::test]
async fn an_exception_frame_ends_the_answer_as_pi_words_it() {
    let reply = [
        event("messageStart", &json!({"role": "assistant"})),
        event(
            "contentBlockDelta",
            &json!({"contentBlockIndex": 0, "delta": {"text": "Par"}}),
        ),
        exception("throttlingException", "Too many tokens, please wait."),
    ]
    .concat();
    let (url, _seen) = start(vec![reply]).await;
    let run = one_turn(Bedrock::new(config(&url), keys(SECRET)).unwrap()).await;
    assert_eq!(run.end, EndReason::Error);
    let error = run.error.unwrap();
    assert!(
        error.contains("Throttling error: Too many tokens, please wait."),
        "{error}"
    );
}

#[tokio::test]
async fn a_wrong_secret_is_refused_by_the_signature_check() {
    let (url, seen) = start(vec![final_text()]).await;
    let run = one_turn(Bedrock::new(config(&url), keys("not-the-secret")).unwrap()).await;
    assert_eq!(run.end, EndReason::Error);
    let error = run.error.unwrap();
    assert!(error.contains("403"), "{error}");
    assert!(!error.contains("not-the-secret"), "{error}");
    assert!(!seen.lock().unwrap()[0].signature_ok);
}

#[tokio::test]
async fn configured_headers_are_signed_and_the_signatures_own_are_kept() {
    let (url, seen) = start(vec![final_text()]).await;
    let mut config = config(&url);
    config.headers = vec![
        ("x-team".to_owned(), "blue".to_owned()),
        ("X-Amz-Date".to_owned(), "19700101T000000Z".to_owned()),
        (
            "Authorization".to_owned(),
            "Bearer not-the-signature".to_owned(),
        ),
        ("host".to_owned(), "elsewhere.example".to_owned()),
    ];
    let run = one_turn(Bedrock::new(config, keys(SECRET)).unwrap()).await;
    let seen = seen.lock().unwrap();
    assert!(seen[0].signature_ok, "{:?}", seen[0].headers);
    assert_eq!(run.end, EndReason::Completed, "{:?}", run.error);
    assert_eq!(seen[0].headers["x-team"], "blue");
    let authorization = seen[0].headers["authorization"].to_str().unwrap();
    assert!(
        authorization.starts_with("AWS4-HMAC-SHA256 "),
        "{authorization}"
    );
    let signed = authorization
        .split([',', ' '])
        .find_map(|part| part.trim().strip_prefix("SignedHeaders="))
        .unwrap();
    assert!(signed.split(';').any(|name| name == "x-team"), "{signed}");
    assert_ne!(seen[0].headers["x-amz-date"], "19700101T000000Z");
    assert!(
        seen[0].headers["host"]
            .to_str()
            .unwrap()
            .starts_with("127.0.0.1:")
    );
}

#[tokio::test]
async fn a_bearer_token_goes_as_authorization_without_a_signature() {
    let (url, seen) = start(vec![final_text()]).await;
    let settings = BedrockSettings::from_lookup(|_| None, Some("bedrock-api-key-123"));
    let run = one_turn(Bedrock::new(config(&url), settings).unwrap()).await;
    // The fake only accepts signed requests: the bearer request is refused there, and what
    // matters is what was sent.
    assert_eq!(run.end, EndReason::Error);
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen[0].headers["authorization"],
        "Bearer bedrock-api-key-123"
    );
    assert!(!seen[0].headers.contains_key("x-amz-date"));
}

#[test]
fn no_credentials_is_a_clear_error() {
    let settings = BedrockSettings::from_lookup(|_| None, None);
    let error = Bedrock::new(ProviderConfig::new(MODEL), settings).unwrap_err();
    assert!(
        error.to_string().starts_with("no AWS credentials"),
        "{error}"
    );
}

/// Settings whose profile gets its keys from a `credential_process` script that counts its
/// runs and gives keys expiring in a minute (inside the SDK's five-minute margin, so they are
/// fetched again before each request), the session token naming the run.
fn process_settings(dir: &std::path::Path) -> BedrockSettings {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("credentials.sh");
    let count = dir.join("runs");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho run >> '{count}'\nn=$(wc -l < '{count}' | tr -d ' ')\n\
             expires=$(date -u -d '+60 seconds' +%Y-%m-%dT%H:%M:%SZ)\n\
             printf '{{\"Version\": 1, \"AccessKeyId\": \"{ACCESS_KEY}\", \"SecretAccessKey\": \"{SECRET}\", \
             \"SessionToken\": \"token-%s\", \"Expiration\": \"%s\"}}' \"$n\" \"$expires\"\n",
            count = count.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = dir.join("config");
    std::fs::write(
        &config,
        format!(
            "[profile proc]\ncredential_process = {}\n",
            script.display()
        ),
    )
    .unwrap();
    let config = config.display().to_string();
    BedrockSettings::from_lookup(
        |name| match name {
            "AWS_CONFIG_FILE" => Some(config.clone()),
            "AWS_PROFILE" => Some("proc".to_owned()),
            "AWS_REGION" => Some("eu-west-1".to_owned()),
            _ => None,
        },
        None,
    )
}

#[tokio::test]
async fn credential_process_keys_about_to_expire_are_fetched_again_before_a_request() {
    let dir = tempfile::tempdir().unwrap();
    let (url, seen) = start(vec![final_text(), final_text()]).await;
    let provider: Arc<dyn pi_ai::Provider> =
        Arc::new(Bedrock::new(config(&url), process_settings(dir.path())).unwrap());
    for _ in 0..2 {
        let agent = AgentConfig::new(Arc::clone(&provider), Arc::new(travel_tools()));
        let run = Agent::new(agent)
            .run(
                Vec::new(),
                vec![UserMessage::text("hi").into()],
                CancellationToken::new(),
            )
            .await;
        assert_eq!(run.end, EndReason::Completed, "{:?}", run.error);
    }
    let seen = seen.lock().unwrap();
    let tokens: Vec<_> = seen
        .iter()
        .map(|request| {
            request.headers["x-amz-security-token"]
                .to_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    // Run 1 when the model was built, 2 and 3 before each request.
    assert_eq!(tokens, ["token-2", "token-3"]);
    assert!(seen.iter().all(|request| request.signature_ok));
}
