//! The tool-calling contract of Pi, in Rust.
//!
//! A model proposes a [`ToolCall`] `{id, name, arguments}`. [`execute_tool_call`] finds the tool
//! in a [`ToolRegistry`], checks the arguments with the same [`Schema`](schema::Schema) whose JSON Schema the
//! model was shown (undeclared fields are dropped), runs the tool with its call id, a
//! cancellation token and a progress callback, and answers with exactly one
//! [`ToolResultMessage`] carrying the same id and name, on success and on every failure.
//!
//! Why a crate of its own: it is what a tool author depends on, and nothing more. It holds the
//! contract every other crate of the workspace builds on (the messages, the registry, the one
//! call path) and pulls no model, no loop, no HTTP stack and no async runtime (only
//! `tokio-util`'s cancellation token), so a program that only defines and runs tools, or
//! serves them over MCP, stays small.
//!
//! ```
//! use pi_tool::{CallContext, FnTool, ToolCall, ToolOutput, ToolParams, ToolRegistry,
//!               execute_tool_call};
//! use serde_json::json;
//!
//! #[derive(ToolParams)]
//! struct EchoParams {
//!     value: String,
//! }
//!
//! let echo = FnTool::typed("echo", "Echo one value", |params: EchoParams, _cx| async move {
//!     Ok(ToolOutput::text(params.value).with_details(json!({"source": "echo"})))
//! });
//! let tools = ToolRegistry::new([echo]).unwrap();
//!
//! let call = ToolCall::new("call-1", "echo", json!({"value": "Pi", "ignored": "drop me"}));
//! let result = futures::executor::block_on(execute_tool_call(&call, &tools, CallContext::default()));
//! assert_eq!(
//!     serde_json::to_value(&result).unwrap()["content"],
//!     json!([{"type": "text", "text": "Pi"}])
//! );
//!
//! let wrong = ToolCall::new("call-1", "echo", json!({"value": 1}));
//! let result = futures::executor::block_on(execute_tool_call(&wrong, &tools, CallContext::default()));
//! assert_eq!(result.text(), "Tool echo failed: 必须是 string");
//! assert!(result.is_error);
//! ```
//!
//! The pieces, in the order a call meets them: [`ToolRegistry`] (lookup), [`Schema`](schema::Schema) /
//! [`ObjectSchema`](schema::ObjectSchema) / [`Validator`](schema::Validator) (parse), [`Tool`] with [`ToolContext`] and [`ToolOutput`]
//! (execute), [`ToolResultMessage`] (result). Every text the model reads about a failure comes
//! from [`model_text`].

mod annotations;
pub mod builtin;
mod call;
mod call_context;
mod content;
pub mod environment;
mod error_text;
mod failure;
mod fn_tool;
mod message;
mod outcome;
mod output_limit;
pub mod path;
mod prepared;
mod refusal;
mod registered;
mod registry;
mod time_limit;
mod tool;
mod tool_error;

/// Schemas: the JSON Schema a model is shown and the parser that checks what it sent, from one
/// definition (the `pi-schema` crate, re-exported so that tool authors need only `pi_tool`).
pub use pi_schema as schema;
/// Provider dialects: one parameters schema rendered for each provider (from `pi-schema`).
pub use pi_schema::dialect;
/// Every text a model reads about a failed call (from `pi-schema`).
pub use pi_schema::model_text;

pub use annotations::ToolAnnotations;
/// The shared string of call ids and tool names in messages: cloning it copies a pointer.
pub use arcstr::ArcStr;
pub use call::{execute_tool_call, prepare_tool_call};
pub use call_context::CallContext;
pub use content::{Content, image, text};
pub use error_text::error_text;
pub use failure::{failed_result, failed_result_in, panic_message};
pub use fn_tool::FnTool;
pub use message::{ToolCall, ToolDefinition, ToolResultMessage, now_millis};
pub use outcome::{CallFailure, ExecutedCall, FailureKind};
pub use output_limit::MAX_TOOL_OUTPUT_BYTES;
/// Whose words a registry's failures are answered in: the course's (the default) or upstream
/// Pi's English ([`ToolRegistry::with_wording`]).
pub use pi_schema::model_text::Wording;
pub use prepared::PreparedCall;
pub use refusal::{RefusalKind, SandboxRefusal};
pub use registered::RegisteredTool;
pub use registry::{RegistryError, ToolRegistry, ToolRegistryBuilder, UnsupportedSchema};
pub use time_limit::CANCEL_GRACE;

/// Derives a tool's parameters from a Rust type: the JSON Schema the model is shown and the
/// parser that checks what it sent, from one definition.
///
/// On a struct with named fields it implements [`ObjectParams`](schema::ObjectParams) (and [`ParamType`](schema::ParamType), so the
/// struct can nest in another): each field is a property, required unless it is an `Option`
/// or has a default; its doc comment is its `description`; undeclared properties are dropped;
/// every violation is reported with the course's texts. On an enum of unit variants it makes a
/// string enum ([`StringEnum`](schema::StringEnum)).
///
/// Field types: `String`, `bool`, every integer type (a type narrower than JSON's shows its
/// range: `i32` gets `minimum`/`maximum`, `usize` `minimum: 0`), `f32`, `f64`, `Option<T>`,
/// `Vec<T>`, `HashMap<String, T>` and `BTreeMap<String, T>` (an object with
/// `additionalProperties`), `serde_json::Value` (any JSON), and types that derive
/// `ToolParams`. A struct may take type parameters (`struct Page<T> { items: Vec<T> }`):
/// each must itself be a parameter type, and each concrete type gets its own schema, built once. Constraints, in `#[param(...)]`:
///
/// | attribute | applies to | JSON Schema |
/// |---|---|---|
/// | `min = N`, `max = N` | numbers | `minimum`, `maximum` |
/// | `exclusive_min = N`, `exclusive_max = N` | numbers | `exclusiveMinimum`, `exclusiveMaximum` |
/// | `min_length = N`, `max_length = N` | `String` | `minLength`, `maxLength` (characters) |
/// | `pattern = "regex"` | `String` | `pattern` (checked when compiling) |
/// | `one_of = ["a", "b"]` | `String` | `enum` |
/// | `min_items = N`, `max_items = N` | `Vec` | `minItems`, `maxItems` |
/// | `items(...)` | `Vec` | the rules above, on each item |
/// | `default = EXPR` | any non-`Option` | `default`; the field becomes optional |
///
/// On an `Option<T>` field the constraints apply to the `T`. JSON names follow serde:
/// `#[serde(rename = "oldText")]` on a field or variant, `#[serde(rename_all = "camelCase")]`
/// on the type. The derive does not implement `serde::Deserialize`: derive serde's own beside it
/// if you want one.
///
/// ```
/// use pi_tool::{FnTool, ToolParams};
///
/// /// Read a file.
/// #[derive(Debug, ToolParams)]
/// struct ReadParams {
///     /// Path to the file
///     path: String,
///     /// Line to start from (1-indexed)
///     #[param(min = 1)]
///     offset: Option<u64>,
/// }
///
/// let read = FnTool::typed("read", "Read a file", |p: ReadParams, _cx| async move {
///     Ok(pi_tool::ToolOutput::text(format!("{} from {:?}", p.path, p.offset)))
/// });
/// # use pi_tool::schema::{ObjectParams, Schema};
/// assert_eq!(ReadParams::object_schema().json_schema().unwrap()["required"], serde_json::json!(["path"]));
/// ```
pub use pi_tool_derive::ToolParams;

// The derive's expansion names `::pi_tool`, which this crate's own derived types need too.
extern crate self as pi_tool;
pub use tool::{PrepareArguments, ProgressCallback, Tool, ToolContext, ToolOutput, ToolUpdate};
pub use tool_error::ToolError;

/// What `#[derive(ToolParams)]` expands to uses; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use pi_schema::derive_support::*;
}
