//! Every name we emit is in the conventions' registry (the vendored fixture; its header names
//! the release and commit it was copied from).

use std::collections::BTreeSet;

use pi_telemetry::names;
use pi_telemetry::spans::{self, McpSide};
use tracing::Span;

const FIXTURE: &str = include_str!("fixtures/semconv-v1.41.1-names.txt");

/// The names after `marker` on the fixture's lines.
fn registry(marker: &str) -> BTreeSet<&'static str> {
    FIXTURE
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.split_once(marker).map(|(_, name)| name.trim()))
        .collect()
}

#[test]
fn the_fixture_names_its_release() {
    assert!(FIXTURE.contains(&format!("tag v{}", names::SEMCONV_VERSION)));
    assert!(registry("- id: ").len() >= names::ATTRIBUTES.len());
}

#[test]
fn every_attribute_constant_is_in_the_registry() {
    let ids = registry("- id: ");
    let missing: Vec<_> = names::ATTRIBUTES
        .iter()
        .filter(|name| !ids.contains(*name))
        .collect();
    assert!(missing.is_empty(), "not in the registry: {missing:?}");
}

#[test]
fn every_metric_name_is_in_the_registry_but_the_genai_repository_one() {
    let metrics = registry("metric_name: ");
    for name in names::METRICS {
        assert!(metrics.contains(name), "{name} is not in the registry");
    }
    // Defined after the move to semantic-conventions-genai, so not in this release.
    assert!(!metrics.contains(names::GEN_AI_EXECUTE_TOOL_DURATION));
}

#[test]
fn every_span_field_is_in_the_registry_or_an_otel_directive() {
    let ids = registry("- id: ");
    let subscriber = tracing_subscriber::registry();
    tracing::subscriber::with_default(subscriber, || {
        let all: Vec<Span> = vec![
            spans::invoke_agent("pi", "openai", Some("session")),
            spans::chat("openai", "gpt-5", None, Some(("api.openai.com", 443))),
            spans::execute_tool("read", "call-1", "function"),
            spans::mcp_tools_call(McpSide::Client, "echo", Some("1")),
            spans::mcp_tools_call(McpSide::Server, "echo", None),
            spans::compaction("openai", "gpt-5"),
        ];
        for span in &all {
            let metadata = span.metadata().expect("an enabled span has metadata");
            for field in metadata.fields() {
                let field = field.name();
                assert!(
                    field.starts_with("otel.") || ids.contains(field),
                    "span {}: field {field} is not in the registry",
                    metadata.name()
                );
                assert!(
                    field.starts_with("otel.") || names::ATTRIBUTES.contains(&field),
                    "span {}: field {field} has no constant in names",
                    metadata.name()
                );
            }
        }
    });
}
