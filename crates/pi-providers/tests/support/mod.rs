//! A local fake of a provider's HTTP API: answers each request with the next scripted reply
//! (status, headers, body written in small pieces, optionally cut off) and records every
//! request (path, headers, JSON body).
#![allow(
    dead_code,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use pi_tool::schema::DynamicSchema;
use pi_tool::{FnTool, ToolOutput, ToolRegistry};
use serde_json::{Value, json};

/// One scripted answer.
#[derive(Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
    /// Stop sending after this many bytes and drop the connection.
    pub cut_after: Option<usize>,
    /// Stop sending after this many bytes and keep the connection open, silent.
    pub stall_after: Option<usize>,
}

impl Reply {
    /// An SSE stream of `body`.
    pub fn sse(body: impl Into<String>) -> Self {
        Self {
            status: 200,
            headers: vec![("content-type", "text/event-stream".into())],
            body: body.into(),
            cut_after: None,
            stall_after: None,
        }
    }

    /// An error answer with a JSON body.
    pub fn error(status: u16, body: impl Into<String>) -> Self {
        Self {
            status,
            headers: vec![("content-type", "application/json".into())],
            body: body.into(),
            cut_after: None,
            stall_after: None,
        }
    }

    pub fn with_header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.to_owned()));
        self
    }
}

/// What a request carried.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub path: String,
    pub headers: HeaderMap,
    pub body: Value,
    /// The body as text (a form, for the token endpoints).
    pub raw: String,
}

#[derive(Clone, Default)]
struct Shared {
    replies: Arc<Mutex<VecDeque<Reply>>>,
    recorded: Arc<Mutex<Vec<Recorded>>>,
}

pub struct Fake {
    pub address: SocketAddr,
    shared: Shared,
}

impl Fake {
    pub async fn start(replies: Vec<Reply>) -> Self {
        let shared = Shared {
            replies: Arc::new(Mutex::new(replies.into())),
            recorded: Arc::default(),
        };
        let app = axum::Router::new()
            .fallback(answer)
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { address, shared }
    }

    pub fn url(&self, suffix: &str) -> String {
        format!("http://{}{suffix}", self.address)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.recorded.lock().unwrap().clone()
    }
}

async fn answer(State(shared): State<Shared>, request: Request) -> Response {
    let path = request
        .uri()
        .path_and_query()
        .map(|p| p.to_string())
        .unwrap_or_default();
    let headers = request.headers().clone();
    let bytes = axum::body::to_bytes(request.into_body(), usize::MAX)
        .await
        .unwrap();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    shared.recorded.lock().unwrap().push(Recorded {
        path,
        headers,
        body,
        raw: String::from_utf8_lossy(&bytes).into_owned(),
    });
    let reply = shared
        .replies
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or_else(|| Reply::error(500, r#"{"error":{"message":"no reply scripted"}}"#));
    let mut builder = Response::builder().status(StatusCode::from_u16(reply.status).unwrap());
    for (name, value) in &reply.headers {
        builder = builder.header(*name, value);
    }
    let text = reply.body.clone();
    let cut = reply.cut_after;
    let stall = reply.stall_after;
    // Small pieces, as a real server flushes them: fragments split mid-token.
    let stream = async_stream::stream! {
        let bytes = text.into_bytes();
        let end = cut.or(stall).unwrap_or(bytes.len()).min(bytes.len());
        for piece in bytes[..end].chunks(37) {
            tokio::time::sleep(Duration::from_millis(1)).await;
            yield Ok::<_, std::io::Error>(piece.to_vec());
        }
        if cut.is_some() {
            yield Err(std::io::Error::other("connection dropped"));
        }
        if stall.is_some() {
            std::future::pending::<()>().await;
        }
    };
    builder.body(Body::from_stream(stream)).unwrap()
}

/// SSE text from the reference's transcript convention (events separated by blank lines).
pub fn sse(lines: &str) -> String {
    let mut out = String::new();
    for line in lines.lines().filter(|line| !line.trim().is_empty()) {
        out.push_str(line);
        out.push('\n');
        if line.starts_with("data:") {
            out.push('\n');
        }
    }
    out
}

/// The reference scenario's two tools.
pub fn travel_tools() -> ToolRegistry {
    let weather = FnTool::new(
        "get_weather",
        "Current weather for a city",
        DynamicSchema::new(json!({"type": "object", "properties": {
            "city": {"type": "string", "description": "City name"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
            "required": ["city", "unit"], "additionalProperties": false}))
        .unwrap(),
        |arguments: Value, _cx| async move {
            Ok(ToolOutput::text(format!(
                "{{\"city\":{},\"temp_c\":21}}",
                arguments["city"]
            )))
        },
    );
    let time = FnTool::new(
        "get_time",
        "Current local time in a time zone",
        DynamicSchema::new(json!({"type": "object", "properties": {
            "timezone": {"type": "string", "description": "IANA zone, e.g. Europe/Paris"}},
            "required": ["timezone"], "additionalProperties": false}))
        .unwrap(),
        |_arguments: Value, _cx| async move { Ok(ToolOutput::text("14:05")) },
    );
    ToolRegistry::new([
        pi_tool::RegisteredTool::new(weather),
        pi_tool::RegisteredTool::new(time),
    ])
    .unwrap()
}
