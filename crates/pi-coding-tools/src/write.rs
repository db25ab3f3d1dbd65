//! `write`: create or overwrite a file, parent directories included.

use pi_tool::{FnTool, ObjectParams, RegisteredTool, ToolError, ToolOutput};
use serde_json::Value;

use crate::blocking::blocking;
use crate::params::WriteParams;
use crate::{Workspace, description_of};

/// The `write` tool for `workspace`. Writes to one file wait for each other.
pub fn write_tool(workspace: &Workspace) -> RegisteredTool {
    let workspace = workspace.clone();
    RegisteredTool::new(FnTool::new(
        "write",
        description_of("write"),
        WriteParams::object_schema(),
        move |params: WriteParams, _context| {
            let workspace = workspace.clone();
            async move {
                let path = workspace.resolve(&params.path);
                let _queue = workspace.lock_for_writing(&path).await;
                blocking(move || write(&path, &params)).await?
            }
        },
    ))
}

fn write(path: &std::path::Path, params: &WriteParams) -> Result<ToolOutput<Value>, ToolError> {
    let failed =
        |error: std::io::Error| ToolError::new(format!("Could not write {}: {error}", params.path));
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(failed)?;
    }
    std::fs::write(path, &params.content).map_err(failed)?;
    // Bytes, really: upstream counts UTF-16 units here.
    Ok(ToolOutput::text(format!(
        "Successfully wrote {} bytes to {}",
        params.content.len(),
        params.path
    )))
}
