//! `#[derive(ToolParams)]` against the hand-written validators: the same JSON Schema and the
//! same error texts.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use pi_tool::ToolParams;
use pi_tool::schema::{
    ObjectParams, Schema, StringEnum, array, boolean, enum_value, integer, number, object,
    optional, positive_integer, string, with_default,
};
use serde_json::{Value, json};

#[derive(Debug, Clone, PartialEq, ToolParams)]
#[serde(rename_all = "camelCase")]
pub struct Replacement {
    /// Exact text to find
    pub old_text: String,
    pub new_text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ToolParams)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Fast,
    #[serde(rename = "careful")]
    Safe,
}

#[derive(Debug, Clone, PartialEq, ToolParams)]
pub struct Derived {
    /// Where
    #[param(min_length = 1, max_length = 80, pattern = "^[a-z./]+$")]
    pub path: String,
    #[param(min = 1)]
    pub offset: Option<u64>,
    #[param(min = -5, max = 5)]
    pub shift: Option<i64>,
    #[param(exclusive_min = 0.0)]
    pub timeout: Option<f64>,
    #[param(default = 100)]
    pub limit: u64,
    #[param(one_of = ["a", "b"])]
    pub kind: Option<String>,
    pub mode: Option<Mode>,
    #[serde(rename = "dryRun")]
    pub dry_run: Option<bool>,
    #[param(min_items = 1, max_items = 3)]
    pub edits: Vec<Replacement>,
}

#[derive(Debug, ToolParams)]
pub struct Batch {
    /// Ids to fetch
    #[param(items(min = 1), max_items = 2)]
    pub ids: Option<Vec<u64>>,
    #[param(items(min_length = 1, pattern = "^[a-z]+$"))]
    pub tags: Vec<String>,
}

/// The schema of `Replacement` as the validators would build it by hand.
fn replacement_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "oldText": {"type": "string", "description": "Exact text to find"},
            "newText": {"type": "string"},
        },
        "required": ["oldText", "newText"],
        "additionalProperties": false,
    })
}

/// What the derive should generate, written with the validators by hand.
fn hand_written() -> Vec<(&'static str, Option<Value>)> {
    vec![
        (
            "path",
            string()
                .min_length(1)
                .max_length(80)
                .pattern("^[a-z./]+$")
                .unwrap()
                .describe("Where")
                .json_schema()
                .cloned(),
        ),
        (
            "offset",
            optional(positive_integer()).json_schema().cloned(),
        ),
        (
            "shift",
            optional(integer().minimum(-5).maximum(5))
                .json_schema()
                .cloned(),
        ),
        (
            "timeout",
            optional(number().exclusive_minimum(0.0))
                .json_schema()
                .cloned(),
        ),
        (
            "limit",
            with_default(pi_tool::schema::non_negative_integer(), 100_u64)
                .json_schema()
                .cloned(),
        ),
        (
            "kind",
            optional(pi_tool::schema::string_enum(["a", "b"]))
                .json_schema()
                .cloned(),
        ),
        (
            "mode",
            optional(enum_value::<Mode>()).json_schema().cloned(),
        ),
        ("dryRun", optional(boolean()).json_schema().cloned()),
        (
            "edits",
            array(object::<Replacement>())
                .min_items(1)
                .max_items(3)
                .json_schema()
                .cloned(),
        ),
    ]
}

#[test]
fn the_schema_is_what_the_validators_give() {
    let schema = Derived::object_schema().json_schema().unwrap().clone();
    for (name, expected) in hand_written() {
        assert_eq!(
            schema["properties"][name],
            expected.unwrap(),
            "property {name}"
        );
    }
    assert_eq!(schema["required"], json!(["path", "edits"]));
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(Mode::NAMES, ["fast", "careful"]);
    assert_eq!(
        Replacement::object_schema().json_schema(),
        Some(&replacement_schema())
    );
}

#[test]
fn items_take_their_own_rules() {
    let schema = Batch::object_schema();
    let json_schema = schema.json_schema().unwrap();
    assert_eq!(
        json_schema["properties"]["ids"],
        optional(array(positive_integer()).max_items(2))
            .describe("Ids to fetch")
            .json_schema()
            .cloned()
            .unwrap()
    );
    assert_eq!(
        json_schema["properties"]["tags"],
        array(string().min_length(1).pattern("^[a-z]+$").unwrap())
            .json_schema()
            .cloned()
            .unwrap()
    );
    let error = schema
        .parse(&json!({"ids": [1, 0, 2], "tags": ["ok", "", "Up"]}))
        .unwrap_err()
        .to_string();
    for expected in [
        "ids[1]: 必须是 integer 且 >= 1",
        "tags[1]: 长度必须 >= 1",
        "tags[2]: 必须匹配",
    ] {
        assert!(error.contains(expected), "{expected:?} not in {error}");
    }
    let too_many = schema
        .parse(&json!({"ids": [1, 2, 3], "tags": []}))
        .unwrap_err();
    assert!(too_many.to_string().starts_with("ids: "), "{too_many}");
    let parsed = schema.parse(&json!({"ids": [3], "tags": ["a"]})).unwrap();
    assert_eq!(
        (parsed.ids, parsed.tags),
        (Some(vec![3]), vec!["a".to_owned()])
    );
    assert!(schema.parse(&json!({"ids": [0], "tags": []})).is_err());
}

#[test]
fn errors_are_the_spec_texts() {
    let schema = Derived::object_schema();
    let error = schema
        .parse(
            &json!({"path": "", "offset": 0, "timeout": 0, "kind": "c", "mode": "slow",
                        "edits": [{"oldText": 1}]}),
        )
        .unwrap_err()
        .to_string();
    for expected in [
        "path: 长度必须 >= 1",
        "offset: 必须是 integer 且 >= 1",
        "timeout: 必须 > 0",
        r#"kind: 必须是以下之一："a", "b""#,
        r#"mode: 必须是以下之一："fast", "careful""#,
        "edits[0].oldText: 必须是 string，收到 number 1",
        "edits[0].newText: 必须是 string，但缺失",
    ] {
        assert!(error.contains(expected), "{expected:?} not in {error}");
    }
    let parsed = schema
        .parse(&json!({"path": "a.rs", "edits": [{"oldText": "x", "newText": "y"}], "extra": 1}))
        .unwrap();
    assert_eq!(parsed.limit, 100, "the default fills a missing field");
    assert_eq!(parsed.edits[0].old_text, "x");
    assert_eq!(parsed.mode, None);
    let careful = schema
        .parse(&json!({"path": "a", "mode": "careful", "dryRun": true, "edits": [{"oldText": "x", "newText": "y"}]}))
        .unwrap();
    assert_eq!(careful.mode, Some(Mode::Safe));
    assert_eq!(careful.dry_run, Some(true));
}

/// A generic page of results: every type parameter must itself be a parameter type.
#[derive(Debug, PartialEq, ToolParams)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    #[param(max_items = 2)]
    pub items: Vec<T>,
    pub next_cursor: Option<String>,
}

#[test]
fn generic_structs_get_a_schema_per_concrete_type() {
    let edits = Page::<Replacement>::object_schema().json_schema().unwrap();
    assert_eq!(
        edits["properties"]["items"],
        array(object::<Replacement>())
            .max_items(2)
            .json_schema()
            .cloned()
            .unwrap()
    );
    assert_eq!(edits["required"], json!(["items"]));
    let numbers = Page::<u64>::object_schema();
    assert_eq!(
        numbers.json_schema().unwrap()["properties"]["items"]["items"],
        json!({"type": "integer", "minimum": 0})
    );
    assert!(
        std::ptr::eq(numbers, Page::<u64>::object_schema()),
        "built once"
    );

    let nested = Page::<Page<u64>>::object_schema();
    let value = json!({"items": [{"items": [1, 2]}, {"items": [], "nextCursor": "c"}]});
    let parsed = nested.parse(&value).unwrap();
    assert_eq!(parsed.items[1].next_cursor.as_deref(), Some("c"));
    let error = nested
        .parse(&json!({"items": [{"items": [1, -1]}]}))
        .unwrap_err()
        .to_string();
    assert!(error.contains("items[0].items[1]"), "{error}");
}
