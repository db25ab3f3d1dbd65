//! What tracing costs a tool call with export on: TURNS turns of two `echo` calls through the
//! loop, timed with no subscriber and then with the `tracing-opentelemetry` bridge feeding
//! the SDK's batch processor at 100% sampling (spans kept in memory, not sent, so the network
//! is not measured). Prints a table: microseconds per call without a subscriber, with the
//! bridge as `pi-tool` configures it, and with the bridge's defaults.
//!
//! Usage: traced_loop_cost [TURNS] [ROUNDS] [ONLY]: ONLY (`none`, `ours` or `defaults`) runs
//! that one configuration and prints its time alone, for a profiler (callgrind) to see it by
//! itself.
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
    let only = args.next();
    let script = script(turns);
    let calls = (2 * turns) as f64;
    // Current-thread: the batch's tasks run on this thread, under the default subscriber.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    if let Some(only) = only {
        let seconds = match only.as_str() {
            "none" => best(&runtime, &script, rounds),
            "ours" => traced(&runtime, &script, rounds, pi_telemetry::bridge::layer),
            "defaults" => traced(&runtime, &script, rounds, |tracer| {
                tracing_opentelemetry::layer().with_tracer(tracer)
            }),
            other => panic!("ONLY is none, ours or defaults, not {other}"),
        };
        println!("{only}: {:.2} µs per call", seconds / calls * 1e6);
        return;
    }
    let off = best(&runtime, &script, rounds);
    // The bridge as `pi-tool` installs it, then with the bridge's own defaults (location,
    // thread and busy/idle attributes on every span), to show what turning those off saves.
    let ours = traced(&runtime, &script, rounds, |tracer| {
        pi_telemetry::bridge::layer(tracer)
    });
    let defaults = traced(&runtime, &script, rounds, |tracer| {
        tracing_opentelemetry::layer().with_tracer(tracer)
    });
    let per_call = |seconds: f64| seconds / calls * 1e6;
    println!("| subscriber | µs per call | added per call |");
    println!("|---|---|---|");
    println!("| none | {:.2} | |", per_call(off));
    println!(
        "| pi-telemetry's bridge (`pi_telemetry::bridge::layer`) | {:.2} | {:.2} |",
        per_call(ours),
        per_call(ours - off)
    );
    println!(
        "| tracing-opentelemetry's defaults | {:.2} | {:.2} |",
        per_call(defaults),
        per_call(defaults - off)
    );
    println!("({turns} turns of two calls, best of {rounds} runs)");
}

/// Best time of `rounds` runs with `layer(tracer)` over the SDK's batch processor at 100%
/// sampling, spans kept in memory; checks they reached the exporter.
fn traced<L>(
    runtime: &tokio::runtime::Runtime,
    script: &Value,
    rounds: usize,
    layer: impl FnOnce(opentelemetry_sdk::trace::Tracer) -> L,
) -> f64
where
    L: tracing_subscriber::Layer<tracing_subscriber::Registry> + Send + Sync + 'static,
{
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_sampler(Sampler::AlwaysOn)
        .with_batch_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry().with(layer(provider.tracer("bench")));
    let on = tracing::subscriber::with_default(subscriber, || best(runtime, script, rounds));
    provider.force_flush().unwrap();
    assert!(
        !exporter.get_finished_spans().unwrap().is_empty(),
        "no span reached the exporter"
    );
    on
}
