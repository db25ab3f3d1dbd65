//! Tools made from a closure: the quick way to write a stateless tool.

use std::borrow::Cow;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

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
    prepare: Option<PrepareFn>,
    exclusive: bool,
    details: PhantomData<fn() -> D>,
}

/// A repair step: `Some(new arguments)` to replace them, `None` to keep them.
type PrepareFn = Arc<dyn Fn(&Value) -> Option<Value> + Send + Sync>;

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
            prepare: None,
            exclusive: false,
            details: PhantomData,
        }
    }

    /// Adds a repair step that runs before validation (see [`Tool::prepare_arguments`]):
    /// return `Some` to replace the arguments, `None` to keep them.
    #[must_use]
    pub fn with_prepare_arguments(
        mut self,
        prepare: impl Fn(&Value) -> Option<Value> + Send + Sync + 'static,
    ) -> Self {
        self.prepare = Some(Arc::new(prepare));
        self
    }

    /// Makes the tool run alone: a batch that calls it runs sequentially (see [`Tool::exclusive`]).
    #[must_use]
    pub fn exclusive(mut self) -> Self {
        self.exclusive = true;
        self
    }

    /// Repairs arrays and objects the model sent JSON-encoded as strings, guided by this
    /// tool's own JSON Schema (see [`repair_json_strings`](crate::schema::repair_json_strings)).
    #[must_use]
    pub fn with_json_string_repair(self) -> Self {
        let schema = self.schema.json_schema().cloned().unwrap_or(Value::Null);
        self.with_prepare_arguments(move |arguments| {
            crate::schema::repair_json_strings(&schema, arguments)
        })
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

    fn exclusive(&self) -> bool {
        self.exclusive
    }

    fn prepares_arguments(&self) -> bool {
        self.prepare.is_some()
    }

    fn prepare_arguments<'a>(&self, arguments: &'a Value) -> Cow<'a, Value> {
        match self.prepare.as_ref().and_then(|prepare| prepare(arguments)) {
            Some(repaired) => Cow::Owned(repaired),
            None => Cow::Borrowed(arguments),
        }
    }

    fn execute(
        &self,
        params: S::Output,
        context: ToolContext,
    ) -> impl Future<Output = Result<ToolOutput<D>, ToolError>> + Send {
        (self.execute)(params, context)
    }
}
