//! Runs the seed's echo call many times, through `execute_raw_tool_call` with the workload's
//! typed tools or (`baseline`) through the plain-serde layer: a target for
//! `valgrind --tool=callgrind`, whose instruction counts compare the two without timing noise.
//!
//! Usage: echo_loop [ours|baseline] [ROUNDS]
#![allow(missing_docs)]

use futures::executor::block_on;
use pi_bench::baseline::Baseline;
use pi_bench::typed;
use pi_tool::{CallContext, execute_raw_tool_call};

const ARGUMENTS: &str = r#"{"value":"Pi","ignored":"drop me"}"#;

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "ours".to_owned());
    let rounds: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(100_000);
    let tools = typed::registry();
    let baseline = Baseline::default();
    for _ in 0..rounds {
        if which == "baseline" {
            std::hint::black_box(block_on(baseline.execute("call-1", "echo", ARGUMENTS)));
        } else {
            std::hint::black_box(block_on(execute_raw_tool_call(
                "call-1",
                "echo",
                ARGUMENTS,
                &tools,
                CallContext::default(),
            )));
        }
    }
}
