//! Tools for exercising a host rather than for models: what `pi-tool serve --test-tools` serves
//! beside the built-ins, so that an MCP client, an agent loop or a load test can see progress,
//! cancellation, panics, images and calls that never end.
//!
//! Why a crate of its own: the contract (`pi-tool`) should hold no fixtures, and these tools
//! need tokio's timers, which the contract does not.

use pi_tool::{
    FnTool, RegisteredTool, ToolContext, ToolError, ToolOutput, ToolParams, ToolRegistry,
    ToolUpdate, builtin, image, text,
};

/// The parameters of `slow`: how long to work, in steps of 10 ms.
#[derive(Debug, Clone, PartialEq, Eq, ToolParams)]
pub struct SlowParams {
    /// Steps of 10 ms to work for
    #[param(max = 100_000)]
    pub steps: u64,
}

/// A 1×1 transparent PNG, base64: the image `pixel` returns.
pub const PIXEL_PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/// The built-ins (`echo`, `uppercase`), then `slow` (works `steps` × 10 ms, reporting progress
/// at every step and stopping as soon as it is cancelled), `explode` (panics with its `value`),
/// `pixel` (returns its `value` and an image) and `hang` (never ends and ignores cancellation,
/// for time limits).
pub fn registry() -> ToolRegistry {
    let slow = FnTool::typed(
        "slow",
        "Work for steps x 10 ms, reporting progress each step; stops when cancelled",
        |params: SlowParams, context: ToolContext| async move {
            for step in 1..=params.steps {
                tokio::select! {
                    () = tokio::time::sleep(std::time::Duration::from_millis(10)) => {}
                    () = context.signal().cancelled() => {
                        return Err(ToolError::new(format!("cancelled after {} steps", step - 1)));
                    }
                }
                context.update(
                    ToolUpdate::new(vec![text(format!("step {step}/{}", params.steps))])
                        .with_details(serde_json::json!({"progress": step, "total": params.steps})),
                );
            }
            Ok(format!("done after {} steps", params.steps))
        },
    );
    let explode = FnTool::typed(
        "explode",
        "Panic inside the tool",
        |params: builtin::ValueParams, _context| async move {
            if !params.value.is_empty() {
                panic!("{}", params.value);
            }
            Ok("nothing to explode")
        },
    );
    let pixel = FnTool::typed(
        "pixel",
        "Return a 1x1 PNG image",
        |params: builtin::ValueParams, _context| async move {
            Ok(vec![
                text(params.value),
                image(PIXEL_PNG_BASE64, "image/png"),
            ])
        },
    );
    let hang = FnTool::typed(
        "hang",
        "Never finish, and ignore cancellation (for testing time limits)",
        |_params: builtin::ValueParams, _context| async move {
            std::future::pending::<()>().await;
            Ok(ToolOutput::text("unreachable"))
        },
    );
    let mut tools = builtin::registry();
    for tool in [
        RegisteredTool::new(slow),
        RegisteredTool::new(explode),
        RegisteredTool::new(pixel),
        RegisteredTool::new(hang),
    ] {
        #[expect(
            clippy::expect_used,
            reason = "the names are distinct constants: a duplicate is a bug in this file"
        )]
        tools
            .register(tool)
            .expect("the test tools' names differ from the built-ins'");
    }
    tools
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_tool::schema::{ObjectParams, Schema};

    #[test]
    fn the_steps_are_bounded() {
        let schema = SlowParams::object_schema();
        assert!(schema.parse(&serde_json::json!({"steps": 100_000})).is_ok());
        assert!(
            schema
                .parse(&serde_json::json!({"steps": 100_001}))
                .is_err()
        );
        let names: Vec<_> = registry()
            .list()
            .map(|tool| tool.name().to_owned())
            .collect();
        assert_eq!(
            names,
            ["echo", "uppercase", "slow", "explode", "pixel", "hang"]
        );
    }
}
