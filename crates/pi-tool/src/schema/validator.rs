//! Field validators: callable values that also carry their JSON Schema and optionality.
//!
//! The seed writes a validator as a function with properties attached (`Validator<T> =
//! ((value: unknown) => T) & { jsonSchema?, optional? }`). Rust cannot attach fields to a
//! function, so a [`Validator`] is a value holding the function next to its metadata; it is
//! called with [`Validator::check`].

use std::sync::Arc;

use serde_json::{Value, json};

use super::{Issue, Schema, ValidationError};
use crate::model_text::must_be;

type CheckFn<T> = dyn Fn(Option<&Value>) -> Result<T, ValidationError> + Send + Sync;

/// Checks one JSON value (an object's field) and turns it into a `T`.
///
/// `check(None)` means the field was absent, which only optional validators accept.
///
/// ```
/// use pi_tool::string_value;
/// use serde_json::json;
///
/// let validator = string_value();
/// assert_eq!(validator.check(Some(&json!("Pi"))).unwrap(), "Pi");
/// assert_eq!(validator.json_schema().unwrap().to_string(), r#"{"type":"string"}"#);
/// assert!(!validator.is_optional());
/// ```
pub struct Validator<T> {
    check: Arc<CheckFn<T>>,
    json_schema: Option<Value>,
    optional: bool,
}

impl<T> Clone for Validator<T> {
    fn clone(&self) -> Self {
        Self {
            check: Arc::clone(&self.check),
            json_schema: self.json_schema.clone(),
            optional: self.optional,
        }
    }
}

impl<T> std::fmt::Debug for Validator<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Validator")
            .field("json_schema", &self.json_schema)
            .field("optional", &self.optional)
            .finish_non_exhaustive()
    }
}

impl<T> Validator<T> {
    /// A required validator from its JSON Schema and its check.
    pub fn new(
        json_schema: Option<Value>,
        check: impl Fn(Option<&Value>) -> Result<T, ValidationError> + Send + Sync + 'static,
    ) -> Self {
        Self {
            check: Arc::new(check),
            json_schema,
            optional: false,
        }
    }

    /// Runs the check; `None` stands for an absent field.
    pub fn check(&self, value: Option<&Value>) -> Result<T, ValidationError> {
        (self.check)(value)
    }

    /// The JSON Schema the model is shown for this value.
    pub fn json_schema(&self) -> Option<&Value> {
        self.json_schema.as_ref()
    }

    /// Whether an absent field is accepted (and left out of `required`).
    pub fn is_optional(&self) -> bool {
        self.optional
    }
}

impl<T> Schema for Validator<T> {
    type Output = T;

    fn parse(&self, value: &Value) -> Result<T, ValidationError> {
        self.check(Some(value))
    }

    fn json_schema(&self) -> Option<&Value> {
        self.json_schema.as_ref()
    }
}

/// Accepts an absent field as `None`; a present one must pass `inner`.
///
/// The JSON Schema is `inner`'s: optionality shows in the object's `required` list.
pub fn optional<T: 'static>(inner: Validator<T>) -> Validator<Option<T>> {
    let check = Arc::clone(&inner.check);
    Validator {
        check: Arc::new(move |value| match value {
            None => Ok(None),
            Some(present) => check(Some(present)).map(Some),
        }),
        json_schema: inner.json_schema,
        optional: true,
    }
}

/// A JSON string: `{"type":"string"}`; anything else fails with `必须是 string`.
pub fn string_value() -> Validator<String> {
    Validator::new(Some(json!({"type": "string"})), |value| match value {
        Some(Value::String(text)) => Ok(text.clone()),
        other => Err(ValidationError::single(Issue::new(
            must_be("string"),
            other,
        ))),
    })
}

/// A string or an absent field.
pub fn optional_string() -> Validator<Option<String>> {
    optional(string_value())
}

/// An integer >= 1: `{"type":"integer","minimum":1}`.
///
/// A number with a zero fraction (`2.0`) counts as an integer, as in JSON Schema; `0`,
/// negatives, fractions and non-numbers are rejected.
pub fn positive_integer() -> Validator<u64> {
    Validator::new(
        Some(json!({"type": "integer", "minimum": 1})),
        |value| match value.and_then(as_positive_integer) {
            Some(number) => Ok(number),
            None => Err(ValidationError::single(Issue::new(
                must_be("integer 且 >= 1"),
                value,
            ))),
        },
    )
}

/// An integer >= 1 or an absent field.
pub fn optional_positive_integer() -> Validator<Option<u64>> {
    optional(positive_integer())
}

/// 2^64 as an f64: the first float above every `u64`.
const U64_LIMIT: f64 = 18_446_744_073_709_551_616.0;

fn as_positive_integer(value: &Value) -> Option<u64> {
    let number = value.as_number()?;
    if let Some(integer) = number.as_u64() {
        return (integer >= 1).then_some(integer);
    }
    let float = number.as_f64()?;
    let whole = float.fract() == 0.0 && (1.0..U64_LIMIT).contains(&float);
    // The range check above makes the cast exact.
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "range checked"
    )]
    whole.then_some(float as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_value_has_the_seeds_three_faces() {
        let validator = string_value();
        assert_eq!(validator.check(Some(&json!("Pi"))).unwrap(), "Pi");
        assert_eq!(validator.json_schema(), Some(&json!({"type": "string"})));
        assert!(!validator.is_optional());
        for bad in [json!(1), json!(null), json!([]), json!({})] {
            let error = validator.check(Some(&bad)).unwrap_err();
            assert_eq!(error.issues()[0].message(), "必须是 string");
        }
        let missing = validator.check(None).unwrap_err();
        assert_eq!(missing.issues()[0].message(), "必须是 string");
        assert_eq!(missing.issues()[0].received(), &crate::Received::Missing);
    }

    #[test]
    fn optional_string_accepts_absence_but_not_null() {
        let validator = optional_string();
        assert!(validator.is_optional());
        assert_eq!(validator.check(None).unwrap(), None);
        assert_eq!(
            validator.check(Some(&json!("a"))).unwrap(),
            Some("a".into())
        );
        assert!(validator.check(Some(&json!(null))).is_err());
    }

    #[test]
    fn positive_integers_are_whole_and_at_least_one() {
        let validator = optional_positive_integer();
        assert!(validator.is_optional());
        assert_eq!(
            validator.json_schema(),
            Some(&json!({"type": "integer", "minimum": 1}))
        );
        for (input, expected) in [
            (json!(1), 1),
            (json!(2), 2),
            (json!(2.0), 2),
            (json!(u64::MAX), u64::MAX),
        ] {
            assert_eq!(validator.check(Some(&input)).unwrap(), Some(expected));
        }
        for bad in [
            json!(0),
            json!(-1),
            json!(1.5),
            json!(0.5),
            json!("2"),
            json!(null),
            json!(true),
            json!(1e20),
            json!(i64::MIN),
            json!(f64::MAX),
        ] {
            assert!(validator.check(Some(&bad)).is_err(), "{bad} was accepted");
        }
        assert_eq!(validator.check(None).unwrap(), None);
    }
}
