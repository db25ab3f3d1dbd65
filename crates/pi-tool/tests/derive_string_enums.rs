//! `#[derive(ToolParams)]` on an enum of unit variants: the names follow `#[serde(rename)]`, and
//! a struct holding such enums reads them by those names.

use pi_tool::ToolParams;
use pi_tool::schema::{ObjectParams, Schema, StringEnum};
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ToolParams)]
enum Team {
    #[serde(rename = "core")]
    Core,
    /// Variant docs are allowed.
    #[serde(rename = "ml")]
    Machine,
}

#[derive(Debug, PartialEq, ToolParams)]
struct Member {
    team: Team,
    backup: Option<Team>,
}

#[test]
fn names_round_trip() {
    assert_eq!(Team::NAMES, ["core", "ml"]);
    assert_eq!(Team::from_name("ml"), Some(Team::Machine));
    assert_eq!(Team::from_name("ML"), None);
    assert_eq!(Team::Machine.name(), "ml");
}

#[test]
fn the_json_path_and_the_text_path_agree() {
    let schema = Member::object_schema();
    for (text, expected) in [
        (
            r#"{"team":"ml"}"#,
            Some(Member {
                team: Team::Machine,
                backup: None,
            }),
        ),
        (
            r#"{"team":"core","backup":"ml","x":1}"#,
            Some(Member {
                team: Team::Core,
                backup: Some(Team::Machine),
            }),
        ),
        (r#"{"team":"web"}"#, None),
        (r#"{"team":1}"#, None),
        (r#"{}"#, None),
    ] {
        let value: Value = serde_json::from_str(text).unwrap_or_default();
        assert_eq!(schema.parse(&value).ok(), expected, "{text}");
    }
    let error = schema.parse(&json!({"team": "web"})).unwrap_err();
    assert_eq!(error.issues()[0].path_string(), "team");
}
