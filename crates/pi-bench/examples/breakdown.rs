//! Where the time of one call goes, step by step, on each shipped workload.
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;
use std::time::Instant;

use futures::executor::block_on;
use pi_bench::baseline::{Baseline, Layer};
use pi_bench::workload::Workload;
use pi_bench::{dynamic, typed};
use pi_tool::schema::Schema;
use pi_tool::{CallContext, ToolCall, execute_tool_call};
use serde_json::Value;

fn time(label: &str, calls: usize, mut f: impl FnMut()) {
    for _ in 0..200 {
        f();
    }
    let mut best = f64::MAX;
    for _ in 0..7 {
        let started = Instant::now();
        for _ in 0..300 {
            f();
        }
        best = best.min(started.elapsed().as_secs_f64() * 1e9 / (300 * calls) as f64);
    }
    println!("  {label:<42} {best:>9.0} ns/call");
}

fn main() {
    let tools = typed::registry();
    let baseline = Baseline::default();
    for workload in Workload::shipped().unwrap() {
        println!("{}", workload.name);
        let n = workload.calls.len();
        let values: Vec<Value> = workload
            .calls
            .iter()
            .map(|c| serde_json::from_str(&c.arguments).unwrap())
            .collect();
        let calls: Vec<ToolCall> = workload
            .calls
            .iter()
            .zip(&values)
            .map(|(c, v)| ToolCall::new(&c.id, &c.name, v.clone()))
            .collect();
        time("baseline (from_str + bounds)", n, || {
            for c in &workload.calls {
                black_box(c.run_baseline(&baseline, Layer::Bare));
            }
        });
        time("baseline with the contract", n, || {
            for c in &workload.calls {
                black_box(c.run_baseline(&baseline, Layer::Contract));
            }
        });
        time("from_str::<Value>", n, || {
            for c in &workload.calls {
                black_box(serde_json::from_str::<Value>(&c.arguments).ok());
            }
        });
        time("schema parse of Value (typed)", n, || {
            for (c, v) in workload.calls.iter().zip(&values) {
                if c.name == "plan_task" {
                    black_box(
                        <typed::PlanTask as pi_tool::schema::ObjectParams>::object_schema()
                            .parse(v)
                            .is_ok(),
                    );
                } else if c.name == "edit" {
                    black_box(
                        <typed::Edit as pi_tool::schema::ObjectParams>::object_schema()
                            .parse(v)
                            .is_ok(),
                    );
                }
            }
        });
        let dynamic_tools = dynamic::registry(&workload).unwrap();
        for (mode, tools) in [("typed", &tools), ("dynamic", &dynamic_tools)] {
            time(&format!("execute_tool_call (Value in, {mode})"), n, || {
                for call in &calls {
                    black_box(block_on(execute_tool_call(
                        call,
                        tools,
                        CallContext::default(),
                    )));
                }
            });
            time(
                &format!("text parsed, then execute_tool_call ({mode})"),
                n,
                || {
                    for c in &workload.calls {
                        black_box(c.run(tools));
                    }
                },
            );
        }
        time("drop of parsed Value", n, || {
            let parsed: Vec<Value> = values.clone();
            black_box(parsed);
        });
    }
}
