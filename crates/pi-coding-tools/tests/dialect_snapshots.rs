//! Golden snapshots: Pi's seven coding-tool schemas rendered in every provider dialect.
//!
//! Regenerate after an intended change with `PI_UPDATE_SNAPSHOTS=1 cargo test -p pi-coding-tools`
//! and review the diff.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::PathBuf;

use pi_coding_tools::params::TOOL_SCHEMAS;
use pi_tool::dialect::Dialect;
use serde_json::{Value, json};

fn snapshot_path(tool: &str, dialect: Dialect) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{tool}.{}.json", dialect.name()))
}

#[test]
fn every_tool_in_every_dialect_matches_its_snapshot() {
    let update = std::env::var_os("PI_UPDATE_SNAPSHOTS").is_some();
    let mut mismatches = Vec::new();
    for tool in TOOL_SCHEMAS {
        for dialect in Dialect::ALL {
            let rendered = dialect.render((tool.parameters)()).unwrap();
            let path = snapshot_path(tool.name, dialect);
            if update {
                let text = serde_json::to_string_pretty(&rendered).unwrap() + "\n";
                std::fs::write(&path, text).unwrap();
                continue;
            }
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            let expected: Value = serde_json::from_str(&text).unwrap();
            // Compare text too: key order is part of what a provider and a reader see.
            if expected != rendered
                || serde_json::to_string_pretty(&expected).unwrap()
                    != serde_json::to_string_pretty(&rendered).unwrap()
            {
                mismatches.push(path.display().to_string());
            }
        }
    }
    assert!(mismatches.is_empty(), "snapshots differ: {mismatches:#?}");
}

#[test]
fn strict_mode_makes_optional_fields_nullable_and_required() {
    let read = TOOL_SCHEMAS.iter().find(|t| t.name == "read").unwrap();
    let strict = Dialect::OpenAiStrict.render((read.parameters)()).unwrap();
    assert_eq!(strict["required"], json!(["path", "offset", "limit"]));
    assert_eq!(
        strict["properties"]["offset"]["type"],
        json!(["integer", "null"])
    );
    assert_eq!(strict["properties"]["path"]["type"], json!("string"));
}

#[test]
fn gemini_has_no_additional_properties_and_no_exclusive_bounds() {
    for tool in TOOL_SCHEMAS {
        let text = Dialect::Gemini
            .render((tool.parameters)())
            .unwrap()
            .to_string();
        for banned in [
            "additionalProperties",
            "exclusiveMinimum",
            "$ref",
            "$defs",
            "\"null\"",
        ] {
            assert!(!text.contains(banned), "{}: {banned} in {text}", tool.name);
        }
    }
}
