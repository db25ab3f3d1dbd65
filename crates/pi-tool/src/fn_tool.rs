//! Tools made from a closure: the quick way to write a stateless tool.

use std::future::Future;
use std::marker::PhantomData;

use serde::Serialize;

use crate::{Schema, Tool, ToolContext, ToolError, ToolOutput};

/// A [`Tool`] from a name, a description, a schema and an async closure, like the seed's
/// object literal `{ name, description, schema, execute }`.
///
/// ```
/// use pi_tool::{FnTool, ObjectParams, ToolOutput, object_schema, string_value};
///
/// object_schema! {
///     pub struct EchoParams { pub value: String = string_value() }
/// }
///
/// let echo = FnTool::new("echo", "Echo one value", EchoParams::object_schema(), |params: EchoParams, _cx| async move {
///     Ok(ToolOutput::text(params.value).with_details(serde_json::json!({"source": "echo"})))
/// });
/// ```
pub struct FnTool<S, F, D> {
    name: String,
    description: String,
    schema: S,
    execute: F,
    details: PhantomData<fn() -> D>,
}

impl<S, F, Fut, D> FnTool<S, F, D>
where
    S: Schema + 'static,
    S::Output: Send + 'static,
    F: Fn(S::Output, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ToolOutput<D>, ToolError>> + Send,
    D: Serialize + Send + 'static,
{
    /// A tool named `name` whose arguments `schema` checks and `execute` runs.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        schema: S,
        execute: F,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            schema,
            execute,
            details: PhantomData,
        }
    }
}

impl<S, F, D> std::fmt::Debug for FnTool<S, F, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FnTool")
            .field("name", &self.name)
            .field("description", &self.description)
            .finish_non_exhaustive()
    }
}

impl<S, F, Fut, D> Tool for FnTool<S, F, D>
where
    S: Schema + 'static,
    S::Output: Send + 'static,
    F: Fn(S::Output, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ToolOutput<D>, ToolError>> + Send,
    D: Serialize + Send + 'static,
{
    type Params = S::Output;
    type Details = D;

    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn schema(&self) -> &dyn Schema<Output = S::Output> {
        &self.schema
    }

    fn execute(
        &self,
        params: S::Output,
        context: ToolContext,
    ) -> impl Future<Output = Result<ToolOutput<D>, ToolError>> + Send {
        (self.execute)(params, context)
    }
}
