//! Any `T: DeserializeOwned + JsonSchema` as tool parameters, checked against its own schema.
//!
//! # Why serde + schemars too
//!
//! Rust users already describe parameters as serde structs with a schemars `JsonSchema` derive:
//! rmcp's `Parameters<T>`, rig's tools and most MCP servers do. `#[derive(ToolParams)]` is the
//! native way (the course's exact validators and error texts), but such types should not have
//! to be rewritten. So [`TypedSchema`] takes the schema schemars generates (doc
//! comments become descriptions, serde's renames and defaults are honoured, `#[schemars(range,
//! length, regex)]` give the constraints), compiles it once with the `jsonschema` crate, and at
//! every call drops undeclared fields, validates against exactly that schema, and only then lets
//! serde build the value. So constraints that serde alone never checks (`limit >= 1`, enums,
//! lengths) are enforced, every violation is reported with its path, and what the model is
//! shown is what is checked.

use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{DynamicSchema, Issue, Schema, SchemaError, ValidationError};

/// The parameters schema of a serde + schemars type.
///
/// ```
/// use pi_schema::{Schema, TypedSchema};
/// use serde_json::json;
///
/// /// Read a file.
/// #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
/// struct ReadParams {
///     /// Path to the file to read
///     path: String,
///     /// Maximum number of lines to read
///     #[schemars(range(min = 1))]
///     limit: Option<u64>,
/// }
///
/// let schema = TypedSchema::<ReadParams>::new().unwrap();
/// let shown = schema.json_schema().unwrap();
/// assert_eq!(shown["properties"]["path"]["description"], "Path to the file to read");
/// let params = schema.parse(&json!({"path": "a.rs", "limit": 5, "extra": 1})).unwrap();
/// assert_eq!((params.path.as_str(), params.limit), ("a.rs", Some(5)));
/// assert_eq!(schema.parse(&json!({"path": "a.rs", "limit": 0})).unwrap_err().to_string(),
///            "limit: 必须 >= 1，收到 number 0");
/// ```
pub struct TypedSchema<T> {
    dynamic: DynamicSchema,
    target: PhantomData<fn() -> T>,
}

impl<T> Clone for TypedSchema<T> {
    fn clone(&self) -> Self {
        Self {
            dynamic: self.dynamic.clone(),
            target: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for TypedSchema<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedSchema")
            .field("type", &std::any::type_name::<T>())
            .finish_non_exhaustive()
    }
}

impl<T: DeserializeOwned + JsonSchema> TypedSchema<T> {
    /// Generates `T`'s JSON Schema (draft 2020-12) and compiles it.
    ///
    /// The root `$schema` and `title` (the Rust type's name) are left out of what the model is
    /// shown; everything else is kept as schemars wrote it, and validated exactly so.
    pub fn new() -> Result<Self, SchemaError> {
        let mut json_schema = schemars::schema_for!(T).to_value();
        if let Value::Object(root) = &mut json_schema {
            root.remove("$schema");
            root.remove("title");
        }
        Ok(Self {
            dynamic: DynamicSchema::new(json_schema)?,
            target: PhantomData,
        })
    }
}

impl<T: DeserializeOwned> Schema for TypedSchema<T> {
    type Output = T;

    fn parse(&self, value: &Value) -> Result<T, ValidationError> {
        read_checked(self.dynamic.parse(value)?)
    }

    fn json_schema(&self) -> Option<&Value> {
        self.dynamic.json_schema()
    }
}

/// `T` from a value its schema has accepted. Serde failing here means the type's serde rules
/// are stricter than its schema says: reported rather than trusted.
fn read_checked<T: DeserializeOwned>(checked: Value) -> Result<T, ValidationError> {
    T::deserialize(&checked).map_err(|error| {
        ValidationError::single(Issue::new(format!("无法读取参数：{error}"), Some(&checked)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, serde::Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    struct Edit {
        old_text: String,
        new_text: String,
    }

    #[derive(Debug, serde::Deserialize, JsonSchema)]
    struct EditParams {
        path: String,
        #[schemars(length(min = 1))]
        edits: Vec<Edit>,
        #[serde(default)]
        mode: Mode,
    }

    #[derive(Debug, Default, PartialEq, serde::Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Mode {
        #[default]
        Exact,
        Fuzzy,
    }

    #[test]
    fn nested_refs_renames_and_enums_are_checked() {
        let schema = TypedSchema::<EditParams>::new().unwrap();
        let params = schema
            .parse(&json!({"path": "a", "edits": [{"oldText": "x", "newText": "y", "z": 1}]}))
            .unwrap();
        assert_eq!(params.path, "a");
        assert_eq!(
            (
                params.edits[0].old_text.as_str(),
                params.edits[0].new_text.as_str()
            ),
            ("x", "y")
        );
        assert_eq!(params.mode, Mode::Exact);

        let error = schema
            .parse(&json!({"path": 1, "edits": [{"oldText": "x"}], "mode": "loose"}))
            .unwrap_err();
        let mut found: Vec<String> = error
            .issues()
            .iter()
            .map(|issue| format!("{} {}", issue.path_string(), issue.message()))
            .collect();
        found.sort();
        assert_eq!(
            found,
            [
                "edits[0].newText 必须是 string",
                r#"mode 必须是以下之一："exact", "fuzzy""#,
                "path 必须是 string",
            ]
        );
        let empty = schema
            .parse(&json!({"path": "a", "edits": []}))
            .unwrap_err();
        assert_eq!(
            empty.to_string(),
            "edits: 项数必须 >= 1，收到 array of 0 items"
        );
    }
}
