//! The tool contract: what a tool is given, what it returns, and how it fails.

use std::fmt;
use std::future::Future;
use std::sync::{Arc, OnceLock};

use arcstr::ArcStr;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::schema::Schema;
use crate::{Content, ToolError, text};

/// A tool the model may call: a name and description it is shown, a schema for its arguments,
/// and the local code that runs.
///
/// Implement it for tools that carry state; use [`FnTool`](crate::FnTool) for quick ones. Both
/// end up as the same [`RegisteredTool`](crate::RegisteredTool) in a registry.
///
/// ```
/// use pi_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolParams};
/// use pi_tool::schema::{ObjectParams, Schema};
///
/// #[derive(ToolParams)]
/// struct ShoutParams { value: String }
///
/// struct Shout { suffix: String }
///
/// impl Tool for Shout {
///     type Params = ShoutParams;
///     fn name(&self) -> &str { "shout" }
///     fn description(&self) -> &str { "Shout one value" }
///     fn schema(&self) -> &dyn Schema<Output = ShoutParams> { ShoutParams::object_schema() }
///     async fn execute(&self, params: ShoutParams, _cx: ToolContext) -> Result<ToolOutput, ToolError> {
///         Ok(format!("{}{}", params.value.to_uppercase(), self.suffix).into())
///     }
/// }
/// ```
pub trait Tool: Send + Sync + 'static {
    /// The checked parameters `execute` receives.
    type Params: Send + 'static;

    /// The name the model calls the tool by.
    fn name(&self) -> &str;

    /// What the tool does, for the model.
    fn description(&self) -> &str;

    /// The schema that both describes and checks the arguments.
    fn schema(&self) -> &dyn Schema<Output = Self::Params>;

    /// The tool's repair step, if it has one: a chance to mend what models commonly get wrong
    /// (see [`repair_json_strings`](crate::schema::repair_json_strings)). It runs only on
    /// arguments the schema refuses as they are (valid arguments are never rewritten, and take
    /// the fast parse), and whatever it returns is validated again. The default has none.
    ///
    /// ```
    /// use pi_tool::{PrepareArguments, Tool, ToolContext, ToolError, ToolOutput, ToolParams};
    /// use pi_tool::schema::{ObjectParams, Schema};
    /// use serde_json::{Value, json};
    ///
    /// #[derive(ToolParams)]
    /// struct Params { value: String }
    ///
    /// /// Models sometimes send `{"text": ...}`: take it as `value`.
    /// fn rename_text(arguments: &Value) -> Option<Value> {
    ///     let text = arguments.get("text")?;
    ///     Some(json!({"value": text}))
    /// }
    ///
    /// struct Echo;
    /// impl Tool for Echo {
    ///     type Params = Params;
    ///     fn name(&self) -> &str { "echo" }
    ///     fn description(&self) -> &str { "Echo one value" }
    ///     fn schema(&self) -> &dyn Schema<Output = Params> { Params::object_schema() }
    ///     fn prepare_arguments(&self) -> Option<&dyn PrepareArguments> { Some(&rename_text) }
    ///     async fn execute(&self, params: Params, _cx: ToolContext) -> Result<ToolOutput, ToolError> {
    ///         Ok(params.value.into())
    ///     }
    /// }
    /// # let tools = pi_tool::ToolRegistry::new([Echo]).unwrap();
    /// # let call = pi_tool::ToolCall::new("c1", "echo", json!({"text": "Pi"}));
    /// # let result = futures::executor::block_on(pi_tool::execute_tool_call(&call, &tools, Default::default()));
    /// # assert_eq!(result.text(), "Pi");
    /// ```
    fn prepare_arguments(&self) -> Option<&dyn PrepareArguments> {
        None
    }

    /// Whether the tool must run alone: a batch of calls that includes it runs sequentially.
    /// For tools whose effects must not interleave with anything else (the default is `false`).
    fn exclusive(&self) -> bool {
        false
    }

    /// What the tool says about its own effects (MCP-style hints), for approval policies.
    /// The default says nothing, which reads as MCP's riskiest defaults (see
    /// [`ToolAnnotations`](crate::ToolAnnotations)).
    fn annotations(&self) -> crate::ToolAnnotations {
        crate::ToolAnnotations::default()
    }

    /// What a call with these (raw) arguments works on, when calls on the same thing must run
    /// in the order the model wrote them: a batch starts such a call only once every earlier
    /// call of the batch with the same key has ended, so `[write f, edit f]` gives the bytes
    /// the two calls give one after the other. Calls with different keys, or none (the
    /// default), run as the batch allows.
    fn ordering_key(&self, arguments: &serde_json::Value) -> Option<String> {
        let _ = arguments;
        None
    }

    /// Runs the tool on checked parameters. An `Err` is reported to the model exactly like a
    /// thrown error in the course (`Tool <name> failed: <message>`).
    fn execute(
        &self,
        params: Self::Params,
        context: ToolContext,
    ) -> impl Future<Output = Result<ToolOutput, ToolError>> + Send;
}

/// A tool's repair step (see [`Tool::prepare_arguments`]). Any
/// `Fn(&Value) -> Option<Value>` is one.
pub trait PrepareArguments: Send + Sync {
    /// The arguments to validate instead of `arguments`, or `None` to keep them as they are.
    fn prepare(&self, arguments: &Value) -> Option<Value>;
}

impl<F: Fn(&Value) -> Option<Value> + Send + Sync> PrepareArguments for F {
    fn prepare(&self, arguments: &Value) -> Option<Value> {
        self(arguments)
    }
}

/// What a tool gets besides its parameters: who called it and how to cooperate.
///
/// ```
/// use pi_tool::ToolContext;
/// use tokio_util::sync::CancellationToken;
///
/// let caller = CancellationToken::new();
/// let cx = ToolContext::new("call-7").with_signal(caller.clone());
/// assert_eq!(cx.call_id(), "call-7");
/// caller.cancel();
/// assert!(cx.is_cancelled() && cx.signal().is_cancelled());
/// // Without a caller's signal, nothing can cancel the call, and no token is made until a tool
/// // asks for one.
/// assert!(!ToolContext::new("call-8").is_cancelled());
/// ```
#[derive(Clone, Debug)]
pub struct ToolContext {
    /// Shared with the call and its result, not copied.
    call_id: ArcStr,
    /// The caller's signal, or one made on first use: most tools never look, and a token is an
    /// allocation a call need not pay for.
    signal: OnceLock<CancellationToken>,
    report_progress: Option<ProgressCallback>,
}

impl ToolContext {
    /// The context of the call `call_id`: no caller's signal, nobody listening to progress.
    pub fn new(call_id: impl Into<ArcStr>) -> Self {
        Self {
            call_id: call_id.into(),
            signal: OnceLock::new(),
            report_progress: None,
        }
    }

    /// The same context, cancelled when `signal` is.
    #[must_use]
    pub fn with_signal(self, signal: CancellationToken) -> Self {
        Self {
            signal: OnceLock::from(signal),
            ..self
        }
    }

    /// The same context, sending progress to `callback`.
    #[must_use]
    pub fn with_progress(mut self, callback: ProgressCallback) -> Self {
        self.report_progress = Some(callback);
        self
    }

    /// The id of the call being executed; always the call's own id.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// Cancelled when the caller gives up on the call; a tool that works for a while should
    /// watch it (`signal().cancelled()`) and stop. Without a caller's signal the token is made
    /// on first use, so a clone of the context taken before then gets one of its own (neither
    /// can be cancelled by the caller, who passed none).
    pub fn signal(&self) -> &CancellationToken {
        self.signal.get_or_init(CancellationToken::new)
    }

    /// Whether the caller has given up on the call (without making a token when none exists).
    pub fn is_cancelled(&self) -> bool {
        self.signal
            .get()
            .is_some_and(CancellationToken::is_cancelled)
    }

    /// Where progress goes, if anybody listens: a tool may skip building reports nobody reads.
    pub fn report_progress(&self) -> Option<&ProgressCallback> {
        self.report_progress.as_ref()
    }

    /// Sends progress content to the caller; does nothing when nobody listens.
    pub fn progress(&self, content: Vec<Content>) {
        self.update(ToolUpdate::new(content));
    }

    /// Sends a partial result (content and details) to the caller; does nothing when nobody
    /// listens.
    pub fn update(&self, update: ToolUpdate) {
        if let Some(callback) = &self.report_progress {
            callback.call(update);
        }
    }
}

/// A partial result a tool reports while it runs: Pi's `onUpdate(partialResult)`, with the
/// content a person or model may read and details for programs (an MCP server's
/// `{progress, total, message}`, for instance).
///
/// ```
/// use pi_tool::{ToolUpdate, text};
/// use serde_json::json;
///
/// let update = ToolUpdate::new(vec![text("2/4: copying")]).with_details(json!({"progress": 2, "total": 4}));
/// assert_eq!(
///     serde_json::to_value(&update).unwrap(),
///     json!({"content": [{"type": "text", "text": "2/4: copying"}], "details": {"progress": 2, "total": 4}})
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUpdate {
    /// What was reported, as content.
    pub content: Vec<Content>,
    /// Structured data about the progress, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

impl ToolUpdate {
    /// An update with `content` and no details.
    pub fn new(content: Vec<Content>) -> Self {
        Self {
            content,
            details: None,
        }
    }

    /// The same update with `details`.
    #[must_use]
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// The text of every text block, concatenated.
    pub fn text(&self) -> String {
        self.content.iter().filter_map(Content::as_text).collect()
    }
}

/// A callback receiving a tool's partial results (the course's `reportProgress`).
///
/// Cheap to clone; clones are the same callback ([`ProgressCallback::ptr_eq`]).
#[derive(Clone)]
pub struct ProgressCallback(Arc<dyn Fn(ToolUpdate) + Send + Sync>);

impl ProgressCallback {
    /// Wraps a function.
    pub fn new(callback: impl Fn(ToolUpdate) + Send + Sync + 'static) -> Self {
        Self(Arc::new(callback))
    }

    /// Calls it.
    pub fn call(&self, update: ToolUpdate) {
        (self.0)(update);
    }

    /// Whether both are the very same callback.
    pub fn ptr_eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl fmt::Debug for ProgressCallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ProgressCallback")
    }
}

/// What a tool returns: content for the model, details for the program, and optionally an
/// explicit `is_error` for a domain failure that still has something useful to say.
///
/// ```
/// use pi_tool::{ToolOutput, text};
///
/// let output = ToolOutput::text("Pi").with_details(serde_json::json!({"source": "echo"}));
/// assert_eq!(output.content, vec![text("Pi")]);
/// assert_eq!(output.is_error, None);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// What the model reads.
    pub content: Vec<Content>,
    /// Structured data for the program, as JSON.
    pub details: Option<Value>,
    /// `Some(true)` marks a domain error; `None` means `false`.
    pub is_error: Option<bool>,
    /// Asks an agent loop to stop after this batch: it does when every result of the batch
    /// asks so. Not part of the result message.
    pub terminate: bool,
    /// Why the details given could not become JSON: the call then fails, saying so.
    unserializable: Option<String>,
}

impl ToolOutput {
    /// An output with the given content and nothing else.
    pub fn new(content: Vec<Content>) -> Self {
        Self {
            content,
            details: None,
            is_error: None,
            terminate: false,
            unserializable: None,
        }
    }

    /// An output holding one text block.
    pub fn text(value: impl Into<String>) -> Self {
        Self::new(vec![text(value)])
    }

    /// The same output with `details`: anything serde can write as JSON (a `serde_json::Value`
    /// moves as it is, without a copy). Details that cannot be written (a map with non-string
    /// keys, a failing `Serialize`) make the call fail with `details could not be serialized`.
    /// `()` means no details (the result has none), never a `null`.
    pub fn with_details<D: Serialize + 'static>(mut self, details: D) -> Self {
        match details_to_json(details) {
            Ok(json) => self.details = json,
            Err(error) => self.unserializable = Some(error.to_string()),
        }
        self
    }

    /// Why the call fails instead of answering with this output: its details could not be
    /// written. Read in place: the output is large, and moving it to check it costs a copy.
    pub(crate) fn failure(&self) -> Option<String> {
        self.unserializable
            .as_ref()
            .map(|reason| format!("details could not be serialized: {reason}"))
    }

    /// The same output, asking the agent loop to stop after this batch.
    pub fn with_terminate(mut self) -> Self {
        self.terminate = true;
        self
    }

    /// The same output with an explicit `is_error`.
    pub fn with_is_error(mut self, is_error: bool) -> Self {
        self.is_error = Some(is_error);
        self
    }
}

/// One text block.
impl From<String> for ToolOutput {
    fn from(value: String) -> Self {
        Self::text(value)
    }
}

/// One text block.
impl From<&str> for ToolOutput {
    fn from(value: &str) -> Self {
        Self::text(value)
    }
}

/// One block of content.
impl From<Content> for ToolOutput {
    fn from(content: Content) -> Self {
        Self::new(vec![content])
    }
}

/// These blocks of content.
impl From<Vec<Content>> for ToolOutput {
    fn from(content: Vec<Content>) -> Self {
        Self::new(content)
    }
}

/// Details as JSON, `None` for `()`. Details that already are JSON move as they are:
/// `serde_json::to_value` would copy every string and map of them.
fn details_to_json<D: Serialize + 'static>(details: D) -> Result<Option<Value>, serde_json::Error> {
    if std::any::TypeId::of::<D>() == std::any::TypeId::of::<()>() {
        return Ok(None);
    }
    let mut slot = Some(details);
    if let Some(json) = (&mut slot as &mut dyn std::any::Any).downcast_mut::<Option<Value>>() {
        return Ok(json.take());
    }
    slot.map(|details| serde_json::to_value(details))
        .transpose()
}
