//! A JSON Schema compiled for the one-pass path of [`DynamicSchema`](super::DynamicSchema):
//! raw argument text is parsed straight into the filtered JSON value (undeclared properties
//! skipped; defaults are filled in afterwards, once the value is accepted) while the schema's
//! rules are checked, with no intermediate
//! `Value` to walk twice.
//!
//! Hand-written because no crate does this: `jsonschema` validates a finished `Value`, and serde
//! knows nothing of JSON Schema. It mirrors the JSON path exactly or not at all:
//!
//! - the rules checked here (types, string enums, lengths, numeric bounds, items, item counts,
//!   properties, required, `additionalProperties: false`/`true`) are the common core of tool
//!   schemas; any other keyword hands its whole subschema to a `jsonschema` validator compiled
//!   for that subschema alone, which sees the same filtered value the JSON path would;
//! - a schema this cannot mirror (`$ref` cycles, `$id`/anchors, a `$ref` inside a delegated
//!   subschema, draft-04) is not compiled: such tools keep
//!   the JSON path;
//! - anything doubtful at parse time (a rule broken, an integer too large to compare exactly)
//!   is noted while the walk goes on filtering; a doubted value then gets `jsonschema`'s verdict
//!   and its report of every violation, with no second parse.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use indexmap::IndexMap;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::filter::{drop_undeclared, resolve_ref};

/// How deep a schema may nest (counting inlined `$ref`s) to be compiled.
const MAX_SCHEMA_DEPTH: usize = 64;
/// How many nodes a compiled schema may have (`$ref`s are inlined, so shared definitions
/// count once per use).
const MAX_NODES: usize = 4096;
/// Integers beyond this magnitude are not compared with `f64` bounds here.
const EXACT_IN_F64: f64 = 9_007_199_254_740_992.0;

/// Keywords that only annotate: no effect on validation or filtering.
const ANNOTATIONS: [&str; 9] = [
    "title",
    "description",
    "default",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$defs",
];
/// Keywords checked natively.
const NATIVE: [&str; 13] = [
    "type",
    "enum",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
];
/// Keywords that tie a subschema to others: it cannot be delegated on its own.
const ENTANGLED: [&str; 8] = [
    "$schema",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
];
/// The drafts whose semantics this mirrors (`$schema` absent means 2020-12, as for the JSON
/// path). Draft-04 (boolean exclusive bounds, no integer-valued floats) is left to the JSON path.
const DRAFTS: [&str; 7] = [
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-06/schema#",
    "http://json-schema.org/draft-06/schema",
    "https://json-schema.org/draft/2020-12/schema#",
];

/// A compiled schema node.
#[derive(Debug)]
pub(crate) enum Node {
    /// Accepts any JSON, kept as it is (`{}`, `true`, annotations only).
    Any,
    /// Rules checked while parsing.
    Native(Box<Native>),
    /// A subschema checked by `jsonschema` on the value parsed (and filtered) here.
    Delegated(Box<Delegated>),
}

/// JSON types, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Types(u8);

impl Types {
    const NULL: u8 = 1;
    const BOOLEAN: u8 = 2;
    const INTEGER: u8 = 4;
    const NUMBER: u8 = 8;
    const STRING: u8 = 16;
    const ARRAY: u8 = 32;
    const OBJECT: u8 = 64;
    const ALL: Types = Types(127);

    fn named(name: &str) -> Option<u8> {
        Some(match name {
            "null" => Self::NULL,
            "boolean" => Self::BOOLEAN,
            "integer" => Self::INTEGER,
            "number" => Self::NUMBER,
            "string" => Self::STRING,
            "array" => Self::ARRAY,
            "object" => Self::OBJECT,
            _ => return None,
        })
    }

    fn allows(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    /// Whether a number is allowed: any number under `number`, whole ones under `integer`.
    fn allows_number(self, whole: bool) -> bool {
        self.allows(Self::NUMBER) || (whole && self.allows(Self::INTEGER))
    }
}

/// The natively checked rules of one node; each applies only to values of its own type.
#[derive(Debug)]
pub(crate) struct Native {
    types: Types,
    strings: Option<Vec<String>>,
    min_length: Option<usize>,
    max_length: Option<usize>,
    minimum: Option<f64>,
    maximum: Option<f64>,
    exclusive_minimum: Option<f64>,
    exclusive_maximum: Option<f64>,
    items: Option<Node>,
    min_items: Option<usize>,
    max_items: Option<usize>,
    object: Option<ObjectRules>,
}

/// What a node with `properties` says about objects.
#[derive(Debug)]
struct ObjectRules {
    properties: IndexMap<String, Property, foldhash::fast::RandomState>,
    /// Required names that are not declared (only possible when extras are kept).
    required_extras: Vec<String>,
    keep_extras: bool,
}

#[derive(Debug)]
struct Property {
    node: Node,
    required: bool,
}

/// A subschema left to `jsonschema`.
pub(crate) struct Delegated {
    schema: Value,
    validator: jsonschema::Validator,
}

impl fmt::Debug for Delegated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Delegated")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

/// Compiles `root` for one-pass parsing; `None` when the JSON path must stay in charge.
pub(crate) fn compile(root: &Value) -> Option<Node> {
    let draft = match root.get("$schema") {
        None => None,
        Some(Value::String(uri)) if DRAFTS.contains(&uri.as_str()) => Some(uri.clone()),
        Some(_) => return None,
    };
    let mut compiler = Compiler {
        root,
        draft,
        nodes: 0,
        refs: Vec::new(),
    };
    let node = compiler.node(root, 0)?;
    Some(node)
}

struct Compiler<'s> {
    root: &'s Value,
    draft: Option<String>,
    nodes: usize,
    refs: Vec<&'s str>,
}

impl<'s> Compiler<'s> {
    fn node(&mut self, schema: &'s Value, depth: usize) -> Option<Node> {
        self.nodes += 1;
        if depth > MAX_SCHEMA_DEPTH || self.nodes > MAX_NODES {
            return None;
        }
        let object = match schema {
            Value::Bool(true) => return Some(Node::Any),
            Value::Object(object) => object,
            // `false` and non-schemas: the JSON path (whose compiler has already vetted it).
            _ => return None,
        };
        if let Some(reference) = object.get("$ref") {
            return self.reference(object, reference, depth);
        }
        let is_root = std::ptr::eq(schema, self.root);
        let native_only = object.iter().all(|(keyword, value)| {
            ANNOTATIONS.contains(&keyword.as_str())
                || keyword == "definitions"
                || (is_root && keyword == "$schema")
                || self.is_native(keyword, value)
        });
        if native_only && filters_as_validated(object) {
            self.native(object, depth)
        } else {
            self.delegated(schema)
        }
    }

    /// A `$ref` with nothing but annotations beside it is its target, inlined.
    fn reference(
        &mut self,
        object: &'s Map<String, Value>,
        reference: &'s Value,
        depth: usize,
    ) -> Option<Node> {
        let reference = reference.as_str()?;
        let alone = object
            .keys()
            .all(|keyword| keyword == "$ref" || ANNOTATIONS.contains(&keyword.as_str()));
        if !alone || self.refs.contains(&reference) {
            return None;
        }
        let target = resolve_ref(self.root, reference)?;
        self.refs.push(reference);
        let node = self.node(target, depth + 1);
        self.refs.pop();
        node
    }

    fn is_native(&self, keyword: &str, value: &Value) -> bool {
        match keyword {
            "enum" => value
                .as_array()
                .is_some_and(|options| options.iter().all(Value::is_string)),
            "items" => value.is_object() || value == &Value::Bool(true),
            "additionalProperties" => value.is_boolean(),
            _ => NATIVE.contains(&keyword),
        }
    }

    fn native(&mut self, object: &'s Map<String, Value>, depth: usize) -> Option<Node> {
        let count = |keyword: &str| match object.get(keyword) {
            None => Some(None),
            Some(value) => value.as_u64().map(|n| usize::try_from(n).ok()),
        };
        let bound = |keyword: &str| match object.get(keyword) {
            None => Some(None),
            Some(value) => value.as_f64().map(Some),
        };
        let types = match object.get("type") {
            None => Types::ALL,
            Some(Value::String(name)) => Types(Types::named(name)?),
            Some(Value::Array(names)) => {
                let mut bits = 0;
                for name in names {
                    bits |= Types::named(name.as_str()?)?;
                }
                Types(bits)
            }
            Some(_) => return None,
        };
        let strings = match object.get("enum") {
            Some(Value::Array(options)) => Some(
                options
                    .iter()
                    .map(|option| option.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()?,
            ),
            _ => None,
        };
        let items = match object.get("items") {
            Some(items) => Some(self.node(items, depth + 1)?),
            None => None,
        };
        let object_rules = match object.get("properties") {
            Some(Value::Object(properties)) => Some(self.object_rules(object, properties, depth)?),
            Some(_) => return None,
            None => None,
        };
        Some(Node::Native(Box::new(Native {
            types,
            strings,
            min_length: count("minLength")?,
            max_length: count("maxLength")?,
            minimum: bound("minimum")?,
            maximum: bound("maximum")?,
            exclusive_minimum: bound("exclusiveMinimum")?,
            exclusive_maximum: bound("exclusiveMaximum")?,
            items,
            min_items: count("minItems")?,
            max_items: count("maxItems")?,
            object: object_rules,
        })))
    }

    fn object_rules(
        &mut self,
        object: &'s Map<String, Value>,
        properties: &'s Map<String, Value>,
        depth: usize,
    ) -> Option<ObjectRules> {
        let mut compiled = IndexMap::with_hasher(foldhash::fast::RandomState::default());
        for (name, schema) in properties {
            let node = self.node(schema, depth + 1)?;
            compiled.insert(
                name.clone(),
                Property {
                    node,
                    required: false,
                },
            );
        }
        let mut required_extras = Vec::new();
        match object.get("required") {
            None => {}
            Some(Value::Array(names)) => {
                for name in names {
                    let name = name.as_str()?;
                    match compiled.get_mut(name) {
                        Some(property) => property.required = true,
                        None => required_extras.push(name.to_owned()),
                    }
                }
            }
            Some(_) => return None,
        }
        let keep_extras = object.get("additionalProperties") == Some(&Value::Bool(true));
        Some(ObjectRules {
            properties: compiled,
            required_extras,
            keep_extras,
        })
    }

    /// The subschema, checked by its own `jsonschema` validator, if it stands alone.
    fn delegated(&mut self, schema: &'s Value) -> Option<Node> {
        // The root's own `$schema` names the draft; anywhere else it would switch drafts.
        let is_root = std::ptr::eq(schema, self.root);
        let tangled = match schema {
            Value::Object(object) => object.iter().any(|(keyword, value)| {
                let names_draft = is_root && keyword == "$schema";
                (!names_draft && ENTANGLED.contains(&keyword.as_str())) || entangled(value, 1)
            }),
            other => entangled(other, 0),
        };
        if tangled {
            return None;
        }
        let mut standalone = schema.clone();
        if let (Some(draft), Value::Object(object)) = (&self.draft, &mut standalone) {
            object.insert("$schema".to_owned(), Value::String(draft.clone()));
        }
        let validator = jsonschema::validator_for(&standalone).ok()?;
        Some(Node::Delegated(Box::new(Delegated {
            schema: schema.clone(),
            validator,
        })))
    }
}

/// Whether the object rules read the same on the filtered value as natively checked here.
/// Without `properties` nothing is filtered, so `required` or `additionalProperties` would
/// judge every key; and a required name the filter drops can never be met. Such nodes are
/// delegated, which checks the filtered value exactly as the JSON path does.
fn filters_as_validated(object: &Map<String, Value>) -> bool {
    let Some(Value::Object(properties)) = object.get("properties") else {
        return !object.contains_key("required") && !object.contains_key("additionalProperties");
    };
    let keeps_extras = object.get("additionalProperties") == Some(&Value::Bool(true));
    let required = object.get("required").and_then(Value::as_array);
    keeps_extras
        || required.is_none_or(|names| {
            names.iter().all(|name| {
                name.as_str()
                    .is_some_and(|name| properties.contains_key(name))
            })
        })
}

/// Whether a subschema refers to or names other schemas anywhere inside.
fn entangled(schema: &Value, depth: usize) -> bool {
    if depth > MAX_SCHEMA_DEPTH {
        return true;
    }
    match schema {
        Value::Object(object) => object.iter().any(|(keyword, value)| {
            ENTANGLED.contains(&keyword.as_str()) || entangled(value, depth + 1)
        }),
        Value::Array(items) => items.iter().any(|item| entangled(item, depth + 1)),
        _ => false,
    }
}

/// What a walk made of a value: the value filtered as the JSON path's filter would (undeclared
/// properties dropped), and whether any rule doubted it. A doubted value
/// goes to `jsonschema` for the verdict and the full report.
pub(crate) struct Walked {
    pub(crate) value: Value,
    pub(crate) doubted: bool,
}

/// Parses `text` against `node` in one pass; `None` when the text is not JSON (the JSON path
/// then says so).
pub(crate) fn parse(node: &Node, text: &str) -> Option<Walked> {
    let doubts = Cell::new(false);
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = NodeSeed {
        node,
        doubts: &doubts,
    }
    .deserialize(&mut deserializer)
    .ok()?;
    deserializer.end().ok()?;
    Some(Walked {
        value,
        doubted: doubts.get(),
    })
}

/// Checks and filters an already parsed value against `node` in one walk (the same visitor
/// reads a `Value` as it reads text).
pub(crate) fn check(node: &Node, value: &Value) -> Option<Walked> {
    let doubts = Cell::new(false);
    let value = NodeSeed {
        node,
        doubts: &doubts,
    }
    .deserialize(value)
    .ok()?;
    Some(Walked {
        value,
        doubted: doubts.get(),
    })
}

/// Stops the walk: what is left for the JSON path to say (a value too deep to filter).
fn give_up<E: de::Error>() -> E {
    E::custom("too deep")
}

struct NodeSeed<'n, 'd> {
    node: &'n Node,
    doubts: &'d Cell<bool>,
}

impl<'de> DeserializeSeed<'de> for NodeSeed<'_, '_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        match self.node {
            Node::Any => de::Deserialize::deserialize(deserializer),
            Node::Native(rules) => deserializer.deserialize_any(NativeVisitor {
                rules,
                doubts: self.doubts,
            }),
            Node::Delegated(delegated) => {
                let value: Value = de::Deserialize::deserialize(deserializer)?;
                let filtered = drop_undeclared(&delegated.schema, &value).map_err(|_| give_up())?;
                if !delegated.validator.is_valid(&filtered) {
                    self.doubts.set(true);
                }
                Ok(filtered)
            }
        }
    }
}

/// Reads one value under a natively checked node. A broken rule is noted, not fatal: the walk
/// goes on filtering, so that a rejected call's report needs no second parse.
struct NativeVisitor<'n, 'd> {
    rules: &'n Native,
    doubts: &'d Cell<bool>,
}

impl NativeVisitor<'_, '_> {
    fn unless(&self, accepted: bool) {
        if !accepted {
            self.doubts.set(true);
        }
    }

    fn child<'n>(&self, node: &'n Node) -> NodeSeed<'n, '_> {
        NodeSeed {
            node,
            doubts: self.doubts,
        }
    }

    fn number(&self, as_f64: f64, whole: bool, value: Number) -> Value {
        let rules = self.rules;
        let bounded = rules.minimum.is_some()
            || rules.maximum.is_some()
            || rules.exclusive_minimum.is_some()
            || rules.exclusive_maximum.is_some();
        let in_bounds = rules.minimum.is_none_or(|min| as_f64 >= min)
            && rules.maximum.is_none_or(|max| as_f64 <= max)
            && rules.exclusive_minimum.is_none_or(|min| as_f64 > min)
            && rules.exclusive_maximum.is_none_or(|max| as_f64 < max);
        // Beyond 2^53 an `f64` comparison may be wrong: `jsonschema` decides.
        let exact = !bounded || as_f64.abs() < EXACT_IN_F64;
        self.unless(
            rules.types.allows_number(whole) && rules.strings.is_none() && in_bounds && exact,
        );
        Value::Number(value)
    }
}

impl<'de> Visitor<'de> for NativeVisitor<'_, '_> {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("JSON")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.unless(self.rules.types.allows(Types::NULL) && self.rules.strings.is_none());
        Ok(Value::Null)
    }

    fn visit_bool<E: de::Error>(self, flag: bool) -> Result<Value, E> {
        self.unless(self.rules.types.allows(Types::BOOLEAN) && self.rules.strings.is_none());
        Ok(Value::Bool(flag))
    }

    #[allow(clippy::cast_precision_loss)] // Large magnitudes are doubted as inexact.
    fn visit_u64<E: de::Error>(self, number: u64) -> Result<Value, E> {
        Ok(self.number(number as f64, true, Number::from(number)))
    }

    #[allow(clippy::cast_precision_loss)] // Large magnitudes are doubted as inexact.
    fn visit_i64<E: de::Error>(self, number: i64) -> Result<Value, E> {
        Ok(self.number(number as f64, true, Number::from(number)))
    }

    fn visit_f64<E: de::Error>(self, number: f64) -> Result<Value, E> {
        let whole = number.is_finite() && number.fract() == 0.0;
        // JSON has no NaN or infinity; `Value` would hold them as null.
        Ok(match Number::from_f64(number) {
            Some(json) => self.number(number, whole, json),
            None => {
                self.unless(false);
                Value::Null
            }
        })
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Value, E> {
        let rules = self.rules;
        self.unless(
            rules.types.allows(Types::STRING)
                && rules
                    .strings
                    .as_ref()
                    .is_none_or(|options| options.iter().any(|option| option == text))
                && (rules.min_length.is_none() && rules.max_length.is_none() || {
                    // JSON Schema counts code points.
                    let length = text.chars().count();
                    rules.min_length.is_none_or(|min| length >= min)
                        && rules.max_length.is_none_or(|max| length <= max)
                }),
        );
        Ok(Value::String(text.to_owned()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut sequence: A) -> Result<Value, A::Error> {
        let rules = self.rules;
        self.unless(rules.types.allows(Types::ARRAY) && rules.strings.is_none());
        let mut items = Vec::with_capacity(sequence.size_hint().unwrap_or(0).min(64));
        loop {
            let next = match &rules.items {
                Some(node) => sequence.next_element_seed(self.child(node))?,
                None => sequence.next_element::<Value>()?,
            };
            match next {
                Some(item) => items.push(item),
                None => break,
            }
        }
        self.unless(
            rules.min_items.is_none_or(|min| items.len() >= min)
                && rules.max_items.is_none_or(|max| items.len() <= max),
        );
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let rules = self.rules;
        self.unless(rules.types.allows(Types::OBJECT) && rules.strings.is_none());
        let Some(object) = &rules.object else {
            // No `properties` here: nothing is filtered, as on the JSON path.
            return de::Deserialize::deserialize(de::value::MapAccessDeserializer::new(map));
        };
        // Sized once: growing the map would rehash every key.
        let mut kept = Map::with_capacity(object.properties.len());
        let mut seen = Seen::new(object.properties.len());
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match object.properties.get_full(key.as_ref()) {
                Some((index, _, property)) => {
                    let value = map.next_value_seed(self.child(&property.node))?;
                    seen.mark(index);
                    kept.insert(key.into_owned(), value);
                }
                None if object.keep_extras => {
                    let value: Value = map.next_value()?;
                    kept.insert(key.into_owned(), value);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        // `required` is met by what was sent only: defaults come after the verdict.
        for (index, property) in object.properties.values().enumerate() {
            if !seen.has(index) {
                self.unless(!property.required);
            }
        }
        self.unless(
            object
                .required_extras
                .iter()
                .all(|name| kept.contains_key(name)),
        );
        Ok(Value::Object(kept))
    }
}

/// Which declared properties arrived, by index; no allocation for up to 64.
enum Seen {
    Few(u64),
    Many(Vec<bool>),
}

impl Seen {
    fn new(count: usize) -> Self {
        if count <= 64 {
            Seen::Few(0)
        } else {
            Seen::Many(vec![false; count])
        }
    }

    fn mark(&mut self, index: usize) {
        match self {
            Seen::Few(bits) => *bits |= 1 << index,
            Seen::Many(flags) => {
                if let Some(flag) = flags.get_mut(index) {
                    *flag = true;
                }
            }
        }
    }

    fn has(&self, index: usize) -> bool {
        match self {
            Seen::Few(bits) => index < 64 && bits & (1 << index) != 0,
            Seen::Many(flags) => flags.get(index).copied().unwrap_or(false),
        }
    }
}

/// A map key, borrowed from the text when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(KeySeed)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a key")
    }

    fn visit_borrowed_str<E: de::Error>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(key))
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(key.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The value when no rule doubted it.
    fn run(schema: &Value, text: &str) -> Option<Value> {
        parse(&compile(schema)?, text)
            .filter(|walked| !walked.doubted)
            .map(|walked| walked.value)
    }

    #[test]
    fn filters_and_checks_in_one_pass_leaving_defaults_for_later() {
        let schema = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1},
                "limit": {"type": "integer", "minimum": 1, "default": 100},
                "mode": {"type": "string", "enum": ["fast", "safe"]},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
                "edit": {
                    "type": "object",
                    "properties": {"oldText": {"type": "string"}},
                    "required": ["oldText"]
                }
            },
            "required": ["path"]
        });
        assert_eq!(
            run(
                &schema,
                r#"{"x":1,"path":"a","edit":{"oldText":"o","junk":[1]},"tags":["t"]}"#
            ),
            Some(json!({"path": "a", "edit": {"oldText": "o"}, "tags": ["t"]}))
        );
        for rejected in [
            r#"{"path":""}"#,
            r#"{"path":"a","limit":0}"#,
            r#"{"path":"a","limit":1.5}"#,
            r#"{"path":"a","mode":"slow"}"#,
            r#"{"path":"a","tags":["a","b","c"]}"#,
            r#"{"path":"a","edit":{}}"#,
            r#"{"limit":2}"#,
            r#"{"path":"a"} trailing"#,
            r#"["path"]"#,
        ] {
            assert_eq!(run(&schema, rejected), None, "{rejected}");
        }
        assert_eq!(
            run(&schema, r#"{"path":"a","limit":2.0}"#),
            Some(json!({"path": "a", "limit": 2.0}))
        );
    }

    #[test]
    fn other_keywords_are_delegated_and_refs_inlined() {
        let schema = json!({
            "type": "object",
            "properties": {
                "id": {"type": "string", "pattern": "^[a-z]+$"},
                "n": {"type": "number", "multipleOf": 5},
                "item": {"$ref": "#/$defs/item"}
            },
            "$defs": {"item": {"type": "object", "properties": {"a": {"type": "boolean"}}}}
        });
        assert!(matches!(compile(&schema), Some(Node::Native(_))));
        assert_eq!(
            run(&schema, r#"{"id":"abc","n":10,"item":{"a":true,"b":1}}"#),
            Some(json!({"id": "abc", "n": 10, "item": {"a": true}}))
        );
        assert_eq!(run(&schema, r#"{"id":"ABC"}"#), None);
        assert_eq!(run(&schema, r#"{"n":7}"#), None);
        // Object rules that would judge keys the filter keeps or drops go to `jsonschema` too.
        let closed = json!({"type": "object", "additionalProperties": false});
        assert!(matches!(compile(&closed), Some(Node::Delegated(_))));
        assert_eq!(run(&closed, "{}"), Some(json!({})));
        assert_eq!(run(&closed, r#"{"a":1}"#), None);
        let ghost = json!({"type": "object", "properties": {}, "required": ["ghost"]});
        assert_eq!(run(&ghost, r#"{"ghost":1}"#), None);
    }

    #[test]
    fn what_cannot_be_mirrored_is_not_compiled() {
        for schema in [
            json!({"type": "object", "properties": {"child": {"$ref": "#"}}}),
            json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}),
            json!({"anyOf": [{"$ref": "#/$defs/a"}], "$defs": {"a": {}}}),
        ] {
            assert!(compile(&schema).is_none(), "{schema}");
        }
    }

    /// Values built from the keys the schemas below declare, and a few they do not.
    fn any_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-3i64..300).prop_map(Value::from),
            "[a-z]{0,3}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 40, 5, |inner| {
            let key = proptest::sample::select(vec![
                "path", "limit", "edits", "oldText", "newText", "meta", "tags", "x", "mode",
            ]);
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec((key, inner), 0..5).prop_map(|entries| {
                    Value::Object(
                        entries
                            .into_iter()
                            .map(|(k, v)| (k.to_owned(), v))
                            .collect(),
                    )
                }),
            ]
        })
    }

    fn filter_schemas() -> Vec<Value> {
        vec![
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "limit": {"type": "integer", "default": 10},
                    "edits": {"type": "array", "items": {"$ref": "#/$defs/edit"}},
                    "meta": {"type": "object", "additionalProperties": true,
                             "properties": {"tags": {"type": "array", "items": true}}},
                    "mode": {"anyOf": [{"type": "object", "properties": {"x": {}}}, {"type": "string"}]}
                },
                "$defs": {"edit": {"type": "object", "properties": {
                    "oldText": {"type": "string"}, "newText": {"type": "string", "default": ""}}}}
            }),
            json!({"type": "array", "items": {"type": "object", "properties": {"x": {}},
                   "patternProperties": {"^p": {}}}}),
            json!({"properties": {"tags": {"items": {"properties": {"x": {"default": [1]}}}}}}),
        ]
    }

    proptest::proptest! {
        /// Valid or not, a walk filters exactly as the generic filter does, from parsed JSON
        /// and from its text alike; and it doubts whatever `jsonschema` rejects.
        #[test]
        fn walks_filter_as_the_generic_filter_and_doubt_every_rejection(
            value in any_value(),
            which in 0usize..3,
        ) {
            let schemas = filter_schemas();
            let schema = &schemas[which];
            let node = compile(schema).unwrap();
            let generic = drop_undeclared(schema, &value).unwrap();
            let walked = check(&node, &value).unwrap();
            proptest::prop_assert_eq!(&walked.value, &generic, "{}", value);
            let from_text = parse(&node, &value.to_string()).unwrap();
            proptest::prop_assert_eq!(&from_text.value, &generic);
            proptest::prop_assert_eq!(from_text.doubted, walked.doubted);
            let valid = jsonschema::validator_for(schema).unwrap().is_valid(&generic);
            proptest::prop_assert!(valid || walked.doubted, "an invalid value passed: {}", value);
        }
    }

    #[test]
    fn large_integers_under_bounds_are_doubted() {
        let schema = json!({"type": "integer", "maximum": 9007199254740993_u64});
        assert_eq!(run(&schema, "9007199254740993"), None);
        assert_eq!(run(&schema, "5"), Some(json!(5)));
        assert_eq!(
            run(&json!({"type": "integer"}), "18446744073709551615"),
            Some(json!(u64::MAX))
        );
    }
}
