//! Helpers shared by the behaviour tests: golden fixtures and result comparison.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use pi_tool::{ToolParams, ToolResultMessage, now_millis};
use serde_json::Value;

/// Reads `tests/fixtures/<path>` as JSON.
pub(crate) fn fixture(path: &str) -> Value {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path);
    let text = std::fs::read_to_string(&file)
        .unwrap_or_else(|error| panic!("fixture {}: {error}", file.display()));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("fixture {path}: {error}"))
}

/// Compares a result with a golden fixture exactly, after checking that its timestamp is a
/// recent millisecond time (the one field that changes every run) and removing it.
pub(crate) fn assert_matches_fixture(result: &ToolResultMessage, path: &str) {
    let mut wire = serde_json::to_value(result).unwrap();
    let object = wire.as_object_mut().unwrap();
    let timestamp = object
        .remove("timestamp")
        .and_then(|t| t.as_u64())
        .expect("timestamp must be a non-negative integer");
    let now = now_millis();
    assert!(
        timestamp <= now && now - timestamp < 60_000,
        "timestamp {timestamp} is not recent (now {now})"
    );
    assert_eq!(wire, fixture(path), "result differs from fixture {path}");
}

/// The course's request shape: a required string, an optional label, an optional limit >= 1.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ToolParams)]
pub(crate) struct RequestParams {
    pub(crate) value: String,
    pub(crate) label: Option<String>,
    #[param(min = 1)]
    pub(crate) limit: Option<u64>,
}
