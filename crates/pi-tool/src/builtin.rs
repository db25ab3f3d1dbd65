//! The built-in tools of the seed: `echo` and its migration exercise `uppercase`.

use serde::Serialize;

use crate::{FnTool, ObjectParams, RegisteredTool, ToolOutput, ToolRegistry};

/// The parameters of `echo` and `uppercase`: one string, `value`.
///
/// The field has no doc comment on purpose: it would become a `description`, and the spec
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
        register_constant(&mut registry, tool);
    }
    registry
}

/// The parameters of `slow`: how long to work, in steps of 10 ms.
#[derive(Debug, Clone, PartialEq, Eq, crate::ToolParams)]
#[allow(missing_docs)]
pub struct SlowParams {
    #[param(max = 100_000)]
    pub steps: u64,
}

/// A 1×1 transparent PNG, base64: the image `pixel` returns.
pub const PIXEL_PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/// Tools for exercising a host (an MCP client, an agent loop) rather than for models:
/// `slow` works `steps` × 10 ms, reporting progress at every step and stopping as soon as it is
/// cancelled; `explode` panics; `pixel` returns an image next to its text. Served by
/// `pi-tool serve --test-tools`.
pub fn test_registry() -> ToolRegistry {
    let slow = FnTool::new(
        "slow",
        "Work for steps x 10 ms, reporting progress each step; stops when cancelled",
        SlowParams::object_schema(),
        |params: SlowParams, context: crate::ToolContext| async move {
            for step in 1..=params.steps {
                tokio::select! {
                    () = tokio::time::sleep(std::time::Duration::from_millis(10)) => {}
                    () = context.signal.cancelled() => {
                        return Err(crate::ToolError::new(format!("cancelled after {} steps", step - 1)));
                    }
                }
                context.update(
                    crate::ToolUpdate::new(vec![crate::text(format!(
                        "step {step}/{}",
                        params.steps
                    ))])
                    .with_details(serde_json::json!({"progress": step, "total": params.steps})),
                );
            }
            Ok(ToolOutput::text(format!(
                "done after {} steps",
                params.steps
            )))
        },
    );
    let explode = FnTool::new(
        "explode",
        "Panic inside the tool",
        ValueParams::object_schema(),
        |params: ValueParams, _context| async move {
            if !params.value.is_empty() {
                panic!("{}", params.value);
            }
            Ok(ToolOutput::text("nothing to explode"))
        },
    );
    let pixel = FnTool::new(
        "pixel",
        "Return a 1x1 PNG image",
        ValueParams::object_schema(),
        |params: ValueParams, _context| async move {
            Ok(ToolOutput::new(vec![
                crate::text(params.value),
                crate::image(PIXEL_PNG_BASE64, "image/png"),
            ]))
        },
    );
    let hang = FnTool::new(
        "hang",
        "Never finish, and ignore cancellation (for testing time limits)",
        ValueParams::object_schema(),
        |_params: ValueParams, _context| async move {
            std::future::pending::<()>().await;
            Ok(ToolOutput::text("unreachable"))
        },
    );
    let mut registry = registry();
    for tool in [
        RegisteredTool::new(slow),
        RegisteredTool::new(explode),
        RegisteredTool::new(pixel),
        RegisteredTool::new(hang),
    ] {
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

#[cfg(test)]
mod fast_path_tests {
    use super::*;
    use crate::Schema;

    #[test]
    fn echo_parses_raw_text_in_one_pass() {
        let schema = ValueParams::object_schema();
        assert_eq!(
            schema.parse_text(r#"{"value":"Pi","ignored":"drop me"}"#),
            Some(ValueParams { value: "Pi".into() })
        );
    }
}
