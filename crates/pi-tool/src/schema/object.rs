//! Object schemas: walk the declared fields, drop the rest, build a typed value.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{Issue, PathSegment, Schema, ValidationError, Validator};
use crate::model_text::must_be;

type ParseFieldsFn<T> = dyn Fn(&Map<String, Value>) -> Result<T, ValidationError> + Send + Sync;

/// An object schema producing a `T`, the seed's `objectSchema(shape)`.
///
/// Its JSON Schema is exactly `{"type":"object","properties",…,"required":[non-optional fields
/// in declaration order],"additionalProperties":false}`. Its parse rejects anything but an
/// object, reads only the declared fields (undeclared ones never reach the tool), reports every
/// bad field, and returns a new value.
///
/// Declare one with [`object_schema!`](crate::object_schema); build one by hand with
/// [`ObjectSchema::new`] when the fields are only known at run time.
pub struct ObjectSchema<T> {
    json_schema: Value,
    parse_fields: Arc<ParseFieldsFn<T>>,
    /// One-pass parsing of raw JSON text, for structs declared with `object_schema!`.
    text_parser: Option<fn(&str) -> Option<T>>,
    /// How many fields are declared: the spec's bare error text is for one-field schemas.
    declared: usize,
}

impl<T> Clone for ObjectSchema<T> {
    fn clone(&self) -> Self {
        Self {
            json_schema: self.json_schema.clone(),
            parse_fields: Arc::clone(&self.parse_fields),
            text_parser: self.text_parser,
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
    /// them out of an object. `parse_fields` only ever sees JSON objects.
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
            text_parser: None,
            declared: properties_len,
        }
    }

    /// Adds a one-pass parser of raw JSON text that accepts exactly what this schema accepts
    /// (or gives up with `None`, sending the text down the JSON path). Set by
    /// [`object_schema!`](crate::object_schema); not for hand-written schemas.
    #[doc(hidden)]
    #[must_use]
    pub fn with_text_parser(mut self, parser: fn(&str) -> Option<T>) -> Self {
        self.text_parser = Some(parser);
        self
    }

    /// Whether values of this schema can be built by serde with every rule checked (the
    /// `Deserialize` that `object_schema!` generates).
    pub(crate) fn has_checked_deserialize(&self) -> bool {
        self.text_parser.is_some()
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
        self.text_parser.and_then(|parser| parser(text))
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
/// Used by the code [`object_schema!`](crate::object_schema) generates; handy for hand-written
/// [`ObjectSchema::new`] parsers too.
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
                self.errors.extend(error.issues().iter().cloned());
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

/// A type whose parameters schema was declared with [`object_schema!`](crate::object_schema).
pub trait ObjectParams: Sized + Send + 'static {
    /// The schema, built once and shared.
    fn object_schema() -> &'static ObjectSchema<Self>;
}

/// Declares a parameters struct and its [`ObjectSchema`] in one place.
///
/// Each field names its Rust type and its validator; the compiler checks that they agree
/// (`Validator<String>` for a `String` field). Doc comments on fields become their JSON Schema
/// `description`; `as "jsonName"` sets the JSON key when it differs from the Rust name.
///
/// The struct also gets a `serde::Deserialize` impl that parses raw argument text in one pass
/// and checks every rule on the typed values (used by
/// [`execute_raw_tool_call`](crate::execute_raw_tool_call)); it gives up on any doubt, and the
/// JSON path then reports every violation. So every field type must implement `Deserialize`
/// (all the validators' outputs and other `object_schema!` structs do), and the struct must not
/// derive `Deserialize` itself.
///
/// ```
/// use pi_tool::{ObjectParams, Schema, object_schema, optional_positive_integer, optional_string, string_value};
/// use serde_json::json;
///
/// object_schema! {
///     /// The seed's request shape.
///     #[derive(Debug, PartialEq)]
///     pub struct Request {
///         pub value: String = string_value(),
///         pub label: Option<String> = optional_string(),
///         pub limit: Option<u64> = optional_positive_integer(),
///     }
/// }
///
/// let schema = Request::object_schema();
/// let parsed = schema
///     .parse(&json!({"value": "Pi", "label": "answer", "limit": 2, "ignored": "drop me"}))
///     .unwrap();
/// assert_eq!(parsed, Request { value: "Pi".into(), label: Some("answer".into()), limit: Some(2) });
/// assert_eq!(schema.json_schema().unwrap()["required"], json!(["value"]));
/// ```
#[macro_export]
macro_rules! object_schema {
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $field_vis:vis $field:ident $(as $json:literal)? : $ty:ty = $validator:expr
            ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis struct $name {
            $(
                $(#[doc = $doc])*
                $field_vis $field: $ty,
            )*
        }

        // An anonymous scope: the validators are built once and shared by the schema (the JSON
        // path) and by the `Deserialize` impl (the one-pass path over raw text).
        const _: () = {
            struct __PiToolValidators {
                $( $field: $crate::Validator<$ty>, )*
            }

            fn __pi_tool_validators() -> &'static __PiToolValidators {
                static VALIDATORS: ::std::sync::OnceLock<__PiToolValidators> =
                    ::std::sync::OnceLock::new();
                VALIDATORS.get_or_init(|| __PiToolValidators { $( $field: $validator, )* })
            }

            impl $crate::ObjectParams for $name {
                fn object_schema() -> &'static $crate::ObjectSchema<Self> {
                    static SCHEMA: ::std::sync::OnceLock<$crate::ObjectSchema<$name>> =
                        ::std::sync::OnceLock::new();
                    SCHEMA.get_or_init(|| {
                        let validators = __pi_tool_validators();
                        let fields = ::std::vec![
                            $(
                                $crate::FieldSpec::new(
                                    $crate::__object_field_name!($field $(, $json)?),
                                    &validators.$field,
                                    &[$($doc),*],
                                ),
                            )*
                        ];
                        $crate::ObjectSchema::new(fields, move |object| {
                            let mut walker = $crate::ObjectFields::new(object);
                            $(
                                let $field = walker.field(
                                    $crate::__object_field_name!($field $(, $json)?),
                                    &validators.$field,
                                );
                            )*
                            #[allow(unreachable_patterns)]
                            match ( $( $field, )* ) {
                                ( $( ::std::option::Option::Some($field), )* ) => {
                                    ::std::result::Result::Ok($name { $( $field, )* })
                                }
                                _ => ::std::result::Result::Err(walker.finish()),
                            }
                        })
                        .with_text_parser($crate::__private::parse_text::<$name>)
                    })
                }
            }

            // Accepts exactly what the schema accepts, or fails without saying why: a failure
            // sends the text down the JSON path, which reports every violation.
            impl<'de> $crate::__private::serde::Deserialize<'de> for $name {
                fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
                where
                    D: $crate::__private::serde::Deserializer<'de>,
                {
                    struct __PiToolVisitor;

                    impl<'de> $crate::__private::serde::de::Visitor<'de> for __PiToolVisitor {
                        type Value = $name;

                        fn expecting(
                            &self,
                            formatter: &mut ::std::fmt::Formatter<'_>,
                        ) -> ::std::fmt::Result {
                            formatter.write_str(::std::stringify!($name))
                        }

                        #[allow(unused_mut, unused_variables)]
                        fn visit_map<A>(self, mut map: A) -> ::std::result::Result<$name, A::Error>
                        where
                            A: $crate::__private::serde::de::MapAccess<'de>,
                        {
                            use $crate::__private::serde::de::Error as _;
                            let validators = __pi_tool_validators();
                            $( let mut $field: ::std::option::Option<$ty> = None; )*
                            while let ::std::option::Option::Some(key) =
                                map.next_key::<__PiToolField>()?
                            {
                                match key {
                                    $(
                                        __PiToolField::$field => {
                                            $field = ::std::option::Option::Some(map.next_value()?);
                                        }
                                    )*
                                    __PiToolField::__PiToolIgnored => {
                                        map.next_value::<$crate::__private::serde::de::IgnoredAny>()?;
                                    }
                                }
                            }
                            // Present values as serde read them (a `null` becomes `None` for an
                            // `Option` field, and fails any other type): the typed rules judge them.
                            $(
                                let $field: $ty = match $field {
                                    ::std::option::Option::Some(value)
                                        if validators.$field.accepts_typed(&value) => value,
                                    ::std::option::Option::Some(_) => {
                                        return ::std::result::Result::Err(A::Error::custom("rejected"));
                                    }
                                    ::std::option::Option::None => validators
                                        .$field
                                        .check(::std::option::Option::None)
                                        .map_err(|_| A::Error::custom("rejected"))?,
                                };
                            )*
                            ::std::result::Result::Ok($name { $( $field, )* })
                        }
                    }

                    deserializer.deserialize_map(__PiToolVisitor)
                }
            }

            // The fields by JSON key, matched without allocating (as serde's derive does).
            #[allow(non_camel_case_types)]
            enum __PiToolField {
                $( $field, )*
                __PiToolIgnored,
            }

            impl<'de> $crate::__private::serde::Deserialize<'de> for __PiToolField {
                fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
                where
                    D: $crate::__private::serde::Deserializer<'de>,
                {
                    struct __PiToolFieldVisitor;

                    impl<'de> $crate::__private::serde::de::Visitor<'de> for __PiToolFieldVisitor {
                        type Value = __PiToolField;

                        fn expecting(
                            &self,
                            formatter: &mut ::std::fmt::Formatter<'_>,
                        ) -> ::std::fmt::Result {
                            formatter.write_str("a field name")
                        }

                        fn visit_str<E>(self, key: &str) -> ::std::result::Result<__PiToolField, E>
                        where
                            E: $crate::__private::serde::de::Error,
                        {
                            #[allow(unreachable_patterns)]
                            ::std::result::Result::Ok(match key {
                                $( $crate::__object_field_name!($field $(, $json)?) => __PiToolField::$field, )*
                                _ => __PiToolField::__PiToolIgnored,
                            })
                        }
                    }

                    deserializer.deserialize_identifier(__PiToolFieldVisitor)
                }
            }
        };
    };
}

/// The JSON key of a field declared in [`object_schema!`](crate::object_schema).
#[doc(hidden)]
#[macro_export]
macro_rules! __object_field_name {
    ($field:ident) => {
        ::std::stringify!($field)
    };
    ($field:ident, $json:literal) => {
        $json
    };
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use crate::{ObjectParams, Schema, array, nullable, optional, string_value};

    object_schema! {
        #[derive(Debug, PartialEq)]
        struct Nulls {
            plain: Option<String> = optional(string_value()),
            nullable: Option<String> = nullable(string_value()),
            both: Option<Option<String>> = optional(nullable(string_value())),
            items: Option<Vec<Option<String>>> = optional(array(optional(string_value()))),
            null_items: Option<Vec<Option<String>>> = optional(array(nullable(string_value()))),
        }
    }

    /// The one-pass path must take `null` exactly as the JSON path does, at every level.
    #[test]
    fn null_means_the_same_on_both_paths() {
        let schema = Nulls::object_schema();
        let cases = [
            r#"{"nullable":"x"}"#,
            r#"{"nullable":null}"#,
            r#"{"nullable":null,"plain":null}"#,
            r#"{"nullable":null,"both":null}"#,
            r#"{"nullable":null,"both":"y"}"#,
            r#"{"nullable":null,"items":["a"]}"#,
            r#"{"nullable":null,"items":[null]}"#,
            r#"{"nullable":null,"null_items":[null,"b"]}"#,
            r#"{}"#,
            r#"{"nullable":1}"#,
        ];
        let mut accepted = 0;
        for text in cases {
            let value: Value = serde_json::from_str(text).unwrap_or_default();
            let from_json = schema.parse(&value).ok();
            let from_text = schema.parse_text(text);
            // The text path may decline (`None`) and leave the call to the JSON path, but it
            // must never accept something else.
            if from_text.is_some() {
                assert_eq!(from_text, from_json, "{text}");
                accepted += 1;
            }
            assert!(from_json.is_some() || from_text.is_none(), "{text}");
        }
        assert_eq!(
            schema.parse_text(r#"{"nullable":null,"both":null}"#),
            None,
            "a null under optional(nullable) is Some(None): only the JSON path builds it"
        );
        let both = schema.parse(&serde_json::json!({"nullable": null, "both": null}));
        assert_eq!(both.ok().map(|n| n.both), Some(Some(None)));
        assert!(
            schema
                .parse_text(r#"{"nullable":null,"items":[null]}"#)
                .is_none()
        );
        assert!(
            schema
                .parse(&serde_json::json!({"nullable": null, "items": [null]}))
                .is_err()
        );
        assert!(accepted >= 5, "the text path took only {accepted} cases");
    }
}
