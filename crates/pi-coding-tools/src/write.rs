//! `write`: create or overwrite a file, parent directories included.

use pi_tool::{RegisteredTool, ToolError, ToolOutput};

use crate::Workspace;
use crate::params::WriteParams;
use crate::tool::{Outcome, changing_tool};

/// The `write` tool for `workspace`. Writes to one file wait for each other, and each replaces
/// the file atomically (never a torn file).
pub fn write_tool(workspace: &Workspace) -> RegisteredTool {
    changing_tool(
        workspace,
        "write",
        |params: &WriteParams| &params.path,
        write,
        None,
    )
}

fn write(path: &std::path::Path, params: &WriteParams) -> Outcome {
    let failed = |error: std::io::Error| {
        ToolError::with_source(format!("Could not write {}: {error}", params.path), error)
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(failed)?;
    }
    crate::atomic::write_file(path, params.content.as_bytes()).map_err(failed)?;
    // Bytes, really: upstream counts UTF-16 units here.
    Ok(ToolOutput::text(format!(
        "Successfully wrote {} bytes to {}",
        params.content.len(),
        params.path
    )))
}
