//! A `default` is an annotation: on every path (the compiled walk, and the generic filter +
//! `jsonschema`), the verdict is the verdict on what was sent, and an accepted
//! call gets exactly the defaults that satisfy their own property schema.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use pi_schema::{DynamicSchema, Schema};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// One property: its type, an optional default (often one that breaks the type, as real
/// servers advertise), and whether it is required.
#[derive(Debug, Clone)]
struct Property {
    kind: Value,
    default: Option<Value>,
    required: bool,
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-2i64..3).prop_map(Value::from),
        Just(json!(1.5)),
        prop::sample::select(vec!["", "x", "false", "1", "null"]).prop_map(Value::from),
        Just(json!([])),
        Just(json!({})),
    ]
}

fn property() -> impl Strategy<Value = Property> {
    let kind = prop::sample::select(vec![
        json!("string"),
        json!("integer"),
        json!("number"),
        json!("boolean"),
        json!(["string", "null"]),
        json!("array"),
    ]);
    (kind, prop::option::of(scalar()), any::<bool>()).prop_map(|(kind, default, required)| {
        Property {
            kind,
            default,
            required,
        }
    })
}

const NAMES: [&str; 4] = ["a", "b", "c", "d"];

fn schema_of(properties: &[Property], generic: bool) -> Value {
    let mut declared = Map::new();
    let mut required = Vec::new();
    for (name, property) in NAMES.iter().zip(properties) {
        let mut field = json!({"type": property.kind});
        if let Some(default) = &property.default {
            field["default"] = default.clone();
        }
        declared.insert((*name).to_owned(), field);
        if property.required {
            required.push(json!(name));
        }
    }
    let mut schema = json!({"type": "object", "properties": declared, "required": required});
    if generic {
        // An `$id` is something the compiled walk does not mirror: the generic path answers.
        schema["$id"] = json!("urn:example:generic");
    }
    schema
}

fn case() -> impl Strategy<Value = (Vec<Property>, Map<String, Value>)> {
    prop::collection::vec(property(), 1..=4).prop_flat_map(|properties| {
        let count = properties.len();
        let sent =
            prop::collection::vec(prop::option::of(scalar()), count + 1).prop_map(move |values| {
                let mut object = Map::new();
                for (index, value) in values.into_iter().enumerate() {
                    if let Some(value) = value {
                        // The extra index is an undeclared property, to be dropped.
                        let name = NAMES.get(index).copied().unwrap_or("extra");
                        object.insert(name.to_owned(), value);
                    }
                }
                object
            });
        (Just(properties), sent)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn defaults_never_change_a_verdict_and_only_valid_ones_are_filled(
        (properties, sent) in case(),
        generic in any::<bool>(),
    ) {
        let schema_json = schema_of(&properties, generic);
        let schema = DynamicSchema::new(schema_json.clone()).unwrap();
        let oracle = jsonschema::validator_for(&schema_json).unwrap();

        // What the model sent, undeclared fields dropped: the oracle judges exactly that.
        let mut declared_only = sent.clone();
        declared_only.retain(|name, _| NAMES.iter().take(properties.len()).any(|n| n == name));
        let declared_only = Value::Object(declared_only);
        let valid = oracle.is_valid(&declared_only);

        // The expected value: what was sent, plus each absent property's default when that
        // default satisfies the property's own schema.
        let mut expected = declared_only.clone();
        for (name, property) in NAMES.iter().zip(&properties) {
            let Some(default) = &property.default else { continue };
            let own = jsonschema::validator_for(&json!({"type": property.kind})).unwrap();
            if own.is_valid(default) && expected.get(*name).is_none() {
                expected[*name] = default.clone();
            }
        }

        let sent = Value::Object(sent);
        match schema.parse(&sent) {
            Ok(value) => {
                prop_assert!(valid, "accepted what the oracle refuses: {sent}");
                prop_assert_eq!(&value, &expected, "sent {}", sent);
                prop_assert!(oracle.is_valid(&value), "filling made {value} invalid");
            }
            Err(error) => prop_assert!(!valid, "refused a valid call {sent}: {error}"),
        }
    }
}

#[test]
fn the_python_sdk_greet_tool_takes_only_its_required_argument() {
    let schema = DynamicSchema::new(json!({
        "type": "object",
        "properties": {
            "name": {"title": "Name", "type": "string"},
            "title": {"default": null, "title": "Title", "type": "string"},
            "loud": {"default": "false", "title": "Loud", "type": "boolean"}
        },
        "required": ["name"]
    }))
    .unwrap();
    assert_eq!(
        schema.parse(&json!({"name": "Ada"})).unwrap(),
        json!({"name": "Ada"})
    );
    assert_eq!(
        schema.parse(&json!({})).unwrap_err().to_string(),
        "name: 必须是 string，但缺失"
    );
}
