//! OpenAI strict mode: every property required, optional ones nullable, closed objects, and
//! only the keywords strict mode accepts.

use serde_json::{Map, Value, json};

use super::notes::{keep_only, move_to_description};
use super::walk::{is_object_schema, post_order};
use super::{Dialect, DialectError};
use crate::resolve_ref;

/// Keywords strict mode accepts as they are.
const SUPPORTED: [&str; 22] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "items",
    "description",
    "title",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
];

/// Keywords that shape what is valid in ways strict mode has no way to say.
const STRUCTURAL: [&str; 13] = [
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
    "unevaluatedItems",
    "prefixItems",
    "propertyNames",
    "contains",
];

/// The string formats strict mode knows.
const FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

pub(super) fn render(schema: &mut Value) -> Result<(), DialectError> {
    post_order(schema, &mut Vec::new(), &mut strict_node)
}

fn strict_node(node: &mut Map<String, Value>, path: &str) -> Result<(), DialectError> {
    let refuse = |keyword: &str, reason: String| {
        Err(DialectError::new(
            Dialect::OpenAiStrict,
            &format!("{path}/{keyword}"),
            reason,
        ))
    };
    if let Some(keyword) = STRUCTURAL.iter().find(|k| node.contains_key(**k)) {
        return refuse(keyword, format!("strict mode does not support {keyword}"));
    }
    if let Some(branches) = node.remove("oneOf") {
        if node.contains_key("anyOf") {
            return refuse("oneOf", "oneOf next to anyOf cannot be expressed".into());
        }
        // The model is only guided by it; exclusivity is still checked locally.
        node.insert("anyOf".into(), branches);
    }
    let format = node.get("format").and_then(Value::as_str);
    if format.is_some_and(|format| !FORMATS.contains(&format)) {
        move_to_description(node, "format");
    }
    keep_only(node, &SUPPORTED);
    if is_object_schema(node) {
        close_object(node, path)?;
    }
    Ok(())
}

fn close_object(node: &mut Map<String, Value>, path: &str) -> Result<(), DialectError> {
    match node.get("additionalProperties") {
        None | Some(Value::Bool(false)) => {}
        Some(_) => {
            return Err(DialectError::new(
                Dialect::OpenAiStrict,
                &format!("{path}/additionalProperties"),
                "strict mode requires closed objects; arbitrary extra keys cannot be expressed",
            ));
        }
    }
    let required: Vec<String> = node
        .get("required")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let properties = node
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    let mut all = Vec::new();
    if let Value::Object(properties) = properties {
        for (name, property) in properties.iter_mut() {
            if !required.contains(name) {
                make_nullable(property);
            }
            all.push(Value::String(name.clone()));
        }
    }
    node.insert("required".into(), Value::Array(all));
    node.insert("additionalProperties".into(), Value::Bool(false));
    Ok(())
}

/// Lets a schema accept `null` too: `["T","null"]` where the type is plain, else an `anyOf`.
fn make_nullable(schema: &mut Value) {
    if admits_null(schema) {
        return;
    }
    if let Value::Object(node) = schema {
        let single_type = node.get("type").and_then(Value::as_str).map(str::to_owned);
        if let (Some(kind), false) = (single_type, node.contains_key("$ref")) {
            node.insert("type".into(), json!([kind, "null"]));
            if let Some(Value::Array(options)) = node.get_mut("enum") {
                options.push(Value::Null);
            }
            return;
        }
        if let Some(Value::Array(kinds)) = node.get_mut("type") {
            kinds.push(Value::String("null".into()));
            if let Some(Value::Array(options)) = node.get_mut("enum") {
                options.push(Value::Null);
            }
            return;
        }
    }
    let original = std::mem::take(schema);
    *schema = json!({"anyOf": [original, {"type": "null"}]});
}

/// Whether a schema already accepts `null` (as far as a glance at its type can tell).
fn admits_null(schema: &Value) -> bool {
    let is_null = |kind: &Value| kind.as_str() == Some("null");
    match schema.get("type") {
        Some(Value::String(kind)) => kind == "null",
        Some(Value::Array(kinds)) => kinds.iter().any(is_null),
        _ => schema
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.iter().any(admits_null)),
    }
}

/// Removes the `null`s strict mode makes a model send for properties it leaves out.
pub(super) fn drop_strict_nulls(schema: &Value, arguments: &Value) -> Option<Value> {
    Nulls { root: schema }.value(schema, arguments, 0)
}

struct Nulls<'s> {
    root: &'s Value,
}

impl<'s> Nulls<'s> {
    fn value(&self, schema: &'s Value, value: &Value, depth: usize) -> Option<Value> {
        if depth > crate::MAX_FILTER_DEPTH {
            return None;
        }
        let schema = match schema.get("$ref").and_then(Value::as_str) {
            Some(reference) => resolve_ref(self.root, reference)?,
            None => schema,
        };
        match value {
            Value::Object(object) => {
                let properties = schema.get("properties")?.as_object()?;
                let required = schema.get("required").and_then(Value::as_array);
                let is_required = |name: &str| {
                    required.is_some_and(|names| names.iter().any(|n| n.as_str() == Some(name)))
                };
                let mut changed = false;
                let mut out = Map::new();
                for (name, field) in object {
                    let Some(field_schema) = properties.get(name) else {
                        out.insert(name.clone(), field.clone());
                        continue;
                    };
                    if field.is_null() && !is_required(name) && !admits_null(field_schema) {
                        changed = true;
                        continue;
                    }
                    match self.value(field_schema, field, depth + 1) {
                        Some(fixed) => {
                            changed = true;
                            out.insert(name.clone(), fixed);
                        }
                        None => {
                            out.insert(name.clone(), field.clone());
                        }
                    }
                }
                changed.then_some(Value::Object(out))
            }
            Value::Array(items) => {
                let item_schema = schema.get("items")?;
                let mut changed = false;
                let out: Vec<Value> = items
                    .iter()
                    .map(|item| {
                        self.value(item_schema, item, depth + 1)
                            .inspect(|_| changed = true)
                            .unwrap_or_else(|| item.clone())
                    })
                    .collect();
                changed.then_some(Value::Array(out))
            }
            _ => None,
        }
    }
}
