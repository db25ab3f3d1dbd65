//! The HTTP side every wire shares: one client, a POST that retries what the official SDKs
//! retry (bounded, honouring `retry-after`), provider error bodies turned into one readable
//! line, and the response body read as server-sent events (each event bounded in size).

use std::time::Duration;

use futures::{Stream, StreamExt};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tokio_util::bytes::Bytes;
use tokio_util::sync::CancellationToken;

use crate::ProviderError;
use crate::sse::Decoder;

/// How failed requests are retried: 408, 409, 429 and 5xx answers and connection failures, as
/// the OpenAI and Anthropic SDKs do (a 429 that says the quota is spent is not retried).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (the SDKs' default is 2).
    pub max_retries: u32,
    /// The first backoff when the server gives no `retry-after`; doubled each retry.
    pub initial_delay: Duration,
    /// No wait is longer than this; a server asking for more is not retried.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 2,
            initial_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(60),
        }
    }
}

/// The HTTP client all providers share (connection pool, TLS by rustls).
pub(crate) fn client(timeout: Duration) -> Result<reqwest::Client, ProviderError> {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(30))
        .read_timeout(timeout)
        .build()
        .map_err(ProviderError::Client)
}

/// One request's target: URL, headers (with the key), body.
pub(crate) struct Post {
    pub(crate) url: String,
    pub(crate) headers: HeaderMap,
    /// The JSON body, written once: every attempt sends the same bytes (shared, not copied),
    /// and the `Value` it was written from is gone before the answer streams.
    pub(crate) body: Bytes,
}

impl Post {
    /// A request of `body` to `url`; `Err` when the body cannot be written.
    pub(crate) fn new(url: String, body: Value) -> Result<Self, String> {
        Ok(Self {
            url,
            headers: HeaderMap::new(),
            body: json_bytes(&body)?,
        })
    }

    /// Adds a header; a value that cannot be a header (a key with a newline) is a clear error
    /// that does not repeat the value.
    pub(crate) fn header(mut self, name: &'static str, value: &str) -> Result<Self, String> {
        let value =
            HeaderValue::from_str(value).map_err(|_| format!("the {name} header is not valid"))?;
        self.headers.insert(HeaderName::from_static(name), value);
        Ok(self)
    }

    /// Adds a header whose value is a credential (never shown in a `Debug` print).
    pub(crate) fn sensitive_header(
        mut self,
        name: &'static str,
        value: &str,
    ) -> Result<Self, String> {
        let mut value =
            HeaderValue::from_str(value).map_err(|_| format!("the {name} header is not valid"))?;
        value.set_sensitive(true);
        self.headers.insert(HeaderName::from_static(name), value);
        Ok(self)
    }

    /// Adds the configured extra headers, each replacing one of the same name (a custom
    /// `authorization` wins over the key's). A bad name or value is an error naming the
    /// header, never repeating its value.
    pub(crate) fn extra_headers(mut self, headers: &[(String, String)]) -> Result<Self, String> {
        for (name, value) in headers {
            let header = HeaderName::from_bytes(name.trim().as_bytes())
                .map_err(|_| format!("the header name {name:?} is not valid"))?;
            let mut value = HeaderValue::from_str(value)
                .map_err(|_| format!("the value of the {name} header is not valid"))?;
            value.set_sensitive(true);
            self.headers.insert(header, value);
        }
        Ok(self)
    }

    /// Adds the API key's header when there is a key (a local server needs none).
    pub(crate) fn key_header(
        self,
        name: &'static str,
        key: Option<&str>,
        shape: impl Fn(&str) -> String,
    ) -> Result<Self, String> {
        match key {
            Some(key) => self.header(name, &shape(key)),
            None => Ok(self),
        }
    }
}

/// Sends `post`, retrying as `policy` says, until a 2xx answer (returned) or a final failure
/// (the provider's message). Cancellation stops at once.
pub(crate) async fn send(
    client: &reqwest::Client,
    post: &Post,
    policy: RetryPolicy,
    signal: &CancellationToken,
) -> Result<reqwest::Response, Failure> {
    let mut attempt = 0;
    loop {
        let sent = client
            .post(&post.url)
            .headers(post.headers.clone())
            .header("content-type", "application/json")
            .body(post.body.clone())
            .send();
        let outcome = tokio::select! {
            outcome = sent => outcome,
            () = signal.cancelled() => return Err(Failure::Aborted),
        };
        let (retry, delay, failure) = match outcome {
            Ok(response) if response.status().is_success() => return Ok(response),
            Ok(response) => {
                let status = response.status().as_u16();
                let hint = retry_after(response.headers());
                let should = response
                    .headers()
                    .get("x-should-retry")
                    .and_then(|v| v.to_str().ok())
                    .map(|v| v == "true");
                let text = tokio::select! {
                    text = response.text() => text.unwrap_or_default(),
                    () = signal.cancelled() => return Err(Failure::Aborted),
                };
                let message = error_message(status, &text);
                let retryable = should.unwrap_or_else(|| {
                    matches!(status, 408 | 409 | 429 | 500..=599)
                        && !text.contains("insufficient_quota")
                });
                (retryable, hint, message)
            }
            Err(error) => {
                let retryable = error.is_connect() || error.is_timeout() || error.is_request();
                (
                    retryable,
                    None,
                    format!("the request failed: {}", describe(error)),
                )
            }
        };
        if !retry || attempt >= policy.max_retries {
            return Err(Failure::Error(failure));
        }
        let backoff = policy
            .initial_delay
            .saturating_mul(2u32.saturating_pow(attempt));
        let wait = delay.unwrap_or(backoff);
        if wait > policy.max_delay {
            return Err(Failure::Error(failure));
        }
        attempt += 1;
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = signal.cancelled() => return Err(Failure::Aborted),
        }
    }
}

/// `value` as JSON text in a buffer of exactly its size: a transcript of long tool calls is
/// hundreds of MiB, and a growing `Vec` would hold up to twice that while it doubles.
fn json_bytes(value: &Value) -> Result<Bytes, String> {
    let mut bytes = Vec::with_capacity(pi_ai::json_len(value));
    serde_json::to_writer(&mut bytes, value)
        .map_err(|error| format!("the request could not be written: {error}"))?;
    Ok(Bytes::from(bytes))
}

/// Why a request gave no stream.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The caller cancelled.
    Aborted,
    /// The request failed for good; the text says why.
    Error(String),
}

/// How long the server asks us to wait: `retry-after-ms`, then `retry-after` in seconds.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let read = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok();
    if let Some(ms) = read("retry-after-ms").filter(|ms| ms.is_finite() && *ms >= 0.0) {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    read("retry-after")
        .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
        .map(Duration::from_secs_f64)
}

/// A provider's error body as one line: `429: Rate limit reached …` (OpenAI's, Anthropic's and
/// Gemini's shapes all carry `error.message`).
pub(crate) fn error_message(status: u16, body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|value| {
        let Some(error) = value.get("error") else {
            // AWS services answer `{"message": ...}` at the top level.
            return value
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned);
        };
        error
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| error.as_str().map(str::to_owned))
    });
    let detail = message.unwrap_or_else(|| {
        let trimmed: String = body.trim().chars().take(300).collect();
        if trimmed.is_empty() {
            "no details".to_owned()
        } else {
            trimmed
        }
    });
    format!("{status}: {detail}")
}

/// A reqwest error without the URL (which may carry a `?key=`), with its sources.
fn describe(error: reqwest::Error) -> String {
    with_sources(&error.without_url())
}

/// An error's text followed by each of its sources' (layers that repeat the words of the one
/// above them are said once).
fn with_sources(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut last = text.clone();
    let mut source = error.source();
    while let Some(cause) = source {
        let words = cause.to_string();
        if words != last {
            text.push_str(": ");
            text.push_str(&words);
        }
        last = words;
        source = cause.source();
    }
    text
}

/// The body of a streaming answer as SSE events, each `(event name, data)`; ends with the body,
/// or with the first failure (after which nothing more is read). No event may hold more than
/// `max_event_bytes`: a line or an event that never ends is refused there, not buffered.
/// Comments (`: keep-alive`) and events without data are not events here.
pub(crate) fn events(
    response: reqwest::Response,
    max_event_bytes: usize,
) -> impl Stream<Item = Result<(Option<String>, String), String>> {
    async_stream::stream! {
        let mut decoder = Decoder::new(max_event_bytes);
        let mut ready = Vec::new();
        let body = response.bytes_stream();
        futures::pin_mut!(body);
        while let Some(chunk) = body.next().await {
            let decoded = match chunk {
                Ok(bytes) => decoder.push(&bytes, &mut ready),
                Err(error) => {
                    yield Err(format!(
                        "the connection failed mid-stream: {}",
                        describe(error)
                    ));
                    return;
                }
            };
            for event in ready.drain(..) {
                yield Ok((event.name, event.data));
            }
            if let Err(error) = decoded {
                yield Err(error.to_string());
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_errors_read_as_one_line() {
        assert_eq!(
            error_message(
                401,
                r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#
            ),
            "401: invalid x-api-key"
        );
        assert_eq!(
            error_message(
                429,
                r#"{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED"}}"#
            ),
            "429: You exceeded your current quota."
        );
        assert_eq!(error_message(502, "Bad Gateway"), "502: Bad Gateway");
        assert_eq!(
            error_message(
                403,
                r#"{"message":"The security token included in the request is invalid."}"#
            ),
            "403: The security token included in the request is invalid."
        );
        assert_eq!(error_message(500, ""), "500: no details");
    }

    #[test]
    fn retry_after_reads_milliseconds_then_seconds() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("1"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(1)));
        headers.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(250)));
    }
}
