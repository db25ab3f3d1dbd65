//! The one-pass path over raw text never disagrees with the JSON path: whatever it accepts,
//! the JSON path accepts with the same result; whatever it refuses, the JSON path refuses in the
//! same words.
#![allow(clippy::unwrap_used, missing_docs)]

use pi_coding_tools::params::{BashParams, EditParams, GrepParams, LsParams, ReadParams};
use pi_tool::schema::model_text::validation_text;
use pi_tool::schema::{ObjectParams, Schema};
use proptest::prelude::*;
use serde_json::{Value, json};

fn field_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..5).prop_map(Value::from),
        prop_oneof![Just(0.0f64), Just(1.0), Just(2.5), Just(-1.0)].prop_map(Value::from),
        "[a-z\"\\\\é]{0,5}".prop_map(Value::String),
    ];
    leaf.prop_recursive(2, 12, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            proptest::collection::btree_map(
                prop_oneof![
                    Just("oldText".to_owned()),
                    Just("newText".to_owned()),
                    "[a-z]{1,3}".prop_map(String::from)
                ],
                inner,
                0..3
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

const KEYS: [&str; 12] = [
    "path",
    "offset",
    "limit",
    "edits",
    "command",
    "timeout",
    "pattern",
    "glob",
    "ignoreCase",
    "literal",
    "context",
    "extra",
];

fn arguments() -> impl Strategy<Value = Value> {
    proptest::collection::btree_map(proptest::sample::select(&KEYS[..]), field_value(), 0..6)
        .prop_map(|map| Value::Object(map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
}

fn agree<T: ObjectParams + PartialEq + std::fmt::Debug>(
    arguments: &Value,
) -> Result<(), TestCaseError> {
    let schema = T::object_schema();
    let text = arguments.to_string();
    let slow = schema.parse(arguments);
    match (schema.check_text(&text), &slow) {
        (None, _) => {}
        (Some(Ok(fast)), Ok(slow)) => prop_assert_eq!(&fast, slow),
        // A refusal from the one pass is reported in the JSON path's exact words.
        (Some(Err(fast)), Err(slow)) => prop_assert_eq!(
            validation_text(&fast),
            validation_text(slow),
            "reports differ for {}",
            text
        ),
        (Some(fast), slow) => prop_assert!(
            false,
            "the paths disagree on {}: text {:?}, JSON {:?}",
            text,
            fast.map(|_| "accepted")
                .map_err(|error| validation_text(&error)),
            slow.as_ref().map(|_| "accepted").map_err(validation_text)
        ),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn text_and_json_paths_agree(arguments in arguments()) {
        agree::<ReadParams>(&arguments)?;
        agree::<EditParams>(&arguments)?;
        agree::<BashParams>(&arguments)?;
        agree::<GrepParams>(&arguments)?;
        agree::<LsParams>(&arguments)?;
    }
}

#[test]
fn valid_calls_take_the_one_pass_path() {
    let edit = json!({"path": "a.rs", "edits": [{"oldText": "x", "newText": "y", "junk": 1}], "extra": true});
    assert!(
        EditParams::object_schema()
            .parse_text(&edit.to_string())
            .is_some()
    );
    let read = json!({"path": "a.rs", "limit": 5});
    assert!(
        ReadParams::object_schema()
            .parse_text(&read.to_string())
            .is_some()
    );
    // Escaped keys and duplicate keys still agree (the last duplicate wins on both paths).
    let escaped = r#"{"p\u0061th": "a.rs", "path": "b.rs"}"#;
    let fast = ReadParams::object_schema().parse_text(escaped).unwrap();
    let slow = ReadParams::object_schema()
        .parse(&serde_json::from_str(escaped).unwrap())
        .unwrap();
    assert_eq!(fast, slow);
    assert_eq!(fast.path, "b.rs");
    // What the JSON path rejects, the text path rejects.
    for bad in [
        r#"{"path": null}"#,
        r#"{"path": "a", "offset": 0}"#,
        r#"{"path": "a", "limit": null}"#,
        r#"{"path": "a", "edits": []}"#,
        r#"{"command": "ls", "timeout": 0}"#,
    ] {
        assert!(
            ReadParams::object_schema().parse_text(bad).is_none()
                || ReadParams::object_schema()
                    .parse(&serde_json::from_str(bad).unwrap())
                    .is_ok(),
            "{bad}"
        );
    }
}
