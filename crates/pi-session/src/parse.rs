//! Reading a session file's bytes: the header, the entries in file order, and a report of
//! what was skipped. Pi's rules (blank lines ignored, unparseable lines skipped, the first JSON
//! line must be the header), plus what Pi does not do: every skipped line and a torn last line
//! are reported with their byte offsets, and the caller learns whether the file ends mid-line.

use std::path::Path;

use serde_json::Value;

use crate::entry::Entry;
use crate::error::{NotASessionReason, Result, SessionError};
use crate::header::{CURRENT_VERSION, SessionHeader};
use crate::migrate;
use crate::report::{LoadReport, SkippedLine, TornTail};

/// A line of the file that is kept verbatim when the file is rewritten (only a migration
/// rewrites): a skipped line and where it stood among the entries.
#[derive(Debug, Clone)]
pub(crate) struct KeptLine {
    /// How many entries came before it.
    pub(crate) entries_before: usize,
    /// Its bytes, without the newline.
    pub(crate) bytes: Vec<u8>,
}

/// A parsed session file.
#[derive(Debug)]
pub(crate) struct ParsedFile {
    pub(crate) header: SessionHeader,
    pub(crate) entries: Vec<Entry>,
    /// Each entry's 1-based line.
    pub(crate) lines: Vec<usize>,
    pub(crate) report: LoadReport,
    /// Lines to keep if the file is rewritten.
    pub(crate) kept: Vec<KeptLine>,
}

/// Parses `bytes` read from `path`; version 1 and 2 files are migrated in memory.
pub(crate) fn parse(path: &Path, bytes: &[u8]) -> Result<ParsedFile> {
    if bytes.is_empty() {
        return Err(not_a_session(path, NotASessionReason::Empty));
    }
    let mut report = LoadReport::default();
    let mut header: Option<SessionHeader> = None;
    let mut values: Vec<(usize, Value)> = Vec::new();
    let mut kept = Vec::new();
    let mut offset = 0usize;
    let ends_with_newline = bytes.last() == Some(&b'\n');
    let mut lines = bytes.split(|&byte| byte == b'\n').enumerate().peekable();
    while let Some((index, line)) = lines.next() {
        let line_offset = offset;
        offset += line.len() + 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let is_last = lines.peek().is_none();
        let value = match serde_json::from_slice::<Value>(line) {
            Ok(value) => value,
            Err(error) => {
                if is_last && !ends_with_newline {
                    // A crash mid-write leaves exactly this: a last line without its newline.
                    report.torn_tail = Some(TornTail {
                        offset: line_offset as u64,
                        len: line.len() as u64,
                    });
                } else {
                    report.skipped.push(SkippedLine {
                        line: index + 1,
                        offset: line_offset as u64,
                        reason: format!("not JSON: {error}"),
                    });
                }
                kept.push(KeptLine {
                    entries_before: values.len(),
                    bytes: line.to_vec(),
                });
                continue;
            }
        };
        if header.is_none() {
            // The first JSON line decides whether this is a session at all.
            match SessionHeader::from_value(value) {
                Some(found) => header = Some(found),
                None => return Err(not_a_session(path, NotASessionReason::NoHeader)),
            }
            continue;
        }
        let skip_reason = match &value {
            Value::Object(map) if map.get("type").and_then(Value::as_str) == Some("session") => {
                Some("a second session header (Pi ignores it)")
            }
            Value::Object(_) => None,
            _ => Some("not a JSON object"),
        };
        if let Some(reason) = skip_reason {
            report.skipped.push(SkippedLine {
                line: index + 1,
                offset: line_offset as u64,
                reason: reason.to_owned(),
            });
            kept.push(KeptLine {
                entries_before: values.len(),
                bytes: line.to_vec(),
            });
            continue;
        }
        values.push((index + 1, value));
    }
    let Some(mut header) = header else {
        return Err(not_a_session(path, NotASessionReason::NoJson));
    };

    let version = header.version();
    if version < CURRENT_VERSION {
        migrate::to_current(version, &mut values);
        header.set_version(CURRENT_VERSION);
        report.migrated_from = Some(version);
    }

    let mut entries = Vec::with_capacity(values.len());
    let mut lines = Vec::with_capacity(values.len());
    // How many entries precede each value, to place the kept lines among entries.
    let mut entries_before_value = Vec::with_capacity(values.len() + 1);
    let mut not_entries = Vec::new();
    for (line, value) in values {
        entries_before_value.push(entries.len());
        match Entry::check(&value) {
            Ok(()) => {
                if let Ok(entry) = Entry::from_value(value) {
                    entries.push(entry);
                    lines.push(line);
                }
            }
            Err(error) => {
                let text = value.to_string();
                report.skipped.push(SkippedLine {
                    line,
                    offset: line_start(bytes, line),
                    reason: format!("not an entry: {error}"),
                });
                not_entries.push(KeptLine {
                    entries_before: entries.len(),
                    bytes: text.into_bytes(),
                });
            }
        }
    }
    entries_before_value.push(entries.len());
    for line in &mut kept {
        line.entries_before = entries_before_value
            .get(line.entries_before)
            .copied()
            .unwrap_or(entries.len());
    }
    kept.extend(not_entries);
    kept.sort_by_key(|line| line.entries_before);
    Ok(ParsedFile {
        header,
        entries,
        lines,
        report,
        kept,
    })
}

/// The byte offset of 1-based line `line` (only computed for the rare skipped entry).
fn line_start(bytes: &[u8], line: usize) -> u64 {
    let mut newlines = 0usize;
    for (index, byte) in bytes.iter().enumerate() {
        if newlines + 1 == line {
            return index as u64;
        }
        if *byte == b'\n' {
            newlines += 1;
        }
    }
    bytes.len() as u64
}

fn not_a_session(path: &Path, reason: NotASessionReason) -> SessionError {
    SessionError::NotASession {
        path: path.to_path_buf(),
        reason,
    }
}
