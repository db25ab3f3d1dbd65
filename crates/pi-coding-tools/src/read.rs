//! `read`: a file's text (a window of lines, within the output limits) or an image.

use base64::Engine;
use pi_tool::{RegisteredTool, ToolContext, ToolError, ToolOutput, image, text};
use serde_json::{Value, json};

use crate::Workspace;
use crate::params::ReadParams;
use crate::tool::{Outcome, reading_tool};
use crate::truncate::{DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_head};

/// Images larger than this are described, not attached (Pi resizes them; we do not decode).
const MAX_IMAGE_BYTES: usize = 4_500_000;

/// The `read` tool for `workspace`.
pub fn read_tool(workspace: &Workspace) -> RegisteredTool {
    reading_tool(workspace, "read", read)
}

fn read(workspace: &Workspace, params: &ReadParams, _context: &ToolContext) -> Outcome {
    let path = workspace.resolve(&params.path);
    let bytes = std::fs::read(&path)
        .map_err(|error| ToolError::new(format!("Could not read {}: {error}", params.path)))?;
    if let Some(mime) = image_type(&bytes) {
        return Ok(read_image(&bytes, mime));
    }
    let content = String::from_utf8_lossy(&bytes);
    read_text(&content, params)
}

/// The image type of `bytes`, by their magic numbers (not the file name).
fn image_type(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0xFF, 0xD8, 0xFF, ..] => Some("image/jpeg"),
        [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, ..] => Some("image/png"),
        [b'G', b'I', b'F', b'8', b'7' | b'9', b'a', ..] => Some("image/gif"),
        [
            b'R',
            b'I',
            b'F',
            b'F',
            _,
            _,
            _,
            _,
            b'W',
            b'E',
            b'B',
            b'P',
            ..,
        ] => Some("image/webp"),
        _ => None,
    }
}

fn read_image(bytes: &[u8], mime: &str) -> ToolOutput<Value> {
    if bytes.len() > MAX_IMAGE_BYTES {
        return ToolOutput::text(format!(
            "Read image file [{mime}]\n[Image is {}, over the {} limit: not attached]",
            format_size(bytes.len()),
            format_size(MAX_IMAGE_BYTES)
        ));
    }
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    ToolOutput::new(vec![
        text(format!("Read image file [{mime}]")),
        image(data, mime),
    ])
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
