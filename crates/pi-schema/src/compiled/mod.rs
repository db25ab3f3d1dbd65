//! A JSON Schema compiled for [`DynamicSchema`](super::DynamicSchema)'s parse: the arguments
//! are filtered (undeclared properties dropped; defaults are filled in afterwards, once the
//! value is accepted) while the schema's rules are checked, in one walk instead of a filter
//! pass and a validation pass.
//!
//! Hand-written because no crate does this: `jsonschema` validates a finished `Value` and does
//! not filter. It mirrors the generic path (the filter, then `jsonschema`) exactly or not at all:
//!
//! - the rules checked here (types, string enums, lengths, numeric bounds, items, item counts,
//!   properties, required, `additionalProperties: false`/`true`) are the common core of tool
//!   schemas; any other keyword hands its whole subschema to a `jsonschema` validator compiled
//!   for that subschema alone, which sees the same filtered value the generic path would;
//! - a schema this cannot mirror (`$ref` cycles, `$id`/anchors, a `$ref` inside a delegated
//!   subschema, draft-04) is not compiled: such tools keep
//!   the generic path;
//! - anything doubtful during the walk (a rule broken, an integer too large to compare exactly)
//!   is noted while the walk goes on filtering; a doubted value then gets `jsonschema`'s verdict
//!   and its report of every violation, on the value already filtered.
//!
//! The node types are here; [`compile`](compile::compile) turns a schema into nodes, and
//! [`walk`] reads a parsed value under them.

use std::fmt;

use indexmap::IndexMap;
use serde_json::Value;

mod compile;
#[cfg(test)]
mod tests;
mod walk;

pub(crate) use compile::compile;
pub(crate) use walk::{Walked, check};

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
