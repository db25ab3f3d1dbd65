//! `edit`: replace exact blocks of text in one file, every block matched against the file as
//! it was, then written back once.
//!
//! Line endings and a byte-order mark are kept as the file has them, line by line: in a file
//! with both LF and CRLF lines every untouched line keeps its own ending, and the new text's
//! lines end as the lines they replace did (see `Endings::applied`). A block that is not found
//! exactly is looked for once more with the usual model slips forgiven (trailing spaces, curly
//! quotes, long dashes, unusual spaces, compatibility forms such as fullwidth punctuation);
//! unlike upstream, only the text matched is replaced, and
//! the rest of the file stays byte for byte as it was. Edits of one file queue behind each other
//! and behind `write`s of it.

use std::ops::Range;

use pi_tool::schema::ObjectParams;
use pi_tool::{RegisteredTool, ToolError, ToolOutput};
use serde_json::{Value, json};
use similar::{ChangeTag, TextDiff};
use unicode_normalization::UnicodeNormalization;

use crate::Workspace;
use crate::params::{EditOperation, EditParams};
use crate::sandbox::files::Access;
use crate::tool::{LaterOutcome, OnDisk, Outcome, changing_tool, on_disk, on_workspace_thread};

/// Unchanged lines shown around each change in `details.diff` and `details.patch`.
const CONTEXT_LINES: usize = 3;

/// The `edit` tool for `workspace`.
pub fn edit_tool(workspace: &Workspace) -> RegisteredTool {
    changing_tool(
        workspace,
        "edit",
        |params: &EditParams| &params.path,
        edit,
        edit_through,
        Some(prepare),
    )
}

/// `edit` through the workspace's [`crate::FileAccess`]: the text the editor serves (its
/// buffer) is edited, and the whole new text handed back to it to write. A binary file on
/// disk is edited on disk as usual.
fn edit_through(
    workspace: Workspace,
    path: std::path::PathBuf,
    params: EditParams,
) -> LaterOutcome {
    Box::pin(async move {
        let shown = params.path.clone();
        let checked = path.clone();
        let kind = on_workspace_thread(&workspace, Access::Read, move || on_disk(&checked))
            .await?
            .map_err(|error| {
                ToolError::with_source(format!("Could not read {shown}: {error}"), error)
            })?;
        match kind {
            OnDisk::NotRegular => {
                return Err(ToolError::new(format!(
                    "Could not read {shown}: not a regular file"
                )));
            }
            OnDisk::Binary => {
                return on_workspace_thread(&workspace, Access::Write, move || {
                    edit(&path, &params)
                })
                .await?;
            }
            OnDisk::Missing | OnDisk::Text => {}
        }
        let Some(access) = workspace.file_access() else {
            return Err(ToolError::new("no file access to edit through"));
        };
        let raw = access.read_text(&path).await.map_err(|error| {
            ToolError::new(format!("Could not read {shown}: {}", error.message()))
        })?;
        let (text, output) = edited(&raw, &params)?;
        access.write_text(&path, &text).await.map_err(|error| {
            ToolError::new(format!("Could not write {shown}: {}", error.message()))
        })?;
        Ok(output)
    })
}

/// What models still send, made the one shape (repaired arguments are validated as usual): the
/// older single-edit shape `{path, oldText, newText}` becomes one entry of `edits`, and `edits`
/// sent as a JSON-encoded string is decoded.
fn prepare(arguments: &Value) -> Option<Value> {
    let folded = match arguments {
        Value::Object(object) if !object.contains_key("edits") => {
            let (old_text, new_text) = (object.get("oldText")?, object.get("newText")?);
            let mut folded = object.clone();
            folded.remove("oldText");
            folded.remove("newText");
            folded.insert(
                "edits".to_owned(),
                json!([{"oldText": old_text, "newText": new_text}]),
            );
            Some(Value::Object(folded))
        }
        _ => None,
    };
    let schema = pi_tool::schema::Schema::json_schema(EditParams::object_schema())?;
    match folded {
        Some(folded) => {
            Some(pi_tool::schema::repair_json_strings(schema, &folded).unwrap_or(folded))
        }
        None => pi_tool::schema::repair_json_strings(schema, arguments),
    }
}

fn edit(path: &std::path::Path, params: &EditParams) -> Outcome {
    let shown = &params.path;
    let unreadable = |error: std::io::Error| {
        ToolError::with_source(format!("Could not read {shown}: {error}"), error)
    };
    // A FIFO would block forever and a device never end: only regular files are edited.
    let (mut file, _) = crate::read::open_regular_file(path)
        .map_err(unreadable)?
        .ok_or_else(|| ToolError::new(format!("Could not read {shown}: not a regular file")))?;
    let mut raw = String::new();
    std::io::Read::read_to_string(&mut file, &mut raw).map_err(unreadable)?;
    let (text, output) = edited(&raw, params)?;
    crate::atomic::write_file(path, text.as_bytes()).map_err(|error| {
        ToolError::with_source(format!("Could not write {shown}: {error}"), error)
    })?;
    Ok(output)
}

/// The file's whole new text once `params`' edits are made in `raw` (its whole text), and
/// what the model is told; an error when a block is missing, ambiguous or overlaps another,
/// or nothing would change.
fn edited(raw: &str, params: &EditParams) -> Result<(String, ToolOutput), ToolError> {
    let shown = &params.path;
    let (bom, body) = match raw.strip_prefix('\u{feff}') {
        Some(body) => ("\u{feff}", body),
        None => ("", raw),
    };
    // Blocks are matched in the text with every CRLF made LF; `endings` maps back to the file.
    let endings = Endings::of(body);
    let original = endings.normalized.as_str();
    let mut blocks = Vec::with_capacity(params.edits.len());
    for (index, operation) in params.edits.iter().enumerate() {
        blocks.push((locate(original, operation, index, shown)?, index));
    }
    blocks.sort_by_key(|(range, _)| range.start);
    for pair in blocks.windows(2) {
        if let [(first, i), (second, j)] = pair
            && second.start < first.end
        {
            let (i, j) = ((*i).min(*j), (*i).max(*j));
            return Err(ToolError::new(format!(
                "edits[{i}] and edits[{j}] overlap in {shown}. Merge them into one edit or make them target different text."
            )));
        }
    }
    let mut updated = String::with_capacity(original.len());
    let mut written = String::with_capacity(body.len());
    let mut copied = 0;
    for (range, index) in &blocks {
        updated.push_str(original.get(copied..range.start).unwrap_or_default());
        written.push_str(
            body.get(endings.in_file(copied)..endings.in_file(range.start))
                .unwrap_or_default(),
        );
        let replacement = params
            .edits
            .get(*index)
            .map_or("", |operation| operation.new_text.as_str())
            .replace("\r\n", "\n");
        updated.push_str(&replacement);
        written.push_str(&endings.applied(&replacement, range));
        copied = range.end;
    }
    updated.push_str(original.get(copied..).unwrap_or_default());
    written.push_str(body.get(endings.in_file(copied)..).unwrap_or_default());
    if written == body {
        return Err(ToolError::new(format!(
            "No changes made to {shown}. The replacement produced identical content."
        )));
    }
    let output = ToolOutput::text(format!(
        "Successfully replaced {} block(s) in {shown}.",
        blocks.len()
    ))
    .with_details(changes(original, &updated, shown));
    Ok((format!("{bom}{written}"), output))
}

/// A file's line endings, line by line: its text with every CRLF made LF (what blocks are
/// matched in), and where those CRLFs were.
struct Endings {
    normalized: String,
    /// The offset in `normalized` of each LF that was a CRLF in the file, in order.
    crlf_at: Vec<usize>,
    /// The ending most of the file's lines have (CRLF on a tie), for new lines with no line of
    /// their own to follow.
    most: &'static str,
}

impl Endings {
    fn of(body: &str) -> Self {
        let mut normalized = String::with_capacity(body.len());
        let mut crlf_at = Vec::new();
        let mut rest = body;
        while let Some(at) = rest.find("\r\n") {
            normalized.push_str(rest.get(..at).unwrap_or_default());
            crlf_at.push(normalized.len());
            normalized.push('\n');
            rest = rest.get(at + 2..).unwrap_or_default();
        }
        normalized.push_str(rest);
        let lf = memchr::memchr_iter(b'\n', normalized.as_bytes())
            .count()
            .saturating_sub(crlf_at.len());
        let most = if !crlf_at.is_empty() && crlf_at.len() >= lf {
            "\r\n"
        } else {
            "\n"
        };
        Self {
            normalized,
            crlf_at,
            most,
        }
    }

    /// The offset in the file of offset `at` of the normalized text.
    fn in_file(&self, at: usize) -> usize {
        at + self.crlf_at.partition_point(|&crlf| crlf < at)
    }

    /// The ending of the line break at `at` in the normalized text.
    fn ending_at(&self, at: usize) -> &'static str {
        if self.crlf_at.binary_search(&at).is_ok() {
            "\r\n"
        } else {
            "\n"
        }
    }

    /// `replacement` (LF only) with the endings of the text it replaces at `range`: its n-th
    /// line ends as the n-th line replaced did, lines beyond those as the last one replaced;
    /// a replacement within one line ends its new lines as that line ends (or, on a last line
    /// without an ending, as most of the file's lines do).
    fn applied(&self, replacement: &str, range: &Range<usize>) -> String {
        let replaced: Vec<&'static str> = self
            .normalized
            .get(range.clone())
            .unwrap_or_default()
            .match_indices('\n')
            .map(|(at, _)| self.ending_at(range.start + at))
            .collect();
        let fallback = replaced.last().copied().unwrap_or_else(|| {
            self.normalized
                .get(range.end..)
                .and_then(|rest| rest.find('\n'))
                .map_or(self.most, |at| self.ending_at(range.end + at))
        });
        let mut out = String::with_capacity(replacement.len() + replaced.len());
        for (number, line) in replacement.split('\n').enumerate() {
            if number > 0 {
                out.push_str(replaced.get(number - 1).copied().unwrap_or(fallback));
            }
            out.push_str(line);
        }
        out
    }
}

/// Where `operation.old_text` is in `content`: exactly, or failing that once the usual slips
/// are forgiven; either way it must be there once and only once.
fn locate(
    content: &str,
    operation: &EditOperation,
    index: usize,
    shown: &str,
) -> Result<Range<usize>, ToolError> {
    let wanted = operation.old_text.replace("\r\n", "\n");
    if wanted.is_empty() {
        return Err(ToolError::new(format!(
            "edits[{index}].oldText must not be empty."
        )));
    }
    let exact: Vec<usize> = content.match_indices(&wanted).map(|(at, _)| at).collect();
    let found = match exact.as_slice() {
        [] => forgiving(content, &wanted),
        _ => exact.into_iter().map(|at| at..at + wanted.len()).collect(),
    };
    match found.as_slice() {
        [only] => Ok(only.clone()),
        [] => Err(ToolError::new(format!(
            "Could not find the text of edits[{index}] in {shown}. The oldText must match exactly, including all whitespace and newlines.{}",
            closest(content, &wanted)
        ))),
        many => Err(ToolError::new(format!(
            "Found {} occurrences of the text of edits[{index}] in {shown}. The text must be unique. Please provide more context to make it unique.",
            many.len()
        ))),
    }
}

/// Where the file holds something like the start of `wanted`, to help the model try again:
/// the most similar line to `wanted`'s first non-blank one, with the lines `wanted` would span.
/// Empty when nothing is alike or the file is too long to compare line by line.
fn closest(content: &str, wanted: &str) -> String {
    const MAX_LINES: usize = 20_000;
    const MIN_RATIO: f32 = 0.6;
    let Some(first) = wanted.lines().map(str::trim).find(|line| !line.is_empty()) else {
        return String::new();
    };
    let lines: Vec<&str> = content.lines().collect();
    if lines.len() > MAX_LINES {
        return String::new();
    }
    let best = lines
        .iter()
        .enumerate()
        .map(|(at, line)| (at, TextDiff::from_chars(line.trim(), first).ratio()))
        .filter(|(_, ratio)| *ratio >= MIN_RATIO)
        .fold(None, |best: Option<(usize, f32)>, candidate| match best {
            Some(kept) if kept.1 >= candidate.1 => Some(kept),
            _ => Some(candidate),
        });
    let Some((at, _)) = best else {
        return String::new();
    };
    let span = wanted.lines().count().clamp(1, 10);
    let shown: Vec<String> = lines
        .iter()
        .enumerate()
        .skip(at)
        .take(span)
        .map(|(number, line)| format!("{}: {line}", number + 1))
        .collect();
    format!(
        "\nClosest match is around line {}:\n{}",
        at + 1,
        shown.join("\n")
    )
}

/// The ranges of `content` that read as `wanted` once both are normalized.
fn forgiving(content: &str, wanted: &str) -> Vec<Range<usize>> {
    let (haystack, origins) = normalized(content);
    let (needle, _) = normalized(wanted);
    if needle.is_empty() {
        return Vec::new();
    }
    haystack
        .match_indices(&needle)
        .filter_map(|(at, matched)| {
            let start = *origins.get(at)?;
            // The end of the last normalized char, in the original.
            let last = matched
                .char_indices()
                .next_back()
                .map_or(at, |(offset, _)| at + offset);
            let last_start = *origins.get(last)?;
            let last_len = content.get(last_start..)?.chars().next()?.len_utf8();
            Some(start..last_start + last_len)
        })
        .collect()
}

/// `text` with trailing spaces of each line dropped, look-alike characters made plain and
/// compatibility forms folded (NFKC), and for every byte of the result the byte offset in `text`
/// of the character it came from.
fn normalized(text: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(text.len());
    let mut origins = Vec::with_capacity(text.len());
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let kept = body.trim_end_matches([' ', '\t', '\r', '\u{a0}']);
        for (offset, character) in kept.char_indices() {
            // Compatibility forms too (fullwidth punctuation, ligatures): NFKC, char by char.
            for plain in std::iter::once(plain(character)).nfkc() {
                for _ in 0..plain.len_utf8() {
                    origins.push(line_start + offset);
                }
                out.push(plain);
            }
        }
        if line.ends_with('\n') {
            origins.push(line_start + body.len());
            out.push('\n');
        }
        line_start += line.len();
    }
    (out, origins)
}

fn plain(character: char) -> char {
    match character {
        '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{201b}' => '\'',
        '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{201f}' => '"',
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{a0}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}' => ' ',
        other => other,
    }
}

/// `details` of a successful edit: a line-numbered diff, a unified patch, the first line that
/// changed (1-based, in the new file).
fn changes(old: &str, new: &str, shown: &str) -> Value {
    let diff = TextDiff::from_lines(old, new);
    let patch = diff
        .unified_diff()
        .context_radius(CONTEXT_LINES)
        .header(shown, shown)
        .to_string();
    let mut lines = Vec::new();
    let mut first_changed = None;
    for group in diff.grouped_ops(CONTEXT_LINES) {
        if !lines.is_empty() {
            lines.push("...".to_owned());
        }
        for operation in &group {
            for change in diff.iter_changes(operation) {
                let (sign, number) = match change.tag() {
                    ChangeTag::Equal => (' ', change.new_index()),
                    ChangeTag::Delete => ('-', change.old_index()),
                    ChangeTag::Insert => ('+', change.new_index()),
                };
                if change.tag() != ChangeTag::Equal && first_changed.is_none() {
                    first_changed =
                        Some(change.new_index().or(change.old_index()).unwrap_or(0) + 1);
                }
                let number = number.map_or(0, |n| n + 1);
                let text = change.value().trim_end_matches('\n');
                lines.push(format!("{sign}{number} {text}"));
            }
        }
    }
    json!({"diff": lines.join("\n"), "patch": patch, "firstChangedLine": first_changed})
}
