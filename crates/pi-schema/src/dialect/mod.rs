//! Provider dialects: one parameters schema, rendered for each provider's function calling.
//!
//! Providers accept different subsets of JSON Schema. From the one schema a tool advertises,
//! [`Dialect::render`] produces what each provider accepts: OpenAI (plain and strict mode),
//! Anthropic, Gemini (its OpenAPI subset) and MCP (draft 2020-12). The arguments a model sends
//! are always checked locally against the *original* schema, so a constraint a dialect cannot
//! carry is never lost: it is moved into the description the model reads. A schema a dialect
//! cannot express at all is refused with the path of the offending part, when the tool is set up
//! for that provider (`pi_tool::ToolRegistry::definitions_for`),
//! never at request time.

mod gemini;
mod notes;
mod openai_strict;
mod walk;

use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value};

/// A provider's flavour of JSON Schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI function calling without strict mode: the schema as is.
    OpenAi,
    /// OpenAI strict mode: every property required (optional ones nullable),
    /// `additionalProperties: false` on every object, only the keywords strict mode supports.
    OpenAiStrict,
    /// Anthropic's `input_schema`: the schema as is, with an object at the root.
    Anthropic,
    /// Gemini's OpenAPI 3.0 subset: no `$ref`/`$defs`, no `additionalProperties`, `nullable`
    /// instead of type arrays, only the formats Gemini knows.
    Gemini,
    /// MCP's `inputSchema`: JSON Schema draft 2020-12, an object at the root.
    Mcp,
}

impl Dialect {
    /// Every dialect, in a stable order.
    pub const ALL: [Dialect; 5] = [
        Dialect::OpenAi,
        Dialect::OpenAiStrict,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::Mcp,
    ];

    /// The name used on the command line: `openai`, `openai-strict`, `anthropic`, `gemini`, `mcp`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::OpenAi => "openai",
            Dialect::OpenAiStrict => "openai-strict",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
            Dialect::Mcp => "mcp",
        }
    }

    /// Renders `schema` (a tool's parameters) for this dialect.
    ///
    /// ```
    /// use pi_schema::dialect::Dialect;
    /// use serde_json::json;
    ///
    /// let read = json!({
    ///     "type": "object",
    ///     "properties": {"path": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
    ///     "required": ["path"]
    /// });
    /// let strict = Dialect::OpenAiStrict.render(&read).unwrap();
    /// assert_eq!(strict["required"], json!(["path", "limit"]));
    /// assert_eq!(strict["properties"]["limit"]["type"], json!(["integer", "null"]));
    /// assert_eq!(strict["additionalProperties"], json!(false));
    ///
    /// let map = json!({"type": "object", "additionalProperties": {"type": "string"}});
    /// let error = Dialect::Gemini.render(&map).unwrap_err();
    /// assert_eq!(error.path(), "/additionalProperties");
    /// ```
    pub fn render(self, schema: &Value) -> Result<Value, DialectError> {
        let mut rendered = schema.clone();
        object_at_root(self, &mut rendered)?;
        match self {
            Dialect::OpenAi | Dialect::Anthropic => {
                if let Value::Object(root) = &mut rendered {
                    root.remove("$schema");
                }
            }
            Dialect::Mcp => {}
            Dialect::OpenAiStrict => openai_strict::render(&mut rendered)?,
            Dialect::Gemini => gemini::render(&mut rendered)?,
        }
        Ok(rendered)
    }

    /// Undoes what this dialect makes a model send differently, before the arguments are
    /// checked against the original `schema`. Only strict mode needs it: there the model sends
    /// `null` for an optional property it means to leave out, and those `null`s are removed
    /// again wherever the original schema does not itself admit null. `None` when nothing
    /// changed.
    ///
    /// ```
    /// use pi_schema::dialect::Dialect;
    /// use serde_json::json;
    ///
    /// let schema = json!({"type": "object", "properties": {"path": {"type": "string"},
    ///     "limit": {"type": "integer"}}, "required": ["path"]});
    /// let sent = json!({"path": "a", "limit": null});
    /// assert_eq!(Dialect::OpenAiStrict.normalize_arguments(&schema, &sent), Some(json!({"path": "a"})));
    /// assert_eq!(Dialect::OpenAi.normalize_arguments(&schema, &sent), None);
    /// ```
    pub fn normalize_arguments(self, schema: &Value, arguments: &Value) -> Option<Value> {
        match self {
            Dialect::OpenAiStrict => openai_strict::drop_strict_nulls(schema, arguments),
            _ => None,
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Dialect {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        Dialect::ALL
            .into_iter()
            .find(|dialect| dialect.name() == name)
            .ok_or_else(|| {
                let known: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
                format!(
                    "unknown dialect {name:?}; expected one of {}",
                    known.join(", ")
                )
            })
    }
}

/// A schema a dialect cannot express, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{dialect} cannot express the schema at {}: {reason}", if path.is_empty() { "the root" } else { path.as_str() })]
pub struct DialectError {
    dialect: Dialect,
    path: String,
    reason: String,
}

impl DialectError {
    pub(crate) fn new(dialect: Dialect, path: &str, reason: impl Into<String>) -> Self {
        Self {
            dialect,
            path: path.to_owned(),
            reason: reason.into(),
        }
    }

    /// The dialect that refused.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// A JSON pointer into the original schema (`/properties/env/additionalProperties`);
    /// empty for the root.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Why it cannot be expressed.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

/// Every provider wants an object at the root of a tool's parameters.
fn object_at_root(dialect: Dialect, schema: &mut Value) -> Result<(), DialectError> {
    let Value::Object(root) = schema else {
        return Err(DialectError::new(
            dialect,
            "",
            "tool parameters must be a JSON Schema object",
        ));
    };
    match root.get("type") {
        Some(Value::String(kind)) if kind == "object" => Ok(()),
        None if !root.contains_key("anyOf") && !root.contains_key("oneOf") => {
            insert_first(root, "type", Value::String("object".into()));
            Ok(())
        }
        _ => Err(DialectError::new(
            dialect,
            "",
            "tool parameters must be an object (\"type\": \"object\")",
        )),
    }
}

/// Inserts a key at the front, keeping the rest in order (schemas read better with `type` first).
fn insert_first(map: &mut Map<String, Value>, key: &str, value: Value) {
    let rest = std::mem::take(map);
    map.insert(key.to_owned(), value);
    map.extend(rest);
}
