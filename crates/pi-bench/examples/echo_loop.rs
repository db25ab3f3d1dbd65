//! Runs the seed's echo call through `execute_raw_tool_call` many times: a target for
//! `valgrind --tool=callgrind` when looking for the executor's fixed costs.
#![allow(missing_docs)]

use futures::executor::block_on;
use pi_tool::{CallContext, builtin, execute_raw_tool_call};

fn main() {
    let tools = builtin::registry();
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    for _ in 0..rounds {
        std::hint::black_box(block_on(execute_raw_tool_call(
            "call-1",
            "echo",
            r#"{"value":"Pi","ignored":"drop me"}"#,
            &tools,
            CallContext::default(),
        )));
    }
}
