//! The HTTP exporters' client: reqwest's blocking client, as the exporter would build it, but
//! following no redirects.
//!
//! reqwest follows up to ten redirects by default, to any host: a collector (or anyone on a
//! plain `http://` path to it) answering `307 Location: http://elsewhere/` would have every
//! batch, with whatever content capture put in the spans, sent elsewhere. An OTLP collector
//! has no reason to redirect, so a redirect is an export that failed: the answer is handed to
//! the exporter as it came (it reports the status), and the first one is said on stderr.

use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};

use super::ExportError;

/// reqwest's blocking client without redirects, warning once when the collector answers one.
#[derive(Debug)]
pub(super) struct NoRedirects {
    inner: reqwest::blocking::Client,
    endpoint: String,
    /// Shared with the other signal's client and the span exporter's warning: one line in all.
    warned: Arc<AtomicBool>,
}

impl NoRedirects {
    /// A client whose requests take at most `timeout`, exporting to `endpoint` (named in the
    /// warning), sharing `warned` with the pipeline's other warnings.
    pub(super) fn new(
        timeout: Duration,
        endpoint: &str,
        warned: Arc<AtomicBool>,
    ) -> Result<Self, ExportError> {
        // The blocking client starts a runtime of its own, which must not be made on a thread
        // that is inside one: built on a thread of its own, as the exporter builds its default.
        let inner = std::thread::Builder::new()
            .name("pi-otlp-client".to_owned())
            .spawn(move || {
                reqwest::blocking::Client::builder()
                    .timeout(timeout)
                    .redirect(reqwest::redirect::Policy::none())
                    .build()
            })
            .map_err(ExportError::Runtime)?
            .join()
            .map_err(|_| ExportError::Client("building it panicked".to_owned()))?
            .map_err(|error| ExportError::Client(error.to_string()))?;
        Ok(Self {
            inner,
            endpoint: endpoint.to_owned(),
            warned,
        })
    }
}

#[async_trait::async_trait]
impl HttpClient for NoRedirects {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let response = self.inner.send_bytes(request).await?;
        if response.status().is_redirection() && !self.warned.swap(true, Ordering::Relaxed) {
            // `to_str` takes visible ASCII only: nothing in the header can drive the terminal.
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|value| value.to_str().ok())
                .unwrap_or("no location");
            // Not `eprintln!`, which panics when stderr is a closed pipe.
            let _ = writeln!(
                std::io::stderr(),
                "pi-tool: warning: the OTLP collector at {} answered a redirect ({}, to {location}); \
                 redirects are not followed, so nothing was exported (the run goes on)",
                self.endpoint,
                response.status().as_u16(),
            );
        }
        Ok(response)
    }
}
