//! Object schemas: walk the declared fields, drop the rest, build a typed value.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{Issue, PathSegment, Schema, ValidationError, Validator};
use crate::model_text::must_be;

type ParseFieldsFn<T> = dyn Fn(&Map<String, Value>) -> Result<T, ValidationError> + Send + Sync;

/// An object schema producing a `T`, the course's `objectSchema(shape)`.
///
/// Its JSON Schema is exactly `{"type":"object","properties",…,"required":[non-optional fields
/// in declaration order],"additionalProperties":false}`. Its parse rejects anything but an
/// object, reads only the declared fields (undeclared ones never reach the tool), reports every
/// bad field, and returns a new value.
///
/// `#[derive(ToolParams)]` on a struct builds one (see [`ObjectParams`]); for fields only known
/// at run time, use a [`DynamicSchema`](crate::DynamicSchema).
pub struct ObjectSchema<T> {
    json_schema: Value,
    parse_fields: Arc<ParseFieldsFn<T>>,
    /// How many fields are declared: the course's bare error text is for one-field schemas.
    declared: usize,
}

impl<T> Clone for ObjectSchema<T> {
    fn clone(&self) -> Self {
        Self {
            json_schema: self.json_schema.clone(),
            parse_fields: Arc::clone(&self.parse_fields),
            declared: self.declared,
        }
    }
}

impl<T> std::fmt::Debug for ObjectSchema<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectSchema")
            .field("json_schema", &self.json_schema)
            .finish_non_exhaustive()
    }
}

impl<T> ObjectSchema<T> {
    /// A schema from its fields' descriptions (in declaration order) and a function that reads
    /// them out of an object. `parse_fields` only ever sees JSON objects. What
    /// `#[derive(ToolParams)]` generates calls it; not for hand-written code.
    #[doc(hidden)]
    pub fn new(
        fields: Vec<FieldSpec>,
        parse_fields: impl Fn(&Map<String, Value>) -> Result<T, ValidationError> + Send + Sync + 'static,
    ) -> Self {
        let properties_len = fields.len();
        let mut properties = Map::new();
        let mut required = Vec::new();
        for field in fields {
            if !field.optional {
                required.push(Value::String(field.name.clone()));
            }
            properties.insert(field.name, field.json_schema);
        }
        Self {
            json_schema: json!({
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": false,
            }),
            parse_fields: Arc::new(parse_fields),
            declared: properties_len,
        }
    }
}

impl<T> Schema for ObjectSchema<T> {
    type Output = T;

    fn parse(&self, value: &Value) -> Result<T, ValidationError> {
        match value {
            Value::Object(object) => (self.parse_fields)(object)
                .map_err(|error| error.in_object_declaring(self.declared)),
            other => Err(ValidationError::single(Issue::new(
                must_be("object"),
                Some(other),
            ))),
        }
    }

    fn json_schema(&self) -> Option<&Value> {
        Some(&self.json_schema)
    }
}

/// What an object schema shows of one field: its name, JSON Schema and optionality.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldSpec {
    name: String,
    json_schema: Value,
    optional: bool,
}

impl FieldSpec {
    /// Describes the field `name` checked by `validator`. Non-empty `docs` lines (doc comments)
    /// become the field's `description`.
    pub fn new<T>(name: impl Into<String>, validator: &Validator<T>, docs: &[&str]) -> Self {
        let mut json_schema = validator
            .json_schema()
            .cloned()
            .unwrap_or_else(|| json!({}));
        let description = docs
            .iter()
            .map(|line| line.trim())
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_owned();
        if let (false, Value::Object(schema)) = (description.is_empty(), &mut json_schema) {
            schema.insert("description".to_owned(), Value::String(description));
        }
        Self {
            name: name.into(),
            json_schema,
            optional: validator.is_optional(),
        }
    }
}

/// Reads declared fields out of an object one by one and collects every failure.
///
/// Used by the code `#[derive(ToolParams)]` generates.
#[derive(Debug)]
pub struct ObjectFields<'a> {
    object: &'a Map<String, Value>,
    errors: Vec<Issue>,
}

impl<'a> ObjectFields<'a> {
    /// Starts walking `object`.
    pub fn new(object: &'a Map<String, Value>) -> Self {
        Self {
            object,
            errors: Vec::new(),
        }
    }

    /// Checks the field `name`; on failure records the issues (under `name`) and returns `None`.
    pub fn field<T>(&mut self, name: &str, validator: &Validator<T>) -> Option<T> {
        match validator.check(self.object.get(name)) {
            Ok(value) => Some(value),
            Err(error) => {
                let error = error.under(PathSegment::Key(name.to_owned()));
                self.errors.extend(error.into_issues());
                None
            }
        }
    }

    /// The collected failures. Call it only after a field returned `None`; if none did (a bug in
    /// the caller), the error says so rather than panicking.
    pub fn finish(self) -> ValidationError {
        ValidationError::from_issues(self.errors).unwrap_or_else(|| {
            ValidationError::single(Issue::new("object could not be read", None))
        })
    }
}

/// A type whose parameters are an object schema: what `#[derive(ToolParams)]` implements on a
/// struct.
pub trait ObjectParams: Sized + Send + 'static {
    /// The schema, built once and shared.
    fn object_schema() -> &'static ObjectSchema<Self>;
}
