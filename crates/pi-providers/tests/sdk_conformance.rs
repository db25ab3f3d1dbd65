//! Our traffic judged by the official SDKs (`openai`, `anthropic`, `google-genai`, installed into
//! `.venv/` by `scripts/setup-python-peers.sh`): every request body we send validates as the
//! SDK's own request type (no key it does not know), and every event of the fake streams our
//! tests replay validates as the SDK's stream event type. The bodies are also golden files.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::path::PathBuf;
use std::sync::Arc;

use pi_agent::{Agent, AgentConfig, EndReason};
use pi_ai::{AssistantContent, AssistantMessage, Message, Provider, UserContent, UserMessage};
use pi_providers::{Anthropic, Gemini, OpenAiChat, OpenAiResponses, ProviderConfig, ToolChoice};
use pi_tool::{ToolResultMessage, image, text};
use serde_json::json;
use support::{Fake, Reply, sse, travel_tools};
use tokio_util::sync::CancellationToken;

fn here() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn python() -> PathBuf {
    let python = here().join("../../.venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/test.sh (or scripts/setup-python-peers.sh) to install the SDKs",
        python.display()
    );
    python
}

fn fixture(name: &str) -> PathBuf {
    here().join("tests/fixtures").join(name)
}

/// A transcript that exercises every shape: an image from the user, an earlier turn of this
/// model with text and a call, a failed result carrying an image.
fn history(model: &pi_ai::ModelInfo) -> Vec<Message> {
    vec![
        Message::User(UserMessage {
            content: UserContent::Blocks(vec![
                text("Here is the radar."),
                image(pi_test_tools::PIXEL_PNG_BASE64, "image/png"),
            ]),
            timestamp: 1,
        }),
        Message::Assistant(AssistantMessage::new(
            model,
            vec![
                AssistantContent::text("Looking at Paris."),
                AssistantContent::tool_call(
                    "call_prev1",
                    "get_weather",
                    json!({"city": "Paris", "unit": "celsius"}),
                ),
            ],
        )),
        Message::ToolResult(ToolResultMessage {
            tool_call_id: "call_prev1".into(),
            tool_name: "get_weather".into(),
            content: vec![
                text("weather backend timed out"),
                image(pi_test_tools::PIXEL_PNG_BASE64, "image/png"),
            ],
            details: None,
            is_error: true,
            timestamp: 2,
        }),
    ]
}

async fn conforms(wire: &str, provider: Arc<dyn Provider>, fake: &Fake, streams: &[&str]) {
    conforms_as(wire, wire, provider, fake, streams).await;
}

/// As [`conforms`], with the golden file named `golden_name`.
async fn conforms_as(
    wire: &str,
    golden_name: &str,
    provider: Arc<dyn Provider>,
    fake: &Fake,
    streams: &[&str],
) {
    let model = provider.model();
    let config = AgentConfig::new(provider, Arc::new(travel_tools()))
        .with_system_prompt("You are a travel assistant. Use the tools for live data.");
    let run = Agent::new(config)
        .run(
            history(&model),
            vec![UserMessage::text("And Tokyo?").into()],
            CancellationToken::new(),
        )
        .await;
    assert_eq!(run.end, EndReason::Completed, "{wire}: {:?}", run.error);
    let bodies: Vec<_> = fake.requests().into_iter().map(|r| r.body).collect();
    assert_eq!(bodies.len(), 2);
    golden(golden_name, &bodies);
    let dir = tempfile_dir(golden_name);
    let requests = dir.join("requests.json");
    std::fs::write(&requests, serde_json::to_string(&bodies).unwrap()).unwrap();
    let output = std::process::Command::new(python())
        .arg(here().join("tests/peers/sdk_check.py"))
        .arg(wire)
        .arg(&requests)
        .args(streams.iter().map(|name| fixture(name)))
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{wire}: {report}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(report.contains("0 problems"), "{report}");
}

/// The request bodies of the run, byte for byte as last reviewed, in
/// `tests/golden/WIRE.requests.json` (`PI_UPDATE_GOLDEN=1` rewrites them after a reviewed change).
fn golden(wire: &str, bodies: &[serde_json::Value]) {
    let path = here().join(format!("tests/golden/{wire}.requests.json"));
    let text = serde_json::to_string_pretty(bodies).unwrap() + "\n";
    if std::env::var_os("PI_UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} is missing: run with PI_UPDATE_GOLDEN=1", path.display()));
    assert_eq!(text, expected, "{wire}: the request bodies changed");
}

fn tempfile_dir(wire: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pi-sdk-check-{wire}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn config(fake: &Fake, suffix: &str, model: &str) -> ProviderConfig {
    ProviderConfig::new(model)
        .with_base_url(fake.url(suffix))
        .with_api_key("key")
        .with_tool_choice(ToolChoice::Tool("get_time".into()))
}

fn replies(streams: &[&str]) -> Vec<Reply> {
    streams
        .iter()
        .map(|name| Reply::sse(sse(&std::fs::read_to_string(fixture(name)).unwrap())))
        .collect()
}

#[tokio::test]
#[ignore = "needs the official Python SDKs in .venv: scripts/test.sh installs them and runs this"]
async fn openai_chat_traffic_passes_the_openai_sdk() {
    let streams = ["openai_two_calls.sse", "openai_final_text.sse"];
    let fake = Fake::start(replies(&streams)).await;
    let provider = Arc::new(OpenAiChat::new(config(&fake, "/v1", "gpt-4.1")).unwrap());
    conforms("openai", provider, &fake, &streams).await;
}

#[tokio::test]
#[ignore = "needs the official Python SDKs in .venv: scripts/test.sh installs them and runs this"]
async fn openai_chat_strict_tools_pass_the_openai_sdk() {
    let streams = ["openai_two_calls.sse", "openai_final_text.sse"];
    let fake = Fake::start(replies(&streams)).await;
    let config = config(&fake, "/v1", "gpt-4.1").with_strict_tools(true);
    let provider = Arc::new(OpenAiChat::new(config).unwrap());
    conforms_as("openai", "openai-strict", provider, &fake, &streams).await;
}

#[tokio::test]
#[ignore = "needs the official Python SDKs in .venv: scripts/test.sh installs them and runs this"]
async fn openai_responses_strict_tools_pass_the_openai_sdk() {
    let streams = [
        "openai_responses_two_calls.sse",
        "openai_responses_final_text.sse",
    ];
    let fake = Fake::start(replies(&streams)).await;
    let config = config(&fake, "/v1", "gpt-5.1").with_strict_tools(true);
    let provider = Arc::new(OpenAiResponses::new(config).unwrap());
    conforms_as(
        "openai-responses",
        "openai-responses-strict",
        provider,
        &fake,
        &streams,
    )
    .await;
}

#[tokio::test]
#[ignore = "needs the official Python SDKs in .venv: scripts/test.sh installs them and runs this"]
async fn openai_responses_traffic_passes_the_openai_sdk() {
    let streams = [
        "openai_responses_two_calls.sse",
        "openai_responses_final_text.sse",
    ];
    let fake = Fake::start(replies(&streams)).await;
    let provider = Arc::new(OpenAiResponses::new(config(&fake, "/v1", "gpt-5.1")).unwrap());
    conforms("openai-responses", provider, &fake, &streams).await;
}

#[tokio::test]
#[ignore = "needs the official Python SDKs in .venv: scripts/test.sh installs them and runs this"]
async fn anthropic_traffic_passes_the_anthropic_sdk() {
    let streams = [
        "anthropic_text_and_two_calls.sse",
        "anthropic_final_text.sse",
    ];
    let fake = Fake::start(replies(&streams)).await;
    let provider = Arc::new(Anthropic::new(config(&fake, "", "claude-sonnet-4-5")).unwrap());
    conforms("anthropic", provider, &fake, &streams).await;
}

#[tokio::test]
#[ignore = "needs the official Python SDKs in .venv: scripts/test.sh installs them and runs this"]
async fn gemini_traffic_passes_the_google_genai_sdk() {
    let streams = ["gemini_two_calls.sse", "gemini_final_text.sse"];
    let fake = Fake::start(replies(&streams)).await;
    let provider = Arc::new(Gemini::new(config(&fake, "", "gemini-3-flash-preview")).unwrap());
    conforms("gemini", provider, &fake, &streams).await;
}

/// A reasoning model asked to think hard.
fn thinking(config: ProviderConfig) -> ProviderConfig {
    config
        .with_reasoning(true)
        .with_thinking(pi_providers::ThinkingLevel::High)
}

#[tokio::test]
#[ignore = "needs the official Python SDKs in .venv: scripts/test.sh installs them and runs this"]
async fn openai_chat_reasoning_effort_passes_the_openai_sdk() {
    let streams = ["openai_two_calls.sse", "openai_final_text.sse"];
    let fake = Fake::start(replies(&streams)).await;
    let config = thinking(config(&fake, "/v1", "gpt-5.1")).with_max_tokens(2048);
    let provider = Arc::new(OpenAiChat::new(config).unwrap());
    conforms_as("openai", "openai-thinking", provider, &fake, &streams).await;
}

#[tokio::test]
#[ignore = "needs the official Python SDKs in .venv: scripts/test.sh installs them and runs this"]
async fn openai_responses_reasoning_passes_the_openai_sdk() {
    let streams = [
        "openai_responses_two_calls.sse",
        "openai_responses_final_text.sse",
    ];
    let fake = Fake::start(replies(&streams)).await;
    let provider =
        Arc::new(OpenAiResponses::new(thinking(config(&fake, "/v1", "gpt-5.1"))).unwrap());
    conforms_as(
        "openai-responses",
        "openai-responses-thinking",
        provider,
        &fake,
        &streams,
    )
    .await;
}

#[tokio::test]
#[ignore = "needs the official Python SDKs in .venv: scripts/test.sh installs them and runs this"]
async fn azure_openai_traffic_passes_the_openai_sdk() {
    let streams = [
        "openai_responses_two_calls.sse",
        "openai_responses_final_text.sse",
    ];
    let fake = Fake::start(replies(&streams)).await;
    let settings = pi_providers::AzureSettings {
        base_url: Some(fake.url("/openai/v1")),
        deployment: Some("my-deployment".into()),
        ..pi_providers::AzureSettings::default()
    };
    let config = thinking(config(&fake, "", "gpt-5.1")).with_azure(settings);
    let provider = Arc::new(pi_providers::AzureOpenAi::new(config).unwrap());
    conforms_as(
        "openai-responses",
        "azure-openai-responses",
        provider,
        &fake,
        &streams,
    )
    .await;
}

#[tokio::test]
#[ignore = "needs the official Python SDKs in .venv: scripts/test.sh installs them and runs this"]
async fn anthropic_thinking_passes_the_anthropic_sdk() {
    let streams = [
        "anthropic_text_and_two_calls.sse",
        "anthropic_final_text.sse",
    ];
    let fake = Fake::start(replies(&streams)).await;
    let config = thinking(config(&fake, "", "claude-sonnet-4-5")).with_model_max_tokens(64_000);
    let provider = Arc::new(Anthropic::new(config).unwrap());
    conforms_as("anthropic", "anthropic-thinking", provider, &fake, &streams).await;
}

#[tokio::test]
#[ignore = "needs the official Python SDKs in .venv: scripts/test.sh installs them and runs this"]
async fn anthropic_adaptive_thinking_passes_the_anthropic_sdk() {
    let streams = [
        "anthropic_text_and_two_calls.sse",
        "anthropic_final_text.sse",
    ];
    let fake = Fake::start(replies(&streams)).await;
    let config = thinking(config(&fake, "", "claude-opus-4-7"))
        .with_model_max_tokens(128_000)
        .with_compat(pi_providers::ModelCompat {
            force_adaptive_thinking: Some(true),
            ..pi_providers::ModelCompat::default()
        });
    let provider = Arc::new(Anthropic::new(config).unwrap());
    conforms_as("anthropic", "anthropic-adaptive", provider, &fake, &streams).await;
}

#[tokio::test]
#[ignore = "needs the official Python SDKs in .venv: scripts/test.sh installs them and runs this"]
async fn gemini_thinking_config_passes_the_google_genai_sdk() {
    let streams = ["gemini_two_calls.sse", "gemini_final_text.sse"];
    let fake = Fake::start(replies(&streams)).await;
    let config = thinking(config(&fake, "", "gemini-3-flash-preview"));
    let provider = Arc::new(Gemini::new(config).unwrap());
    conforms_as("gemini", "gemini-thinking", provider, &fake, &streams).await;
}
