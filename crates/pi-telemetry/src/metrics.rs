//! The conventions' metrics: `gen_ai.client.token.usage`, `gen_ai.client.operation.duration`
//! and `gen_ai.execute_tool.duration`, with the conventions' bucket boundaries.
//!
//! Nothing is recorded (and no clock is read) until [`install`] gives the instruments a meter:
//! the export setup does, and so can a library user with a meter provider of their own.

use std::sync::OnceLock;
use std::time::Instant;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Histogram, Meter};

use crate::{ErrorType, names};

struct Instruments {
    token_usage: Histogram<u64>,
    operation_duration: Histogram<f64>,
    tool_duration: Histogram<f64>,
}

static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();

/// Creates the instruments on `meter`; later calls keep the first meter.
pub fn install(meter: &Meter) {
    INSTRUMENTS.get_or_init(|| Instruments {
        token_usage: meter
            .u64_histogram(names::GEN_AI_CLIENT_TOKEN_USAGE)
            .with_unit("{token}")
            .with_description("Number of input and output tokens used.")
            .with_boundaries(names::TOKEN_USAGE_BUCKETS.to_vec())
            .build(),
        operation_duration: meter
            .f64_histogram(names::GEN_AI_CLIENT_OPERATION_DURATION)
            .with_unit("s")
            .with_description("GenAI operation duration.")
            .with_boundaries(names::DURATION_BUCKETS.to_vec())
            .build(),
        tool_duration: meter
            .f64_histogram(names::GEN_AI_EXECUTE_TOOL_DURATION)
            .with_unit("s")
            .with_description("Duration of tool execution.")
            .with_boundaries(names::DURATION_BUCKETS.to_vec())
            .build(),
    });
}

/// A start time when metrics are on, `None` (no clock read) when they are off.
pub fn start() -> Option<Instant> {
    INSTRUMENTS.get().map(|_| Instant::now())
}

/// Records one model request: its duration and its input and output tokens.
pub fn record_chat(
    started: Option<Instant>,
    provider: &str,
    model: &str,
    tokens: Option<(u64, u64)>,
    error: Option<ErrorType>,
) {
    let (Some(started), Some(instruments)) = (started, INSTRUMENTS.get()) else {
        return;
    };
    let mut attributes = vec![
        KeyValue::new(names::GEN_AI_OPERATION_NAME, "chat"),
        KeyValue::new(names::GEN_AI_PROVIDER_NAME, provider.to_owned()),
        KeyValue::new(names::GEN_AI_REQUEST_MODEL, model.to_owned()),
    ];
    if let Some((input, output)) = tokens {
        for (kind, count) in [("input", input), ("output", output)] {
            let mut with_type = attributes.clone();
            with_type.push(KeyValue::new(names::GEN_AI_TOKEN_TYPE, kind));
            instruments.token_usage.record(count, &with_type);
        }
    }
    if let Some(error) = error {
        attributes.push(KeyValue::new(names::ERROR_TYPE, error.as_str()));
    }
    instruments
        .operation_duration
        .record(started.elapsed().as_secs_f64(), &attributes);
}

/// Records one tool call's duration.
pub fn record_tool(started: Option<Instant>, tool_name: &str, error: Option<ErrorType>) {
    let (Some(started), Some(instruments)) = (started, INSTRUMENTS.get()) else {
        return;
    };
    let mut attributes = vec![
        KeyValue::new(names::GEN_AI_OPERATION_NAME, "execute_tool"),
        KeyValue::new(names::GEN_AI_TOOL_NAME, tool_name.to_owned()),
    ];
    if let Some(error) = error {
        attributes.push(KeyValue::new(names::ERROR_TYPE, error.as_str()));
    }
    instruments
        .tool_duration
        .record(started.elapsed().as_secs_f64(), &attributes);
}
