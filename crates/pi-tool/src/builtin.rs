//! The built-in tools of the seed: `echo` and its migration exercise `uppercase`.

use serde::Serialize;

use crate::{
    FnTool, ObjectParams, RegisteredTool, ToolOutput, ToolRegistry, object_schema, string_value,
};

object_schema! {
    /// The parameters of `echo` and `uppercase`: one string, `value`.
    ///
    /// The field has no doc comment on purpose: it would become a `description`, and the seed
    /// shows exactly `{"type":"string"}`.
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[allow(missing_docs)]
    pub struct ValueParams {
        pub value: String = string_value(),
    }
}

/// The details both built-ins return: which tool produced the content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceDetails {
    /// The producing tool's name.
    pub source: &'static str,
}

/// `echo`: returns its `value` as text, details `{"source":"echo"}`.
pub fn echo() -> RegisteredTool {
    RegisteredTool::new(FnTool::new(
        "echo",
        "Echo one value",
        ValueParams::object_schema(),
        |params: ValueParams, _context| async move {
            Ok(ToolOutput::text(params.value).with_details(SourceDetails { source: "echo" }))
        },
    ))
}

/// `uppercase`: returns its `value` in upper case, details `{"source":"uppercase"}`.
pub fn uppercase() -> RegisteredTool {
    RegisteredTool::new(FnTool::new(
        "uppercase",
        "Return one value in upper case",
        ValueParams::object_schema(),
        |params: ValueParams, _context| async move {
            Ok(
                ToolOutput::text(params.value.to_uppercase()).with_details(SourceDetails {
                    source: "uppercase",
                }),
            )
        },
    ))
}

/// A registry of the built-in tools, in order: `echo`, `uppercase`.
pub fn registry() -> ToolRegistry {
    let mut registry = ToolRegistry::default();
    for tool in [echo(), uppercase()] {
        // The names are distinct constants, so registration cannot fail; ignoring keeps the
        // signature infallible without a panic path.
        let _ = registry.register(tool);
    }
    registry
}
