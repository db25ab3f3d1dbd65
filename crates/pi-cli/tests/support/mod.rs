//! What several of `pi-cli`'s behaviour tests share: a scripted HTTP server standing in for a
//! model's API (each test scripts the answers its wire sends).
// Each test binary uses only part of this module.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::Value;

pub(crate) mod pi_run;

/// One request the fake read: the path of its request line and its JSON body (`null` when
/// the body is not JSON).
#[derive(Debug, Clone)]
pub(crate) struct SeenRequest {
    pub(crate) path: String,
    /// Each header line as sent, `Name: value`.
    #[allow(dead_code)]
    pub(crate) headers: Vec<String>,
    pub(crate) body: Value,
}

/// Every request a fake received, in order.
pub(crate) type Seen = Arc<Mutex<Vec<SeenRequest>>>;

/// One scripted response: status line text (`200 OK`), content type and body.
pub(crate) struct Reply {
    pub(crate) status: &'static str,
    pub(crate) content_type: &'static str,
    pub(crate) body: String,
}

impl Reply {
    /// A `200 OK` event stream.
    pub(crate) fn sse(body: impl Into<String>) -> Self {
        Self {
            status: "200 OK",
            content_type: "text/event-stream",
            body: body.into(),
        }
    }

    /// A JSON body with `status`.
    pub(crate) fn json(status: &'static str, body: impl Into<String>) -> Self {
        Self {
            status,
            content_type: "application/json",
            body: body.into(),
        }
    }
}

/// Reads one request from `stream` (`None` when the peer went away first); gives the stream
/// back to answer on.
pub(crate) fn read_request(stream: TcpStream) -> Option<(SeenRequest, TcpStream)> {
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    let mut length = 0;
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 || header.trim().is_empty() {
            break;
        }
        headers.push(header.trim_end().to_owned());
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let path = request_line
        .split(' ')
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    Some((
        SeenRequest {
            path,
            headers,
            body,
        },
        reader.into_inner(),
    ))
}

/// Writes `reply` on `stream` and closes the connection.
pub(crate) fn respond(stream: &mut TcpStream, reply: &Reply) {
    let Reply {
        status,
        content_type,
        body,
    } = reply;
    // The client may have gone (a test that stops a run): nothing to answer then.
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// Serves each reply once, in order, on its own connection, recording every request; gives
/// `http://ADDRESS` (no trailing slash).
pub(crate) fn serve(replies: Vec<Reply>) -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let seen: Seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    std::thread::spawn(move || {
        for reply in replies {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let Some((request, mut stream)) = read_request(stream) else {
                continue;
            };
            record.lock().unwrap().push(request);
            respond(&mut stream, &reply);
        }
    });
    (format!("http://{address}"), seen)
}

/// Serves every request with the next reply of the first route whose path suffix its path
/// ends with (`404` once a route has none left, or for no route), recording every request;
/// gives `http://ADDRESS`. For programs whose number of requests to each path is known but
/// not their order (a token endpoint and a model API).
pub(crate) fn serve_routes(routes: Vec<(&'static str, Vec<Reply>)>) -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let seen: Seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let mut routes: Vec<(&str, std::collections::VecDeque<Reply>)> = routes
        .into_iter()
        .map(|(suffix, replies)| (suffix, replies.into()))
        .collect();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else {
                return;
            };
            let Some((request, mut stream)) = read_request(stream) else {
                continue;
            };
            let reply = routes
                .iter_mut()
                .find(|(suffix, _)| request.path.ends_with(suffix))
                .and_then(|(_, replies)| replies.pop_front())
                .unwrap_or_else(|| Reply::json("404 Not Found", r#"{"error":"no reply left"}"#));
            record.lock().unwrap().push(request);
            respond(&mut stream, &reply);
        }
    });
    (format!("http://{address}"), seen)
}

/// The JSON bodies of what a fake received.
pub(crate) fn bodies(seen: &Seen) -> Vec<Value> {
    seen.lock()
        .unwrap()
        .iter()
        .map(|request| request.body.clone())
        .collect()
}

/// Where `scripts/setup-pi.sh` installed upstream Pi (`PI_PEER_DIR` moves it).
#[allow(dead_code)]
pub(crate) fn pi_peer() -> std::path::PathBuf {
    std::env::var_os("PI_PEER_DIR").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.peers/pi"),
        std::path::PathBuf::from,
    )
}

/// A 1x1 PNG, for the tests that attach an image.
#[allow(dead_code)]
pub(crate) const PNG_1X1: [u8; 67] = [
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];
