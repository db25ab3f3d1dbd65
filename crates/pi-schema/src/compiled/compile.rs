//! Compiling a JSON Schema into [`Node`]s: what is checked natively, what is handed to its own
//! `jsonschema` validator, and what cannot be mirrored at all (then nothing is compiled and the
//! generic path stays in charge).

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::{Delegated, Native, Node, ObjectRules, Property, Types};
use crate::filter::resolve_ref;

/// How deep a schema may nest (counting inlined `$ref`s) to be compiled.
const MAX_SCHEMA_DEPTH: usize = 64;
/// How many nodes a compiled schema may have (`$ref`s are inlined, so shared definitions
/// count once per use).
const MAX_NODES: usize = 4096;
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
/// path). Draft-04 (boolean exclusive bounds, no integer-valued floats) is left to the generic path.
const DRAFTS: [&str; 7] = [
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-06/schema#",
    "http://json-schema.org/draft-06/schema",
    "https://json-schema.org/draft/2020-12/schema#",
];

/// Compiles `root` for the one-walk check; `None` when the generic path must stay in charge.
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
            // `false` and non-schemas: the generic path (whose compiler has already vetted it).
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
/// delegated, which checks the filtered value exactly as the generic path does.
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
