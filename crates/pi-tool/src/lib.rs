//! The tool-calling contract of Pi, in Rust.
//!
//! A model proposes a [`ToolCall`] `{id, name, arguments}`. [`execute_tool_call`] finds the tool
//! in a [`ToolRegistry`], checks the arguments with the same [`Schema`] whose JSON Schema the
//! model was shown (undeclared fields are dropped), runs the tool with its call id, a
//! cancellation token and a progress callback, and answers with exactly one
//! [`ToolResultMessage`] carrying the same id and name, on success and on every failure.
//!
//! ```
//! use pi_tool::{CallContext, FnTool, ObjectParams, ToolCall, ToolOutput, ToolRegistry,
//!               execute_tool_call, object_schema, string_value};
//! use serde_json::json;
//!
//! object_schema! {
//!     pub struct EchoParams { pub value: String = string_value() }
//! }
//!
//! let echo = FnTool::new("echo", "Echo one value", EchoParams::object_schema(),
//!     |params: EchoParams, _cx| async move {
//!         Ok(ToolOutput::text(params.value).with_details(json!({"source": "echo"})))
//!     });
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
//! The pieces, in the order a call meets them: [`ToolRegistry`] (lookup), [`Schema`] /
//! [`ObjectSchema`] / [`Validator`] (parse), [`Tool`] with [`ToolContext`] and [`ToolOutput`]
//! (execute), [`ToolResultMessage`] (result). Every text the model reads about a failure comes
//! from [`model_text`].

pub mod builtin;
mod content;
pub mod dialect;
mod executor;
mod fn_tool;
mod message;
pub mod model_text;
mod output_limit;
mod prepared;
mod registered;
mod registry;
pub mod schema;
mod tool;

pub use content::{Content, image, text};
pub use executor::{CallContext, execute_raw_tool_call, execute_tool_call, failed_result};
pub use fn_tool::FnTool;
pub use message::{ToolCall, ToolDefinition, ToolResultMessage, now_millis};
pub use output_limit::MAX_TOOL_OUTPUT_BYTES;
pub use prepared::{ExecutedCall, PreparedCall, panic_message, prepare_tool_call};
pub use registered::RegisteredTool;
pub use registry::{RegistryError, ToolRegistry, UnsupportedSchema};
pub use schema::{
    DynamicSchema, FieldSpec, Issue, NumberBound, ObjectFields, ObjectParams, ObjectSchema,
    PathSegment, Received, Schema, SchemaError, StringEnum, TypedSchema, ValidationError,
    Validator, array, boolean, enum_value, integer, non_negative_integer, nullable, number, object,
    optional, optional_positive_integer, optional_string, positive_integer, string, string_enum,
    string_value, with_default,
};
pub use tool::{ProgressCallback, Tool, ToolContext, ToolError, ToolOutput, ToolUpdate};

/// What `object_schema!` expands to uses; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use serde;

    /// One-pass parsing of raw text with a generated `Deserialize`; `None` on any failure.
    pub fn parse_text<T: serde::de::DeserializeOwned>(text: &str) -> Option<T> {
        serde_json::from_str(text).ok()
    }
}
