//! Tools made from a closure: the quick way to write a stateless tool.

use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use crate::schema::{ObjectParams, ObjectSchema, Schema};
use crate::schema::{Repairs, repair_arguments};
use crate::{PrepareArguments, Tool, ToolContext, ToolError, ToolOutput};

/// A [`Tool`] from a name, a description, a schema and an async closure, like the course's
/// object literal `{ name, description, schema, execute }`.
///
/// ```
/// use pi_tool::{FnTool, ToolOutput};
/// use pi_tool::schema::DynamicSchema;
/// use serde_json::{Value, json};
///
/// // Any schema: here a JSON Schema value (see `FnTool::typed` for a derived parameter type).
/// let schema = DynamicSchema::new(json!({"type": "object", "properties": {"value": {"type": "string"}}})).unwrap();
/// let echo = FnTool::new("echo", "Echo one value", schema, |arguments: Value, _cx| async move {
///     Ok(ToolOutput::text(arguments["value"].as_str().unwrap_or_default()).with_details(json!({"source": "echo"})))
/// });
/// ```
pub struct FnTool<S, F> {
    name: String,
    description: String,
    schema: S,
    execute: F,
    prepare: Option<PrepareFn>,
    /// Schema-guided repairs, after `prepare`.
    repairs: Repairs,
    exclusive: bool,
    ordering_key: Option<OrderingKeyFn>,
    annotations: crate::ToolAnnotations,
}

impl<P, F, Fut, O> FnTool<&'static ObjectSchema<P>, F>
where
    P: ObjectParams,
    F: Fn(P, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, ToolError>> + Send,
    O: Into<ToolOutput>,
{
    /// A tool whose parameters are the type its closure takes (one that derives
    /// [`ToolParams`](crate::ToolParams)): the type is named once, in the closure, and its
    /// schema is the one the model is shown.
    ///
    /// ```
    /// use pi_tool::{FnTool, ToolParams};
    ///
    /// #[derive(ToolParams)]
    /// struct Greet {
    ///     /// Who to greet
    ///     name: String,
    /// }
    ///
    /// let greet = FnTool::typed("greet", "Greet someone", |p: Greet, _cx| async move {
    ///     Ok(format!("Hello {}", p.name))
    /// });
    /// ```
    pub fn typed(name: impl Into<String>, description: impl Into<String>, execute: F) -> Self {
        Self::new(name, description, P::object_schema(), execute)
    }
}

/// A repair step: `Some(new arguments)` to replace them, `None` to keep them.
type PrepareFn = Arc<dyn Fn(&Value) -> Option<Value> + Send + Sync>;

/// What a call works on, from its raw arguments (see [`Tool::ordering_key`]).
type OrderingKeyFn = Arc<dyn Fn(&Value) -> Option<String> + Send + Sync>;

impl<S, F, Fut, O> FnTool<S, F>
where
    S: Schema + 'static,
    S::Output: Send + 'static,
    F: Fn(S::Output, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, ToolError>> + Send,
    O: Into<ToolOutput>,
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
            repairs: Repairs::NONE,
            exclusive: false,
            ordering_key: None,
            annotations: crate::ToolAnnotations::default(),
        }
    }

    /// Adds a repair step for arguments the schema refuses (see [`Tool::prepare_arguments`]):
    /// return `Some` to replace them (validated again), `None` to keep the refusal.
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

    /// Declares what the tool says about its effects (see [`Tool::annotations`]).
    #[must_use]
    pub fn with_annotations(mut self, annotations: crate::ToolAnnotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// Makes calls that work on the same thing (the key `key` finds in their raw arguments)
    /// run in call order within a batch (see [`Tool::ordering_key`]).
    #[must_use]
    pub fn with_ordering_key(
        mut self,
        key: impl Fn(&Value) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.ordering_key = Some(Arc::new(key));
        self
    }

    /// Repairs arrays and objects the model sent JSON-encoded as strings, guided by this
    /// tool's own JSON Schema (see [`repair_json_strings`](crate::schema::repair_json_strings)).
    #[must_use]
    pub fn with_json_string_repair(self) -> Self {
        self.with_repairs(Repairs::JSON_STRINGS)
    }

    /// Turns a string that is exactly a number or `true`/`false` into the number or boolean
    /// this tool's JSON Schema asks for (`"offset": "2"` becomes `2`), as upstream Pi's
    /// validator does; the result is validated as usual (see
    /// [`Repairs::SCALAR_STRINGS`](crate::schema::Repairs::SCALAR_STRINGS)).
    #[must_use]
    pub fn with_scalar_string_repair(self) -> Self {
        self.with_repairs(Repairs::SCALAR_STRINGS)
    }

    /// Adds schema-guided repairs (they run after a [`FnTool::with_prepare_arguments`] step).
    #[must_use]
    pub fn with_repairs(mut self, repairs: Repairs) -> Self {
        self.repairs = self.repairs.and(repairs);
        self
    }
}

/// The closure's step, then the schema-guided repairs on what it gave.
impl<S: Schema, F: Send + Sync> PrepareArguments for FnTool<S, F> {
    fn prepare(&self, arguments: &Value) -> Option<Value> {
        let prepared = self.prepare.as_ref().and_then(|prepare| prepare(arguments));
        let current = prepared.as_ref().unwrap_or(arguments);
        let repaired = self
            .schema
            .json_schema()
            .filter(|_| self.repairs.any())
            .and_then(|schema| repair_arguments(schema, current, self.repairs));
        repaired.or(prepared)
    }
}

impl<S, F> std::fmt::Debug for FnTool<S, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FnTool")
            .field("name", &self.name)
            .field("description", &self.description)
            .finish_non_exhaustive()
    }
}

impl<S, F, Fut, O> Tool for FnTool<S, F>
where
    S: Schema + 'static,
    S::Output: Send + 'static,
    F: Fn(S::Output, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, ToolError>> + Send,
    O: Into<ToolOutput>,
{
    type Params = S::Output;

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

    fn annotations(&self) -> crate::ToolAnnotations {
        self.annotations
    }

    fn ordering_key(&self, arguments: &Value) -> Option<String> {
        self.ordering_key.as_ref().and_then(|key| key(arguments))
    }

    fn prepare_arguments(&self) -> Option<&dyn PrepareArguments> {
        (self.prepare.is_some() || self.repairs.any()).then_some(self as &dyn PrepareArguments)
    }

    fn execute(
        &self,
        params: S::Output,
        context: ToolContext,
    ) -> impl Future<Output = Result<ToolOutput, ToolError>> + Send {
        let running = (self.execute)(params, context);
        async move { running.await.map(Into::into) }
    }
}
