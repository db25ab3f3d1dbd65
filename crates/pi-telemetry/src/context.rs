//! W3C trace context (`traceparent`, `tracestate`) out of a span and into one, so a trace
//! crosses the MCP bridge in the request's `_meta`. Works when the span is recorded by the
//! `tracing-opentelemetry` layer; otherwise there is no context to carry.

use std::collections::HashMap;

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The span's `traceparent` and `tracestate`, when it belongs to a trace.
pub fn outgoing(span: &Span) -> Option<(String, Option<String>)> {
    if span.is_disabled() {
        return None;
    }
    let mut carrier = HashMap::new();
    TraceContextPropagator::new().inject_context(&span.context(), &mut carrier);
    let parent = carrier.remove("traceparent")?;
    Some((parent, carrier.remove("tracestate")))
}

/// Makes the remote caller's span the parent of `span` (before it is first entered).
pub fn adopt(span: &Span, traceparent: &str, tracestate: Option<&str>) {
    if span.is_disabled() {
        return;
    }
    let mut carrier = HashMap::new();
    carrier.insert("traceparent".to_owned(), traceparent.to_owned());
    if let Some(state) = tracestate {
        carrier.insert("tracestate".to_owned(), state.to_owned());
    }
    let parent = TraceContextPropagator::new().extract(&carrier);
    // A malformed traceparent extracts an empty context: the span stays a root.
    let _ = span.set_parent(parent);
}
