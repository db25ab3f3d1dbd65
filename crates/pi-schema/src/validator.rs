//! Field validators: callable values that also carry their JSON Schema and optionality.
//!
//! The course writes a validator as a function with properties attached (`Validator<T> =
//! ((value: unknown) => T) & { jsonSchema?, optional? }`). Rust cannot attach fields to a
//! function, so a [`Validator`] is a value holding the function next to its metadata; it is
//! called with [`Validator::check`].

use std::sync::Arc;

use serde_json::{Value, json};

use super::{Issue, Schema, ValidationError};

type CheckFn<T> = dyn Fn(Option<&Value>) -> Result<T, ValidationError> + Send + Sync;

/// Checks one JSON value (an object's field) and turns it into a `T`.
///
/// `check(None)` means the field was absent, which only optional validators accept.
///
/// ```
/// use pi_schema::string;
/// use serde_json::json;
///
/// let validator = string();
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

    /// Adds `"description": text` to the JSON Schema: the model reads it.
    ///
    /// ```
    /// let path = pi_schema::string().describe("Path to the file");
    /// assert_eq!(path.json_schema().unwrap()["description"], "Path to the file");
    /// ```
    #[must_use]
    pub fn describe(self, text: impl Into<String>) -> Self {
        self.with_keyword("description", Value::String(text.into()))
    }

    /// Sets one keyword of the JSON Schema (creating an object schema if there was none).
    #[must_use]
    pub fn with_keyword(mut self, keyword: &str, value: Value) -> Self {
        let schema = self.json_schema.get_or_insert_with(|| json!({}));
        if let Value::Object(map) = schema {
            map.insert(keyword.to_owned(), value);
        }
        self
    }

    /// Marks the validator optional or required without changing its check.
    pub(crate) fn with_optional(mut self, optional: bool) -> Self {
        self.optional = optional;
        self
    }
}

impl<T: 'static> Validator<T> {
    /// Adds a rule checked after this validator accepted a value, and the JSON Schema keyword
    /// that tells the model about it. `rule` returns the violation's message, if any.
    ///
    /// ```
    /// use pi_schema::string;
    /// use serde_json::json;
    ///
    /// let even = pi_schema::integer().refine("multipleOf", json!(2), |n| (n % 2 != 0).then(|| "必须是偶数".to_owned()));
    /// assert!(even.check(Some(&json!(4))).is_ok());
    /// assert_eq!(even.check(Some(&json!(3))).unwrap_err().issues()[0].message(), "必须是偶数");
    /// assert_eq!(even.json_schema().unwrap(), &json!({"type": "integer", "multipleOf": 2}));
    /// ```
    #[must_use]
    pub fn refine<M: Into<crate::model_text::Expected>>(
        self,
        keyword: &str,
        keyword_value: Value,
        rule: impl Fn(&T) -> Option<M> + Send + Sync + 'static,
    ) -> Self {
        let inner = Arc::clone(&self.check);
        let rule = Arc::new(rule);
        let refined = Validator {
            check: Arc::new(move |value: Option<&Value>| {
                let accepted = inner(value)?;
                match rule(&accepted) {
                    None => Ok(accepted),
                    Some(message) => Err(ValidationError::single(Issue::new(message, value))),
                }
            }),
            json_schema: self.json_schema,
            optional: self.optional,
        };
        refined.with_keyword(keyword, keyword_value)
    }

    /// Turns the checked value into another type; the JSON Schema is unchanged.
    pub fn map<U>(self, convert: impl Fn(T) -> U + Send + Sync + 'static) -> Validator<U> {
        let inner = self.check;
        Validator {
            check: Arc::new(move |value| inner(value).map(&convert)),
            json_schema: self.json_schema,
            optional: self.optional,
        }
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

/// An integer >= 1: `{"type":"integer","minimum":1}`.
///
/// A number with a zero fraction (`2.0`) counts as an integer, as in JSON Schema; `0`,
/// negatives, fractions and non-numbers are rejected.
pub fn positive_integer() -> Validator<u64> {
    integer_at_least(1)
}

/// An integer >= 0: `{"type":"integer","minimum":0}`, as a `u64`.
pub fn non_negative_integer() -> Validator<u64> {
    integer_at_least(0)
}

/// An integer >= `minimum`, as a `u64`: `{"type":"integer","minimum":N}`, failing with the
/// one message `必须是 integer 且 >= N` (what `#[param(min = N)]` gives a `u64` field).
///
/// ```
/// use pi_schema::integer_at_least;
/// use serde_json::json;
///
/// let count = integer_at_least(2);
/// assert_eq!(count.check(Some(&json!(2.0))).unwrap(), 2);
/// assert_eq!(count.json_schema().unwrap(), &json!({"type": "integer", "minimum": 2}));
/// assert_eq!(count.check(Some(&json!(1))).unwrap_err().to_string(), "必须是 integer 且 >= 2，收到 number 1");
/// ```
pub fn integer_at_least(minimum: u64) -> Validator<u64> {
    let message = crate::model_text::Expected::IntegerAtLeast(minimum);
    Validator::new(
        Some(json!({"type": "integer", "minimum": minimum})),
        move |value| match value.and_then(as_whole_u64).filter(|n| *n >= minimum) {
            Some(number) => Ok(number),
            None => Err(ValidationError::single(Issue::new(message.clone(), value))),
        },
    )
}

/// 2^64 as an f64: the first float above every `u64`.
const U64_LIMIT: f64 = 18_446_744_073_709_551_616.0;

/// A JSON number that is a whole number in `u64`'s range (`2.0` included).
fn as_whole_u64(value: &Value) -> Option<u64> {
    let number = value.as_number()?;
    if let Some(integer) = number.as_u64() {
        return Some(integer);
    }
    let float = number.as_f64()?;
    let whole = float.fract() == 0.0 && (0.0..U64_LIMIT).contains(&float);
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
    use crate::{optional, string};

    #[test]
    fn string_has_the_specs_three_faces() {
        let validator = string();
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
        let validator = optional(string());
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
        let validator = optional(positive_integer());
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
