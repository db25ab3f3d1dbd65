//! Maps and free-form JSON as tool parameters: `HashMap<String, T>`, `BTreeMap<String, T>` and
//! `serde_json::Value`.
//!
//! A map is a JSON object whose keys the tool chooses at run time (`{"env": {"PATH": "/bin"}}`):
//! `{"type":"object","additionalProperties": <T's schema>}`, every entry checked by `T`'s
//! rules and every bad entry reported under its key. A `Value` takes any JSON (`{}`): the
//! escape hatch for data the tool interprets itself.

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::{Value, json};

use super::params::Fast;
use super::{Issue, ParamType, PathSegment, ValidationError, Validator};
use crate::model_text::must_be;

/// Whether every value of a map passes the typed rules of its values.
type AllValuesPass<M, T> = fn(&M, &dyn Fn(&T) -> bool) -> bool;

/// A JSON object whose every value passes `value`, collected into `M`.
fn map_of<M, T>(value: Validator<T>, all_pass: AllValuesPass<M, T>) -> Validator<M>
where
    M: FromIterator<(String, T)> + 'static,
    T: 'static,
{
    let value_schema = value.json_schema().cloned().unwrap_or_else(|| json!({}));
    let typed = value.typed_rules();
    let value = Arc::new(value);
    let checked = Validator::new(
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
    );
    match typed {
        Some(rules) => checked.with_typed_check(move |map| all_pass(map, &*rules)),
        None => checked,
    }
}

/// Reads a map of `T`s straight from argument text.
fn read_map<'de, M, T, D>(deserializer: D) -> Result<M, D::Error>
where
    M: Default + Extend<(String, T)>,
    T: ParamType,
    D: Deserializer<'de>,
{
    struct Entries<M, T>(PhantomData<(M, T)>);

    impl<'de, M, T> Visitor<'de> for Entries<M, T>
    where
        M: Default + Extend<(String, T)>,
        T: ParamType,
    {
        type Value = M;

        fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            formatter.write_str("an object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<M, A::Error> {
            let mut out = M::default();
            while let Some(key) = entries.next_key::<String>()? {
                let value = entries.next_value_seed(Fast::<T>::new())?;
                out.extend([(key, value)]);
            }
            Ok(out)
        }
    }

    deserializer.deserialize_map(Entries(PhantomData))
}

impl<T: ParamType, S> ParamType for HashMap<String, T, S>
where
    S: BuildHasher + Default + Send + Sync + 'static,
{
    fn validator() -> Validator<Self> {
        map_of(T::validator(), |map: &Self, rules| map.values().all(rules))
    }

    fn deserialize_fast<'de, D>(deserializer: D) -> Result<Self, D::Error>
    where
        D: Deserializer<'de>,
    {
        read_map(deserializer)
    }
}

impl<T: ParamType> ParamType for BTreeMap<String, T> {
    fn validator() -> Validator<Self> {
        map_of(T::validator(), |map: &Self, rules| map.values().all(rules))
    }

    fn deserialize_fast<'de, D>(deserializer: D) -> Result<Self, D::Error>
    where
        D: Deserializer<'de>,
    {
        read_map(deserializer)
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
        .with_typed_check(|_| true)
    }

    fn deserialize_fast<'de, D>(deserializer: D) -> Result<Self, D::Error>
    where
        D: Deserializer<'de>,
    {
        Value::deserialize(deserializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::parse_fast;

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
    fn maps_and_values_read_in_one_pass() {
        let map = parse_fast::<HashMap<String, Vec<String>>>(r#"{"k":["a","b"]}"#).unwrap();
        assert_eq!(map["k"], ["a", "b"]);
        assert_eq!(parse_fast::<BTreeMap<String, u8>>(r#"{"k":300}"#), None);
        assert_eq!(
            parse_fast::<Value>(r#"{"any":[1,null,"x"]}"#),
            Some(json!({"any": [1, null, "x"]}))
        );
        assert_eq!(
            Value::validator().check(Some(&json!(null))).unwrap(),
            json!(null)
        );
        assert!(Value::validator().check(None).is_err());
    }
}
