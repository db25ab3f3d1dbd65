//! Type erasure: any [`Tool`] becomes one [`RegisteredTool`] with JSON in and JSON details out.

use std::any::Any;
use std::sync::{Arc, OnceLock};

use arcstr::ArcStr;
use futures::future::BoxFuture;
use serde_json::{Value, json};

use crate::schema::{Defaults, ValidationError};
use crate::{Tool, ToolContext, ToolDefinition, ToolError, ToolOutput};

/// The future of a started call, with details already turned into JSON.
pub(crate) type OutputFuture<'a> = BoxFuture<'a, Result<ToolOutput, ToolError>>;

/// Checked parameters, type-erased between parsing and execution.
pub(crate) type ErasedParams = Box<dyn Any + Send>;

/// Parameters parsed from JSON, and whether the tool's repair step had to mend the arguments
/// first (so that hooks are shown the arguments the tool will really see).
pub(crate) struct Parsed {
    pub(crate) params: ErasedParams,
    pub(crate) repaired: bool,
}

/// The object-safe face of a [`Tool`].
trait ErasedTool: Send + Sync {
    fn description(&self) -> &str;
    fn json_schema(&self) -> Option<&Value>;
    fn is_exclusive(&self) -> bool;
    fn annotations(&self) -> crate::ToolAnnotations;
    fn ordering_key(&self, arguments: &Value) -> Option<String>;
    fn repair(&self, arguments: &Value) -> Option<Value>;
    fn parse(&self, arguments: &Value) -> Result<Parsed, ValidationError>;
    fn start(&self, params: ErasedParams, context: ToolContext) -> OutputFuture<'_>;
}

impl<T: Tool> ErasedTool for T {
    fn description(&self) -> &str {
        Tool::description(self)
    }

    fn json_schema(&self) -> Option<&Value> {
        self.schema().json_schema()
    }

    fn is_exclusive(&self) -> bool {
        self.exclusive()
    }

    fn annotations(&self) -> crate::ToolAnnotations {
        Tool::annotations(self)
    }

    fn ordering_key(&self, arguments: &Value) -> Option<String> {
        Tool::ordering_key(self, arguments)
    }

    fn repair(&self, arguments: &Value) -> Option<Value> {
        self.prepare_arguments()?.prepare(arguments)
    }

    fn parse(&self, arguments: &Value) -> Result<Parsed, ValidationError> {
        // Arguments the schema accepts are never repaired: the repair step only gets the
        // refused ones, and its result is checked again.
        let refused = match self.schema().parse(arguments) {
            Ok(params) => {
                return Ok(Parsed {
                    params: Box::new(params),
                    repaired: false,
                });
            }
            Err(refused) => refused,
        };
        match ErasedTool::repair(self, arguments) {
            Some(repaired) => Ok(Parsed {
                params: Box::new(self.schema().parse(&repaired)?),
                repaired: true,
            }),
            None => Err(refused),
        }
    }

    fn start(&self, params: ErasedParams, context: ToolContext) -> OutputFuture<'_> {
        match params.downcast::<T::Params>() {
            Ok(params) => start_typed(self, *params, context),
            // Parameters always come from this tool's own `parse`; a mismatch is a bug, reported
            // as a failed call rather than a panic.
            Err(_) => Box::pin(async { Err(ToolError::new("parameters of another tool")) }),
        }
    }
}

/// The tool's own future, boxed as it is: its output is checked where it is awaited
/// (`finish` in [`crate::call`]), so no wrapper future is needed here.
fn start_typed<T: Tool>(tool: &T, params: T::Params, context: ToolContext) -> OutputFuture<'_> {
    Box::pin(tool.execute(params, context))
}

/// A tool as a registry holds it: shared, type-erased, cheap to clone.
///
/// Clones are the same tool ([`RegisteredTool::ptr_eq`]).
#[derive(Clone)]
pub struct RegisteredTool {
    inner: Arc<Shared<dyn ErasedTool>>,
    /// The tool's name, read once: every result of the tool shares it.
    name: ArcStr,
    /// The program it was imported from (an MCP server), when it is not this program's own.
    imported_from: Option<ArcStr>,
}

/// The tool and what is worked out once from it, in one allocation.
struct Shared<T: ?Sized> {
    /// The plan of the JSON Schema's fillable defaults, made when a caller first needs it.
    defaults: OnceLock<Option<Defaults>>,
    tool: T,
}

impl RegisteredTool {
    /// Erases a tool.
    pub fn new<T: Tool>(tool: T) -> Self {
        Self {
            name: ArcStr::from(Tool::name(&tool)),
            inner: Arc::new(Shared {
                defaults: OnceLock::new(),
                tool,
            }),
            imported_from: None,
        }
    }

    /// Marks the tool as imported from another program, `source` (an MCP server, as the
    /// person named it): its name, description and annotations are that program's claims,
    /// which an approval policy should not take on trust.
    #[must_use]
    pub fn imported_from(mut self, source: impl Into<ArcStr>) -> Self {
        self.imported_from = Some(source.into());
        self
    }

    /// The program the tool was imported from (see [`RegisteredTool::imported_from`]); `None`
    /// for a tool of this program.
    pub fn import_source(&self) -> Option<&str> {
        self.imported_from.as_deref()
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tool's description.
    pub fn description(&self) -> &str {
        self.inner.tool.description()
    }

    /// The JSON Schema of its parameters, if its schema has one.
    pub fn json_schema(&self) -> Option<&Value> {
        self.inner.tool.json_schema()
    }

    /// What a provider is shown: name, description, parameters (`{"type":"object"}` when the
    /// schema has no JSON Schema).
    pub fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: self.name().to_owned(),
            description: self.description().to_owned(),
            parameters: self
                .json_schema()
                .cloned()
                .unwrap_or_else(|| json!({"type": "object"})),
        }
    }

    /// Whether both are the very same registered tool.
    pub fn ptr_eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Whether the tool asked to run alone (see [`Tool::exclusive`]).
    pub fn is_exclusive(&self) -> bool {
        self.inner.tool.is_exclusive()
    }

    /// What the tool says about its effects (see [`Tool::annotations`]).
    pub fn annotations(&self) -> crate::ToolAnnotations {
        self.inner.tool.annotations()
    }

    /// Whether the tool comes from another program (see [`RegisteredTool::imported_from`]).
    pub fn is_imported(&self) -> bool {
        self.imported_from.is_some()
    }

    /// What a call with these raw arguments works on, when calls on it must keep their order
    /// (see [`Tool::ordering_key`]).
    pub fn ordering_key(&self, arguments: &Value) -> Option<String> {
        self.inner.tool.ordering_key(arguments)
    }

    /// The JSON Schema's fillable defaults, planned on first use and kept with the tool.
    pub(crate) fn defaults(&self) -> Option<&Defaults> {
        self.inner
            .defaults
            .get_or_init(|| self.json_schema().and_then(Defaults::of))
            .as_ref()
    }

    /// The tool's repair step on `arguments` (see [`Tool::prepare_arguments`]); `None` when
    /// it has none or changed nothing.
    pub(crate) fn repair(&self, arguments: &Value) -> Option<Value> {
        self.inner.tool.repair(arguments)
    }

    /// Parses `arguments`, repairing them only if the schema refuses them as they are.
    /// Panics are the caller's to contain.
    pub(crate) fn parse(&self, arguments: &Value) -> Result<Parsed, ValidationError> {
        self.inner.tool.parse(arguments)
    }

    /// Starts the tool on parameters from its own [`RegisteredTool::parse`].
    pub(crate) fn start(&self, params: ErasedParams, context: ToolContext) -> OutputFuture<'_> {
        self.inner.tool.start(params, context)
    }
}

impl std::fmt::Debug for RegisteredTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredTool")
            .field("name", &self.name())
            .field("imported_from", &self.imported_from)
            .finish_non_exhaustive()
    }
}

impl<T: Tool> From<T> for RegisteredTool {
    fn from(tool: T) -> Self {
        Self::new(tool)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::FnTool;
    use crate::schema::DynamicSchema;

    #[test]
    fn the_defaults_plan_is_made_once_and_shared_by_clones() {
        let schema = DynamicSchema::new(json!({
            "type": "object",
            "properties": {"times": {"type": "integer", "default": 1}}
        }))
        .unwrap();
        let tool =
            RegisteredTool::new(FnTool::new("t", "", schema, |_: Value, _| async { Ok("") }));
        let first = tool.defaults().unwrap();
        let clone = tool.clone();
        assert!(std::ptr::eq(first, clone.defaults().unwrap()));
        let mut value = json!({});
        first.fill(&mut value);
        assert_eq!(value, json!({"times": 1}));
    }
}
