//! Object schemas: walk the declared fields, drop the rest, build a typed value.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::params::Lenient;
use super::{Issue, ParamType, PathSegment, Schema, ValidationError, Validator};
use crate::model_text::must_be;

type ParseFieldsFn<T> = dyn Fn(&Map<String, Value>) -> Result<T, ValidationError> + Send + Sync;

/// The one pass over raw argument text that `#[derive(ToolParams)]` generates.
type TextCheckFn<T> = fn(&str) -> Option<Result<T, ValidationError>>;

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
    /// One-pass parsing of raw JSON text, for derived structs.
    text_checker: Option<TextCheckFn<T>>,
    /// How many fields are declared: the course's bare error text is for one-field schemas.
    declared: usize,
}

impl<T> Clone for ObjectSchema<T> {
    fn clone(&self) -> Self {
        Self {
            json_schema: self.json_schema.clone(),
            parse_fields: Arc::clone(&self.parse_fields),
            text_checker: self.text_checker,
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
            text_checker: None,
            declared: properties_len,
        }
    }

    /// Adds a one-pass reader of raw JSON text that answers exactly as this schema's parse
    /// answers the parsed text (the value, or every violation in the same words), or gives up
    /// with `None`, sending the text down the JSON path. Set by `#[derive(ToolParams)]`; not
    /// for hand-written schemas.
    #[doc(hidden)]
    #[must_use]
    pub fn with_text_checker(mut self, checker: TextCheckFn<T>) -> Self {
        self.text_checker = Some(checker);
        self
    }

    /// Whether values of this schema can be built by serde with every rule checked (the
    /// one-pass reader `#[derive(ToolParams)]` generates).
    pub(crate) fn has_checked_deserialize(&self) -> bool {
        self.text_checker.is_some()
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

    fn parse_text(&self, text: &str) -> Option<T> {
        self.check_text(text)?.ok()
    }

    fn check_text(&self, text: &str) -> Option<Result<T, ValidationError>> {
        let answer = (self.text_checker?)(text)?;
        Some(answer.map_err(|error| error.in_object_declaring(self.declared)))
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

/// Judges each field of a derived struct read in one pass from argument text, as
/// [`ObjectFields`] judges the fields of a parsed object: the same rules on the same JSON, so
/// the same violations in the same words. Used by the code `#[derive(ToolParams)]` generates.
#[derive(Debug, Default)]
pub struct TextReport {
    issues: Vec<Issue>,
}

/// A field whose typed rules refused a value whose JSON cannot be rebuilt: the one pass gives
/// up and the JSON path answers.
#[derive(Debug)]
pub struct GaveUp;

impl TextReport {
    /// An empty report.
    pub fn new() -> Self {
        Self::default()
    }

    /// Judges the field `name` from what its lenient read found (`None`: absent); on a
    /// violation records the issues (under `name`) and returns `Ok(None)`.
    pub fn field<T: ParamType>(
        &mut self,
        name: &str,
        validator: &Validator<T>,
        read: Option<Lenient<T>>,
    ) -> Result<Option<T>, GaveUp> {
        let arrived = match read {
            None => None,
            Some(Lenient::Typed(value, _)) if validator.accepts_typed(&value) => {
                return Ok(Some(value));
            }
            // The typed rules refused (or have no say): the JSON rules judge what arrived.
            Some(Lenient::Typed(value, kept)) => match kept.or_else(|| value.into_json()) {
                Some(json) => Some(json),
                None => return Err(GaveUp),
            },
            Some(Lenient::Other(json)) => Some(json),
        };
        match validator.check(arrived.as_ref()) {
            Ok(value) => Ok(Some(value)),
            Err(error) => {
                let error = error.under(PathSegment::Key(name.to_owned()));
                self.issues.extend(error.into_issues());
                Ok(None)
            }
        }
    }

    /// The collected failures. Call it only after a field returned `Ok(None)`; if none did (a
    /// bug in the caller), the error says so rather than panicking.
    pub fn finish(self) -> ValidationError {
        ValidationError::from_issues(self.issues).unwrap_or_else(|| {
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
