//! The `tracing-opentelemetry` layer as we configure it: the export pipeline installs it, and
//! so can a library user who wants our spans in their own tracer provider.
//!
//! The bridge's defaults add, to every span, its `tracing` target, its source location (three
//! attributes), its thread (two, the name an owned string), and busy/idle times (two attributes and a clock read
//! on every poll of an instrumented future). The GenAI conventions ask for none of them, and
//! together they were the larger part of a traced tool call's cost
//! (`crates/pi-bench/examples/traced_loop_cost.rs`), so they are off.

use opentelemetry::trace::Tracer;
use tracing::Subscriber;
use tracing_opentelemetry::OpenTelemetryLayer;
use tracing_subscriber::registry::LookupSpan;

/// The bridge from our `tracing` spans to `tracer`, without target, location, thread and
/// busy/idle attributes.
pub fn layer<S, T>(tracer: T) -> OpenTelemetryLayer<S, T>
where
    S: Subscriber + for<'span> LookupSpan<'span>,
    T: Tracer + 'static,
    T::Span: Send + Sync,
{
    tracing_opentelemetry::layer()
        .with_target(false)
        .with_location(false)
        .with_threads(false)
        .with_tracked_inactivity(false)
        .with_tracer(tracer)
}
