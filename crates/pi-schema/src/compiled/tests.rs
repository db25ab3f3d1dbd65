//! The compiled walk against the generic filter and `jsonschema`: the same filtered value, and a
//! doubt for every value `jsonschema` rejects.

use serde_json::{Value, json};

use super::{Node, check, compile};
use crate::filter::drop_undeclared;

/// The value of the JSON `text` when no rule doubted it.
fn run(schema: &Value, text: &str) -> Option<Value> {
    let value: Value = serde_json::from_str(text).ok()?;
    check(&compile(schema)?, &value)
        .filter(|walked| !walked.doubted)
        .map(|walked| walked.value)
}

#[test]
fn filters_and_checks_in_one_walk_leaving_defaults_for_later() {
    let schema = json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1},
            "limit": {"type": "integer", "minimum": 1, "default": 100},
            "mode": {"type": "string", "enum": ["fast", "safe"]},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
            "edit": {
                "type": "object",
                "properties": {"oldText": {"type": "string"}},
                "required": ["oldText"]
            }
        },
        "required": ["path"]
    });
    assert_eq!(
        run(
            &schema,
            r#"{"x":1,"path":"a","edit":{"oldText":"o","junk":[1]},"tags":["t"]}"#
        ),
        Some(json!({"path": "a", "edit": {"oldText": "o"}, "tags": ["t"]}))
    );
    for rejected in [
        r#"{"path":""}"#,
        r#"{"path":"a","limit":0}"#,
        r#"{"path":"a","limit":1.5}"#,
        r#"{"path":"a","mode":"slow"}"#,
        r#"{"path":"a","tags":["a","b","c"]}"#,
        r#"{"path":"a","edit":{}}"#,
        r#"{"limit":2}"#,
        r#"["path"]"#,
    ] {
        assert_eq!(run(&schema, rejected), None, "{rejected}");
    }
    assert_eq!(
        run(&schema, r#"{"path":"a","limit":2.0}"#),
        Some(json!({"path": "a", "limit": 2.0}))
    );
}

#[test]
fn other_keywords_are_delegated_and_refs_inlined() {
    let schema = json!({
        "type": "object",
        "properties": {
            "id": {"type": "string", "pattern": "^[a-z]+$"},
            "n": {"type": "number", "multipleOf": 5},
            "item": {"$ref": "#/$defs/item"}
        },
        "$defs": {"item": {"type": "object", "properties": {"a": {"type": "boolean"}}}}
    });
    assert!(matches!(compile(&schema), Some(Node::Native(_))));
    assert_eq!(
        run(&schema, r#"{"id":"abc","n":10,"item":{"a":true,"b":1}}"#),
        Some(json!({"id": "abc", "n": 10, "item": {"a": true}}))
    );
    assert_eq!(run(&schema, r#"{"id":"ABC"}"#), None);
    assert_eq!(run(&schema, r#"{"n":7}"#), None);
    // Object rules that would judge keys the filter keeps or drops go to `jsonschema` too.
    let closed = json!({"type": "object", "additionalProperties": false});
    assert!(matches!(compile(&closed), Some(Node::Delegated(_))));
    assert_eq!(run(&closed, "{}"), Some(json!({})));
    assert_eq!(run(&closed, r#"{"a":1}"#), None);
    let ghost = json!({"type": "object", "properties": {}, "required": ["ghost"]});
    assert_eq!(run(&ghost, r#"{"ghost":1}"#), None);
}

#[test]
fn what_cannot_be_mirrored_is_not_compiled() {
    for schema in [
        json!({"type": "object", "properties": {"child": {"$ref": "#"}}}),
        json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}),
        json!({"anyOf": [{"$ref": "#/$defs/a"}], "$defs": {"a": {}}}),
    ] {
        assert!(compile(&schema).is_none(), "{schema}");
    }
}

/// Values built from the keys the schemas below declare, and a few they do not.
fn any_value() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..300).prop_map(Value::from),
        "[a-z]{0,3}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        let key = proptest::sample::select(vec![
            "path", "limit", "edits", "oldText", "newText", "meta", "tags", "x", "mode",
        ]);
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((key, inner), 0..5).prop_map(|entries| {
                Value::Object(
                    entries
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect(),
                )
            }),
        ]
    })
}

fn filter_schemas() -> Vec<Value> {
    vec![
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "limit": {"type": "integer", "default": 10},
                "edits": {"type": "array", "items": {"$ref": "#/$defs/edit"}},
                "meta": {"type": "object", "additionalProperties": true,
                         "properties": {"tags": {"type": "array", "items": true}}},
                "mode": {"anyOf": [{"type": "object", "properties": {"x": {}}}, {"type": "string"}]}
            },
            "$defs": {"edit": {"type": "object", "properties": {
                "oldText": {"type": "string"}, "newText": {"type": "string", "default": ""}}}}
        }),
        json!({"type": "array", "items": {"type": "object", "properties": {"x": {}},
               "patternProperties": {"^p": {}}}}),
        json!({"properties": {"tags": {"items": {"properties": {"x": {"default": [1]}}}}}}),
    ]
}

proptest::proptest! {
    /// Valid or not, a walk filters exactly as the generic filter does, and it doubts
    /// whatever `jsonschema` rejects.
    #[test]
    fn walks_filter_as_the_generic_filter_and_doubt_every_rejection(
        value in any_value(),
        which in 0usize..3,
    ) {
        let schemas = filter_schemas();
        let schema = &schemas[which];
        let node = compile(schema).unwrap();
        let generic = drop_undeclared(schema, &value).unwrap();
        let walked = check(&node, &value).unwrap();
        proptest::prop_assert_eq!(&walked.value, &generic, "{}", value);
        let valid = jsonschema::validator_for(schema).unwrap().is_valid(&generic);
        proptest::prop_assert!(valid || walked.doubted, "an invalid value passed: {}", value);
    }
}

#[test]
fn large_integers_under_bounds_are_doubted() {
    let schema = json!({"type": "integer", "maximum": 9007199254740993_u64});
    assert_eq!(run(&schema, "9007199254740993"), None);
    assert_eq!(run(&schema, "5"), Some(json!(5)));
    assert_eq!(
        run(&json!({"type": "integer"}), "18446744073709551615"),
        Some(json!(u64::MAX))
    );
}
