//! Constraints a dialect cannot carry as keywords are told to the model in the description.

use serde_json::{Map, Value};

/// Removes `keyword` from `node` and appends it to the description as `(keyword: value)`, so
/// the model still learns the rule the local validator will enforce.
pub(super) fn move_to_description(node: &mut Map<String, Value>, keyword: &str) {
    let Some(value) = node.remove(keyword) else {
        return;
    };
    let note = format!("({})", phrase(keyword, &value));
    let description = match node.get("description").and_then(Value::as_str) {
        Some(existing) if !existing.is_empty() => format!("{existing} {note}"),
        _ => note,
    };
    node.insert("description".to_owned(), Value::String(description));
}

/// A constraint in words a model reads.
fn phrase(keyword: &str, value: &Value) -> String {
    let shown = match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    match keyword {
        "exclusiveMinimum" => format!("must be > {shown}"),
        "exclusiveMaximum" => format!("must be < {shown}"),
        "minimum" => format!("must be >= {shown}"),
        "maximum" => format!("must be <= {shown}"),
        "minLength" => format!("at least {shown} characters"),
        "maxLength" => format!("at most {shown} characters"),
        "multipleOf" => format!("a multiple of {shown}"),
        "uniqueItems" => "items must be unique".to_owned(),
        "pattern" => format!("must match {shown}"),
        "default" => format!("default: {shown}"),
        other => format!("{other}: {shown}"),
    }
}

/// Keeps the keywords a dialect supports: metadata it does not know is dropped, constraints it
/// does not know are told in the description.
pub(super) fn keep_only(node: &mut Map<String, Value>, supported: &[&str]) {
    let unsupported: Vec<String> = node
        .keys()
        .filter(|key| !supported.contains(&key.as_str()))
        .cloned()
        .collect();
    for keyword in unsupported {
        if METADATA.contains(&keyword.as_str()) {
            node.remove(&keyword);
        } else {
            move_to_description(node, &keyword);
        }
    }
}

/// Keywords that only annotate a schema; a dialect that does not know them drops them.
const METADATA: [&str; 9] = [
    "$schema",
    "$id",
    "$anchor",
    "$comment",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentMediaType",
];
