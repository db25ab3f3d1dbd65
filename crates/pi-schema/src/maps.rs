//! Maps and free-form JSON as tool parameters: `HashMap<String, T>`, `BTreeMap<String, T>` and
//! `serde_json::Value`.
//!
//! A map is a JSON object whose keys the tool chooses at run time (`{"env": {"PATH": "/bin"}}`):
//! `{"type":"object","additionalProperties": <T's schema>}`, every entry checked by `T`'s
//! rules and every bad entry reported under its key. A `Value` takes any JSON (`{}`): the
//! escape hatch for data the tool interprets itself.

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;
use std::sync::Arc;

use serde_json::{Value, json};

use super::{Issue, ParamType, PathSegment, ValidationError, Validator};
use crate::model_text::must_be;

/// A JSON object whose every value passes `value`, collected into `M`.
fn map_of<M, T>(value: Validator<T>) -> Validator<M>
where
    M: FromIterator<(String, T)> + 'static,
    T: 'static,
{
    let value_schema = value.json_schema().cloned().unwrap_or_else(|| json!({}));
    let value = Arc::new(value);
    Validator::new(
        Some(json!({"type": "object", "additionalProperties": value_schema})),
        move |found| match found {
            Some(Value::Object(entries)) => {
                let mut failure: Option<ValidationError> = None;
                let mut parsed = Vec::with_capacity(entries.len());
                for (key, entry) in entries {
                    match value.check(Some(entry)) {
                        Ok(ok) => parsed.push((key.clone(), ok)),
                        Err(error) => {
                            let error = error.under(PathSegment::Key(key.clone()));
                            match &mut failure {
                                Some(all) => all.extend(error),
                                None => failure = Some(error),
                            }
                        }
                    }
                }
                failure.map_or_else(|| Ok(parsed.into_iter().collect()), Err)
            }
            other => Err(ValidationError::single(Issue::new(
                must_be("object"),
                other,
            ))),
        },
    )
}

impl<T: ParamType, S> ParamType for HashMap<String, T, S>
where
    S: BuildHasher + Default + Send + Sync + 'static,
{
    fn validator() -> Validator<Self> {
        map_of(T::validator())
    }
}

impl<T: ParamType> ParamType for BTreeMap<String, T> {
    fn validator() -> Validator<Self> {
        map_of(T::validator())
    }
}

impl ParamType for Value {
    /// Any JSON: `{}`. A present `null` is a value like any other; an absent field is not
    /// (make the field an `Option<Value>` to allow that).
    fn validator() -> Validator<Self> {
        Validator::new(Some(json!({})), |found| match found {
            Some(value) => Ok(value.clone()),
            None => Err(ValidationError::single(Issue::new(
                must_be("any JSON value"),
                None,
            ))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_shows_its_value_schema_and_reports_each_bad_entry_under_its_key() {
        let v = BTreeMap::<String, u8>::validator();
        assert_eq!(
            v.json_schema().unwrap(),
            &json!({"type": "object", "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 255}})
        );
        let ok = v.check(Some(&json!({"a": 1, "b": 2}))).unwrap();
        assert_eq!(ok.get("b"), Some(&2));
        let error = v
            .check(Some(&json!({"a": "x", "b": 300, "c": 3})))
            .unwrap_err();
        let paths: Vec<String> = error
            .issues()
            .iter()
            .map(|issue| issue.path_string())
            .collect();
        assert_eq!(paths, ["a", "b"]);
        assert!(v.check(Some(&json!([1]))).is_err());
    }

    #[test]
    fn a_value_takes_any_present_json() {
        assert_eq!(
            Value::validator().check(Some(&json!(null))).unwrap(),
            json!(null)
        );
        assert!(Value::validator().check(None).is_err());
    }
}
