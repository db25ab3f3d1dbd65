//! Reading a session file's bytes: the header, the entries in file order, and a report of
//! what was skipped. Pi's rules (blank lines ignored, unparseable lines skipped, the first JSON
//! line must be the header), plus what Pi does not do: every skipped line and a torn last line
//! are reported with their byte offsets, and the caller learns whether the file ends mid-line.
//!
//! How a version-3 file is read, and why (issue 22 asks for 10x Pi's load speed; figures in
//! docs/benchmarks.md, "Session benchmark"):
//! - the file is streamed once through one reused 64 KiB buffer (`text_file.rs`), a big one
//!   as two halves split at a line end on two threads (`lines.rs`), and split on newlines with
//!   `memchr`; a `message` entry keeps only its line's place in the file (`line.rs`: offset,
//!   length and a few bytes of its head and tail to notice a file rewritten in place), so a
//!   load no longer holds the file's text in memory; other entries' lines are copied;
//! - each line is checked as JSON as strictly as a `serde_json::Value` parse would check it, but
//!   only `type`, `id`, `parentId`, `timestamp`, a message's `role` and whether the type's
//!   required fields are there are kept: building a `Value` of every line was most of the old
//!   load time. A quick pass (`quick_scan.rs`) checks the usual line and reads those facts at
//!   once, finding each string's end 16 bytes at a time (`string_end.rs`); any line it is not
//!   sure of goes to the serde_json walk (`scan.rs`), which decides and words the report;
//! - a context reads each message straight from its line into its typed form (`context.rs`)
//!   with a serde deserializer for checked lines (`line_reader.rs`) that finds strings the
//!   same way, decodes each in one pass and lends text without escapes to the visitors.
//!
//! Measured at 10,000 entries / 52 MB of escape-free text (callgrind, one load and one
//! context; text of code, an escape every 23 characters, takes about twice the time): 1,146 M
//! instructions with a `Value` per line; 522 M with the serde_json walk and serde_json's
//! typed read (half of it serde_json scanning string bytes, twice); 304 M at f8cbfb7 (load 150 M,
//! context 154 M). What was left was mostly memory: most of a fresh load + context was kernel
//! time mapping fresh pages for a 52 MB buffer of the whole file, which is why a load now
//! streams and leaves message lines in the file; a context reads neighbouring lines back in
//! batches of up to 1 MiB (`line::for_each_text`). Left out after measuring or weighing:
//! sonic-rs as a serde drop-in (528 M against 522 M); serde's `IgnoredAny` for the check
//! (serde_json skips ignored strings without decoding them, so a lone surrogate escape would
//! pass); caching typed messages (a context is built once when a run starts, so a cache would
//! only double the memory); huge pages for a whole-file buffer (in a trial the first read into a
//! `MADV_HUGEPAGE` mapping took 0.39 s, the kernel compacting memory).
//!
//! Versions 1 and 2 are rare and old: they are parsed into `Value`s, migrated and written out
//! as new lines.

use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate::entry::Entry;
use crate::error::{NotASessionReason, Result, SessionError};
use crate::header::{CURRENT_VERSION, SessionHeader};
use crate::line::SourceFile;
use crate::lines;
use crate::migrate;
use crate::report::{LoadReport, SkippedLine, TornTail};
use crate::text_file::{self, LineText, RawLine, ReadEnd};

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
    /// Where the file ended when read.
    pub(crate) end: ReadEnd,
}

/// Parses the session file `source` (opened at `path`); version 1 and 2 files are migrated in
/// memory.
pub(crate) fn parse(path: &Path, source: &Arc<SourceFile>) -> Result<ParsedFile> {
    let read_error = |error| SessionError::lines(path, error);
    let mut report = LoadReport::default();
    let mut kept = Vec::new();
    let mut header = Ok(None);
    let header_end = text_file::for_each_line(source.file(), 0, None, 0, |line, text| {
        let text = match text {
            Ok(text) => text,
            Err(bytes) => {
                skip_bad_utf8(&line, bytes, 0, &mut report, &mut kept);
                return ControlFlow::Continue(());
            }
        };
        if text.bytes().all(|byte| byte.is_ascii_whitespace()) {
            return ControlFlow::Continue(());
        }
        match serde_json::from_str::<Value>(text) {
            // The first JSON line decides whether this is a session at all.
            Ok(value) => {
                header = SessionHeader::from_value(value).map(Some).ok_or(());
                ControlFlow::Break(())
            }
            Err(error) => {
                skip_not_json(&line, text.as_bytes(), &error, 0, &mut report, &mut kept);
                ControlFlow::Continue(())
            }
        }
    })
    .map_err(read_error)?;
    let mut header = match header {
        Ok(Some(header)) => header,
        Err(()) => return Err(not_a_session(path, NotASessionReason::NoHeader)),
        Ok(None) if header_end.end == 0 => {
            return Err(not_a_session(path, NotASessionReason::Empty));
        }
        Ok(None) => return Err(not_a_session(path, NotASessionReason::NoJson)),
    };
    let version = header.version();
    if version >= CURRENT_VERSION {
        let (read, end) =
            lines::read_entries(source, header_end.end, header_end.lines).map_err(read_error)?;
        report.skipped.extend(read.report.skipped);
        report.torn_tail = report.torn_tail.or(read.report.torn_tail);
        kept.extend(read.kept);
        return Ok(ParsedFile {
            header,
            entries: read.entries,
            lines: read.lines,
            report,
            kept,
            end: ended(header_end, end),
        });
    }
    let mut values = Vec::new();
    let end = text_file::for_each_line(
        source.file(),
        header_end.end,
        None,
        header_end.lines,
        |line, text| {
            read_old_line(line, text, &mut values, &mut report, &mut kept);
            ControlFlow::Continue(())
        },
    )
    .map_err(read_error)?;
    let (entries, lines) = migrate_values(values, version, &mut report, &mut kept);
    header.set_version(CURRENT_VERSION);
    report.migrated_from = Some(version);
    Ok(ParsedFile {
        header,
        entries,
        lines,
        report,
        kept,
        end: ended(header_end, end),
    })
}

/// Where the file ended: after the entries read on from the header, or after the header.
fn ended(header_end: ReadEnd, end: ReadEnd) -> ReadEnd {
    if end.lines == 0 { header_end } else { end }
}

/// A line of a version 1 or 2 file after its header, kept as a `Value` with its line number
/// and offset to be migrated, or reported as skipped.
fn read_old_line(
    line: RawLine,
    text: LineText<'_>,
    values: &mut Vec<(usize, u64, Value)>,
    report: &mut LoadReport,
    kept: &mut Vec<KeptLine>,
) {
    // Kept lines count values here; `migrate_values` moves them to count entries.
    let text = match text {
        Ok(text) => text,
        Err(bytes) => return skip_bad_utf8(&line, bytes, values.len(), report, kept),
    };
    if text.bytes().all(|byte| byte.is_ascii_whitespace()) {
        return;
    }
    let value = match serde_json::from_str::<Value>(text) {
        Ok(value) => value,
        Err(error) => {
            return skip_not_json(&line, text.as_bytes(), &error, values.len(), report, kept);
        }
    };
    let skip_reason = match &value {
        Value::Object(map) if map.get("type").and_then(Value::as_str) == Some("session") => {
            Some("a second session header (Pi ignores it)")
        }
        Value::Object(_) => None,
        _ => Some("not a JSON object"),
    };
    match skip_reason {
        Some(reason) => skip(
            &line,
            reason.to_owned(),
            text.as_bytes(),
            values.len(),
            report,
            kept,
        ),
        None => values.push((line.number, line.offset, value)),
    }
}

/// The entries of a version 1 or 2 file from its lines' `Value`s (with their line numbers
/// and offsets), migrated and written out anew. The `kept` lines count values on entry (those
/// before the header count none) and entries on return.
fn migrate_values(
    values: Vec<(usize, u64, Value)>,
    version: u64,
    report: &mut LoadReport,
    kept: &mut Vec<KeptLine>,
) -> (Vec<Entry>, Vec<usize>) {
    let (mut values, offsets): (Vec<(usize, Value)>, Vec<u64>) = values
        .into_iter()
        .map(|(line, offset, value)| ((line, value), offset))
        .unzip();
    migrate::to_current(version, &mut values);

    let mut entries = Vec::with_capacity(values.len());
    let mut lines = Vec::with_capacity(values.len());
    // How many entries precede each value, to place the kept lines among entries.
    let mut entries_before_value = Vec::with_capacity(values.len() + 1);
    let mut not_entries = Vec::new();
    for ((line, value), offset) in values.into_iter().zip(offsets) {
        entries_before_value.push(entries.len());
        match Entry::check(&value) {
            Ok(()) => {
                if let Ok(entry) = Entry::from_value(value) {
                    entries.push(entry);
                    lines.push(line);
                }
            }
            Err(error) => {
                report.skipped.push(SkippedLine {
                    line,
                    offset,
                    reason: format!("not an entry: {error}"),
                });
                not_entries.push(KeptLine {
                    entries_before: entries.len(),
                    bytes: value.to_string().into_bytes(),
                });
            }
        }
    }
    entries_before_value.push(entries.len());
    for line in kept.iter_mut() {
        line.entries_before = entries_before_value
            .get(line.entries_before)
            .copied()
            .unwrap_or(entries.len());
    }
    kept.extend(not_entries);
    kept.sort_by_key(|line| line.entries_before);
    (entries, lines)
}

/// Records a line that is not JSON, after `entries_before` entries: a torn tail when it is the
/// file's unterminated last line (a crash mid-write leaves exactly this), a skipped line
/// otherwise.
pub(crate) fn skip_not_json(
    line: &RawLine,
    bytes: &[u8],
    error: &dyn std::fmt::Display,
    entries_before: usize,
    report: &mut LoadReport,
    kept: &mut Vec<KeptLine>,
) {
    if line.torn {
        report.torn_tail = Some(TornTail {
            offset: line.offset,
            len: line.len as u64,
        });
        kept.push(KeptLine {
            entries_before,
            bytes: bytes.to_vec(),
        });
    } else {
        let reason = format!("not JSON: {error}");
        skip(line, reason, bytes, entries_before, report, kept);
    }
}

/// Records a line that is not UTF-8 (so not JSON), its `bytes`, after `entries_before`
/// entries.
pub(crate) fn skip_bad_utf8(
    line: &RawLine,
    bytes: &[u8],
    entries_before: usize,
    report: &mut LoadReport,
    kept: &mut Vec<KeptLine>,
) {
    // serde_json says where the line stops being JSON, as for any other bad line.
    let error = match serde_json::from_slice::<Value>(bytes) {
        Err(error) => error.to_string(),
        Ok(_) => "invalid UTF-8".to_owned(),
    };
    skip_not_json(line, bytes, &error, entries_before, report, kept);
}

/// Reports `line` as skipped for `reason` and keeps its bytes, after `entries_before` entries.
pub(crate) fn skip(
    line: &RawLine,
    reason: String,
    bytes: &[u8],
    entries_before: usize,
    report: &mut LoadReport,
    kept: &mut Vec<KeptLine>,
) {
    report.skipped.push(SkippedLine {
        line: line.number,
        offset: line.offset,
        reason,
    });
    kept.push(KeptLine {
        entries_before,
        bytes: bytes.to_vec(),
    });
}

fn not_a_session(path: &Path, reason: NotASessionReason) -> SessionError {
    SessionError::NotASession {
        path: path.to_path_buf(),
        reason,
    }
}
