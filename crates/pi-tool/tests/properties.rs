//! Property tests of the schema layer's invariants (DESIGN.md section 4):
//! agreement with an independent validator, filtering, and robustness on any input.
//!
//! (Over 500 lines on purpose: each file under `tests/` is its own binary that links the whole
//! crate stack, so one file per behaviour area keeps CI's link time and disk down; the tests
//! inside are independent and share only the helpers at the top.)
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use pi_tool::__private::{FieldSpec, ObjectFields};
use pi_tool::schema::{
    DynamicSchema, ObjectSchema, Schema, Validator, array, boolean, integer, nullable, number,
    optional, string, string_enum, with_default,
};
use pi_tool::{CallContext, ToolCall, builtin, execute_tool_call};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// A randomly generated schema, kept as data so the test can compute expectations itself.
#[derive(Debug, Clone)]
enum Spec {
    Str {
        min: Option<usize>,
        max: Option<usize>,
        pattern: Option<&'static str>,
    },
    Int {
        min: Option<i64>,
        max: Option<i64>,
        exclusive_min: Option<i64>,
    },
    Num {
        min: Option<f64>,
        exclusive_max: Option<f64>,
    },
    Bool,
    Enum(Vec<String>),
    Array {
        item: Box<Spec>,
        min: Option<usize>,
        max: Option<usize>,
    },
    Object(Vec<(String, Mode, Spec)>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    Required,
    Optional,
    Nullable,
    Defaulted,
}

const PATTERNS: [&str; 3] = ["^[a-z]+$", "[0-9]", "^a"];
const NAMES: [&str; 5] = ["a", "b", "c", "d", "e"];

fn spec_strategy() -> impl Strategy<Value = Spec> {
    let leaf = prop_oneof![
        (
            proptest::option::of(0usize..3),
            proptest::option::of(2usize..6),
            proptest::option::of(proptest::sample::select(&PATTERNS[..]))
        )
            .prop_map(|(min, max, pattern)| Spec::Str { min, max, pattern }),
        (
            proptest::option::of(-3i64..5),
            proptest::option::of(3i64..12),
            proptest::option::of(-3i64..5)
        )
            .prop_map(|(min, max, exclusive_min)| Spec::Int {
                min,
                max,
                exclusive_min
            }),
        (
            proptest::option::of(-3.0f64..5.0),
            proptest::option::of(3.0f64..12.0)
        )
            .prop_map(|(min, exclusive_max)| Spec::Num { min, exclusive_max }),
        Just(Spec::Bool),
        proptest::collection::btree_set("[a-c]{1,2}", 1..4)
            .prop_map(|options| Spec::Enum(options.into_iter().collect())),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (
                inner.clone(),
                proptest::option::of(0usize..2),
                proptest::option::of(1usize..4)
            )
                .prop_map(|(item, min, max)| Spec::Array {
                    item: Box::new(item),
                    min,
                    max
                }),
            proptest::collection::vec(
                (
                    prop_oneof![
                        Just(Mode::Required),
                        Just(Mode::Optional),
                        Just(Mode::Nullable),
                        Just(Mode::Defaulted)
                    ],
                    inner
                ),
                0..4
            )
            .prop_map(|fields| {
                Spec::Object(
                    fields
                        .into_iter()
                        .zip(NAMES)
                        .map(|((mode, spec), name)| (name.to_owned(), mode, spec))
                        .collect(),
                )
            }),
        ]
    })
}

/// Our validators for a spec, producing plain JSON.
fn validator(spec: &Spec) -> Validator<Value> {
    match spec {
        Spec::Str { min, max, pattern } => {
            let mut v = string();
            if let Some(min) = min {
                v = v.min_length(*min);
            }
            if let Some(max) = max {
                v = v.max_length(*max);
            }
            if let Some(pattern) = pattern {
                v = v.pattern(pattern).unwrap();
            }
            v.map(Value::String)
        }
        Spec::Int {
            min,
            max,
            exclusive_min,
        } => {
            let mut v = integer();
            if let Some(min) = min {
                v = v.minimum(*min);
            }
            if let Some(max) = max {
                v = v.maximum(*max);
            }
            if let Some(exclusive_min) = exclusive_min {
                v = v.exclusive_minimum(*exclusive_min);
            }
            v.map(Value::from)
        }
        Spec::Num { min, exclusive_max } => {
            let mut v = number();
            if let Some(min) = min {
                v = v.minimum(*min);
            }
            if let Some(exclusive_max) = exclusive_max {
                v = v.exclusive_maximum(*exclusive_max);
            }
            v.map(Value::from)
        }
        Spec::Bool => boolean().map(Value::Bool),
        Spec::Enum(options) => string_enum(options.clone()).map(Value::String),
        Spec::Array { item, min, max } => {
            let mut v = array(validator(item));
            if let Some(min) = min {
                v = v.min_items(*min);
            }
            if let Some(max) = max {
                v = v.max_items(*max);
            }
            v.map(Value::Array)
        }
        Spec::Object(fields) => {
            let validators: Vec<(String, Validator<Option<Value>>)> = fields
                .iter()
                .map(|(name, mode, spec)| {
                    let inner = validator(spec);
                    let field = match mode {
                        Mode::Required => inner.map(Some),
                        Mode::Optional => optional(inner),
                        Mode::Nullable => nullable(inner).map(|v| Some(v.unwrap_or(Value::Null))),
                        // Only booleans get a default: it must itself be valid to agree
                        // with a validator that checks the filled-in value.
                        Mode::Defaulted if matches!(spec, Spec::Bool) => {
                            with_default(inner, Value::Bool(false)).map(Some)
                        }
                        Mode::Defaulted => optional(inner),
                    };
                    (name.clone(), field)
                })
                .collect();
            let specs = validators
                .iter()
                .map(|(name, v)| FieldSpec::new(name.clone(), v, &[]))
                .collect();
            ObjectSchema::new(specs, move |object| {
                let mut walker = ObjectFields::new(object);
                let mut out = Map::new();
                let mut failed = false;
                for (name, field) in &validators {
                    match walker.field(name, field) {
                        Some(Some(value)) => {
                            out.insert(name.clone(), value);
                        }
                        Some(None) => {}
                        None => failed = true,
                    }
                }
                if failed {
                    Err(walker.finish())
                } else {
                    Ok(out)
                }
            })
            .validator()
            .map(Value::Object)
        }
    }
}

fn has_default(spec: &Spec) -> bool {
    match spec {
        Spec::Array { item, .. } => has_default(item),
        Spec::Object(fields) => fields.iter().any(|(_, mode, spec)| {
            (*mode == Mode::Defaulted && matches!(spec, Spec::Bool)) || has_default(spec)
        }),
        _ => false,
    }
}

/// The value with undeclared properties removed, computed from the schema alone.
fn declared_only(spec: &Spec, value: &Value) -> Value {
    match (spec, value) {
        (Spec::Object(fields), Value::Object(object)) => Value::Object(
            object
                .iter()
                .filter_map(|(key, field)| {
                    let (_, _, field_spec) = fields.iter().find(|(name, _, _)| name == key)?;
                    Some((key.clone(), declared_only(field_spec, field)))
                })
                .collect(),
        ),
        (Spec::Array { item, .. }, Value::Array(items)) => Value::Array(
            items
                .iter()
                .map(|element| declared_only(item, element))
                .collect(),
        ),
        _ => value.clone(),
    }
}

/// JSON equality where numbers compare by value: a typed validator returns `0` for `0.0`.
fn same_json(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => left == right,
    }
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..15).prop_map(Value::from),
        (-5.0f64..15.0).prop_map(Value::from),
        "[a-z0-9]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("[a-f]", inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// Mostly well-formed values for a spec, with random wrong types, absences, nulls and extras.
fn value_for(spec: &Spec) -> BoxedStrategy<Value> {
    let shaped: BoxedStrategy<Value> = match spec {
        Spec::Str { .. } => "[a-z0-9]{0,6}".prop_map(Value::String).boxed(),
        Spec::Int { .. } => prop_oneof![
            (-5i64..15).prop_map(Value::from),
            (-5i64..15).prop_map(|n| json!(n as f64))
        ]
        .boxed(),
        Spec::Num { .. } => prop_oneof![
            (-5.0f64..15.0).prop_map(Value::from),
            (-5i64..15).prop_map(Value::from)
        ]
        .boxed(),
        Spec::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        Spec::Enum(options) => {
            let mut choices: Vec<String> = options.clone();
            choices.push("zz".into());
            proptest::sample::select(choices)
                .prop_map(Value::String)
                .boxed()
        }
        Spec::Array { item, .. } => proptest::collection::vec(value_for(item), 0..5)
            .prop_map(Value::Array)
            .boxed(),
        Spec::Object(fields) => {
            let per_field: Vec<BoxedStrategy<Option<(String, Value)>>> = fields
                .iter()
                .map(|(name, _, spec)| {
                    let name = name.clone();
                    prop_oneof![
                        6 => value_for(spec).prop_map(Some),
                        1 => Just(Some(Value::Null)),
                        2 => Just(None),
                    ]
                    .prop_map(move |value| value.map(|v| (name.clone(), v)))
                    .boxed()
                })
                .collect();
            (
                per_field,
                proptest::collection::btree_map("[x-z]", any_json(), 0..3),
            )
                .prop_map(|(present, extras)| {
                    let mut object: Map<String, Value> = extras.into_iter().collect();
                    object.extend(present.into_iter().flatten());
                    Value::Object(object)
                })
                .boxed()
        }
    };
    prop_oneof![9 => shaped, 1 => any_json()].boxed()
}

fn spec_and_value() -> impl Strategy<Value = (Spec, Value)> {
    spec_strategy().prop_flat_map(|spec| {
        let values = value_for(&spec);
        (Just(spec), values)
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// (a) agreement and (b) filtering: our validators accept exactly what the `jsonschema`
    /// crate accepts on the advertised schema once undeclared fields are dropped; what they
    /// return is that filtered value; the input is never touched. The dynamic path agrees too.
    #[test]
    fn parse_agrees_with_an_independent_validator((spec, value) in spec_and_value()) {
        let ours = validator(&spec);
        let advertised = ours.json_schema().unwrap().clone();
        let before = value.clone();

        let filtered = declared_only(&spec, &value);
        let oracle = jsonschema::validator_for(&advertised).unwrap();
        let oracle_accepts = oracle.is_valid(&filtered);

        let parsed = ours.check(Some(&value));
        prop_assert_eq!(parsed.is_ok(), oracle_accepts,
            "ours: {:?}\nschema: {}\nvalue: {}", parsed, advertised, value);
        if let (Ok(output), false) = (&parsed, has_default(&spec)) {
            prop_assert!(same_json(output, &filtered), "{} != {}", output, filtered);
        }

        let dynamic = DynamicSchema::new(advertised.clone()).unwrap();
        let dynamic_parsed = dynamic.parse(&value);
        prop_assert_eq!(dynamic_parsed.is_ok(), oracle_accepts);
        if let (Ok(dynamic_output), Ok(output)) = (&dynamic_parsed, &parsed) {
            // Both paths drop the same fields and fill in the same defaults.
            prop_assert!(same_json(dynamic_output, output), "{} != {}", dynamic_output, output);
        }
        if let Err(error) = &dynamic_parsed {
            prop_assert!(!error.issues().is_empty());
        }

        prop_assert_eq!(value, before, "parse must not mutate its input");
    }

    /// (c) any JSON value against every coding-tool-like shape: a verdict, never a panic, and
    /// a rejection always says something.
    #[test]
    fn any_json_gets_a_verdict((spec, _) in spec_and_value(), value in any_json()) {
        if let Err(error) = validator(&spec).check(Some(&value)) {
            prop_assert!(!error.to_string().is_empty());
        }
    }
}

fn echo(arguments: Value) -> pi_tool::ToolResultMessage {
    let tools = builtin::registry();
    let call = ToolCall::new("id", "echo", arguments);
    futures::executor::block_on(execute_tool_call(&call, &tools, CallContext::default()))
}

#[test]
fn nesting_thousands_deep_is_refused_cleanly() {
    // serde_json drops a `Value` recursively, and a debug build's frames are large: give the
    // in-memory half of this test the stack a value 5000 deep needs to be dropped at all.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(nesting_thousands_deep)
        .unwrap()
        .join()
        .unwrap();
}

fn nesting_thousands_deep() {
    let depth = 5_000;
    // Built in memory rather than parsed: schemas only walk as deep as they declare, and a
    // recursive schema stops at its depth limit.
    let mut deep = json!("leaf");
    for _ in 0..depth {
        // Not `json!`: it would serialise `deep` afresh at every level.
        let mut level = Map::new();
        level.insert("child".into(), deep);
        level.insert("value".into(), json!("x"));
        deep = Value::Object(level);
    }
    let recursive = DynamicSchema::new(json!({
        "type": "object",
        "properties": {"child": {"$ref": "#"}, "value": {"type": "string"}}
    }))
    .unwrap();
    let error = recursive.parse(&deep).unwrap_err();
    assert!(error.to_string().contains("嵌套不能超过"), "{error}");
    let flat = <builtin::ValueParams as pi_tool::schema::ObjectParams>::object_schema();
    assert!(flat.parse(&deep).is_ok(), "only `value` is read");
}

#[test]
fn megabyte_strings_pass_through_whole() {
    let big = "é".repeat(1 << 20);
    let result = echo(json!({"value": big}));
    assert!(!result.is_error);
    assert_eq!(result.text().len(), big.len());
}

#[test]
fn numbers_at_the_edges_get_clear_verdicts() {
    let count = pi_tool::schema::positive_integer();
    let signed = integer();
    let float = number();
    for raw in [
        "0",
        "-0",
        "1",
        "-1",
        "9223372036854775807",
        "-9223372036854775808",
        "18446744073709551615",
        "18446744073709551616",
        "1e308",
        "-1e308",
        "1.7976931348623157e308",
        "5e-324",
        "1.0",
        "1.5",
    ] {
        let value: Value = serde_json::from_str(raw).unwrap();
        for verdict in [
            count.check(Some(&value)).map(|_| ()),
            signed.check(Some(&value)).map(|_| ()),
            float.check(Some(&value)).map(|_| ()),
        ] {
            if let Err(error) = verdict {
                assert!(error.to_string().starts_with("必须是"), "{raw}: {error}");
            }
        }
    }
    assert_eq!(count.check(Some(&json!(u64::MAX))).unwrap(), u64::MAX);
    assert_eq!(signed.check(Some(&json!(i64::MIN))).unwrap(), i64::MIN);
    assert!(signed.check(Some(&json!(u64::MAX))).is_err());
    assert_eq!(float.check(Some(&json!(f64::MAX))).unwrap(), f64::MAX);
}
