//! Criterion benches of the three shared workloads: the whole tool-call path (argument text
//! parsed into a `Value` as the agent loop does, result message out) with typed and dynamic
//! tools, and the plain-serde baseline.
//!
//! Run: `cargo bench -p pi-bench --bench workloads`.
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pi_bench::baseline::{Baseline, Layer};
use pi_bench::workload::Workload;
use pi_bench::{dynamic, typed};

fn bench_workloads(c: &mut Criterion) {
    let typed_tools = typed::registry();
    let baseline = Baseline::default();
    for workload in Workload::shipped().unwrap() {
        let dynamic_tools = dynamic::registry(&workload).unwrap();
        let mut group = c.benchmark_group(&workload.name);
        group.throughput(Throughput::Elements(workload.calls.len() as u64));
        for (mode, tools) in [("typed", &typed_tools), ("dynamic", &dynamic_tools)] {
            group.bench_function(mode, |b| {
                b.iter(|| {
                    for call in &workload.calls {
                        black_box(call.run(tools));
                    }
                });
            });
        }
        for (label, layer) in [
            ("serde_baseline", Layer::Bare),
            ("serde_contract", Layer::Contract),
        ] {
            group.bench_function(label, |b| {
                b.iter(|| {
                    for call in &workload.calls {
                        black_box(call.run_baseline(&baseline, layer));
                    }
                });
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench_workloads);
criterion_main!(benches);
