//! Schemas known only at run time, as JSON Schema values (an MCP server's tools, a config file).

use std::sync::Arc;

use serde_json::Value;

use super::defaults::Defaults;
use super::{Schema, SchemaError, ValidationError, compiled, filter, jsonschema_issues};

/// A schema given as a JSON Schema value: arguments are filtered (undeclared properties dropped
/// at every level where properties are declared) and validated, as sent, against exactly that
/// schema by the `jsonschema` crate; then absent properties get their `default`, if it satisfies
/// its own property schema. The tool receives the filtered JSON.
///
/// A `default` is an annotation (JSON Schema says so): it never makes a missing `required`
/// property present, and a default that breaks its own schema (`{"type": "string", "default":
/// null}`, as the Python MCP SDK writes `x: str = None`) is simply not filled in.
///
/// When the schema allows, filtering and the common rules take one walk over the arguments,
/// and any other subschema is handed to its own `jsonschema` validator. The result is the same;
/// what that walk doubts gets `jsonschema`'s verdict on the value it built, with every violation.
///
/// Draft 2020-12 is assumed unless the schema's `$schema` names another draft (draft-07 and
/// others are detected). A schema that does not compile is refused here, so a tool built on it
/// can never be registered.
///
/// ```
/// use pi_schema::{DynamicSchema, Schema};
/// use serde_json::json;
///
/// let schema = DynamicSchema::new(json!({
///     "type": "object",
///     "properties": {"limit": {"type": "integer", "minimum": 1}},
///     "required": ["limit"]
/// })).unwrap();
/// assert_eq!(schema.parse(&json!({"limit": 3, "extra": true})).unwrap(), json!({"limit": 3}));
/// assert_eq!(schema.parse(&json!({"limit": 0})).unwrap_err().to_string(), "必须 >= 1");
/// assert!(DynamicSchema::new(json!({"type": 5})).is_err());
/// ```
#[derive(Clone)]
pub struct DynamicSchema {
    json_schema: Value,
    validator: Arc<jsonschema::Validator>,
    /// The one-walk filter and check, when the schema can be mirrored (see `compiled`).
    compiled: Option<Arc<compiled::Node>>,
    /// The defaults filled in after validation; `None` when there are none to fill.
    defaults: Option<Arc<Defaults>>,
}

impl DynamicSchema {
    /// Compiles `json_schema`; refuses one that is not a valid JSON Schema or refers to
    /// anything outside itself.
    pub fn new(json_schema: Value) -> Result<Self, SchemaError> {
        let validator = jsonschema::validator_for(&json_schema).map_err(|error| {
            SchemaError::InvalidJsonSchema {
                location: error.instance_path().to_string(),
                reason: error.to_string(),
            }
        })?;
        let compiled = compiled::compile(&json_schema).map(Arc::new);
        let defaults = Defaults::of(&json_schema).map(Arc::new);
        Ok(Self {
            json_schema,
            validator: Arc::new(validator),
            compiled,
            defaults,
        })
    }
}

impl std::fmt::Debug for DynamicSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynamicSchema")
            .field("json_schema", &self.json_schema)
            .finish_non_exhaustive()
    }
}

impl Schema for DynamicSchema {
    type Output = Value;

    fn parse(&self, value: &Value) -> Result<Value, ValidationError> {
        // The compiled schema filters and checks in one walk; only what it doubts goes to
        // `jsonschema`.
        if let Some(walked) = self
            .compiled
            .as_deref()
            .and_then(|node| compiled::check(node, value))
        {
            return self.verdict(walked);
        }
        let filtered = filter::drop_undeclared(&self.json_schema, value)?;
        if self.validator.is_valid(&filtered) {
            return Ok(self.with_defaults(filtered));
        }
        Err(self.report(&filtered).unwrap_or_else(|| {
            ValidationError::single(super::Issue::new("参数无效", Some(&filtered)))
        }))
    }

    fn json_schema(&self) -> Option<&Value> {
        Some(&self.json_schema)
    }
}

impl DynamicSchema {
    /// The answer for a compiled walk: its value when nothing was doubted, else `jsonschema`'s
    /// verdict on that (already filtered) value, with every violation.
    fn verdict(&self, walked: compiled::Walked) -> Result<Value, ValidationError> {
        if !walked.doubted {
            return Ok(self.with_defaults(walked.value));
        }
        // Doubted values are almost always invalid: collect the issues at once.
        match self.report(&walked.value) {
            Some(issues) => Err(issues),
            None => Ok(self.with_defaults(walked.value)),
        }
    }

    /// An accepted value with its absent properties' (valid) defaults filled in.
    fn with_defaults(&self, mut value: Value) -> Value {
        if let Some(defaults) = &self.defaults {
            defaults.fill(&mut value);
        }
        value
    }

    /// Every violation of the filtered `value`; `None` when there is none.
    fn report(&self, value: &Value) -> Option<ValidationError> {
        let declared = self
            .json_schema
            .get("properties")
            .and_then(Value::as_object)
            .map_or(0, serde_json::Map::len);
        jsonschema_issues::collect(&self.validator, &self.json_schema, value)
            .map(|error| error.in_object_declaring(declared))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn edit_schema() -> DynamicSchema {
        DynamicSchema::new(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "edits": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
                        "required": ["oldText", "newText"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["path", "edits"],
            "additionalProperties": false
        }))
        .unwrap()
    }

    #[test]
    fn reports_every_violation_with_its_path() {
        let error = edit_schema()
            .parse(&json!({"edits": [{"oldText": 1, "junk": 0}, "x"], "extra": 1}))
            .unwrap_err();
        let lines: Vec<String> = error
            .issues()
            .iter()
            .map(|issue| format!("{} {}", issue.path_string(), issue.message()))
            .collect();
        let mut sorted = lines.clone();
        sorted.sort();
        assert_eq!(
            sorted,
            [
                "edits[0].newText 必须是 string",
                "edits[0].oldText 必须是 string",
                "edits[1] 必须是 object",
                "path 必须是 string",
            ],
            "{lines:?}"
        );
    }

    #[test]
    fn nested_single_issue_names_its_path() {
        let error = edit_schema()
            .parse(&json!({"path": "a", "edits": [{"oldText": "x", "newText": 2}]}))
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "edits[0].newText: 必须是 string，收到 number 2"
        );
    }

    #[test]
    fn draft_07_schemas_are_detected() {
        let schema = DynamicSchema::new(json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"n": {"type": "number", "exclusiveMinimum": 0}},
            "definitions": {"unused": {}}
        }))
        .unwrap();
        assert!(schema.parse(&json!({"n": 1})).is_ok());
        assert_eq!(
            schema.parse(&json!({"n": 0})).unwrap_err().to_string(),
            "必须 > 0"
        );
    }

    #[test]
    fn what_the_compiled_walk_doubts_still_gets_jsonschemas_verdict() {
        let schema = DynamicSchema::new(json!({
            "type": "object",
            "properties": {"n": {"type": "integer", "maximum": 9007199254740993_u64}}
        }))
        .unwrap();
        // Too large to compare exactly as f64: doubted, then accepted by `jsonschema`.
        let big = json!({"n": 9007199254740993_u64, "x": 1});
        assert_eq!(
            schema.parse(&big).ok(),
            Some(json!({"n": 9007199254740993_u64}))
        );
        let over = json!({"n": 9007199254740995_u64});
        let report = schema.parse(&over).map_err(|e| e.to_string());
        assert_eq!(report, Err("必须 <= 9007199254740993".to_owned()));
    }

    /// What the official Python MCP SDK advertises for
    /// `def greet(name: str, title: str = None, loud: bool = "false", times: int = 1)`.
    fn python_sdk_greet() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"title": "Name", "type": "string"},
                "title": {"default": null, "title": "Title", "type": "string"},
                "loud": {"default": "false", "title": "Loud", "type": "boolean"},
                "times": {"default": 1, "title": "Times", "type": "integer"}
            },
            "required": ["name"],
            "title": "greetArguments"
        })
    }

    #[test]
    fn a_default_is_an_annotation_on_every_path() {
        let schema = DynamicSchema::new(python_sdk_greet()).unwrap();
        assert!(
            schema.compiled.is_some(),
            "bad defaults no longer decline the walk"
        );
        let expected = json!({"name": "Ada", "times": 1});
        assert_eq!(schema.parse(&json!({"name": "Ada"})).unwrap(), expected);
        // The generic path (no compiled walk) says the same.
        let generic = DynamicSchema {
            compiled: None,
            ..schema.clone()
        };
        assert_eq!(
            generic.parse(&json!({"name": "Ada", "x": 1})).unwrap(),
            json!({"name": "Ada", "times": 1})
        );
        // A sent value is still judged: defaults only fill what is absent.
        assert_eq!(
            schema
                .parse(&json!({"name": "Ada", "title": null}))
                .unwrap_err()
                .to_string(),
            "title: 必须是 string，收到 null"
        );
    }

    #[test]
    fn a_default_never_satisfies_required() {
        let schema = json!({
            "type": "object",
            "properties": {"path": {"type": "string", "default": "."}, "n": {"type": "integer"}},
            "required": ["path"]
        });
        for dynamic in [
            DynamicSchema::new(schema.clone()).unwrap(),
            DynamicSchema {
                compiled: None,
                ..DynamicSchema::new(schema.clone()).unwrap()
            },
        ] {
            let error = dynamic.parse(&json!({"n": 1})).unwrap_err();
            assert_eq!(error.issues()[0].path_string(), "path");
            assert_eq!(
                dynamic.parse(&json!({"path": "a"})).unwrap(),
                json!({"path": "a"})
            );
        }
    }

    #[test]
    fn schemas_that_do_not_compile_are_refused() {
        for bad in [
            json!({"type": "strnig"}),
            json!({"properties": {"a": {"minimum": "x"}}}),
            json!({"$ref": "https://example.com/remote.json"}),
        ] {
            assert!(DynamicSchema::new(bad.clone()).is_err(), "{bad} compiled");
        }
    }
}
