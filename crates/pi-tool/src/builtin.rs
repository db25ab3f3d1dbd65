//! The built-in tools of the course: `echo`, and `uppercase` (the course's exercise of adding a tool).

use serde::Serialize;

use crate::schema::ObjectParams;
use crate::{FnTool, RegisteredTool, ToolAnnotations, ToolOutput, ToolRegistry};

/// The parameters of `echo` and `uppercase`: one string, `value`.
///
/// The field has no doc comment on purpose: it would become a `description`, and the course
/// shows exactly `{"type":"string"}`.
#[derive(Debug, Clone, PartialEq, Eq, crate::ToolParams)]
#[allow(missing_docs)]
pub struct ValueParams {
    pub value: String,
}

/// The details both built-ins return: which tool produced the content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceDetails {
    /// The producing tool's name.
    pub source: &'static str,
}

/// `echo`: returns its `value` as text, details `{"source":"echo"}`.
pub fn echo() -> RegisteredTool {
    RegisteredTool::new(
        FnTool::new(
            "echo",
            "Echo one value",
            ValueParams::object_schema(),
            |params: ValueParams, _context| async move {
                Ok(ToolOutput::text(params.value).with_details(SourceDetails { source: "echo" }))
            },
        )
        .with_annotations(ToolAnnotations::read_only()),
    )
}

/// `uppercase`: returns its `value` in upper case, details `{"source":"uppercase"}`.
pub fn uppercase() -> RegisteredTool {
    RegisteredTool::new(
        FnTool::new(
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
        )
        .with_annotations(ToolAnnotations::read_only()),
    )
}

/// A registry of the built-in tools, in order: `echo`, `uppercase`.
pub fn registry() -> ToolRegistry {
    let mut registry = ToolRegistry::default();
    for tool in [echo(), uppercase()] {
        register_constant(&mut registry, tool);
    }
    registry
}

/// Registers a tool whose name is a constant distinct from the others' (no input reaches it).
#[expect(
    clippy::expect_used,
    reason = "the built-ins' names are distinct constants: a duplicate is a bug in this file"
)]
fn register_constant(registry: &mut ToolRegistry, tool: RegisteredTool) {
    registry
        .register(tool)
        .expect("the built-in tools have distinct names");
}
