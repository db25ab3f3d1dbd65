//! The cost of one decision (issue item 10): a 10-command pipeline against 1,000 rules, and a
//! `read` call against the same rules, next to splitting alone.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
mod common;

use common::{PIPELINE, five_rules, thousand_rules};
use pi_approval::{LocalPaths, Mode, Policy, shell};
use pi_tool::ToolAnnotations;
use serde_json::json;

fn bench(c: &mut Criterion) {
    let dir = std::env::temp_dir();
    let policy = Policy::new(Mode::Ask, thousand_rules(), LocalPaths::new(&dir));
    let pipeline = json!({"command": PIPELINE});
    assert_eq!(shell::split(PIPELINE).commands.len(), 10);
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .unwrap();
    c.bench_function("tree-sitter parse of the pipeline alone", |b| {
        b.iter(|| parser.parse(black_box(PIPELINE), None))
    });
    c.bench_function("split a 10-command pipeline", |b| {
        b.iter(|| shell::split(black_box(PIPELINE)))
    });
    c.bench_function("decide a 10-command pipeline against 1000 rules", |b| {
        b.iter(|| policy.decide("bash", ToolAnnotations::open(), black_box(&pipeline)))
    });
    let read = json!({"path": "src/lib.rs"});
    let few = five_rules();
    let small = Policy::new(Mode::Ask, few, LocalPaths::new(&dir));
    c.bench_function("decide a read against 5 rules", |b| {
        b.iter(|| small.decide("read", ToolAnnotations::read_only(), black_box(&read)))
    });
    c.bench_function("decide a read against 1000 rules", |b| {
        b.iter(|| policy.decide("read", ToolAnnotations::read_only(), black_box(&read)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
