//! The loop's OpenTelemetry spans, through the `tracing-opentelemetry` bridge into the SDK's
//! in-memory exporter: names, kinds, parents, the call ids and the error types of a batch.
#![allow(clippy::unwrap_used)]

mod support;

use std::time::Duration;

use opentelemetry::trace::{SpanKind, TracerProvider as _};
use std::sync::Arc;

use opentelemetry::{Array, KeyValue, Value};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use pi_agent::{Agent, AgentConfig, BeforeToolCall};
use pi_ai::{EventStream, FauxProvider, ModelInfo, Provider, Request, ServerAddress};
use serde_json::json;
use support::{call, faux, tools};
use tokio_util::sync::CancellationToken;
use tracing_subscriber::layer::SubscriberExt;

/// A scripted model that says it is served at `models.example:8443`, as a network provider
/// does, for `server.address` and `server.port`.
struct Served(Arc<FauxProvider>, ServerAddress);

fn served() -> ServerAddress {
    ServerAddress {
        host: "models.example".into(),
        port: 8443,
    }
}

impl Provider for Served {
    fn model(&self) -> ModelInfo {
        self.0.model()
    }

    fn server(&self) -> Option<&ServerAddress> {
        Some(&self.1)
    }

    fn stream(&self, request: Request, signal: CancellationToken) -> EventStream {
        self.0.stream(request, signal)
    }
}

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a Value> {
    span.attributes
        .iter()
        .find(|KeyValue { key: k, .. }| k.as_str() == key)
        .map(|kv| &kv.value)
}

fn text(span: &SpanData, key: &str) -> Option<String> {
    attribute(span, key).map(Value::to_string)
}

/// Runs `agent` on a current-thread runtime with the bridge installed; the finished spans.
fn traced(agent: &Agent, prompt: &str) -> Vec<SpanData> {
    traced_work(|runtime| {
        runtime.block_on(agent.prompt(prompt));
    })
}

/// Runs `work` with the bridge installed as the default subscriber; the finished spans.
fn traced_work(work: impl FnOnce(&tokio::runtime::Runtime)) -> Vec<SpanData> {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test")));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // Current-thread: the batch's tasks run on this thread, under this default subscriber.
    tracing::subscriber::with_default(subscriber, || work(&runtime));
    provider.force_flush().unwrap();
    exporter.get_finished_spans().unwrap()
}

#[test]
fn a_run_is_an_invoke_agent_span_with_chat_and_execute_tool_children() {
    let model = faux(json!([
        {"content": [
            call("ok", "work", json!({"label": "a"})),
            call("bad", "work", json!({"label": "b", "outcome": "error"})),
            call("unknown", "missing", json!({})),
            call("invalid", "work", json!({"outcome": "ok"})),
            call("slow", "work", json!({"label": "c", "ms": 5000})),
            call("blocked", "echo", json!({"value": "no"})),
            call("boom", "work", json!({"label": "d", "outcome": "panic"})),
        ], "responseId": "resp-1"},
        {"content": [{"type": "text", "text": "done"}]}
    ]));
    let model = Arc::new(Served(model, served()));
    let config = AgentConfig::new(model, tools())
        .with_tool_timeout_for("work", Duration::from_millis(200))
        .with_before_tool_call(|context| {
            Box::pin(async move {
                if context.call.name == "echo" {
                    BeforeToolCall::Block { reason: None }
                } else {
                    BeforeToolCall::Allow
                }
            })
        })
        .with_agent_name("tester")
        .with_conversation_id("session-1");
    let spans = traced(&Agent::new(config), "go");

    let runs: Vec<_> = spans
        .iter()
        .filter(|s| s.name == "invoke_agent tester")
        .collect();
    assert_eq!(
        runs.len(),
        1,
        "{:?}",
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    let run = runs[0];
    assert_eq!(run.span_kind, SpanKind::Internal);
    assert_eq!(
        text(run, "gen_ai.conversation.id").as_deref(),
        Some("session-1")
    );
    assert_eq!(
        text(run, "gen_ai.operation.name").as_deref(),
        Some("invoke_agent")
    );

    let chats: Vec<_> = spans.iter().filter(|s| s.name == "chat faux").collect();
    assert_eq!(chats.len(), 2);
    for chat in &chats {
        assert_eq!(chat.span_kind, SpanKind::Client);
        assert_eq!(chat.parent_span_id, run.span_context.span_id());
        assert_eq!(chat.span_context.trace_id(), run.span_context.trace_id());
        assert_eq!(text(chat, "gen_ai.request.model").as_deref(), Some("faux"));
        assert!(attribute(chat, "gen_ai.usage.input_tokens").is_some());
    }
    for chat in &chats {
        assert_eq!(
            text(chat, "server.address").as_deref(),
            Some("models.example")
        );
        assert_eq!(
            attribute(chat, "server.port"),
            Some(&Value::I64(8443)),
            "an integer port"
        );
    }
    // The conventions' type: an array of strings, one reason per choice (we ask for one).
    let finish: Vec<_> = chats
        .iter()
        .filter_map(|chat| attribute(chat, "gen_ai.response.finish_reasons"))
        .collect();
    assert_eq!(
        finish,
        [
            &Value::Array(Array::String(vec!["tool_call".into()])),
            &Value::Array(Array::String(vec!["stop".into()])),
        ]
    );
    // Set once: the bridge's array, not a second string copy.
    for chat in &chats {
        let count = chat
            .attributes
            .iter()
            .filter(|kv| kv.key.as_str() == "gen_ai.response.finish_reasons")
            .count();
        assert_eq!(count, 1);
    }
    // The id the provider gave the response; none when it gave none.
    let ids: Vec<_> = chats
        .iter()
        .map(|chat| text(chat, "gen_ai.response.id"))
        .collect();
    assert_eq!(ids, [Some("resp-1".to_owned()), None]);

    let expected = [
        ("ok", "execute_tool work", None),
        ("bad", "execute_tool work", Some("tool_error")),
        ("unknown", "execute_tool missing", Some("unknown_tool")),
        ("invalid", "execute_tool work", Some("invalid_arguments")),
        ("slow", "execute_tool work", Some("timeout")),
        ("blocked", "execute_tool echo", Some("denied")),
        ("boom", "execute_tool work", Some("panic")),
    ];
    for (id, name, error) in expected {
        let calls: Vec<_> = spans
            .iter()
            .filter(|s| text(s, "gen_ai.tool.call.id").as_deref() == Some(id))
            .collect();
        assert_eq!(calls.len(), 1, "one span for call {id}");
        let span = calls[0];
        assert_eq!(span.name, name);
        assert_eq!(span.span_kind, SpanKind::Internal);
        assert_eq!(span.parent_span_id, run.span_context.span_id(), "{id}");
        assert_eq!(text(span, "error.type").as_deref(), error, "{id}");
        // Contents are opt-in and the variable is not set here.
        assert!(attribute(span, "gen_ai.tool.call.arguments").is_none());
    }
}

#[test]
fn without_a_subscriber_the_run_is_unchanged() {
    let model = faux(json!([
        {"content": [call("ok", "echo", json!({"value": "Pi"}))]},
        {"content": [{"type": "text", "text": "done"}]}
    ]));
    let agent = Agent::new(AgentConfig::new(model, tools()));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let run = runtime.block_on(agent.prompt("go"));
    assert_eq!(run.messages.len(), 4);
}

/// A compaction is a `pi_tool.compaction` span (no GenAI convention names it yet) with the
/// model that wrote the summary.
#[test]
fn a_compaction_is_its_own_span() {
    use pi_agent::compaction::{CompactionSettings, compact_session};
    use pi_ai::{
        AssistantContent, AssistantMessage, FauxProvider, Message, ModelInfo, UserMessage,
    };
    use pi_session::Session;
    use tokio_util::sync::CancellationToken;

    let model = ModelInfo {
        api: "faux".into(),
        provider: "faux".into(),
        model: "m".into(),
    };
    let mut session = Session::in_memory(std::path::Path::new("/work"));
    for turn in 0..4 {
        let prompt = UserMessage::text(format!("step {turn}: {}", "x".repeat(400)));
        session.append_message(&prompt.into()).unwrap();
        let answer = AssistantMessage::new(&model, vec![AssistantContent::text("done")]);
        session.append_message(&Message::Assistant(answer)).unwrap();
    }
    let summary = [
        "## Goal",
        "## Constraints & Preferences",
        "## Progress",
        "## Key Decisions",
        "## Next Steps",
        "## Critical Context",
    ]
    .join("\n- noted\n");
    let writer = FauxProvider::new([AssistantMessage::new(
        &model,
        vec![AssistantContent::text(summary)],
    )]);
    let settings = CompactionSettings {
        keep_recent_tokens: 100,
        ..CompactionSettings::default()
    };

    let spans = traced_work(|runtime| {
        runtime
            .block_on(compact_session(
                &mut session,
                &writer,
                &settings,
                None,
                &CancellationToken::new(),
            ))
            .unwrap();
    });
    let compaction = spans
        .iter()
        .find(|span| span.name == "pi_tool.compaction")
        .unwrap_or_else(|| panic!("no compaction span in {spans:#?}"));
    assert_eq!(compaction.span_kind, SpanKind::Internal);
    let writer_model = pi_ai::Provider::model(&writer).model.to_string();
    assert_eq!(text(compaction, "gen_ai.request.model"), Some(writer_model));
}
