//! Gemini's OpenAPI 3.0 subset: references inlined, `nullable` instead of type arrays, no
//! `additionalProperties`, only the formats Gemini knows.

use serde_json::{Map, Value, json};

use super::notes::{keep_only, move_to_description};
use super::walk::{pointer, post_order};
use super::{Dialect, DialectError};
use crate::resolve_ref;

/// Keywords Gemini's `Schema` object has.
const SUPPORTED: [&str; 22] = [
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// Keywords that shape what is valid in ways Gemini has no way to say.
const STRUCTURAL: [&str; 12] = [
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

/// How many subschemas inlining `$ref`s may produce before the schema counts as too large.
const MAX_INLINED_NODES: usize = 10_000;

pub(super) fn render(schema: &mut Value) -> Result<(), DialectError> {
    let root = schema.clone();
    let mut inliner = Inliner {
        root: &root,
        stack: Vec::new(),
        budget: MAX_INLINED_NODES,
    };
    inliner.inline(schema, &mut Vec::new())?;
    if let Value::Object(top) = schema {
        top.remove("$defs");
        top.remove("definitions");
    }
    post_order(schema, &mut Vec::new(), &mut gemini_node)
}

struct Inliner<'s> {
    root: &'s Value,
    /// The references being expanded, each with the path of the `$ref` that started it.
    stack: Vec<(String, String)>,
    budget: usize,
}

impl Inliner<'_> {
    /// Replaces every `$ref` below `node` with (a copy of) its target.
    fn inline(&mut self, node: &mut Value, path: &mut Vec<String>) -> Result<(), DialectError> {
        self.budget = self.budget.checked_sub(1).ok_or_else(|| {
            DialectError::new(
                Dialect::Gemini,
                &pointer(path),
                "schema too large once $refs are inlined",
            )
        })?;
        match node {
            Value::Object(map) => {
                if let Some(reference) = map.get("$ref").and_then(Value::as_str).map(str::to_owned)
                {
                    if let Some((_, started_at)) =
                        self.stack.iter().find(|(open, _)| *open == reference)
                    {
                        return Err(DialectError::new(
                            Dialect::Gemini,
                            started_at,
                            format!("recursive $ref {reference} cannot be inlined"),
                        ));
                    }
                    let mut target =
                        resolve_ref(self.root, &reference).cloned().ok_or_else(|| {
                            DialectError::new(
                                Dialect::Gemini,
                                &pointer(path),
                                format!("$ref {reference} does not resolve"),
                            )
                        })?;
                    // Inside the target, report paths where the target is written.
                    let mut target_path: Vec<String> = reference
                        .trim_start_matches('#')
                        .split('/')
                        .skip(1)
                        .map(str::to_owned)
                        .collect();
                    self.stack.push((reference, pointer(path)));
                    self.inline(&mut target, &mut target_path)?;
                    self.stack.pop();
                    map.remove("$ref");
                    if let Value::Object(target) = target {
                        for (key, value) in target {
                            map.entry(key).or_insert(value);
                        }
                    }
                }
                for (key, child) in map.iter_mut() {
                    if key == "$defs" || key == "definitions" {
                        continue;
                    }
                    path.push(key.clone());
                    self.inline(child, path)?;
                    path.pop();
                }
                Ok(())
            }
            Value::Array(items) => {
                for (index, child) in items.iter_mut().enumerate() {
                    path.push(index.to_string());
                    self.inline(child, path)?;
                    path.pop();
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

fn gemini_node(node: &mut Map<String, Value>, path: &str) -> Result<(), DialectError> {
    let refuse = |keyword: &str, reason: String| {
        Err(DialectError::new(
            Dialect::Gemini,
            &format!("{path}/{keyword}"),
            reason,
        ))
    };
    if let Some(keyword) = STRUCTURAL.iter().find(|k| node.contains_key(**k)) {
        return refuse(keyword, format!("Gemini does not support {keyword}"));
    }
    if let Some(Value::Array(branches)) = node.remove("allOf") {
        match <[Value; 1]>::try_from(branches) {
            Ok([single]) => merge(node, single),
            Err(_) => {
                return refuse(
                    "allOf",
                    "allOf with several branches cannot be expressed".into(),
                );
            }
        }
    }
    if let Some(branches) = node.remove("oneOf") {
        if node.contains_key("anyOf") {
            return refuse("oneOf", "oneOf next to anyOf cannot be expressed".into());
        }
        node.insert("anyOf".into(), branches);
    }
    nullable_from_any_of(node);
    nullable_from_type_list(node);
    if let Some(Value::Array(options)) = node.get_mut("enum") {
        let before = options.len();
        options.retain(|option| !option.is_null());
        if options.len() != before {
            node.insert("nullable".into(), Value::Bool(true));
        }
    }
    if let Some(constant) = node.remove("const") {
        node.insert("enum".into(), json!([constant]));
    }
    match node.get("additionalProperties") {
        Some(Value::Object(_)) if !node.contains_key("properties") => {
            return refuse(
                "additionalProperties",
                "a map of arbitrary keys cannot be expressed".into(),
            );
        }
        _ => {
            node.remove("additionalProperties");
        }
    }
    exclusive_bounds(node);
    keep_known_format(node);
    keep_only(node, &SUPPORTED);
    Ok(())
}

/// Copies the keys of `branch` the node does not have yet.
fn merge(node: &mut Map<String, Value>, branch: Value) {
    if let Value::Object(branch) = branch {
        for (key, value) in branch {
            node.entry(key).or_insert(value);
        }
    }
}

/// `anyOf: [X, {"type":"null"}]` becomes X with `nullable: true`.
fn nullable_from_any_of(node: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = node.get_mut("anyOf") else {
        return;
    };
    let before = branches.len();
    branches.retain(|branch| branch.get("type").and_then(Value::as_str) != Some("null"));
    if branches.len() == before {
        return;
    }
    node.insert("nullable".into(), Value::Bool(true));
    if let Some(Value::Array(mut remaining)) = node.remove("anyOf") {
        match remaining.len() {
            1 => merge(node, remaining.remove(0)),
            _ => {
                node.insert("anyOf".into(), Value::Array(remaining));
            }
        }
    }
}

/// `type: ["string","null"]` becomes `type: "string", nullable: true`; several types become an
/// `anyOf`.
fn nullable_from_type_list(node: &mut Map<String, Value>) {
    let Some(Value::Array(kinds)) = node.get("type") else {
        return;
    };
    let mut kinds: Vec<Value> = kinds.clone();
    let before = kinds.len();
    kinds.retain(|kind| kind.as_str() != Some("null"));
    if kinds.len() != before {
        node.insert("nullable".into(), Value::Bool(true));
    }
    match kinds.len() {
        0 => {
            node.remove("type");
        }
        1 => {
            node.insert("type".into(), kinds.remove(0));
        }
        _ => {
            node.remove("type");
            let branches: Vec<Value> = kinds
                .into_iter()
                .map(|kind| json!({"type": kind}))
                .collect();
            node.insert("anyOf".into(), Value::Array(branches));
        }
    }
}

/// Gemini has no exclusive bounds: for integers they become exact inclusive ones; otherwise the
/// model reads them in the description.
fn exclusive_bounds(node: &mut Map<String, Value>) {
    let integer = node.get("type").and_then(Value::as_str) == Some("integer");
    for (exclusive, inclusive, step) in [
        ("exclusiveMinimum", "minimum", 1),
        ("exclusiveMaximum", "maximum", -1),
    ] {
        let Some(limit) = node.get(exclusive) else {
            continue;
        };
        match (integer, limit.as_i64()) {
            (true, Some(limit)) if node.get(inclusive).is_none() => {
                node.remove(exclusive);
                node.insert(inclusive.into(), json!(limit.saturating_add(step)));
            }
            _ => move_to_description(node, exclusive),
        }
    }
}

/// Drops formats Gemini does not know for the node's type.
fn keep_known_format(node: &mut Map<String, Value>) {
    let Some(format) = node.get("format").and_then(Value::as_str) else {
        return;
    };
    let known: &[&str] = match node.get("type").and_then(Value::as_str) {
        Some("string") => &["enum", "date-time"],
        Some("integer") => &["int32", "int64"],
        Some("number") => &["float", "double"],
        _ => &[],
    };
    if !known.contains(&format) {
        node.remove("format");
    }
}
