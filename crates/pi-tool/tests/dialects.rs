//! Dialect rendering beyond Pi's flat schemas: refs, maps, unions, formats, schemars output.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use pi_tool::dialect::Dialect;
use pi_tool::schema::{Schema, TypedSchema};
use pi_tool::{FnTool, ToolOutput, ToolRegistry};
use serde_json::{Value, json};

#[test]
fn strict_mode_closes_referenced_objects_and_refuses_maps() {
    let schema = json!({
        "type": "object",
        "properties": {"edit": {"$ref": "#/$defs/edit"}, "note": {"type": "string", "minLength": 2, "default": "x"}},
        "required": ["edit"],
        "$defs": {"edit": {"type": "object", "properties": {"old": {"type": "string"}}}}
    });
    let strict = Dialect::OpenAiStrict.render(&schema).unwrap();
    assert_eq!(
        strict["$defs"]["edit"],
        json!({"type": "object", "properties": {"old": {"type": ["string", "null"]}},
               "required": ["old"], "additionalProperties": false})
    );
    assert_eq!(
        strict["properties"]["note"],
        json!({"type": ["string", "null"], "description": "(at least 2 characters) (default: x)"})
    );
    assert_eq!(
        strict["properties"]["edit"],
        json!({"$ref": "#/$defs/edit"})
    );

    let map = json!({"type": "object", "properties": {"env": {"type": "object", "additionalProperties": {"type": "string"}}}});
    let error = Dialect::OpenAiStrict.render(&map).unwrap_err();
    assert_eq!(error.path(), "/properties/env/additionalProperties");
    assert!(error.to_string().contains(
        "openai-strict cannot express the schema at /properties/env/additionalProperties"
    ));
}

#[test]
fn gemini_inlines_refs_and_turns_null_unions_into_nullable() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "edit": {"anyOf": [{"$ref": "#/$defs/edit"}, {"type": "null"}]},
            "count": {"type": ["integer", "null"], "format": "uint32", "minimum": 0, "exclusiveMaximum": 10},
            "mode": {"const": "fast"},
            "when": {"type": "string", "format": "date-time"},
            "mail": {"type": "string", "format": "email"}
        },
        "$defs": {"edit": {"type": "object", "properties": {"old": {"type": "string"}}, "additionalProperties": false}}
    });
    let gemini = Dialect::Gemini.render(&schema).unwrap();
    assert_eq!(
        gemini,
        json!({
            "type": "object",
            "properties": {
                "edit": {"nullable": true, "type": "object", "properties": {"old": {"type": "string"}}},
                "count": {"type": "integer", "minimum": 0, "nullable": true, "maximum": 9},
                "mode": {"enum": ["fast"]},
                "when": {"type": "string", "format": "date-time"},
                "mail": {"type": "string"}
            }
        })
    );
}

#[test]
fn gemini_refuses_recursion_and_maps_with_their_paths() {
    let tree = json!({"type": "object", "properties": {"child": {"$ref": "#"}}});
    let error = Dialect::Gemini.render(&tree).unwrap_err();
    assert_eq!(error.path(), "/properties/child");
    assert!(error.reason().contains("recursive"));

    let map = json!({"type": "object", "properties": {"env": {"type": "object", "additionalProperties": {"type": "string"}}}});
    assert_eq!(
        Dialect::Gemini.render(&map).unwrap_err().path(),
        "/properties/env/additionalProperties"
    );
}

#[test]
fn every_dialect_wants_an_object_at_the_root() {
    for dialect in Dialect::ALL {
        let error = dialect.render(&json!({"type": "string"})).unwrap_err();
        assert_eq!(error.path(), "");
        assert_eq!(
            dialect.render(&json!({"properties": {}})).unwrap()["type"],
            "object"
        );
    }
    assert_eq!("gemini".parse::<Dialect>().unwrap(), Dialect::Gemini);
    assert!("claude".parse::<Dialect>().is_err());
}

/// A schemars type, the kind rmcp and rig users already have.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct SearchParams {
    /// What to search for
    query: String,
    /// How many results
    #[schemars(range(min = 1, max = 50))]
    limit: Option<u32>,
    filter: Option<Filter>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Filter {
    Code,
    Docs,
}

#[test]
fn schemars_output_renders_in_every_dialect() {
    let schema = TypedSchema::<SearchParams>::new().unwrap();
    let shown = schema.json_schema().unwrap();
    for dialect in Dialect::ALL {
        let rendered = dialect.render(shown).unwrap();
        if dialect == Dialect::Gemini {
            let text = rendered.to_string();
            assert!(
                !text.contains("$ref") && !text.contains("$defs") && !text.contains("uint32"),
                "{text}"
            );
            assert_eq!(rendered["properties"]["limit"]["nullable"], json!(true));
        }
    }
    let params = schema
        .parse(&json!({"query": "x", "filter": "docs"}))
        .unwrap();
    assert_eq!(params.query, "x");
    assert!(params.limit.is_none() && params.filter.is_some());
}

#[test]
fn registry_reports_the_tool_a_dialect_cannot_express() {
    let map_tool = FnTool::new(
        "env",
        "Takes a map",
        pi_tool::schema::DynamicSchema::new(
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
        )
        .unwrap(),
        |_args: Value, _cx| async move { Ok(ToolOutput::text("ok")) },
    );
    let tools = ToolRegistry::new([pi_tool::RegisteredTool::new(map_tool)]).unwrap();
    assert!(tools.definitions_for(Dialect::Mcp).is_ok());
    let error = tools.definitions_for(Dialect::Gemini).unwrap_err();
    assert_eq!(error.tool, "env");
    assert_eq!(error.source.path(), "/additionalProperties");
}
