//! Argument repair: fixing the most common model mistake before validation.
//!
//! Models sometimes send an array or object JSON-encoded as a string
//! (`"edits": "[{\"oldText\": …}]"`). Pi's maintainers answer this with a per-tool
//! `prepareArguments` hook rather than silent coercion; this is the ready-made repair for it.
//! Repaired arguments still go through validation.

use serde_json::{Map, Value};

use super::filter::resolve_ref;

/// Where `schema` expects an array or an object (and not a string) but `arguments` holds a
/// string that parses as JSON of that kind, returns a copy with the parsed value in its place.
/// `None` when nothing needed repair. Nested objects and array items are repaired too.
///
/// ```
/// use pi_tool::schema::repair_json_strings;
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {
///     "edits": {"type": "array", "items": {"type": "object"}},
///     "note": {"type": "string"}
/// }});
/// let sent = json!({"edits": "[{\"oldText\":\"a\"}]", "note": "[1]"});
/// assert_eq!(
///     repair_json_strings(&schema, &sent),
///     Some(json!({"edits": [{"oldText": "a"}], "note": "[1]"}))
/// );
/// assert_eq!(repair_json_strings(&schema, &json!({"edits": []})), None);
/// ```
pub fn repair_json_strings(schema: &Value, arguments: &Value) -> Option<Value> {
    Repair { root: schema }.value(schema, arguments, 0)
}

/// Repair looks no deeper than this; the validator reports whatever is left.
const MAX_DEPTH: usize = 64;

struct Repair<'s> {
    root: &'s Value,
}

impl<'s> Repair<'s> {
    fn value(&self, schema: &'s Value, value: &Value, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        let schema = self.resolve(schema);
        match value {
            Value::String(text) => {
                let wants = |kind: &str| accepts(schema, kind);
                if wants("string") || !(wants("array") || wants("object")) {
                    return None;
                }
                let decoded: Value = serde_json::from_str(text).ok()?;
                let fits = (decoded.is_array() && wants("array"))
                    || (decoded.is_object() && wants("object"));
                fits.then(|| self.value(schema, &decoded, depth + 1).unwrap_or(decoded))
            }
            Value::Object(object) => {
                let properties = schema.get("properties").and_then(Value::as_object)?;
                self.object(properties, object, depth)
            }
            Value::Array(items) => {
                let item_schema = schema.get("items").filter(|items| items.is_object())?;
                let mut changed = false;
                let repaired: Vec<Value> = items
                    .iter()
                    .map(|item| match self.value(item_schema, item, depth + 1) {
                        Some(fixed) => {
                            changed = true;
                            fixed
                        }
                        None => item.clone(),
                    })
                    .collect();
                changed.then_some(Value::Array(repaired))
            }
            _ => None,
        }
    }

    fn object(
        &self,
        properties: &'s Map<String, Value>,
        object: &Map<String, Value>,
        depth: usize,
    ) -> Option<Value> {
        let mut repaired: Option<Map<String, Value>> = None;
        for (key, field) in object {
            let Some(field_schema) = properties.get(key) else {
                continue;
            };
            if let Some(fixed) = self.value(field_schema, field, depth + 1) {
                repaired
                    .get_or_insert_with(|| object.clone())
                    .insert(key.clone(), fixed);
            }
        }
        repaired.map(Value::Object)
    }

    fn resolve(&self, schema: &'s Value) -> &'s Value {
        let mut current = schema;
        for _ in 0..32 {
            match current.get("$ref").and_then(Value::as_str) {
                Some(reference) => match resolve_ref(self.root, reference) {
                    Some(target) => current = target,
                    None => break,
                },
                None => break,
            }
        }
        current
    }
}

/// Whether `schema`'s `type` admits `kind`.
fn accepts(schema: &Value, kind: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(single)) => single == kind,
        Some(Value::Array(many)) => many.iter().any(|t| t.as_str() == Some(kind)),
        _ => false,
    }
}
