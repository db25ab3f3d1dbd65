//! The workloads' tools built at run time from their JSON Schemas.

use pi_tool::schema::DynamicSchema;
use pi_tool::{FnTool, RegisteredTool, ToolError, ToolOutput, ToolRegistry};
use serde_json::Value;

use crate::workload::Workload;

/// A registry of dynamic tools: each returns, as text, the argument the workload names.
pub fn registry(workload: &Workload) -> anyhow::Result<ToolRegistry> {
    let mut registry = ToolRegistry::default();
    for tool in &workload.tools {
        let returns = workload
            .execute_returns
            .get(&tool.name)
            .cloned()
            .unwrap_or_default();
        let schema = DynamicSchema::new(tool.parameters.clone())?;
        registry.register(RegisteredTool::new(FnTool::new(
            tool.name.clone(),
            tool.description.clone(),
            schema,
            move |arguments: Value, _cx| {
                // The tool owns its arguments: it takes the string out, as a typed tool
                // moves its field.
                let text = match arguments {
                    Value::Object(mut object) => match object.swap_remove(&returns) {
                        Some(Value::String(text)) => Some(text),
                        _ => None,
                    },
                    _ => None,
                };
                async move {
                    match text {
                        Some(text) => Ok(ToolOutput::text(text)),
                        None => Err(ToolError::new("nothing to return")),
                    }
                }
            },
        )))?;
    }
    Ok(registry)
}

/// A registry of dynamic tools that return the arguments they received, as JSON text: used to
/// check the filtered arguments against each call's `expect.args`.
pub fn mirror_registry(workload: &Workload) -> anyhow::Result<ToolRegistry> {
    let mut registry = ToolRegistry::default();
    for tool in &workload.tools {
        registry.register(RegisteredTool::new(FnTool::new(
            tool.name.clone(),
            tool.description.clone(),
            DynamicSchema::new(tool.parameters.clone())?,
            |arguments: Value, _cx| async move { Ok(ToolOutput::text(arguments.to_string())) },
        )))?;
    }
    Ok(registry)
}
