//! What tracing costs a tool call with export on: TURNS turns of two `echo` calls through the
//! loop, timed with no subscriber and then with the `tracing-opentelemetry` bridge feeding
//! the SDK's batch processor at 100% sampling (spans kept in memory, not sent, so the network
//! is not measured). Prints microseconds per call for both and the difference.
//!
//! Usage: traced_loop_cost [TURNS] [ROUNDS]
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Instant;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::{InMemorySpanExporter, Sampler, SdkTracerProvider};
use pi_agent::{Agent, AgentConfig};
use pi_ai::{FauxProvider, UserMessage};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tracing_subscriber::layer::SubscriberExt;

fn script(turns: usize) -> Value {
    let mut responses: Vec<Value> = (0..turns)
        .map(|turn| {
            json!({"content": [
                {"type": "toolCall", "id": format!("c-{turn}-a"), "name": "echo", "arguments": {"value": "Pi"}},
                {"type": "toolCall", "id": format!("c-{turn}-b"), "name": "echo", "arguments": {"value": "pi"}},
            ]})
        })
        .collect();
    responses.push(json!({"content": [{"type": "text", "text": "done"}]}));
    Value::Array(responses)
}

/// Seconds for one run of `turns` turns.
fn one_run(runtime: &tokio::runtime::Runtime, script: &Value) -> f64 {
    let faux = FauxProvider::from_script(script).unwrap();
    let tools = Arc::new(pi_tool::builtin::registry());
    let agent = Agent::new(AgentConfig::new(Arc::new(faux), tools));
    let started = Instant::now();
    let run = runtime.block_on(agent.run(
        Vec::new(),
        vec![UserMessage::text("go").into()],
        CancellationToken::new(),
    ));
    let elapsed = started.elapsed().as_secs_f64();
    assert!(run.error.is_none(), "{:?}", run.error);
    elapsed
}

fn best(runtime: &tokio::runtime::Runtime, script: &Value, rounds: usize) -> f64 {
    (0..rounds)
        .map(|_| one_run(runtime, script))
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let turns: usize = args.next().map_or(500, |a| a.parse().unwrap());
    let rounds: usize = args.next().map_or(5, |a| a.parse().unwrap());
    let script = script(turns);
    let calls = (2 * turns) as f64;
    // Current-thread: the batch's tasks run on this thread, under the default subscriber.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let off = best(&runtime, &script, rounds);
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_sampler(Sampler::AlwaysOn)
        .with_batch_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("bench")));
    let on = tracing::subscriber::with_default(subscriber, || best(&runtime, &script, rounds));
    provider.force_flush().unwrap();
    let exported = exporter.get_finished_spans().unwrap().len();
    assert!(exported > 0, "no span reached the exporter");
    println!(
        "{{\"turns\":{turns},\"off_us_per_call\":{:.3},\"on_us_per_call\":{:.3},\"added_us_per_call\":{:.3},\"spans_exported\":{exported}}}",
        off / calls * 1e6,
        on / calls * 1e6,
        (on - off) / calls * 1e6
    );
}
