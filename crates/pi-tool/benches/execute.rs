//! ns per `execute_tool_call` on the course's echo call and on each failure path.
//!
//! Run: `cargo bench -p pi-tool --bench execute`.
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use futures::executor::block_on;
use pi_tool::schema::ObjectParams;
use pi_tool::{
    CallContext, FnTool, ToolCall, ToolError, ToolOutput, ToolRegistry, builtin, execute_tool_call,
};
use serde_json::json;

fn failing_registry() -> ToolRegistry {
    let fails = FnTool::new(
        "fails",
        "Returns an error",
        builtin::ValueParams::object_schema(),
        |_p: builtin::ValueParams, _cx| async move { Err::<ToolOutput, _>(ToolError::new("exploded")) },
    );
    let panics = FnTool::new(
        "panics",
        "Panics",
        builtin::ValueParams::object_schema(),
        |p: builtin::ValueParams, _cx| async move {
            if !p.value.is_empty() {
                panic!("exploded");
            }
            Ok(ToolOutput::text(p.value))
        },
    );
    ToolRegistry::new([
        pi_tool::RegisteredTool::new(fails),
        pi_tool::RegisteredTool::new(panics),
    ])
    .unwrap()
}

fn bench_paths(c: &mut Criterion) {
    // Panics are part of what is measured; their report on stderr is not.
    std::panic::set_hook(Box::new(|_| {}));
    let builtins = builtin::registry();
    let failing = failing_registry();
    let args = json!({"value": "Pi", "ignored": "drop me"});
    let cases = [
        (
            "echo_success",
            ToolCall::new("call-1", "echo", args.clone()),
            &builtins,
        ),
        (
            "unknown_tool",
            ToolCall::new("call-1", "missing", json!({})),
            &builtins,
        ),
        (
            "invalid_arguments",
            ToolCall::new("call-1", "echo", json!({"value": 1})),
            &builtins,
        ),
        (
            "tool_error",
            ToolCall::new("call-1", "fails", args.clone()),
            &failing,
        ),
        (
            "tool_panic",
            ToolCall::new("call-1", "panics", args),
            &failing,
        ),
    ];
    let mut group = c.benchmark_group("execute_tool_call");
    for (name, call, tools) in &cases {
        group.bench_function(*name, |b| {
            b.iter(|| {
                block_on(execute_tool_call(
                    black_box(call),
                    tools,
                    CallContext::default(),
                ))
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench_paths);
criterion_main!(benches);
