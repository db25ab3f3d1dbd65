//! Any bytes as a provider's streamed answer, on the product path: a local HTTP server answers
//! with them as `text/event-stream`, and each wire's provider reads them (SSE parsing, the
//! wire's event parser, assembly, the driver). The first byte picks the wire. Whatever arrives,
//! the stream ends with exactly one final event, last.
#![no_main]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};

use futures::StreamExt;
use libfuzzer_sys::fuzz_target;
use pi_ai::{AssistantMessageEvent, Provider, Request, UserMessage};
use pi_providers::{Anthropic, Gemini, OpenAiChat, OpenAiResponses, ProviderConfig, RetryPolicy};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

struct Bench {
    runtime: tokio::runtime::Runtime,
    body: Arc<Mutex<Vec<u8>>>,
    /// One provider per wire, made once (building an HTTP client loads the TLS roots).
    providers: Vec<Box<dyn Provider>>,
}

/// One runtime and one server for the whole run; each input replaces the body it answers with.
fn bench() -> &'static Bench {
    static BENCH: OnceLock<Bench> = OnceLock::new();
    BENCH.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let body = Arc::new(Mutex::new(Vec::new()));
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let address = listener.local_addr().unwrap();
        let served = Arc::clone(&body);
        runtime.spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else { continue };
                let body = served.lock().unwrap().clone();
                tokio::spawn(async move {
                    // Read the request head and body (small: our own request), then answer.
                    let mut request = vec![0; 1 << 16];
                    let _ = socket.read(&mut request).await;
                    let head = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = socket.write_all(head.as_bytes()).await;
                    let _ = socket.write_all(&body).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        let providers = providers(address);
        Bench { runtime, body, providers }
    })
}

fn providers(address: SocketAddr) -> Vec<Box<dyn Provider>> {
    let base = format!("http://{address}");
    let retry = RetryPolicy { max_retries: 0, ..RetryPolicy::default() };
    let config = |base: String| ProviderConfig::new("m").with_base_url(base).with_retry(retry);
    vec![
        Box::new(OpenAiChat::new(config(format!("{base}/v1"))).unwrap()),
        Box::new(OpenAiResponses::new(config(format!("{base}/v1"))).unwrap()),
        Box::new(Anthropic::new(config(base.clone())).unwrap()),
        Box::new(Gemini::new(config(base)).unwrap()),
    ]
}

fuzz_target!(|data: &[u8]| {
    let Some((&wire, body)) = data.split_first() else { return };
    let bench = bench();
    *bench.body.lock().unwrap() = body.to_vec();
    let provider = &bench.providers[usize::from(wire % 4)];
    let request = Request {
        system_prompt: None,
        messages: vec![UserMessage::text("hi").into()].into(),
        tools: Vec::new().into(),
    };
    let events: Vec<AssistantMessageEvent> = bench
        .runtime
        .block_on(provider.stream(request, CancellationToken::new()).collect());
    let finals = events
        .iter()
        .filter(|event| matches!(event, AssistantMessageEvent::Done { .. } | AssistantMessageEvent::Error { .. }))
        .count();
    assert_eq!(finals, 1, "{events:?}");
    assert!(matches!(
        events.last(),
        Some(AssistantMessageEvent::Done { .. } | AssistantMessageEvent::Error { .. })
    ));
});
