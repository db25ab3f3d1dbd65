//! N tools that each sleep run in about the time of one: wall time of one batch of N calls to a
//! tool that sleeps 50 ms, parallel against sequential, as a table of ratios to a single call.
//!
//! Run: `cargo bench -p pi-agent --bench parallel_batch`.
#![allow(missing_docs, clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use pi_agent::{Agent, AgentConfig, ExecutionMode};
use pi_ai::{FauxProvider, UserMessage};
use pi_tool::schema::ObjectParams;
use pi_tool::{FnTool, RegisteredTool, ToolOutput, ToolRegistry, builtin};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const SLEEP: Duration = Duration::from_millis(50);

fn sleeper() -> Arc<ToolRegistry> {
    let tool = FnTool::new(
        "sleep",
        "Sleeps 50 ms",
        builtin::ValueParams::object_schema(),
        |params: builtin::ValueParams, _cx| async move {
            tokio::time::sleep(SLEEP).await;
            Ok(ToolOutput::text(params.value))
        },
    );
    Arc::new(ToolRegistry::new([RegisteredTool::new(tool)]).unwrap())
}

async fn batch_time(calls: usize, mode: ExecutionMode) -> Duration {
    let content: Vec<Value> = (0..calls)
        .map(|i| json!({"type": "toolCall", "id": format!("c{i}"), "name": "sleep", "arguments": {"value": "z"}}))
        .collect();
    let script = json!([{"content": content}, {"content": [{"type": "text", "text": "done"}]}]);
    let faux = FauxProvider::from_script(&script).unwrap();
    let agent = Agent::new(AgentConfig::new(Arc::new(faux), sleeper()).with_execution(mode));
    let started = Instant::now();
    agent
        .run(
            Vec::new(),
            vec![UserMessage::text("go").into()],
            CancellationToken::new(),
        )
        .await;
    started.elapsed()
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let one = runtime.block_on(batch_time(1, ExecutionMode::Parallel));
    println!(
        "| calls | parallel ms | sequential ms | parallel / one call | sequential / one call |"
    );
    println!("|---|---|---|---|---|");
    for calls in [1, 4, 16, 64] {
        let parallel = runtime.block_on(batch_time(calls, ExecutionMode::Parallel));
        let sequential = runtime.block_on(batch_time(calls, ExecutionMode::Sequential));
        println!(
            "| {calls} | {:.1} | {:.1} | {:.2}x | {:.2}x |",
            parallel.as_secs_f64() * 1e3,
            sequential.as_secs_f64() * 1e3,
            parallel.as_secs_f64() / one.as_secs_f64(),
            sequential.as_secs_f64() / one.as_secs_f64(),
        );
    }
}
