//! `write`: create or overwrite a file, parent directories included.

use pi_tool::{RegisteredTool, ToolError, ToolOutput};

use crate::Workspace;
use crate::params::WriteParams;
use crate::sandbox::files::Access;
use crate::tool::{LaterOutcome, Outcome, changing_tool, on_workspace_thread};

/// The `write` tool for `workspace`. Writes to one file wait for each other, and each replaces
/// the file atomically (never a torn file).
pub fn write_tool(workspace: &Workspace) -> RegisteredTool {
    changing_tool(
        workspace,
        "write",
        |params: &WriteParams| &params.path,
        write,
        write_through,
        None,
    )
}

/// `write` through the workspace's [`crate::FileAccess`] (an editor, which then records the
/// change): missing parent directories are made on disk first, confined as a local write.
fn write_through(
    workspace: Workspace,
    path: std::path::PathBuf,
    params: WriteParams,
) -> LaterOutcome {
    Box::pin(async move {
        let Some(access) = workspace.file_access() else {
            return Err(ToolError::new("no file access to write through"));
        };
        // What the write replaces, read through the access as `edit` reads it, so its holder
        // (an editor) can show the change against its own buffer. A file it does not have
        // (a new one) is no failure.
        let _replaced = access.read_text(&path).await;
        if let Some(parent) = path.parent().map(std::path::Path::to_path_buf) {
            on_workspace_thread(&workspace, Access::Write, move || {
                std::fs::create_dir_all(parent)
            })
            .await?
            .map_err(|error| {
                ToolError::with_source(format!("Could not write {}: {error}", params.path), error)
            })?;
        }
        access
            .write_text(&path, &params.content)
            .await
            .map_err(|error| {
                ToolError::new(format!(
                    "Could not write {}: {}",
                    params.path,
                    error.message()
                ))
            })?;
        Ok(wrote(&params, &path))
    })
}

/// What a successful write tells the model.
fn wrote(params: &WriteParams, path: &std::path::Path) -> ToolOutput {
    // Bytes, really: upstream counts UTF-16 units here.
    ToolOutput::text(format!(
        "Successfully wrote {} bytes to {}",
        params.content.len(),
        written_name(&params.path, path).display()
    ))
}

fn write(path: &std::path::Path, params: &WriteParams) -> Outcome {
    let failed = |error: std::io::Error| {
        ToolError::with_source(format!("Could not write {}: {error}", params.path), error)
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(failed)?;
    }
    crate::atomic::write_file(path, params.content.as_bytes()).map_err(failed)?;
    Ok(wrote(params, path))
}

/// The path as typed, with the name of the file actually written when it is spelled
/// otherwise (a no-break space typed, a plain one written; a plain space typed, the file's
/// narrow no-break space found): the model reads which file it now has. A name that differs
/// in more than spelling (the file a link leads to) is left as typed.
fn written_name(typed: &str, written: &std::path::Path) -> std::path::PathBuf {
    let typed = std::path::Path::new(typed);
    let (Some(typed_name), Some(written_name)) = (typed.file_name(), written.file_name()) else {
        return typed.to_path_buf();
    };
    let respelled = typed_name != written_name
        && match (typed_name.to_str(), written_name.to_str()) {
            (Some(typed_name), Some(written_name)) => {
                pi_tool::path::folded(typed_name) == pi_tool::path::folded(written_name)
            }
            _ => false,
        };
    if respelled {
        typed.with_file_name(written_name)
    } else {
        typed.to_path_buf()
    }
}
