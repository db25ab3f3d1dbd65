//! OpenTelemetry GenAI telemetry for the agent: the conventions' names, the spans the loop and
//! the MCP bridge open (through `tracing`, so any subscriber sees them), the conventions'
//! metrics, and (feature `export`) the OTLP pipeline the CLI turns on.
//!
//! Why a crate of its own: the loop and the MCP bridge both record spans with the same names,
//! so the names live once, pinned and tested against the conventions' registry; and the
//! exporter (OpenTelemetry's SDK, OTLP over HTTP and gRPC) sits behind the `export` feature,
//! which only the binary turns on, so a library user gets plain `tracing` spans and no
//! exporter.
//!
//! Spans carry their OpenTelemetry name in `otel.name` and their kind in `otel.kind`, which the
//! `tracing-opentelemetry` bridge reads. With no subscriber interested in them they are
//! disabled and cost a callsite check: names are formatted only for enabled spans, and metrics
//! are recorded only once [`metrics::install`] has been called.

pub mod bridge;
mod error_type;
pub mod metrics;
pub mod names;
pub mod spans;

#[cfg(feature = "context")]
pub mod context;
#[cfg(feature = "export")]
pub mod export;

pub use error_type::ErrorType;

/// Whether message contents, tool arguments and results go on spans: only when
/// `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` is `true` (read once per process).
pub fn capture_content() -> bool {
    static CAPTURE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CAPTURE.get_or_init(|| {
        std::env::var(names::CAPTURE_CONTENT_ENV)
            .is_ok_and(|value| value.trim().eq_ignore_ascii_case("true"))
    })
}
