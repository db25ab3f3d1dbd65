//! `read`: a file's text (a window of lines, within the output limits) or an image.

use std::io::{BufRead, Read};

use pi_tool::{RegisteredTool, ToolContext, ToolError, ToolOutput};
use serde_json::{Value, json};

use crate::Workspace;
use crate::image_file::{read_image, sniff};
use crate::params::ReadParams;
use crate::sandbox::files::Access;
use crate::tool::{
    LaterOutcome, OnDisk, Outcome, numbers_as_text, on_disk, on_workspace_thread, reading_tool,
};
use crate::truncate::{DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_head};

/// The `read` tool for `workspace`.
pub fn read_tool(workspace: &Workspace) -> RegisteredTool {
    reading_tool(
        workspace,
        "read",
        true,
        read,
        Some(read_through),
        Some(prepare),
    )
}

/// `read` through the workspace's [`crate::FileAccess`] (an editor's buffer): the same window
/// of lines and notices over the text it serves. An image or binary file on disk is read from
/// disk as usual; a file missing on disk is still asked for (an unsaved buffer).
fn read_through(workspace: Workspace, params: ReadParams, context: ToolContext) -> LaterOutcome {
    Box::pin(async move {
        let path = workspace.confined_path(&params.path)?;
        let checked = path.clone();
        let kind = on_workspace_thread(&workspace, Access::Read, move || on_disk(&checked))
            .await?
            .map_err(|error| {
                ToolError::with_source(format!("Could not read {}: {error}", params.path), error)
            })?;
        match kind {
            OnDisk::NotRegular => Err(ToolError::new(format!(
                "Could not read {}: not a regular file",
                params.path
            ))),
            OnDisk::Binary => {
                on_workspace_thread(&workspace.clone(), Access::Read, move || {
                    read(&workspace, &params, &context)
                })
                .await?
            }
            OnDisk::Missing | OnDisk::Text => {
                let Some(access) = workspace.file_access() else {
                    return Err(ToolError::new("no file access to read through"));
                };
                let text = access.read_text(&path).await.map_err(|error| {
                    ToolError::new(format!(
                        "Could not read {}: {}",
                        params.path,
                        error.message()
                    ))
                })?;
                let window = Window::read(&mut text.as_bytes(), &params).map_err(|error| {
                    ToolError::with_source(
                        format!("Could not read {}: {error}", params.path),
                        error,
                    )
                })?;
                read_text(&window, &params)
            }
        }
    })
}

/// `offset: 0` (or `"0"`), which models send for "the start", is the first line; the schema
/// still shows the 1-based line numbers `read` counts in. A number sent as the path is taken as
/// its text.
fn prepare(arguments: &Value) -> Option<Value> {
    let repaired = numbers_as_text(arguments, &["path"]);
    let current = repaired.as_ref().unwrap_or(arguments);
    let zero = match current.get("offset") {
        Some(Value::Number(number)) => number.as_f64() == Some(0.0),
        Some(Value::String(text)) => text.trim() == "0",
        _ => false,
    };
    if !zero {
        return repaired;
    }
    let mut object = current.as_object()?.clone();
    object.insert("offset".to_owned(), json!(1));
    Some(Value::Object(object))
}

/// Opens `path` for reading if it is a regular file; `None` for a FIFO, a device or a socket,
/// which would block or never end. The open itself never blocks (a FIFO without a writer
/// would), and the type is checked on the file opened, not on a path that may have changed.
pub(crate) fn open_regular_file(
    path: &std::path::Path,
) -> std::io::Result<Option<(std::fs::File, std::fs::Metadata)>> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)?;
    let metadata = file.metadata()?;
    Ok(metadata.is_file().then_some((file, metadata)))
}

/// Image files larger than this are refused rather than loaded whole (a file that only starts
/// like an image could be any size).
const MAX_IMAGE_FILE_BYTES: u64 = 64 * 1024 * 1024;

fn read(workspace: &Workspace, params: &ReadParams, _context: &ToolContext) -> Outcome {
    let path = workspace.confined_path(&params.path)?;
    let failed = |error: std::io::Error| {
        ToolError::with_source(format!("Could not read {}: {error}", params.path), error)
    };
    let (file, metadata) = open_regular_file(&path).map_err(failed)?.ok_or_else(|| {
        ToolError::new(format!(
            "Could not read {}: not a regular file",
            params.path
        ))
    })?;
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, file);
    let start = reader.fill_buf().map_err(failed)?;
    if let Some(format) = sniff(start) {
        if metadata.len() > MAX_IMAGE_FILE_BYTES {
            return Err(ToolError::new(format!(
                "Could not read {}: the image is {}, over the {} limit",
                params.path,
                format_size(usize::try_from(metadata.len()).unwrap_or(usize::MAX)),
                format_size(usize::try_from(MAX_IMAGE_FILE_BYTES).unwrap_or(usize::MAX)),
            )));
        }
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).map_err(failed)?;
        return Ok(read_image(&bytes, format));
    }
    let window = Window::read(&mut reader, params).map_err(failed)?;
    read_text(&window, params)
}

/// The lines of a file that a `read` may show, read in one pass without holding more of the
/// file than the output limits can show: a `limit: 1` read of a 2 GB file keeps one line.
#[derive(Debug, Default)]
struct Window {
    /// Lines in the file (a final newline starts an empty last line, as `split('\n')` counts).
    total_lines: usize,
    /// The index of the first line shown.
    start: usize,
    /// Lines in the window asked for, and their bytes joined by newlines.
    lines: usize,
    bytes: usize,
    /// The first line's length in bytes.
    first_line_bytes: usize,
    /// The window's first lines, as text, until one more would be over a limit.
    kept: Vec<String>,
    kept_bytes: usize,
}

impl Window {
    fn read(reader: &mut impl BufRead, params: &ReadParams) -> std::io::Result<Self> {
        let start = params.offset.map_or(0, |offset| {
            usize::try_from(offset)
                .unwrap_or(usize::MAX)
                .saturating_sub(1)
        });
        let end = params.limit.map_or(usize::MAX, |limit| {
            start.saturating_add(usize::try_from(limit).unwrap_or(usize::MAX))
        });
        let mut window = Self {
            start,
            ..Self::default()
        };
        let mut line = Vec::new();
        let mut line_bytes = 0;
        let mut index = 0;
        loop {
            let buffer = reader.fill_buf()?;
            if buffer.is_empty() {
                break;
            }
            let length = buffer.len();
            if index >= end {
                // Past the window only the lines are counted.
                index += memchr::memchr_iter(b'\n', buffer).count();
                reader.consume(length);
                continue;
            }
            let mut rest = buffer;
            while !rest.is_empty() {
                let (piece, ended) = match memchr::memchr(b'\n', rest) {
                    Some(at) => (rest.get(..at).unwrap_or_default(), true),
                    None => (rest, false),
                };
                rest = rest
                    .get(piece.len() + usize::from(ended)..)
                    .unwrap_or_default();
                line_bytes += piece.len();
                if (start..end).contains(&index) && window.keeping() {
                    // One byte over the limit is enough to show that a line is too long.
                    let room = (DEFAULT_MAX_BYTES + 1).saturating_sub(line.len());
                    line.extend_from_slice(piece.get(..room.min(piece.len())).unwrap_or_default());
                }
                if ended {
                    window.end_line(index, end, &line, line_bytes);
                    index += 1;
                    line.clear();
                    line_bytes = 0;
                }
            }
            reader.consume(length);
        }
        window.end_line(index, end, &line, line_bytes);
        window.total_lines = index + 1;
        Ok(window)
    }

    /// Whether another line could still be shown.
    fn keeping(&self) -> bool {
        self.kept.len() <= DEFAULT_MAX_LINES && self.kept_bytes <= DEFAULT_MAX_BYTES
    }

    fn end_line(&mut self, index: usize, end: usize, line: &[u8], bytes: usize) {
        if !(self.start..end).contains(&index) {
            return;
        }
        if index == self.start {
            self.first_line_bytes = bytes;
        }
        self.bytes += bytes + usize::from(self.lines > 0);
        self.lines += 1;
        if self.keeping() {
            let text = String::from_utf8_lossy(line).into_owned();
            self.kept_bytes += text.len() + usize::from(!self.kept.is_empty());
            self.kept.push(text);
        }
    }
}

fn read_text(window: &Window, params: &ReadParams) -> Outcome {
    let start = window.start;
    if start >= window.total_lines {
        return Err(ToolError::new(format!(
            "Offset {} is beyond end of file ({} lines total)",
            params.offset.unwrap_or_default(),
            window.total_lines
        )));
    }
    let end = start + window.lines;
    let mut cut = truncate_head(
        &window.kept.join("\n"),
        DEFAULT_MAX_LINES,
        DEFAULT_MAX_BYTES,
    );
    // What was cut is measured against the whole window, not the part kept in memory.
    cut.total_lines = window.lines;
    cut.total_bytes = window.bytes;
    let first = start + 1;
    if cut.first_line_exceeds_limit {
        let size = format_size(window.first_line_bytes);
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
            window.total_lines,
            last + 1
        );
        return Ok(ToolOutput::text(message).with_details(json!({ "truncation": cut })));
    }
    if end < window.total_lines {
        let message = format!(
            "{}\n\n[{} more lines in file. Use offset={} to continue.]",
            cut.content,
            window.total_lines - end,
            end + 1
        );
        return Ok(ToolOutput::text(message));
    }
    Ok(ToolOutput::text(cut.content))
}
