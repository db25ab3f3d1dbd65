//! Type erasure: any [`Tool`] becomes one [`RegisteredTool`] with JSON in and JSON details out.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Value, json};

use crate::{Tool, ToolContext, ToolDefinition, ToolError, ToolOutput, ValidationError};

/// The future of a started call, with details already turned into JSON.
pub(crate) type OutputFuture<'a> = BoxFuture<'a, Result<ToolOutput<Value>, ToolError>>;

/// The object-safe face of a [`Tool`].
trait ErasedTool: Send + Sync {
    fn name(&self) -> &str;
    fn description(&self) -> &str;
    fn json_schema(&self) -> Option<&Value>;
    fn parse_and_start<'a>(
        &'a self,
        arguments: &Value,
        context: ToolContext,
    ) -> Result<OutputFuture<'a>, ValidationError>;
}

impl<T: Tool> ErasedTool for T {
    fn name(&self) -> &str {
        Tool::name(self)
    }

    fn description(&self) -> &str {
        Tool::description(self)
    }

    fn json_schema(&self) -> Option<&Value> {
        self.schema().json_schema()
    }

    fn parse_and_start<'a>(
        &'a self,
        arguments: &Value,
        context: ToolContext,
    ) -> Result<OutputFuture<'a>, ValidationError> {
        let prepared = self.prepare_arguments(arguments);
        let params = self.schema().parse(&prepared)?;
        let running = self.execute(params, context);
        Ok(Box::pin(async move { erase_details(running.await?) }))
    }
}

fn erase_details<D: serde::Serialize>(
    output: ToolOutput<D>,
) -> Result<ToolOutput<Value>, ToolError> {
    let details = output
        .details
        .map(serde_json::to_value)
        .transpose()
        .map_err(|error| ToolError::new(format!("details could not be serialized: {error}")))?;
    Ok(ToolOutput {
        content: output.content,
        details,
        is_error: output.is_error,
    })
}

/// A tool as a registry holds it: shared, type-erased, cheap to clone.
///
/// Clones are the same tool ([`RegisteredTool::ptr_eq`]).
#[derive(Clone)]
pub struct RegisteredTool {
    inner: Arc<dyn ErasedTool>,
}

impl RegisteredTool {
    /// Erases a tool.
    pub fn new<T: Tool>(tool: T) -> Self {
        Self {
            inner: Arc::new(tool),
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        self.inner.name()
    }

    /// The tool's description.
    pub fn description(&self) -> &str {
        self.inner.description()
    }

    /// The JSON Schema of its parameters, if its schema has one.
    pub fn json_schema(&self) -> Option<&Value> {
        self.inner.json_schema()
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

    /// Parses `arguments` and, if they are valid, starts the tool. Panics are the caller's to
    /// contain (see [`execute_tool_call`](crate::execute_tool_call)).
    pub(crate) fn parse_and_start<'a>(
        &'a self,
        arguments: &Value,
        context: ToolContext,
    ) -> Result<OutputFuture<'a>, ValidationError> {
        self.inner.parse_and_start(arguments, context)
    }
}

impl std::fmt::Debug for RegisteredTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredTool")
            .field("name", &self.name())
            .finish_non_exhaustive()
    }
}

impl<T: Tool> From<T> for RegisteredTool {
    fn from(tool: T) -> Self {
        Self::new(tool)
    }
}
