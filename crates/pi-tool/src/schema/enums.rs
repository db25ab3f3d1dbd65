//! String enums as Rust enums: `#[derive(ToolParams)]` on an enum of unit variants implements
//! [`StringEnum`]; [`enum_value`] is its validator.

use serde_json::{Value, json};

use super::error::{Issue, ValidationError};
use super::validator::Validator;
use crate::model_text::must_be_one_of;

/// A Rust enum whose variants travel as JSON strings. `#[derive(ToolParams)]` implements it
/// (variant names follow `#[serde(rename)]` and `rename_all`).
pub trait StringEnum: Sized + Send + Sync + 'static {
    /// The JSON names of the variants, in declaration order.
    const NAMES: &'static [&'static str];

    /// The variant named `name`, if any.
    fn from_name(name: &str) -> Option<Self>;

    /// This variant's JSON name.
    fn name(&self) -> &'static str;
}

/// One of the variants of `E`, by JSON name: `{"type":"string","enum":[...]}`. Fails with the
/// same message as [`string_enum`](crate::schema::string_enum).
///
/// ```
/// use pi_tool::ToolParams;
/// use pi_tool::schema::enum_value;
/// use serde_json::json;
///
/// #[derive(Debug, Clone, Copy, PartialEq, Eq, ToolParams)]
/// #[serde(rename_all = "lowercase")]
/// pub enum Mode { Fast, Safe }
///
/// let mode = enum_value::<Mode>();
/// assert_eq!(mode.check(Some(&json!("safe"))).unwrap(), Mode::Safe);
/// assert_eq!(mode.json_schema().unwrap(), &json!({"type": "string", "enum": ["fast", "safe"]}));
/// assert_eq!(
///     mode.check(Some(&json!("slow"))).unwrap_err().issues()[0].message(),
///     r#"必须是以下之一："fast", "safe""#
/// );
/// ```
pub fn enum_value<E: StringEnum>() -> Validator<E> {
    let listed: Vec<Value> = E::NAMES.iter().map(|name| json!(name)).collect();
    let message = must_be_one_of(&listed);
    Validator::new(
        Some(json!({"type": "string", "enum": listed})),
        move |value| match value.and_then(Value::as_str).and_then(E::from_name) {
            Some(variant) => Ok(variant),
            None => Err(ValidationError::single(Issue::new(message.clone(), value))),
        },
    )
    // A variant serde built is a declared one by construction.
    .with_typed_check(|_| true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolParams;
    use crate::schema::{ObjectParams, Schema};

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
            assert_eq!(schema.parse_text(text), expected, "{text}");
        }
        let error = schema.parse(&json!({"team": "web"})).unwrap_err();
        assert_eq!(error.issues()[0].path_string(), "team");
    }
}
