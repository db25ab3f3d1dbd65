//! Dropping undeclared properties, guided by a JSON Schema.
//!
//! The course's rule is that a tool only ever sees the fields its schema declares. For a schema
//! given as JSON (an MCP server's, a config file's), this walks the value alongside the schema
//! and keeps, at every level where the schema declares `properties`, only those properties.
//! Extras survive only where the schema explicitly allows them (`additionalProperties` true or
//! a schema, or `patternProperties`). `$ref`s (local) and `allOf`/`anyOf`/`oneOf` branches are
//! followed: a property declared by any branch is kept. Defaults are not filled in here: that
//! happens after validation (see `defaults`), so that a default never changes a verdict.

use serde_json::{Map, Value};

use super::{Issue, ValidationError};
use crate::model_text::too_deep;

/// How deep the filter follows a value; deeper input is rejected, not walked, so that a
/// recursive schema cannot be driven into a stack overflow.
pub(crate) const MAX_DEPTH: usize = 256;

/// Returns a copy of `value` without the properties the JSON Schema `root` does not declare
/// (the course's rule that a tool sees only declared fields); fails only on a value nested
/// deeper than the filter follows.
pub fn drop_undeclared(root: &Value, value: &Value) -> Result<Value, ValidationError> {
    drop_undeclared_at(root, value, 0)
}

/// [`drop_undeclared`] for a value found `depth` levels down in a larger one.
pub(crate) fn drop_undeclared_at(
    root: &Value,
    value: &Value,
    depth: usize,
) -> Result<Value, ValidationError> {
    Filter { root }.apply(root, value, depth)
}

struct Filter<'s> {
    root: &'s Value,
}

/// What one schema node (with its `$ref` and composition branches) says about objects and
/// arrays.
#[derive(Default)]
struct Shape<'s> {
    properties: Vec<&'s Map<String, Value>>,
    extras_allowed: bool,
    declares_properties: bool,
    items: Option<&'s Value>,
    prefix_items: Vec<&'s Value>,
}

impl<'s> Filter<'s> {
    fn apply(
        &self,
        schema: &'s Value,
        value: &Value,
        depth: usize,
    ) -> Result<Value, ValidationError> {
        if depth > MAX_DEPTH {
            return Err(ValidationError::single(Issue::new(
                too_deep(MAX_DEPTH),
                None,
            )));
        }
        match value {
            Value::Object(object) => {
                let mut shape = Shape::default();
                self.collect(schema, &mut shape, 0);
                if !shape.declares_properties {
                    return Ok(value.clone());
                }
                let mut kept = Map::with_capacity(object.len());
                for (key, field) in object {
                    let declared = shape.properties.iter().find_map(|props| props.get(key));
                    match declared {
                        Some(field_schema) => {
                            let filtered =
                                self.apply(field_schema, field, depth + 1)
                                    .map_err(|error| {
                                        error.under(super::PathSegment::Key(key.clone()))
                                    })?;
                            kept.insert(key.clone(), filtered);
                        }
                        None if shape.extras_allowed => {
                            kept.insert(key.clone(), field.clone());
                        }
                        None => {}
                    }
                }
                Ok(Value::Object(kept))
            }
            Value::Array(elements) => {
                let mut shape = Shape::default();
                self.collect(schema, &mut shape, 0);
                if shape.items.is_none() && shape.prefix_items.is_empty() {
                    return Ok(value.clone());
                }
                let mut out = Vec::with_capacity(elements.len());
                for (index, element) in elements.iter().enumerate() {
                    let element_schema = shape.prefix_items.get(index).copied().or(shape.items);
                    out.push(match element_schema {
                        Some(element_schema) => self
                            .apply(element_schema, element, depth + 1)
                            .map_err(|error| error.under(super::PathSegment::Index(index)))?,
                        None => element.clone(),
                    });
                }
                Ok(Value::Array(out))
            }
            scalar => Ok(scalar.clone()),
        }
    }

    /// Gathers what `schema` and everything it refers to declare. `hops` bounds `$ref` chains.
    fn collect(&self, schema: &'s Value, shape: &mut Shape<'s>, hops: usize) {
        let Value::Object(node) = schema else {
            return;
        };
        if hops > 32 {
            return;
        }
        // One pass over the node's keywords: a node has a handful, and looking each of the
        // nine keywords up would hash nine keys for every object a call's arguments hold.
        let (mut items, mut prefix_items, mut reference) = (None, None, None);
        let mut branches: [Option<&'s Vec<Value>>; 3] = [None; 3];
        for (keyword, value) in node {
            match (keyword.as_str(), value) {
                ("properties", Value::Object(properties)) => {
                    shape.properties.push(properties);
                    shape.declares_properties = true;
                }
                ("additionalProperties", Value::Bool(false)) => {}
                ("additionalProperties" | "patternProperties", _) => shape.extras_allowed = true,
                ("items", items_schema) => items = Some(items_schema),
                ("prefixItems", Value::Array(tuple)) => prefix_items = Some(tuple),
                ("$ref", Value::String(target)) => reference = Some(target.as_str()),
                ("allOf", Value::Array(list)) => branches[0] = Some(list),
                ("anyOf", Value::Array(list)) => branches[1] = Some(list),
                ("oneOf", Value::Array(list)) => branches[2] = Some(list),
                _ => {}
            }
        }
        match items {
            Some(items @ Value::Object(_)) => shape.items = shape.items.or(Some(items)),
            // Draft-07 tuples: `items` as an array is 2020-12's `prefixItems`.
            Some(Value::Array(tuple)) if shape.prefix_items.is_empty() => {
                shape.prefix_items = tuple.iter().collect();
            }
            _ => {}
        }
        if let (Some(tuple), true) = (prefix_items, shape.prefix_items.is_empty()) {
            shape.prefix_items = tuple.iter().collect();
        }
        if let Some(target) = reference.and_then(|reference| resolve_ref(self.root, reference)) {
            self.collect(target, shape, hops + 1);
        }
        for branch in branches.into_iter().flatten().flatten() {
            self.collect(branch, shape, hops + 1);
        }
    }
}

/// Resolves a local `$ref` (`#`, `#/$defs/x`, `#/definitions/x`); remote ones resolve to
/// nothing here (the validator has already refused them).
pub(crate) fn resolve_ref<'s>(root: &'s Value, reference: &str) -> Option<&'s Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn drops_undeclared_properties_at_every_level() {
        let schema = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "edits": {"type": "array", "items": {"$ref": "#/$defs/edit"}}
            },
            "$defs": {"edit": {"type": "object", "properties": {"oldText": {}, "newText": {}}}}
        });
        let value = json!({
            "path": "a", "junk": 1,
            "edits": [{"oldText": "x", "newText": "y", "extra": true}, 5]
        });
        let before = value.clone();
        let filtered = drop_undeclared(&schema, &value).unwrap();
        assert_eq!(
            filtered,
            json!({"path": "a", "edits": [{"oldText": "x", "newText": "y"}, 5]})
        );
        assert_eq!(value, before);
    }

    #[test]
    fn absent_properties_stay_absent_until_validated() {
        let schema = json!({"type": "object", "properties": {
            "limit": {"type": "integer", "default": 100}, "path": {"type": "string"}}});
        assert_eq!(
            drop_undeclared(&schema, &json!({"path": "a"})).unwrap(),
            json!({"path": "a"})
        );
        assert_eq!(
            drop_undeclared(&schema, &json!({"limit": 5})).unwrap(),
            json!({"limit": 5})
        );
    }

    #[test]
    fn keeps_extras_where_the_schema_allows_them() {
        let schema = json!({
            "type": "object",
            "properties": {"env": {"type": "object", "additionalProperties": {"type": "string"}}},
            "additionalProperties": true
        });
        let value = json!({"env": {"A": "1"}, "other": 2});
        assert_eq!(drop_undeclared(&schema, &value).unwrap(), value);
    }

    #[test]
    fn composition_branches_declare_properties_too() {
        let schema = json!({
            "anyOf": [
                {"type": "object", "properties": {"a": {}}},
                {"type": "object", "properties": {"b": {}}}
            ]
        });
        let value = json!({"a": 1, "b": 2, "c": 3});
        assert_eq!(
            drop_undeclared(&schema, &value).unwrap(),
            json!({"a": 1, "b": 2})
        );
    }

    #[test]
    fn recursive_schemas_stop_at_the_depth_limit() {
        let schema = json!({"type": "object", "properties": {"child": {"$ref": "#"}}});
        let mut value = json!({});
        for _ in 0..(MAX_DEPTH + 10) {
            value = json!({"child": value});
        }
        let error = drop_undeclared(&schema, &value).unwrap_err();
        assert!(error.issues()[0].message().contains("嵌套"));
    }
}
