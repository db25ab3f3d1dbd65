//! Schemas for tool parameters: one definition, two faces, and the dialects providers read.
//!
//! This crate is the schema half of Pi's tool-calling core; `pi_tool` holds the contract
//! (messages, `Tool`, the registry, the call path, results) and re-exports this crate as
//! `pi_tool::schema` (with [`dialect`] and [`model_text`] at `pi_tool::dialect` and
//! `pi_tool::model_text`), so tool authors need only `pi_tool`. It does not depend on `pi_tool`.
//!
//! Why a crate of its own, under `pi-tool`: schemas carry their own weight (`jsonschema`,
//! `schemars`, `regex`) and their own users (a validator, a renderer for a provider's
//! dialect) who need no tools, registry or call path; and keeping them apart lets the derive
//! (`pi-tool-derive`) and the contract both build on one definition of a validator.
//!
//! A [`Schema`] gives the JSON Schema the model is shown and the parser that checks what the
//! model actually sent. Both come from the same value, so they cannot drift apart. Three kinds,
//! one contract (undeclared fields dropped, every violation reported with the course's texts):
//!
//! - **Derived**: `#[derive(ToolParams)]` on a struct gives an [`ObjectSchema`] (see
//!   [`ObjectParams`]), built from [`Validator`]s, the course's callable validators: [`string`]
//!   (the course's `stringValue`), [`optional`]`(`[`positive_integer`]`())` (its
//!   `optionalPositiveInteger`), [`integer`], [`number`], [`array`](fn@array), [`object`], and the rules
//!   on them.
//! - **Dynamic**: a [`DynamicSchema`] takes a JSON Schema value (an MCP server's tool, a
//!   configuration file) and compiles it once to a validator of its own, with the `jsonschema`
//!   crate as the reference for whatever it cannot compile.
//! - **serde + schemars**: a [`TypedSchema`] takes any `T: DeserializeOwned + JsonSchema`, for
//!   types already written that way.
//!
//! [`repair_arguments`] mends what models commonly get wrong (numbers sent as strings, arrays
//! sent JSON-encoded) under a tool's own JSON Schema, before validation.

mod compiled;
mod composite;
mod defaults;
pub mod dialect;
mod dynamic;
mod enums;
mod error;
mod filter;
mod jsonschema_issues;
mod maps;
pub mod model_text;
mod narrow_numbers;
mod object;
mod params;
mod per_type;
mod repair;
mod scalars;
mod schema_error;
mod typed;
mod validator;

pub use composite::{array, nullable, object, optional, with_default};
pub use defaults::Defaults;
pub use dynamic::DynamicSchema;
pub use enums::{StringEnum, enum_value};
pub use error::{Issue, PathSegment, Received, ValidationError};
pub use filter::drop_undeclared;
pub(crate) use filter::{MAX_DEPTH as MAX_FILTER_DEPTH, resolve_ref};
pub use object::{ObjectParams, ObjectSchema};
pub use params::ParamType;
pub use repair::{Repairs, repair_arguments, repair_json_strings};
pub use scalars::{NumberBound, boolean, integer, number, string, string_enum};
pub use schema_error::SchemaError;
pub use typed::TypedSchema;
pub use validator::{Validator, integer_at_least, non_negative_integer, positive_integer};

/// What `#[derive(ToolParams)]` expands to uses; not a public API.
#[doc(hidden)]
pub mod derive_support {
    pub use super::object::{FieldSpec, ObjectFields};
    pub use super::params::{OneOf, one_of, pattern};
    pub use super::per_type::per_type;
}

use serde_json::Value;

/// The course's `Schema<T>`: `parse` turns untrusted JSON into a checked value, `json_schema`
/// describes the same rules to the model.
///
/// `parse` never mutates its input and returns a new value.
pub trait Schema: Send + Sync {
    /// The typed value a successful parse produces.
    type Output;

    /// Checks `value` and returns a new, typed value, or every violation found.
    fn parse(&self, value: &Value) -> Result<Self::Output, ValidationError>;

    /// The JSON Schema shown to the model; `None` when this schema has none to show.
    fn json_schema(&self) -> Option<&Value>;
}

impl<S: Schema + ?Sized> Schema for &S {
    type Output = S::Output;

    fn parse(&self, value: &Value) -> Result<Self::Output, ValidationError> {
        (**self).parse(value)
    }

    fn json_schema(&self) -> Option<&Value> {
        (**self).json_schema()
    }
}

impl<S: Schema + ?Sized> Schema for std::sync::Arc<S> {
    type Output = S::Output;

    fn parse(&self, value: &Value) -> Result<Self::Output, ValidationError> {
        (**self).parse(value)
    }

    fn json_schema(&self) -> Option<&Value> {
        (**self).json_schema()
    }
}
