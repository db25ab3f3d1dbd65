//! `ls`: a directory's entries, sorted, directories marked with `/`.

use pi_tool::{RegisteredTool, ToolContext, ToolError, ToolOutput};
use serde_json::json;

use crate::Workspace;
use crate::params::LsParams;
use crate::report::Report;
use crate::tool::{Outcome, reading_tool};

const DEFAULT_LIMIT: usize = 500;

/// The `ls` tool for `workspace`.
pub fn ls_tool(workspace: &Workspace) -> RegisteredTool {
    reading_tool(workspace, "ls", false, ls, None, None)
}

fn ls(workspace: &Workspace, params: &LsParams, _context: &ToolContext) -> Outcome {
    let shown = params.path.as_deref().unwrap_or(".");
    let path = workspace.confined_path(shown)?;
    let metadata = crate::path_errors::metadata(&path)?;
    if !metadata.is_dir() {
        return Err(ToolError::new(format!(
            "Not a directory: {}",
            path.display()
        )));
    }
    let entries = std::fs::read_dir(&path).map_err(|error| {
        ToolError::with_source(format!("Could not list {}: {error}", path.display()), error)
    })?;
    // Files a rule denies reading are left out, as `read` would refuse them.
    let unreadable = workspace
        .unreadable()
        .map(|unreadable| (unreadable, pi_tool::path::canonical(&path)));
    // Entries that cannot be read or stat-ed are skipped, as Pi does.
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let is_dir = std::fs::metadata(entry.path()).ok()?.is_dir();
            if let Some((unreadable, directory)) = &unreadable
                && !is_dir
                && unreadable.denies(&directory.join(entry.file_name()))
            {
                return None;
            }
            Some(if is_dir { format!("{name}/") } else { name })
        })
        .collect();
    names.sort_by_cached_key(|name| name.to_lowercase());
    if names.is_empty() {
        return Ok(ToolOutput::text("(empty directory)"));
    }
    let limit = params.limit.map_or(DEFAULT_LIMIT, |limit| {
        usize::try_from(limit).unwrap_or(usize::MAX)
    });
    let limit_reached = names.len() > limit;
    names.truncate(limit);
    let mut report = Report::default();
    if limit_reached {
        report.note(
            format!(
                "{limit} entries limit reached. Use limit={} for more",
                limit.saturating_mul(2)
            ),
            "entryLimitReached",
            json!(limit),
        );
    }
    let listed = report.cut(&names);
    Ok(report.finish(listed))
}
