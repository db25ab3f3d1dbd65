//! Visiting every subschema of a schema, children first, with its path.

use serde_json::{Map, Value};

use super::DialectError;

/// Keywords whose value is one subschema.
const SINGLE: [&str; 6] = ["items", "additionalProperties", "not", "if", "then", "else"];
/// Keywords whose value is a list of subschemas.
const LISTS: [&str; 4] = ["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const MAPS: [&str; 4] = ["properties", "$defs", "definitions", "patternProperties"];

/// What is done to each subschema: the node and its JSON pointer in the original schema.
pub(super) type Visit<'a> =
    dyn FnMut(&mut Map<String, Value>, &str) -> Result<(), DialectError> + 'a;

/// Calls `visit` on every subschema object of `schema`, children before parents, with its
/// JSON pointer in the original schema.
pub(super) fn post_order(
    schema: &mut Value,
    path: &mut Vec<String>,
    visit: &mut Visit<'_>,
) -> Result<(), DialectError> {
    let Value::Object(node) = schema else {
        return Ok(());
    };
    for keyword in SINGLE {
        if let Some(child @ Value::Object(_)) = node.get_mut(keyword) {
            path.push(keyword.to_owned());
            post_order(child, path, visit)?;
            path.pop();
        }
    }
    for keyword in LISTS {
        if let Some(Value::Array(children)) = node.get_mut(keyword) {
            for (index, child) in children.iter_mut().enumerate() {
                path.push(keyword.to_owned());
                path.push(index.to_string());
                post_order(child, path, visit)?;
                path.truncate(path.len() - 2);
            }
        }
    }
    for keyword in MAPS {
        if let Some(Value::Object(children)) = node.get_mut(keyword) {
            for (name, child) in children.iter_mut() {
                path.push(keyword.to_owned());
                path.push(escape(name));
                post_order(child, path, visit)?;
                path.truncate(path.len() - 2);
            }
        }
    }
    visit(node, &pointer(path))
}

/// The JSON pointer of a path.
pub(super) fn pointer(path: &[String]) -> String {
    path.iter().map(|token| format!("/{token}")).collect()
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Whether a schema node describes an object.
pub(super) fn is_object_schema(node: &Map<String, Value>) -> bool {
    node.get("type").and_then(Value::as_str) == Some("object") || node.contains_key("properties")
}
