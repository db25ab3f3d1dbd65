//! Streamed tool-call arguments against one `serde_json::from_str` of the whole text, at 10 KB,
//! 100 KB and 1 MB in 1-, 4- and 16-byte deltas:
//!
//! - `ArgumentBuffer`: the fragments appended, one parse when the call ends (what assembling
//!   arguments costs);
//! - `StreamAssembler`: the same plus a `toolcall_delta` event per fragment (what the event
//!   protocol adds on top).
//!
//! Linear assembly keeps the ratios flat as the size grows (upstream re-parses the whole buffer
//! on every delta, which is quadratic).
//!
//! Run: `cargo bench -p pi-ai --bench argument_assembly` (prints a table; medians of alternating
//! rounds, ratios taken round by round).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use pi_ai::{ArgumentBuffer, AssistantMessageEvent, Fragment, StopReason, StreamAssembler};
use serde_json::Value;

/// Arguments of `size` bytes as a model writes a file: a path and code with quotes and newlines.
fn arguments(size: usize) -> String {
    let line = "    let value = format!(\"{}: {}\", name, \"quoted\\tand tabbed\");\n";
    let mut content = String::new();
    while content.len() + line.len() + 40 < size {
        content.push_str(line);
    }
    serde_json::json!({"path": "src/generated.rs", "content": content}).to_string()
}

fn fragments(text: &str, delta: usize) -> Vec<Fragment> {
    let mut out = vec![Fragment::ToolStart {
        key: "0".into(),
        id: "call_1".into(),
        name: "write".into(),
    }];
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + delta).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(Fragment::ToolArguments {
            key: "0".into(),
            fragment: text[start..end].to_owned(),
        });
        start = end;
    }
    out.push(Fragment::Stop(StopReason::ToolUse));
    out
}

fn assemble(fragments: Vec<Fragment>) -> Duration {
    let started = Instant::now();
    let (mut assembler, start) = StreamAssembler::start("bench", "bench", "bench");
    black_box(start);
    for fragment in fragments {
        black_box(assembler.apply(fragment));
    }
    let events = assembler.finish();
    let elapsed = started.elapsed();
    match events.last() {
        Some(AssistantMessageEvent::Done { message, .. }) => {
            assert!(message.tool_calls()[0].arguments.is_object());
        }
        other => panic!("{other:?}"),
    }
    drop(events);
    elapsed
}

/// The buffer fed as a wire feeds it: each delta a slice of text just decoded (the slices are
/// cut beforehand, so that only the buffer's own work is timed).
fn buffer(pieces: &[&str]) -> Duration {
    let started = Instant::now();
    let mut buffer = ArgumentBuffer::default();
    for piece in pieces {
        buffer.push(piece);
    }
    let value = buffer.finish();
    let elapsed = started.elapsed();
    assert!(value.is_object());
    black_box(value);
    elapsed
}

fn parse_once(text: &str) -> Duration {
    let started = Instant::now();
    let value: Value = serde_json::from_str(black_box(text)).unwrap();
    let elapsed = started.elapsed();
    black_box(value);
    elapsed
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    println!(
        "| size | delta | deltas | one parse ms | ArgumentBuffer ms | / parse | StreamAssembler ms | / parse |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for size in [10_000, 100_000, 1_000_000] {
        let text = arguments(size);
        for delta in [1, 4, 16] {
            let rounds = if size >= 1_000_000 { 9 } else { 31 };
            let (mut parse, mut buffered, mut assembly) = (Vec::new(), Vec::new(), Vec::new());
            let (mut buffer_ratio, mut assembly_ratio) = (Vec::new(), Vec::new());
            let prepared = fragments(&text, delta);
            let count = prepared.len() - 2;
            let mut pieces: Vec<&str> = Vec::with_capacity(count);
            let mut at = 0;
            for fragment in &prepared {
                if let Fragment::ToolArguments { fragment, .. } = fragment {
                    pieces.push(&text[at..at + fragment.len()]);
                    at += fragment.len();
                }
            }
            for _ in 0..rounds {
                let p = parse_once(&text).as_secs_f64();
                let b = buffer(&pieces).as_secs_f64();
                let a = assemble(prepared.clone()).as_secs_f64();
                parse.push(p);
                buffered.push(b);
                assembly.push(a);
                buffer_ratio.push(b / p);
                assembly_ratio.push(a / p);
            }
            println!(
                "| {} KB | {delta} B | {count} | {:.3} | {:.3} | {:.2}x | {:.3} | {:.2}x |",
                text.len() / 1000,
                median(parse) * 1e3,
                median(buffered) * 1e3,
                median(buffer_ratio),
                median(assembly) * 1e3,
                median(assembly_ratio)
            );
        }
    }
}
