//! `read`: a file's text (a window of lines, within the output limits) or an image.

use pi_tool::{RegisteredTool, ToolContext, ToolError, ToolOutput};
use serde_json::json;

use crate::Workspace;
use crate::image_file::{read_image, sniff};
use crate::params::ReadParams;
use crate::tool::{Outcome, reading_tool};
use crate::truncate::{DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_head};

/// The `read` tool for `workspace`.
pub fn read_tool(workspace: &Workspace) -> RegisteredTool {
    reading_tool(workspace, "read", read)
}

fn read(workspace: &Workspace, params: &ReadParams, _context: &ToolContext) -> Outcome {
    let path = workspace.confined_path(&params.path)?;
    // A FIFO, a device or a socket would block or never end: only regular files are read.
    let metadata = std::fs::metadata(&path)
        .map_err(|error| ToolError::new(format!("Could not read {}: {error}", params.path)))?;
    if !metadata.is_file() {
        return Err(ToolError::new(format!(
            "Could not read {}: not a regular file",
            params.path
        )));
    }
    let bytes = std::fs::read(&path)
        .map_err(|error| ToolError::new(format!("Could not read {}: {error}", params.path)))?;
    if let Some(format) = sniff(&bytes) {
        return Ok(read_image(&bytes, format));
    }
    let content = String::from_utf8_lossy(&bytes);
    read_text(&content, params)
}

fn read_text(content: &str, params: &ReadParams) -> Outcome {
    let lines: Vec<&str> = content.split('\n').collect();
    let start = params.offset.map_or(0, |offset| {
        usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .saturating_sub(1)
    });
    if start >= lines.len() {
        return Err(ToolError::new(format!(
            "Offset {} is beyond end of file ({} lines total)",
            params.offset.unwrap_or_default(),
            lines.len()
        )));
    }
    let limit = params
        .limit
        .map(|limit| usize::try_from(limit).unwrap_or(usize::MAX));
    let end = limit.map_or(lines.len(), |limit| {
        start.saturating_add(limit).min(lines.len())
    });
    let selected = lines.get(start..end).unwrap_or_default().join("\n");
    let cut = truncate_head(&selected, DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES);
    let first = start + 1;
    if cut.first_line_exceeds_limit {
        let size = format_size(lines.get(start).map_or(0, |line| line.len()));
        let path = &params.path;
        let message = format!(
            "[Line {first} is {size}, exceeds {} limit. Use bash: sed -n '{first}p' {path} | head -c {DEFAULT_MAX_BYTES}]",
            format_size(DEFAULT_MAX_BYTES)
        );
        return Ok(ToolOutput::text(message).with_details(json!({ "truncation": cut })));
    }
    if cut.truncated {
        let last = first + cut.output_lines - 1;
        let limit_note = if cut.truncated_by == Some("lines") {
            String::new()
        } else {
            format!(" ({} limit)", format_size(DEFAULT_MAX_BYTES))
        };
        let message = format!(
            "{}\n\n[Showing lines {first}-{last} of {}{limit_note}. Use offset={} to continue.]",
            cut.content,
            lines.len(),
            last + 1
        );
        return Ok(ToolOutput::text(message).with_details(json!({ "truncation": cut })));
    }
    if end < lines.len() {
        let message = format!(
            "{}\n\n[{} more lines in file. Use offset={} to continue.]",
            cut.content,
            lines.len() - end,
            end + 1
        );
        return Ok(ToolOutput::text(message));
    }
    Ok(ToolOutput::text(cut.content))
}
