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
/// same message as [`string_enum`](crate::string_enum).
///
/// `#[derive(ToolParams)]` (in `pi_tool`) writes the `StringEnum` impl; by hand it reads:
///
/// ```
/// use pi_schema::{StringEnum, enum_value};
/// use serde_json::json;
///
/// #[derive(Debug, Clone, Copy, PartialEq, Eq)]
/// pub enum Mode { Fast, Safe }
///
/// impl StringEnum for Mode {
///     const NAMES: &'static [&'static str] = &["fast", "safe"];
///     fn from_name(name: &str) -> Option<Self> {
///         match name {
///             "fast" => Some(Mode::Fast),
///             "safe" => Some(Mode::Safe),
///             _ => None,
///         }
///     }
///     fn name(&self) -> &'static str {
///         match self {
///             Mode::Fast => "fast",
///             Mode::Safe => "safe",
///         }
///     }
/// }
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
}
