//! Defaults of a JSON Schema: an annotation, filled in only where that cannot change a verdict.
//!
//! JSON Schema says `default` is an annotation: an absent property is valid whatever its default
//! is. Real servers advertise defaults that break their own schema (the official Python MCP SDK
//! writes `title: str = None` as `{"type": "string", "default": null}`, and `loud: bool =
//! "false"` as `{"type": "boolean", "default": "false"}`), so the rule here is:
//!
//! 1. the arguments the model sent are filtered and validated as they are, so a default can
//!    never make a missing `required` property present, nor a valid call invalid;
//! 2. only then are absent properties given their default, and only a default that satisfies
//!    its own property schema (checked once, when the schema is built); any other default is
//!    left out, and the property stays absent, which the schema already accepted.
//!
//! Hand-written because no crate fills defaults: `jsonschema` only validates.

use serde_json::{Map, Value};

use super::filter::resolve_ref;

/// How many plan nodes a schema may produce: a recursive schema stops growing here (its
/// deeper defaults are left out, which is always valid).
const MAX_PLAN_NODES: usize = 4096;
/// How deep the plan follows a schema (counting `$ref` hops).
const MAX_PLAN_DEPTH: usize = 64;
/// The URI the schema is registered under to check a default against its own subschema.
const ROOT_URI: &str = "urn:pi-tool:arguments";

/// Where a JSON Schema's fillable defaults are, as a tree that only holds branches with
/// defaults. A registered tool builds one per schema (with [`Defaults::of`]) and fills a call's
/// accepted arguments with it (with [`Defaults::fill`]).
#[derive(Debug, Default)]
pub struct Defaults {
    /// Absent properties of an object here get these values.
    fill: Vec<(String, Value)>,
    /// Present properties whose own subtree has defaults.
    properties: Vec<(String, Defaults)>,
    /// Array items whose subtree has defaults.
    items: Option<Box<Defaults>>,
    /// Tuple positions whose subtree has defaults.
    prefix_items: Vec<Defaults>,
}

impl Defaults {
    /// The fillable defaults of `root`; `None` when it has none (the common case, which then
    /// costs nothing per call).
    pub fn of(root: &Value) -> Option<Self> {
        if !mentions_default(root, 0) {
            return None;
        }
        let mut planner = Planner {
            root,
            checker: DefaultChecker::new(root),
            nodes: 0,
        };
        let plan = planner.node(root, String::new(), 0);
        (!plan.is_empty()).then_some(plan)
    }

    fn is_empty(&self) -> bool {
        self.fill.is_empty()
            && self.properties.is_empty()
            && self.items.is_none()
            && self.prefix_items.is_empty()
    }

    /// Gives every absent property that has a fillable default its default, at every level.
    /// Call it on a value its schema has already accepted.
    pub fn fill(&self, value: &mut Value) {
        match value {
            Value::Object(object) => {
                for (name, default) in &self.fill {
                    if !object.contains_key(name) {
                        object.insert(name.clone(), default.clone());
                    }
                }
                for (name, plan) in &self.properties {
                    if let Some(field) = object.get_mut(name) {
                        plan.fill(field);
                    }
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter_mut().enumerate() {
                    if let Some(plan) = self.prefix_items.get(index).or(self.items.as_deref()) {
                        plan.fill(item);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Whether `default` appears as a keyword anywhere (a cheap look before any planning).
fn mentions_default(schema: &Value, depth: usize) -> bool {
    if depth > MAX_PLAN_DEPTH {
        return false;
    }
    match schema {
        Value::Object(object) => {
            object.contains_key("default")
                || object
                    .values()
                    .any(|value| mentions_default(value, depth + 1))
        }
        Value::Array(items) => items.iter().any(|item| mentions_default(item, depth + 1)),
        _ => false,
    }
}

struct Planner<'s> {
    root: &'s Value,
    checker: DefaultChecker,
    nodes: usize,
}

impl<'s> Planner<'s> {
    /// The plan for `schema`, found at JSON pointer `pointer` of the root.
    fn node(&mut self, schema: &'s Value, pointer: String, depth: usize) -> Defaults {
        let mut plan = Defaults::default();
        self.nodes += 1;
        if depth > MAX_PLAN_DEPTH || self.nodes > MAX_PLAN_NODES {
            return plan;
        }
        let mut parts = Vec::new();
        self.gather(schema, pointer, &mut parts, 0);
        for (node, at) in parts {
            if let Some(Value::Object(properties)) = node.get("properties") {
                for (name, field) in properties {
                    let field_at = format!("{at}/properties/{}", escape(name));
                    if let Some(default) = field.get("default")
                        && !plan.fill.iter().any(|(taken, _)| taken == name)
                        && self.checker.accepts(&field_at, default)
                    {
                        plan.fill.push((name.clone(), default.clone()));
                    }
                    let child = self.node(field, field_at, depth + 1);
                    if !child.is_empty() {
                        plan.properties.push((name.clone(), child));
                    }
                }
            }
            match node.get("items") {
                Some(items @ Value::Object(_)) if plan.items.is_none() => {
                    let child = self.node(items, format!("{at}/items"), depth + 1);
                    if !child.is_empty() {
                        plan.items = Some(Box::new(child));
                    }
                }
                Some(Value::Array(tuple)) if plan.prefix_items.is_empty() => {
                    plan.prefix_items = self.tuple(tuple, &format!("{at}/items"), depth);
                }
                _ => {}
            }
            if let (Some(Value::Array(tuple)), true) =
                (node.get("prefixItems"), plan.prefix_items.is_empty())
            {
                plan.prefix_items = self.tuple(tuple, &format!("{at}/prefixItems"), depth);
            }
        }
        plan
    }

    fn tuple(&mut self, tuple: &'s [Value], at: &str, depth: usize) -> Vec<Defaults> {
        let plans: Vec<Defaults> = tuple
            .iter()
            .enumerate()
            .map(|(index, item)| self.node(item, format!("{at}/{index}"), depth + 1))
            .collect();
        if plans.iter().all(Defaults::is_empty) {
            Vec::new()
        } else {
            plans
        }
    }

    /// `schema` and every subschema that applies to the same value (`$ref` targets and the
    /// branches of `allOf`/`anyOf`/`oneOf`), each with its pointer.
    fn gather(
        &self,
        schema: &'s Value,
        pointer: String,
        parts: &mut Vec<(&'s Map<String, Value>, String)>,
        hops: usize,
    ) {
        let Value::Object(node) = schema else {
            return;
        };
        if hops > 32 {
            return;
        }
        if let Some(reference) = node.get("$ref").and_then(Value::as_str)
            && let Some(target) = resolve_ref(self.root, reference)
            && let Some(target_pointer) = reference.strip_prefix('#')
        {
            self.gather(target, target_pointer.to_owned(), parts, hops + 1);
        }
        for keyword in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = node.get(keyword) {
                for (index, branch) in branches.iter().enumerate() {
                    self.gather(
                        branch,
                        format!("{pointer}/{keyword}/{index}"),
                        parts,
                        hops + 1,
                    );
                }
            }
        }
        parts.push((node, pointer));
    }
}

/// A JSON pointer segment for `name` (RFC 6901: `~` and `/` escaped).
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// Checks a default against the subschema it belongs to, with `$ref`s resolved in the whole
/// schema (so `{"$ref": "#/$defs/mode", "default": "fast"}` is judged by `mode`).
struct DefaultChecker {
    registry: Option<jsonschema::Registry<'static>>,
}

impl DefaultChecker {
    fn new(root: &Value) -> Self {
        let draft = jsonschema::Draft::default().detect(root);
        let registry = jsonschema::Registry::new()
            .draft(draft)
            .add(ROOT_URI, root.clone())
            .and_then(|builder| builder.prepare())
            .ok();
        Self { registry }
    }

    /// Whether `default` is valid at `pointer`; `false` when that cannot be told (the default
    /// is then left out, which is always valid).
    fn accepts(&self, pointer: &str, default: &Value) -> bool {
        let Some(registry) = &self.registry else {
            return false;
        };
        let reference = serde_json::json!({ "$ref": format!("{ROOT_URI}#{pointer}") });
        jsonschema::options()
            .with_registry(registry)
            .build(&reference)
            .is_ok_and(|validator| validator.is_valid(default))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn filled(schema: &Value, value: Value) -> Value {
        let mut value = value;
        if let Some(defaults) = Defaults::of(schema) {
            defaults.fill(&mut value);
        }
        value
    }

    #[test]
    fn only_defaults_that_satisfy_their_own_schema_are_filled() {
        // What the official Python MCP SDK advertises for
        // `def greet(name: str, title: str = None, loud: bool = "false", times: int = 1)`.
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "title": {"default": null, "type": "string"},
                "loud": {"default": "false", "type": "boolean"},
                "times": {"default": 1, "type": "integer"}
            },
            "required": ["name"]
        });
        assert_eq!(
            filled(&schema, json!({"name": "Ada"})),
            json!({"name": "Ada", "times": 1})
        );
        assert_eq!(
            filled(&schema, json!({"name": "Ada", "times": 3})),
            json!({"name": "Ada", "times": 3})
        );
    }

    #[test]
    fn nested_referenced_and_tuple_defaults_are_filled() {
        let schema = json!({
            "type": "object",
            "properties": {
                "edits": {"type": "array", "items": {"$ref": "#/$defs/edit"}},
                "pair": {"type": "array", "prefixItems": [
                    {"type": "object", "properties": {"a": {"type": "integer", "default": 1}}},
                    {"type": "object"}
                ]},
                "mode": {"$ref": "#/$defs/mode", "default": "fast"},
                "bad": {"$ref": "#/$defs/mode", "default": "slow"}
            },
            "$defs": {
                "edit": {"type": "object", "properties": {"newText": {"type": "string", "default": ""}}},
                "mode": {"enum": ["fast", "safe"]}
            }
        });
        assert_eq!(
            filled(
                &schema,
                json!({"edits": [{}, {"newText": "x"}], "pair": [{}, {}]})
            ),
            json!({
                "edits": [{"newText": ""}, {"newText": "x"}],
                "pair": [{"a": 1}, {}],
                "mode": "fast"
            })
        );
    }

    #[test]
    fn schemas_without_defaults_have_no_plan_and_recursion_is_bounded() {
        assert!(Defaults::of(&json!({"type": "object", "properties": {"a": {}}})).is_none());
        let recursive = json!({
            "type": "object",
            "properties": {
                "child": {"$ref": "#"},
                "other": {"$ref": "#"},
                "n": {"type": "integer", "default": 0}
            }
        });
        let plan = Defaults::of(&recursive).map(|plan| plan.fill.len());
        assert_eq!(plan, Some(1));
        assert_eq!(
            filled(&recursive, json!({"child": {"child": {}}})),
            json!({"child": {"child": {"n": 0}, "n": 0}, "n": 0})
        );
    }
}
