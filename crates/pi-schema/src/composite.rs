//! Validators built from other validators: optional, nullable, defaulted, arrays, nested objects.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};

use super::{Issue, ObjectParams, ObjectSchema, PathSegment, Schema, ValidationError, Validator};
use crate::model_text::must_be;

/// Accepts an absent field as `None`; a present one must pass `inner` (`null` included: use
/// [`nullable`] to accept it).
///
/// The JSON Schema is `inner`'s: optionality shows in the object's `required` list.
pub fn optional<T: 'static>(inner: Validator<T>) -> Validator<Option<T>> {
    let json_schema = inner.json_schema().cloned();
    Validator::new(json_schema, move |value| match value {
        None => Ok(None),
        Some(present) => inner.check(Some(present)).map(Some),
    })
    .with_optional(true)
}

/// Accepts `null` as `None`; anything else must pass `inner`. The field stays required unless
/// wrapped in [`optional`] too.
///
/// The JSON Schema admits null: `{"type":["string","null"]}` (and `null` joins an `enum`), or
/// `{"anyOf":[inner, {"type":"null"}]}` when `inner` has no single type.
pub fn nullable<T: 'static>(inner: Validator<T>) -> Validator<Option<T>> {
    let json_schema = inner.json_schema().cloned().map(admit_null);
    Validator::new(json_schema, move |value| match value {
        Some(Value::Null) => Ok(None),
        other => inner.check(other).map(Some),
    })
}

fn admit_null(schema: Value) -> Value {
    match schema {
        Value::Object(mut map) => match map.get("type").cloned() {
            Some(Value::String(single)) => {
                map.insert("type".into(), json!([single, "null"]));
                if let Some(Value::Array(options)) = map.get_mut("enum") {
                    options.push(Value::Null);
                }
                Value::Object(map)
            }
            _ => json!({"anyOf": [Value::Object(map), {"type": "null"}]}),
        },
        other => json!({"anyOf": [other, {"type": "null"}]}),
    }
}

/// An optional field that takes `default` when absent; the schema shows `"default"`.
///
/// ```
/// use pi_schema::{integer, with_default};
/// use serde_json::json;
///
/// let limit = with_default(integer().minimum(1), 100);
/// assert!(limit.is_optional());
/// assert_eq!(limit.check(None).unwrap(), 100);
/// assert_eq!(limit.json_schema().unwrap(), &json!({"type": "integer", "minimum": 1, "default": 100}));
/// ```
pub fn with_default<T>(inner: Validator<T>, default: T) -> Validator<T>
where
    T: Clone + Serialize + Send + Sync + 'static,
{
    let shown = serde_json::to_value(&default).ok();
    let json_schema = inner.json_schema().cloned();
    let mut defaulted = Validator::new(json_schema, move |value| match value {
        None => Ok(default.clone()),
        Some(present) => inner.check(Some(present)),
    })
    .with_optional(true);
    if let Some(shown) = shown {
        defaulted = defaulted.with_keyword("default", shown);
    }
    defaulted
}

/// A JSON array whose every item passes `item`: `{"type":"array","items":…}`. Every bad item
/// is reported, under its index.
pub fn array<T: 'static>(item: Validator<T>) -> Validator<Vec<T>> {
    let items_schema = item.json_schema().cloned().unwrap_or_else(|| json!({}));
    let item = Arc::new(item);
    Validator::new(
        Some(json!({"type": "array", "items": items_schema})),
        move |value| match value {
            Some(Value::Array(elements)) => {
                let mut parsed = Vec::with_capacity(elements.len());
                let mut failure: Option<ValidationError> = None;
                for (index, element) in elements.iter().enumerate() {
                    match item.check(Some(element)) {
                        Ok(ok) => parsed.push(ok),
                        Err(error) => {
                            let error = error.under(PathSegment::Index(index));
                            match &mut failure {
                                Some(all) => all.extend(error),
                                None => failure = Some(error),
                            }
                        }
                    }
                }
                failure.map_or(Ok(parsed), Err)
            }
            other => Err(ValidationError::single(Issue::new(must_be("array"), other))),
        },
    )
}

/// A nested object: a struct that derives `ToolParams`.
pub fn object<T: ObjectParams>() -> Validator<T> {
    T::object_schema().validator()
}

impl<T: 'static> ObjectSchema<T> {
    /// This object schema as a field validator, for nesting.
    pub fn validator(&self) -> Validator<T> {
        let schema = self.clone();
        Validator::new(self.json_schema().cloned(), move |value| match value {
            Some(present) => schema.parse(present),
            None => Err(ValidationError::single(Issue::new(must_be("object"), None))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{integer, string, string_enum};

    #[test]
    fn nullable_admits_null_in_the_schema_too() {
        let label = nullable(string());
        assert_eq!(
            label.json_schema().unwrap(),
            &json!({"type": ["string", "null"]})
        );
        assert_eq!(label.check(Some(&json!(null))).unwrap(), None);
        assert_eq!(label.check(Some(&json!("a"))).unwrap(), Some("a".into()));
        assert!(
            label.check(None).is_err(),
            "nullable alone is still required"
        );
        assert!(!label.is_optional());

        let mode = nullable(string_enum(["a"]));
        assert_eq!(
            mode.json_schema().unwrap(),
            &json!({"type": ["string", "null"], "enum": ["a", null]})
        );
    }

    #[test]
    fn arrays_report_every_bad_item_by_index() {
        let numbers = array(integer()).min_items(1);
        assert_eq!(
            numbers.json_schema().unwrap(),
            &json!({"type": "array", "items": {"type": "integer"}, "minItems": 1})
        );
        assert_eq!(numbers.check(Some(&json!([1, 2]))).unwrap(), vec![1, 2]);
        let error = numbers.check(Some(&json!([1, "x", 3, null]))).unwrap_err();
        let paths: Vec<String> = error.issues().iter().map(|i| i.path_string()).collect();
        assert_eq!(paths, ["[1]", "[3]"]);
        assert_eq!(
            numbers.check(Some(&json!([]))).unwrap_err().issues()[0].message(),
            "项数必须 >= 1"
        );
        assert_eq!(
            numbers.check(Some(&json!({}))).unwrap_err().issues()[0].message(),
            "必须是 array"
        );
    }

    #[test]
    fn descriptions_reach_the_schema() {
        let described = optional(integer().minimum(1).describe("Max lines"));
        assert_eq!(
            described.json_schema().unwrap(),
            &json!({"type": "integer", "minimum": 1, "description": "Max lines"})
        );
    }
}
