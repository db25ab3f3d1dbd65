//! Argument repair: fixing the most common model mistakes before validation.
//!
//! Models sometimes send an array or object JSON-encoded as a string
//! (`"edits": "[{\"oldText\": …}]"`), and often send numbers and booleans as strings
//! (`"offset": "2"`, `"ignoreCase": "true"`). Pi's maintainers answer the first with a per-tool
//! `prepareArguments` hook rather than silent coercion, and upstream's validator coerces
//! scalars; here both are opt-in repairs, guided by the tool's own JSON Schema. Repaired
//! arguments still go through validation.

use serde_json::{Map, Value};

use super::filter::resolve_ref;

/// Which model slips a repair fixes (see [`repair_arguments`]).
///
/// ```
/// use pi_schema::Repairs;
///
/// let both = Repairs::JSON_STRINGS.and(Repairs::SCALAR_STRINGS);
/// assert!(both.json_strings() && both.scalar_strings());
/// assert!(!Repairs::NONE.any());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Repairs {
    json_strings: bool,
    scalar_strings: bool,
}

impl Repairs {
    /// No repair.
    pub const NONE: Self = Self {
        json_strings: false,
        scalar_strings: false,
    };
    /// Arrays and objects sent JSON-encoded as strings are decoded.
    pub const JSON_STRINGS: Self = Self {
        json_strings: true,
        scalar_strings: false,
    };
    /// A string that is exactly a JSON number (where the schema asks for a number or an
    /// integer) or exactly `true`/`false` (where it asks for a boolean) becomes that value,
    /// as upstream Pi's validator coerces; a schema that also accepts a string keeps it.
    pub const SCALAR_STRINGS: Self = Self {
        json_strings: false,
        scalar_strings: true,
    };

    /// Both sets of repairs.
    #[must_use]
    pub const fn and(self, other: Self) -> Self {
        Self {
            json_strings: self.json_strings || other.json_strings,
            scalar_strings: self.scalar_strings || other.scalar_strings,
        }
    }

    /// Whether JSON-encoded arrays and objects are decoded.
    pub const fn json_strings(self) -> bool {
        self.json_strings
    }

    /// Whether numeric and boolean strings are converted.
    pub const fn scalar_strings(self) -> bool {
        self.scalar_strings
    }

    /// Whether any repair is on.
    pub const fn any(self) -> bool {
        self.json_strings || self.scalar_strings
    }
}

/// Where `schema` expects an array or an object (and not a string) but `arguments` holds a
/// string that parses as JSON of that kind, returns a copy with the parsed value in its place.
/// `None` when nothing needed repair. Nested objects and array items are repaired too.
///
/// ```
/// use pi_schema::repair_json_strings;
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
    repair_arguments(schema, arguments, Repairs::JSON_STRINGS)
}

/// Applies `repairs` wherever `schema` says what a value should be; `None` when nothing needed
/// repair. Nested objects and array items are repaired too.
///
/// ```
/// use pi_schema::{Repairs, repair_arguments};
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {
///     "offset": {"type": "integer"},
///     "ignoreCase": {"type": "boolean"},
///     "pattern": {"type": "string"}
/// }});
/// let sent = json!({"offset": "2", "ignoreCase": "true", "pattern": "1"});
/// assert_eq!(
///     repair_arguments(&schema, &sent, Repairs::SCALAR_STRINGS),
///     Some(json!({"offset": 2, "ignoreCase": true, "pattern": "1"}))
/// );
/// // Not a plain number: left for the validator to refuse.
/// assert_eq!(repair_arguments(&schema, &json!({"offset": "2 lines"}), Repairs::SCALAR_STRINGS), None);
/// assert_eq!(repair_arguments(&schema, &json!({"offset": "2.5"}), Repairs::SCALAR_STRINGS), None);
/// ```
pub fn repair_arguments(schema: &Value, arguments: &Value, repairs: Repairs) -> Option<Value> {
    if !repairs.any() {
        return None;
    }
    Repair {
        root: schema,
        repairs,
    }
    .value(schema, arguments, 0)
}

/// Repair looks no deeper than this; the validator reports whatever is left.
const MAX_DEPTH: usize = 64;

struct Repair<'s> {
    root: &'s Value,
    repairs: Repairs,
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
                if wants("string") {
                    return None;
                }
                if self.repairs.scalar_strings
                    && let Some(scalar) = scalar_from(text, &wants)
                {
                    return Some(scalar);
                }
                if !self.repairs.json_strings || !(wants("array") || wants("object")) {
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

/// The number or boolean `text` spells exactly, if the schema wants one: a JSON number literal
/// (whole, for `integer`) or `true`/`false`. Anything else (`"2 lines"`, `" 2"`, `"yes"`) is
/// left for the validator to refuse.
fn scalar_from(text: &str, wants: &impl Fn(&str) -> bool) -> Option<Value> {
    if wants("boolean") {
        match text {
            "true" => return Some(Value::Bool(true)),
            "false" => return Some(Value::Bool(false)),
            _ => {}
        }
    }
    if !(wants("number") || wants("integer")) || text.trim() != text {
        return None;
    }
    let number: serde_json::Number = serde_json::from_str(text).ok()?;
    let whole = number.is_i64()
        || number.is_u64()
        || number
            .as_f64()
            .is_some_and(|n| n.is_finite() && n.fract() == 0.0);
    (wants("number") || whole).then_some(Value::Number(number))
}

/// Whether `schema`'s `type` admits `kind`.
fn accepts(schema: &Value, kind: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(single)) => single == kind,
        Some(Value::Array(many)) => many.iter().any(|t| t.as_str() == Some(kind)),
        _ => false,
    }
}
