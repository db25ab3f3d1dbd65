//! Thinking levels, extra headers, `compat` options and Azure on the wire: what each request
//! carries for each level, as Pi sends it, checked at a local fake server; and thinking read
//! from a stream going back, with its signature, in the next request.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::sync::Arc;

use futures::StreamExt;
use pi_ai::{
    AssistantContent, AssistantMessage, AssistantMessageEvent, Message, Provider, Request,
    UserMessage,
};
use pi_providers::{
    Anthropic, AzureOpenAi, AzureSettings, Gemini, MaxTokensField, ModelCompat, OpenAiChat,
    OpenAiResponses, ProviderConfig, ThinkingBudgets, ThinkingFormat, ThinkingLevel,
    ThinkingLevelMap,
};
use serde_json::{Value, json};
use support::{Fake, Recorded, Reply, sse};
use tokio_util::sync::CancellationToken;

use ThinkingLevel::{High, Low, Max, Medium, Minimal, Off, Xhigh};

const CHAT_TEXT: &str = include_str!("fixtures/openai_final_text.sse");
const RESPONSES_TEXT: &str = include_str!("fixtures/openai_responses_final_text.sse");
const ANTHROPIC_TEXT: &str = include_str!("fixtures/anthropic_final_text.sse");
const GEMINI_TEXT: &str = include_str!("fixtures/gemini_final_text.sse");

#[derive(Clone, Copy)]
enum Wire {
    Chat,
    Responses,
    Anthropic,
    Gemini,
}

impl Wire {
    fn reply(self) -> &'static str {
        match self {
            Self::Chat => CHAT_TEXT,
            Self::Responses => RESPONSES_TEXT,
            Self::Anthropic => ANTHROPIC_TEXT,
            Self::Gemini => GEMINI_TEXT,
        }
    }

    fn provider(self, fake: &Fake, config: ProviderConfig) -> Arc<dyn Provider> {
        match self {
            Self::Chat => Arc::new(OpenAiChat::new(config.with_base_url(fake.url("/v1"))).unwrap()),
            Self::Responses => {
                Arc::new(OpenAiResponses::new(config.with_base_url(fake.url("/v1"))).unwrap())
            }
            Self::Anthropic => {
                Arc::new(Anthropic::new(config.with_base_url(fake.url(""))).unwrap())
            }
            Self::Gemini => Arc::new(Gemini::new(config.with_base_url(fake.url(""))).unwrap()),
        }
    }
}

/// Runs one response of `provider` to its end.
async fn run(provider: &dyn Provider, messages: Vec<Message>) -> AssistantMessage {
    let request = Request {
        system_prompt: Some("Be brief.".into()),
        messages: messages.into(),
        tools: Vec::new().into(),
    };
    let mut events = provider.stream(request, CancellationToken::new());
    while let Some(event) = events.next().await {
        match event {
            AssistantMessageEvent::Done { message, .. } => return *message,
            AssistantMessageEvent::Error { error, .. } => panic!("{:?}", error.error_message),
            _ => {}
        }
    }
    panic!("the stream ended without done")
}

/// The one request `config` makes on `wire`.
async fn request(wire: Wire, config: ProviderConfig) -> Recorded {
    let fake = Fake::start(vec![Reply::sse(sse(wire.reply()))]).await;
    let provider = wire.provider(&fake, config.with_api_key("sk-secret-key"));
    run(provider.as_ref(), vec![UserMessage::text("hi").into()]).await;
    fake.requests().remove(0)
}

/// The body `config` sends on `wire`.
async fn body(wire: Wire, config: ProviderConfig) -> Value {
    request(wire, config).await.body
}

fn reasoning(model: &str, level: ThinkingLevel) -> ProviderConfig {
    ProviderConfig::new(model)
        .with_reasoning(true)
        .with_thinking(level)
}

fn map(json: Value) -> ThinkingLevelMap {
    serde_json::from_value(json).unwrap()
}

#[tokio::test]
async fn openai_chat_sends_reasoning_effort_per_level_clamped_to_the_model() {
    let expected = [
        (Off, None),
        (Minimal, Some("minimal")),
        (Low, Some("low")),
        (Medium, Some("medium")),
        (High, Some("high")),
        // Without the model naming them, xhigh and max are high.
        (Xhigh, Some("high")),
        (Max, Some("high")),
    ];
    for (level, effort) in expected {
        let sent = body(Wire::Chat, reasoning("gpt-5.1", level)).await;
        assert_eq!(
            sent.get("reasoning_effort").and_then(Value::as_str),
            effort,
            "{level}"
        );
        // A reasoning model's system prompt is a developer message.
        assert_eq!(sent["messages"][0]["role"], "developer");
        assert_eq!(sent["store"], false);
    }
    // A model whose map names xhigh and off: max clamps down to xhigh; off is said.
    let levels = map(json!({"off": "none", "xhigh": "xhigh"}));
    for (level, effort) in [(Max, "xhigh"), (Xhigh, "xhigh"), (Off, "none")] {
        let config = reasoning("gpt-5.2", level).with_thinking_level_map(levels.clone());
        assert_eq!(
            body(Wire::Chat, config).await["reasoning_effort"],
            effort,
            "{level}"
        );
    }
    // A model that does not reason gets no thinking and a system message.
    let plain = body(
        Wire::Chat,
        ProviderConfig::new("gpt-4.1").with_thinking(High),
    )
    .await;
    assert_eq!(plain.get("reasoning_effort"), None);
    assert_eq!(plain["messages"][0]["role"], "system");
}

#[tokio::test]
async fn openai_chat_compat_dialects_change_the_request_as_pi_does() {
    // DeepSeek (detected by provider name): thinking on/off and reasoning_effort.
    let deepseek = |level| reasoning("deepseek-v4", level).with_provider("deepseek");
    let on = body(Wire::Chat, deepseek(High)).await;
    assert_eq!(on["thinking"], json!({"type": "enabled"}));
    assert_eq!(on["reasoning_effort"], "high");
    let off = body(Wire::Chat, deepseek(Off)).await;
    assert_eq!(off["thinking"], json!({"type": "disabled"}));
    assert_eq!(off.get("reasoning_effort"), None);

    // OpenRouter: a nested reasoning object, off said as none.
    let openrouter = |level| reasoning("anthropic/claude", level).with_provider("openrouter");
    assert_eq!(
        body(Wire::Chat, openrouter(Low)).await["reasoning"],
        json!({"effort": "low"})
    );
    assert_eq!(
        body(Wire::Chat, openrouter(Off)).await["reasoning"],
        json!({"effort": "none"})
    );

    // A local Qwen server from models.json: chat_template_kwargs, system role, max_tokens.
    let qwen = ModelCompat {
        thinking_format: Some(ThinkingFormat::QwenChatTemplate),
        supports_developer_role: Some(false),
        max_tokens_field: Some(MaxTokensField::MaxTokens),
        supports_usage_in_streaming: Some(false),
        ..ModelCompat::default()
    };
    let sent = body(
        Wire::Chat,
        reasoning("qwen3", Medium)
            .with_compat(qwen)
            .with_max_tokens(512),
    )
    .await;
    assert_eq!(
        sent["chat_template_kwargs"],
        json!({"enable_thinking": true, "preserve_thinking": true})
    );
    assert_eq!(sent["messages"][0]["role"], "system");
    assert_eq!(sent["max_tokens"], 512);
    assert_eq!(sent.get("max_completion_tokens"), None);
    assert_eq!(sent.get("stream_options"), None);

    // Custom chat-template kwargs with Pi's variables.
    let template = ModelCompat {
        thinking_format: Some(ThinkingFormat::ChatTemplate),
        chat_template_kwargs: serde_json::from_value(json!({
            "thinking": {"$var": "thinking.enabled"},
            "effort": {"$var": "thinking.effort", "omitWhenOff": true},
            "fixed": 7
        }))
        .unwrap(),
        ..ModelCompat::default()
    };
    let on = body(
        Wire::Chat,
        reasoning("m", High).with_compat(template.clone()),
    )
    .await;
    assert_eq!(
        on["chat_template_kwargs"],
        json!({"thinking": true, "effort": "high", "fixed": 7})
    );
    let off = body(Wire::Chat, reasoning("m", Off).with_compat(template)).await;
    assert_eq!(
        off["chat_template_kwargs"],
        json!({"thinking": false, "fixed": 7})
    );

    // The OpenAI default limit field is max_completion_tokens.
    let limited = body(
        Wire::Chat,
        ProviderConfig::new("gpt-4.1").with_max_tokens(100),
    )
    .await;
    assert_eq!(limited["max_completion_tokens"], 100);
}

#[tokio::test]
async fn openai_responses_sends_reasoning_with_summaries_and_encrypted_content() {
    for (level, effort) in [
        (Minimal, "minimal"),
        (Medium, "medium"),
        (High, "high"),
        (Max, "high"),
    ] {
        let sent = body(Wire::Responses, reasoning("gpt-5.1", level)).await;
        assert_eq!(
            sent["reasoning"],
            json!({"effort": effort, "summary": "auto"}),
            "{level}"
        );
        assert_eq!(sent["include"], json!(["reasoning.encrypted_content"]));
        assert_eq!(sent["store"], false);
    }
    // Off is said as `none`, unless the model cannot turn thinking off.
    let off = body(Wire::Responses, reasoning("gpt-5.1", Off)).await;
    assert_eq!(off["reasoning"], json!({"effort": "none"}));
    assert_eq!(off.get("include"), None);
    let always = reasoning("o3", Off).with_thinking_level_map(map(json!({"off": null})));
    assert_eq!(body(Wire::Responses, always).await.get("reasoning"), None);
    // Not a reasoning model: nothing.
    let plain = body(
        Wire::Responses,
        ProviderConfig::new("gpt-4.1").with_thinking(High),
    )
    .await;
    assert_eq!(plain.get("reasoning"), None);
}

#[tokio::test]
async fn anthropic_budgets_fit_inside_the_output_limit_as_pi_fits_them() {
    let claude = |level| reasoning("claude-sonnet-4-5", level).with_model_max_tokens(64_000);
    for (level, budget) in [
        (Minimal, 1024),
        (Low, 2048),
        (Medium, 8192),
        (High, 16_384),
        (Max, 16_384),
    ] {
        let sent = request(Wire::Anthropic, claude(level)).await;
        assert_eq!(
            sent.body["thinking"],
            json!({"type": "enabled", "budget_tokens": budget, "display": "summarized"}),
            "{level}"
        );
        // No limit asked: the model's own.
        assert_eq!(sent.body["max_tokens"], 64_000);
        assert_eq!(
            sent.headers["anthropic-beta"],
            "interleaved-thinking-2025-05-14"
        );
    }
    // An asked-for limit gets the budget on top, within the model's.
    let asked = body(Wire::Anthropic, claude(High).with_max_tokens(4096)).await;
    assert_eq!(asked["max_tokens"], 4096 + 16_384);
    let tight = body(Wire::Anthropic, claude(High).with_max_tokens(60_000)).await;
    assert_eq!(tight["max_tokens"], 64_000);
    assert_eq!(tight["thinking"]["budget_tokens"], 16_384);
    // A small model limit leaves 1024 tokens for the answer.
    let small = body(
        Wire::Anthropic,
        reasoning("c", High).with_model_max_tokens(8000),
    )
    .await;
    assert_eq!(small["thinking"]["budget_tokens"], 8000 - 1024);
    // Custom budgets.
    let budgets = ThinkingBudgets {
        medium: Some(5000),
        ..ThinkingBudgets::default()
    };
    let custom = body(
        Wire::Anthropic,
        claude(Medium).with_thinking_budgets(budgets),
    )
    .await;
    assert_eq!(custom["thinking"]["budget_tokens"], 5000);
    // Off is said explicitly; a model that does not reason is told nothing.
    let off = request(Wire::Anthropic, claude(Off)).await;
    assert_eq!(off.body["thinking"], json!({"type": "disabled"}));
    assert_eq!(off.headers.get("anthropic-beta"), None);
    let plain = body(
        Wire::Anthropic,
        ProviderConfig::new("claude-3-5-haiku").with_thinking(High),
    )
    .await;
    assert_eq!(plain.get("thinking"), None);
    assert_eq!(plain["max_tokens"], 4096);
}

#[tokio::test]
async fn anthropic_adaptive_models_get_an_effort_instead_of_a_budget() {
    let adaptive = |level| {
        reasoning("claude-opus-4-7", level)
            .with_model_max_tokens(128_000)
            .with_thinking_level_map(map(json!({"xhigh": "xhigh", "max": "max"})))
            .with_compat(ModelCompat {
                force_adaptive_thinking: Some(true),
                ..ModelCompat::default()
            })
    };
    for (level, effort) in [
        (Minimal, "low"),
        (Low, "low"),
        (Medium, "medium"),
        (High, "high"),
        (Xhigh, "xhigh"),
        (Max, "max"),
    ] {
        let sent = request(Wire::Anthropic, adaptive(level)).await;
        assert_eq!(
            sent.body["thinking"],
            json!({"type": "adaptive", "display": "summarized"})
        );
        assert_eq!(
            sent.body["output_config"],
            json!({"effort": effort}),
            "{level}"
        );
        assert_eq!(sent.body["max_tokens"], 128_000);
        assert_eq!(
            sent.headers.get("anthropic-beta"),
            None,
            "adaptive interleaves by itself"
        );
    }
}

#[tokio::test]
async fn gemini_gets_budgets_or_thinking_levels_by_model() {
    for (level, budget) in [
        (Minimal, 128),
        (Low, 2048),
        (Medium, 8192),
        (High, 24_576),
        (Max, 24_576),
    ] {
        let sent = body(Wire::Gemini, reasoning("gemini-2.5-flash", level)).await;
        assert_eq!(
            sent["generationConfig"]["thinkingConfig"],
            json!({"includeThoughts": true, "thinkingBudget": budget}),
            "{level}"
        );
    }
    let pro = body(Wire::Gemini, reasoning("gemini-2.5-pro", High)).await;
    assert_eq!(
        pro["generationConfig"]["thinkingConfig"]["thinkingBudget"],
        32_768
    );
    let other = body(Wire::Gemini, reasoning("gemini-exp", Medium)).await;
    assert_eq!(
        other["generationConfig"]["thinkingConfig"]["thinkingBudget"],
        -1
    );
    let budgets = ThinkingBudgets {
        low: Some(777),
        ..ThinkingBudgets::default()
    };
    let custom = body(
        Wire::Gemini,
        reasoning("gemini-2.5-flash", Low).with_thinking_budgets(budgets),
    )
    .await;
    assert_eq!(
        custom["generationConfig"]["thinkingConfig"]["thinkingBudget"],
        777
    );

    // Gemini 3: levels, clamped by the model's map (Pro has only LOW and HIGH).
    let pro_map =
        map(json!({"off": null, "minimal": null, "low": "LOW", "medium": null, "high": "HIGH"}));
    for (level, name) in [
        (Minimal, "LOW"),
        (Low, "LOW"),
        (Medium, "HIGH"),
        (High, "HIGH"),
    ] {
        let config =
            reasoning("gemini-3-pro-preview", level).with_thinking_level_map(pro_map.clone());
        let sent = body(Wire::Gemini, config).await;
        assert_eq!(
            sent["generationConfig"]["thinkingConfig"],
            json!({"includeThoughts": true, "thinkingLevel": name}),
            "{level}"
        );
    }
    for (level, name) in [
        (Minimal, "MINIMAL"),
        (Low, "LOW"),
        (Medium, "MEDIUM"),
        (High, "HIGH"),
    ] {
        let sent = body(Wire::Gemini, reasoning("gemini-3-flash-preview", level)).await;
        assert_eq!(
            sent["generationConfig"]["thinkingConfig"]["thinkingLevel"], name,
            "{level}"
        );
    }
    // Off: Gemini 2.x turns thinking off with a zero budget, Gemini 3 asks for its least.
    let off = body(Wire::Gemini, reasoning("gemini-2.5-flash", Off)).await;
    assert_eq!(
        off["generationConfig"]["thinkingConfig"],
        json!({"thinkingBudget": 0})
    );
    let off3 = body(Wire::Gemini, reasoning("gemini-3-pro-preview", Off)).await;
    assert_eq!(
        off3["generationConfig"]["thinkingConfig"],
        json!({"thinkingLevel": "LOW"})
    );
    let plain = body(
        Wire::Gemini,
        ProviderConfig::new("gemini-2.0-flash").with_thinking(High),
    )
    .await;
    assert_eq!(plain.get("generationConfig"), None);
}

#[tokio::test]
async fn extra_headers_reach_the_server_and_never_a_debug_print() {
    for wire in [Wire::Chat, Wire::Responses, Wire::Anthropic, Wire::Gemini] {
        let config = ProviderConfig::new("m")
            .with_header("X-Gateway-Token", "hdr-secret-value")
            .with_header("x-team", "tools");
        let sent = request(wire, config).await;
        assert_eq!(sent.headers["x-gateway-token"], "hdr-secret-value");
        assert_eq!(sent.headers["x-team"], "tools");
    }
    // A configured authorization header replaces the key's, as Pi lets it.
    let config = ProviderConfig::new("m").with_header("Authorization", "Bearer from-header");
    let sent = request(Wire::Chat, config).await;
    assert_eq!(sent.headers["authorization"], "Bearer from-header");

    let config = ProviderConfig::new("m")
        .with_api_key("sk-secret-key")
        .with_header("X-Gateway-Token", "hdr-secret-value");
    let printed = format!("{config:?} {:?}", OpenAiChat::new(config.clone()).unwrap());
    assert!(printed.contains("X-Gateway-Token"), "{printed}");
    assert!(!printed.contains("hdr-secret-value"), "{printed}");
    assert!(!printed.contains("sk-secret-key"), "{printed}");
}

#[tokio::test]
async fn azure_sends_the_deployment_the_api_version_and_an_api_key_header() {
    let fake = Fake::start(vec![Reply::sse(sse(RESPONSES_TEXT))]).await;
    let settings = AzureSettings {
        base_url: Some(fake.url("/openai/v1/")),
        api_version: Some("2025-04-01-preview".into()),
        deployment_map: vec![("gpt-5.1".into(), "my-gpt5".into())],
        ..AzureSettings::default()
    };
    let config = reasoning("gpt-5.1", High)
        .with_api_key("azure-secret-key")
        .with_azure(settings);
    let provider = AzureOpenAi::new(config).unwrap();
    assert_eq!(provider.model().api, "azure-openai-responses");
    assert_eq!(provider.model().provider, "azure-openai-responses");
    let message = run(&provider, vec![UserMessage::text("hi").into()]).await;
    assert_eq!(message.model, "gpt-5.1");
    let sent = fake.requests().remove(0);
    assert_eq!(
        sent.path,
        "/openai/v1/responses?api-version=2025-04-01-preview"
    );
    assert_eq!(sent.headers["api-key"], "azure-secret-key");
    assert_eq!(sent.headers.get("authorization"), None);
    assert_eq!(sent.body["model"], "my-gpt5");
    assert_eq!(
        sent.body["reasoning"],
        json!({"effort": "high", "summary": "auto"})
    );
    assert!(!format!("{provider:?}").contains("azure-secret-key"));
    // No endpoint at all is a clear error.
    let error = AzureOpenAi::new(ProviderConfig::new("gpt-5.1")).unwrap_err();
    assert!(
        error.to_string().contains("AZURE_OPENAI_BASE_URL"),
        "{error}"
    );
}

/// A second request after `first` (the model's earlier message), on `wire`.
async fn replayed(wire: Wire, stream: &str, config: ProviderConfig) -> (AssistantMessage, Value) {
    let fake = Fake::start(vec![Reply::sse(sse(stream)), Reply::sse(sse(wire.reply()))]).await;
    let provider = wire.provider(&fake, config);
    let first = run(provider.as_ref(), vec![UserMessage::text("think").into()]).await;
    run(
        provider.as_ref(),
        vec![
            UserMessage::text("think").into(),
            Message::Assistant(first.clone()),
            UserMessage::text("again").into(),
        ],
    )
    .await;
    (first, fake.requests().remove(1).body)
}

#[tokio::test]
async fn anthropic_thinking_and_its_signature_go_back_as_they_came() {
    let stream = r#"
event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","usage":{"input_tokens":10,"output_tokens":1}}}
event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}
event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me see."}}
event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBsig"}}
event: content_block_stop
data: {"type":"content_block_stop","index":0}
event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"opaque-blob"}}
event: content_block_stop
data: {"type":"content_block_stop","index":1}
event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}
event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Done."}}
event: content_block_stop
data: {"type":"content_block_stop","index":2}
event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}
event: message_stop
data: {"type":"message_stop"}
"#;
    let (first, second) = replayed(
        Wire::Anthropic,
        stream,
        reasoning("claude-sonnet-4-5", High),
    )
    .await;
    assert_eq!(
        first.content[0],
        AssistantContent::Thinking {
            thinking: "Let me see.".into(),
            thinking_signature: Some("EqQBsig".into()),
            redacted: None
        }
    );
    assert_eq!(
        second["messages"][1]["content"],
        json!([
            {"type": "thinking", "thinking": "Let me see.", "signature": "EqQBsig"},
            {"type": "redacted_thinking", "data": "opaque-blob"},
            {"type": "text", "text": "Done."}
        ])
    );
}

#[tokio::test]
async fn responses_reasoning_items_and_message_ids_go_back_whole() {
    let reasoning_item = r#"{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Plan."}],"encrypted_content":"gAAAA-enc"}"#;
    let stream = format!(
        r#"
event: response.created
data: {{"type":"response.created","response":{{"id":"resp_1","status":"in_progress","output":[]}},"sequence_number":0}}
event: response.output_item.added
data: {{"type":"response.output_item.added","output_index":0,"item":{{"id":"rs_1","type":"reasoning","summary":[]}},"sequence_number":1}}
event: response.reasoning_summary_text.delta
data: {{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Plan.","sequence_number":2}}
event: response.output_item.done
data: {{"type":"response.output_item.done","output_index":0,"item":{reasoning_item},"sequence_number":3}}
event: response.output_text.delta
data: {{"type":"response.output_text.delta","item_id":"msg_9","output_index":1,"content_index":0,"delta":"Done.","sequence_number":4}}
event: response.output_item.done
data: {{"type":"response.output_item.done","output_index":1,"item":{{"id":"msg_9","type":"message","role":"assistant","status":"completed","content":[]}},"sequence_number":5}}
event: response.completed
data: {{"type":"response.completed","response":{{"id":"resp_1","status":"completed","output":[]}},"sequence_number":6}}
"#
    );
    let (first, second) = replayed(Wire::Responses, &stream, reasoning("gpt-5.1", High)).await;
    assert!(
        matches!(&first.content[0], AssistantContent::Thinking { thinking, .. } if thinking == "Plan.")
    );
    let input = &second["input"];
    assert_eq!(
        input[1],
        serde_json::from_str::<Value>(reasoning_item).unwrap()
    );
    assert_eq!(
        input[2],
        json!({"type": "message", "role": "assistant", "status": "completed", "id": "msg_9",
               "content": [{"type": "output_text", "text": "Done.", "annotations": []}]})
    );
}

#[tokio::test]
async fn gemini_thoughts_and_their_signatures_go_back_to_the_same_model() {
    let stream = r#"
data: {"candidates": [{"content": {"parts": [{"text": "Pondering.", "thought": true, "thoughtSignature": "c2lnbmF0dXJl"}],"role": "model"},"index": 0}]}
data: {"candidates": [{"content": {"parts": [{"text": "Done.", "thoughtSignature": "dGV4dHNpZw=="}],"role": "model"},"finishReason": "STOP","index": 0}]}
"#;
    let (_, second) = replayed(Wire::Gemini, stream, reasoning("gemini-2.5-flash", High)).await;
    assert_eq!(
        second["contents"][1]["parts"],
        json!([
            {"thought": true, "text": "Pondering.", "thoughtSignature": "c2lnbmF0dXJl"},
            {"text": "Done.", "thoughtSignature": "dGV4dHNpZw=="}
        ])
    );
}

#[tokio::test]
async fn chat_reasoning_goes_back_in_the_field_it_came_in() {
    let stream = r#"
data: {"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Hmm. ","reasoning":"Hmm. "}}]}
data: {"id":"c1","choices":[{"index":0,"delta":{"reasoning_content":"Yes."}}]}
data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Done."},"finish_reason":"stop"}]}
data: [DONE]
"#;
    let (first, second) = replayed(Wire::Chat, stream, reasoning("qwq", High)).await;
    // The same text sent in two fields is read once.
    assert!(
        matches!(&first.content[0], AssistantContent::Thinking { thinking, .. } if thinking == "Hmm. Yes.")
    );
    assert_eq!(
        second["messages"][2],
        json!({"role": "assistant", "content": "Done.", "reasoning_content": "Hmm. Yes."})
    );
    // Where the server wants thinking as text, it goes as text.
    let as_text = reasoning("qwq", High).with_compat(ModelCompat {
        requires_thinking_as_text: Some(true),
        ..ModelCompat::default()
    });
    let (_, second) = replayed(Wire::Chat, stream, as_text).await;
    assert_eq!(
        second["messages"][2]["content"],
        json!([{"type": "text", "text": "Hmm. Yes."}, {"type": "text", "text": "Done."}])
    );
}
