//! Benchmarks of the whole tool-call path (argument text in, parsed into a `Value` as the agent
//! loop parses it, result message out) on the shared workloads in `bench/workloads/`, against
//! the same layer built on plain serde.
//!
//! Why a crate of its own: benchmarks and their harnesses need peers and measuring crates
//! (criterion, jsonschema, allocation counters) no user should build. It sits outside the
//! workspace's `default-members`, so a plain `cargo build` or `cargo test` leaves it out;
//! `--workspace` (CI) and `-p pi-bench` include it.
//!
//! - [`workload`] reads a workload file and checks results against its `expect`;
//! - [`typed`] declares the workloads' tools as typed Rust structs (`#[derive(ToolParams)]`);
//! - [`dynamic`] builds them from the workloads' JSON Schemas ([`pi_tool::schema::DynamicSchema`]);
//! - [`baseline`] is the plain-serde layer: `serde_json::from_str` into a derived struct, the
//!   bounds checked in code, the same lookup and result message;
//! - [`jsonschema_peer`] is the jsonschema crate as a peer (Value, validator, `from_value`);
//! - [`measure`] times repeated runs and takes the median.

pub mod baseline;
pub mod dynamic;
pub mod jsonschema_peer;
pub mod measure;
pub mod typed;
pub mod workload;
