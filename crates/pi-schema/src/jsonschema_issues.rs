//! Turning the `jsonschema` crate's errors into our [`Issue`]s, in our words.
//!
//! The validator finds the violations; this module says where they are (a path the model can
//! read, `edits[0].oldText`), what was expected (in the same words our own validators use, from
//! [`crate::model_text`]) and what arrived.

use std::borrow::Cow;

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use super::filter::resolve_ref;
use super::{Issue, PathSegment, ValidationError};
use crate::model_text::{
    Expected, REQUIRED, items_must_compare, length_must_compare, must_be_one_of, must_compare,
    must_equal, must_match,
};

/// Every violation of `instance` against `validator` (compiled from `root`), as issues.
/// `None` if there is none.
pub(crate) fn collect(
    validator: &jsonschema::Validator,
    root: &Value,
    instance: &Value,
) -> Option<ValidationError> {
    let issues = validator
        .iter_errors(instance)
        .map(|error| to_issue(&error, root, instance))
        .collect();
    ValidationError::from_issues(issues)
}

fn to_issue(error: &jsonschema::ValidationError<'_>, root: &Value, instance: &Value) -> Issue {
    let path = instance_path(instance, error.instance_path().as_str());
    let received: &Value = error.instance();
    let keyword_value = || resolve_schema_pointer(root, error.schema_path().as_str());
    let (path, message, received) = match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default().to_owned();
            let parent = error.schema_path().as_str();
            let parent = parent.strip_suffix("/required").unwrap_or(parent);
            let expected = resolve_schema_pointer(root, parent)
                .and_then(|object| object.get("properties")?.get(&name))
                .and_then(|field| type_words(field.get("type")?))
                .map_or(REQUIRED, Expected::Type);
            let mut path = path;
            path.push(PathSegment::Key(name));
            (path, expected, None)
        }
        ValidationErrorKind::Type { .. } => {
            let expected = keyword_value().and_then(type_words).map_or_else(
                || Expected::Other(error.masked().to_string()),
                Expected::Type,
            );
            (path, expected, Some(received))
        }
        ValidationErrorKind::Minimum { limit } => (path, must_compare(">=", limit), Some(received)),
        ValidationErrorKind::Maximum { limit } => (path, must_compare("<=", limit), Some(received)),
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            (path, must_compare(">", limit), Some(received))
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            (path, must_compare("<", limit), Some(received))
        }
        ValidationErrorKind::MinLength { limit } => {
            (path, length_must_compare(">=", limit), Some(received))
        }
        ValidationErrorKind::MaxLength { limit } => {
            (path, length_must_compare("<=", limit), Some(received))
        }
        ValidationErrorKind::MinItems { limit } => {
            (path, items_must_compare(">=", limit), Some(received))
        }
        ValidationErrorKind::MaxItems { limit } => {
            (path, items_must_compare("<=", limit), Some(received))
        }
        ValidationErrorKind::Pattern { pattern } => (path, must_match(pattern), Some(received)),
        ValidationErrorKind::Enum { options } => {
            let listed = match options.as_ref() {
                Value::Array(values) => must_be_one_of(values),
                other => must_be_one_of([other]),
            };
            (path, listed, Some(received))
        }
        ValidationErrorKind::Constant { expected_value } => {
            (path, must_equal(expected_value), Some(received))
        }
        // The rest keep the validator's own words, with the value masked: an anyOf failure
        // would otherwise quote the whole instance back.
        _ => (
            path,
            Expected::Other(error.masked().to_string()),
            Some(received),
        ),
    };
    let mut issue = Issue::new(message, received);
    issue.set_path(path);
    issue
}

/// The words for a `type` keyword: `string`, or `string 或 null` for a list.
fn type_words(types: &Value) -> Option<Vec<String>> {
    match types {
        Value::String(single) => Some(vec![single.clone()]),
        Value::Array(many) => {
            let names: Vec<String> = many
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
            (!names.is_empty()).then_some(names)
        }
        _ => None,
    }
}

/// Splits a JSON pointer into our path segments, reading numeric tokens as indexes only where
/// the instance really holds an array (an object key may be "0" too).
fn instance_path(instance: &Value, pointer: &str) -> Vec<PathSegment> {
    let mut path = Vec::new();
    let mut node = Some(instance);
    for token in pointer.split('/').skip(1) {
        let token = unescape(token);
        let segment = match (node, token.parse::<usize>()) {
            (Some(Value::Array(items)), Ok(index)) => {
                node = items.get(index);
                PathSegment::Index(index)
            }
            (Some(Value::Object(map)), _) => {
                node = map.get(token.as_ref());
                PathSegment::Key(token.into_owned())
            }
            _ => {
                node = None;
                PathSegment::Key(token.into_owned())
            }
        };
        path.push(segment);
    }
    path
}

/// Follows a schema-location pointer through the schema, jumping through `$ref` segments.
fn resolve_schema_pointer<'s>(root: &'s Value, pointer: &str) -> Option<&'s Value> {
    let mut node = root;
    for token in pointer.split('/').skip(1) {
        let token = unescape(token);
        node = match token.as_ref() {
            "$ref" => resolve_ref(root, node.get("$ref")?.as_str()?)?,
            _ => match node {
                Value::Object(map) => map.get(token.as_ref())?,
                Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            },
        };
    }
    Some(node)
}

/// A pointer token's text: `~1` is `/` and `~0` is `~`. Most tokens have neither and are
/// lent as they are (two `replace`s per token were a tenth of a refused call's report).
fn unescape(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn escaped_pointer_tokens_name_the_real_keys_and_their_rules() {
        let root = json!({"type": "object", "properties": {
            "a/b": {"type": "integer"}, "c~d": {"type": "string"}, "plain": {"type": "boolean"}}});
        let validator = jsonschema::validator_for(&root).unwrap();
        let error = collect(
            &validator,
            &root,
            &json!({"a/b": "x", "c~d": 0, "plain": 1}),
        )
        .unwrap();
        let mut found: Vec<(String, String)> = error
            .issues()
            .iter()
            .map(|issue| (issue.path_string(), issue.message()))
            .collect();
        found.sort();
        // Each rule was found through its escaped schema pointer: the course's words for the
        // field's own type, not the validator's fallback text.
        assert_eq!(
            found,
            [
                ("a/b".to_owned(), "必须是 integer".to_owned()),
                ("c~d".to_owned(), "必须是 string".to_owned()),
                ("plain".to_owned(), "必须是 boolean".to_owned()),
            ]
        );
    }
}
