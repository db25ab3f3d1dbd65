//! Scalar validators: strings (lengths, patterns, enums), integers and numbers (bounds), booleans.

use std::fmt::Display;

use regex::Regex;
use serde_json::{Value, json};

use super::{Issue, SchemaError, ValidationError, Validator};
use crate::model_text::{
    items_must_compare, length_must_compare, must_be, must_be_one_of, must_compare, must_match,
};

/// A JSON string: `{"type":"string"}`; anything else fails with `必须是 string` (the course's
/// `stringValue`; its `optionalString` is `optional(string())`).
pub fn string() -> Validator<String> {
    Validator::new(Some(json!({"type": "string"})), |value| match value {
        Some(Value::String(text)) => Ok(text.clone()),
        other => Err(ValidationError::single(Issue::new(
            must_be("string"),
            other,
        ))),
    })
}

impl Validator<String> {
    /// At least `limit` characters (Unicode scalar values, as JSON Schema counts): `minLength`.
    #[must_use]
    pub fn min_length(self, limit: usize) -> Self {
        self.refine("minLength", json!(limit), move |text| {
            (text.chars().count() < limit).then(|| length_must_compare(">=", limit))
        })
    }

    /// At most `limit` characters: `maxLength`.
    #[must_use]
    pub fn max_length(self, limit: usize) -> Self {
        self.refine("maxLength", json!(limit), move |text| {
            (text.chars().count() > limit).then(|| length_must_compare("<=", limit))
        })
    }

    /// Must contain a match of `pattern` (JSON Schema's unanchored `pattern`).
    ///
    /// Patterns use the `regex` crate's syntax, which covers ECMA-262 except look-around and
    /// back-references; those are rejected here, when the schema is built.
    ///
    /// ```
    /// use pi_schema::string;
    /// assert!(string().pattern("^[a-z]+$").is_ok());
    /// let error = string().pattern("^(?!tmp)").unwrap_err();
    /// assert!(error.to_string().starts_with("pattern \"^(?!tmp)\" cannot be used"));
    /// ```
    pub fn pattern(self, pattern: &str) -> Result<Self, SchemaError> {
        let regex = Regex::new(pattern).map_err(|source| SchemaError::Pattern {
            pattern: pattern.to_owned(),
            source,
        })?;
        let text = pattern.to_owned();
        Ok(self.refine("pattern", json!(pattern), move |value| {
            (!regex.is_match(value)).then(|| must_match(&text))
        }))
    }
}

/// One of the given strings: `{"type":"string","enum":[...]}`.
///
/// ```
/// use pi_schema::string_enum;
/// use serde_json::json;
///
/// let mode = string_enum(["fast", "safe"]);
/// assert_eq!(mode.check(Some(&json!("safe"))).unwrap(), "safe");
/// assert_eq!(
///     mode.check(Some(&json!("slow"))).unwrap_err().issues()[0].message(),
///     r#"必须是以下之一："fast", "safe""#
/// );
/// ```
pub fn string_enum<I, S>(options: I) -> Validator<String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let options: Vec<String> = options.into_iter().map(Into::into).collect();
    let listed: Vec<Value> = options.iter().cloned().map(Value::String).collect();
    let message = must_be_one_of(&listed);
    Validator::new(
        Some(json!({"type": "string", "enum": listed})),
        move |value| match value {
            Some(Value::String(text)) if options.contains(text) => Ok(text.clone()),
            other => Err(ValidationError::single(Issue::new(message.clone(), other))),
        },
    )
}

/// A JSON boolean, `{"type":"boolean"}`.
pub fn boolean() -> Validator<bool> {
    Validator::new(Some(json!({"type": "boolean"})), |value| match value {
        Some(Value::Bool(flag)) => Ok(*flag),
        other => Err(ValidationError::single(Issue::new(
            must_be("boolean"),
            other,
        ))),
    })
}

/// A JSON integer that fits an `i64`, `{"type":"integer"}`. `2.0` counts as an integer, as in
/// JSON Schema.
pub fn integer() -> Validator<i64> {
    Validator::new(Some(json!({"type": "integer"})), |value| {
        match value.and_then(as_i64) {
            Some(number) => Ok(number),
            None => Err(ValidationError::single(Issue::new(
                must_be("integer"),
                value,
            ))),
        }
    })
}

/// Any JSON number, `{"type":"number"}`.
pub fn number() -> Validator<f64> {
    Validator::new(Some(json!({"type": "number"})), |value| {
        match value.and_then(Value::as_f64) {
            Some(number) => Ok(number),
            None => Err(ValidationError::single(Issue::new(
                must_be("number"),
                value,
            ))),
        }
    })
}

/// 2^63 as an f64: the first float above every `i64`.
const I64_LIMIT: f64 = 9_223_372_036_854_775_808.0;

fn as_i64(value: &Value) -> Option<i64> {
    let number = value.as_number()?;
    if let Some(integer) = number.as_i64() {
        return Some(integer);
    }
    if number.is_u64() {
        return None;
    }
    let float = number.as_f64()?;
    let whole = float.fract() == 0.0 && (-I64_LIMIT..I64_LIMIT).contains(&float);
    #[expect(
        clippy::cast_possible_truncation,
        reason = "range and fraction checked"
    )]
    whole.then_some(float as i64)
}

/// Number types that take bounds: `i64`, `u64`, `f64`.
pub trait NumberBound: Copy + PartialOrd + Display + Send + Sync + 'static {
    /// The bound as JSON Schema shows it: a whole `f64` is written as an integer (`0`, not
    /// `0.0`), as a TypeScript or hand-written schema would.
    fn to_json(self) -> Value;
}

impl NumberBound for i64 {
    fn to_json(self) -> Value {
        self.into()
    }
}

impl NumberBound for u64 {
    fn to_json(self) -> Value {
        self.into()
    }
}

impl NumberBound for f64 {
    fn to_json(self) -> Value {
        if self.fract() == 0.0 && (-I64_LIMIT..I64_LIMIT).contains(&self) {
            #[expect(clippy::cast_possible_truncation, reason = "whole and in range")]
            return Value::from(self as i64);
        }
        self.into()
    }
}

impl<T: NumberBound> Validator<T> {
    /// `>= limit`: `minimum`.
    #[must_use]
    pub fn minimum(self, limit: T) -> Self {
        self.refine("minimum", limit.to_json(), move |n| {
            (*n < limit).then(|| must_compare(">=", limit))
        })
    }

    /// `<= limit`: `maximum`.
    #[must_use]
    pub fn maximum(self, limit: T) -> Self {
        self.refine("maximum", limit.to_json(), move |n| {
            (*n > limit).then(|| must_compare("<=", limit))
        })
    }

    /// `> limit`: `exclusiveMinimum` (JSON Schema 2020-12 form, a number).
    #[must_use]
    pub fn exclusive_minimum(self, limit: T) -> Self {
        self.refine("exclusiveMinimum", limit.to_json(), move |n| {
            (*n <= limit).then(|| must_compare(">", limit))
        })
    }

    /// `< limit`: `exclusiveMaximum`.
    #[must_use]
    pub fn exclusive_maximum(self, limit: T) -> Self {
        self.refine("exclusiveMaximum", limit.to_json(), move |n| {
            (*n >= limit).then(|| must_compare("<", limit))
        })
    }
}

impl<T: 'static> Validator<Vec<T>> {
    /// At least `limit` items: `minItems`.
    #[must_use]
    pub fn min_items(self, limit: usize) -> Self {
        self.refine("minItems", json!(limit), move |items| {
            (items.len() < limit).then(|| items_must_compare(">=", limit))
        })
    }

    /// At most `limit` items: `maxItems`.
    #[must_use]
    pub fn max_items(self, limit: usize) -> Self {
        self.refine("maxItems", json!(limit), move |items| {
            (items.len() > limit).then(|| items_must_compare("<=", limit))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message<T: std::fmt::Debug>(validator: &Validator<T>, value: Value) -> String {
        validator.check(Some(&value)).unwrap_err().issues()[0]
            .message()
            .to_owned()
    }

    #[test]
    fn string_lengths_count_characters() {
        let name = string().min_length(2).max_length(3);
        assert_eq!(
            name.json_schema().unwrap(),
            &json!({"type": "string", "minLength": 2, "maxLength": 3})
        );
        assert!(name.check(Some(&json!("éé"))).is_ok());
        assert_eq!(message(&name, json!("é")), "长度必须 >= 2");
        assert_eq!(message(&name, json!("abcd")), "长度必须 <= 3");
        assert_eq!(message(&name, json!(5)), "必须是 string");
    }

    #[test]
    fn patterns_search_unanchored() {
        let id = string().pattern("[0-9]+").unwrap();
        assert!(id.check(Some(&json!("abc123"))).is_ok());
        assert_eq!(message(&id, json!("abc")), "必须匹配 pattern [0-9]+");
        assert!(matches!(
            string().pattern(r"(a)\1"),
            Err(SchemaError::Pattern { .. })
        ));
    }

    #[test]
    fn integers_and_numbers_with_bounds() {
        let count = integer().minimum(0).exclusive_maximum(10);
        assert_eq!(
            count.json_schema().unwrap(),
            &json!({"type": "integer", "minimum": 0, "exclusiveMaximum": 10})
        );
        assert_eq!(count.check(Some(&json!(9.0))).unwrap(), 9);
        assert_eq!(message(&count, json!(-1)), "必须 >= 0");
        assert_eq!(message(&count, json!(10)), "必须 < 10");
        assert_eq!(message(&count, json!(1.5)), "必须是 integer");
        assert_eq!(message(&count, json!(u64::MAX)), "必须是 integer");

        let timeout = number().exclusive_minimum(0.0).maximum(600.0);
        assert_eq!(timeout.check(Some(&json!(0.5))).unwrap(), 0.5);
        assert_eq!(message(&timeout, json!(0)), "必须 > 0");
        assert_eq!(message(&timeout, json!(601)), "必须 <= 600");
        assert_eq!(message(&timeout, json!("1")), "必须是 number");
    }

    #[test]
    fn booleans_are_strict() {
        assert!(boolean().check(Some(&json!(true))).unwrap());
        assert_eq!(message(&boolean(), json!("true")), "必须是 boolean");
        assert_eq!(message(&boolean(), json!(1)), "必须是 boolean");
    }
}
