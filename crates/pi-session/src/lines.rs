//! The entries of a version-3 file, read line by line (`text_file.rs`).
//!
//! A `message` entry keeps only its line's place in the file (`line.rs`); every other entry's
//! line is copied into memory. A big file is read on two threads, each taking the lines of one
//! half of its bytes (split just after a newline near the middle): checking each line's JSON is
//! nearly the whole cost of a load and the lines are independent.

use std::io;
use std::ops::ControlFlow;
use std::sync::Arc;

use crate::entry::Entry;
use crate::halves;
use crate::line::{Line, SourceFile};
use crate::parse::{self, KeptLine};
use crate::quick_scan;
use crate::report::LoadReport;
use crate::scan::{self, Scanned};
use crate::text_file::{self, LineText, RawLine, ReadEnd};

/// The entries of a version-3 file and what was skipped reading them.
#[derive(Debug, Default)]
pub(crate) struct ReadEntries {
    pub(crate) entries: Vec<Entry>,
    /// Each entry's 1-based line.
    pub(crate) lines: Vec<usize>,
    pub(crate) report: LoadReport,
    pub(crate) kept: Vec<KeptLine>,
}

impl ReadEntries {
    /// Puts `other`, read from the lines after this one's `lines_before_other` lines (counted
    /// from its own start), after this one.
    fn append(&mut self, mut other: ReadEntries, lines_before_other: usize) {
        for line in &mut other.kept {
            line.entries_before += self.entries.len();
        }
        for line in &mut other.lines {
            *line += lines_before_other;
        }
        for skipped in &mut other.report.skipped {
            skipped.line += lines_before_other;
        }
        self.entries.append(&mut other.entries);
        self.lines.append(&mut other.lines);
        self.report.skipped.append(&mut other.report.skipped);
        self.report.torn_tail = self.report.torn_tail.or(other.report.torn_tail);
        self.kept.append(&mut other.kept);
    }
}

/// Reads the lines of `source` from `start` (just after the header's line, `lines_before`
/// lines into the file) to its end as entries, on two threads when they are big. Also says
/// where the file ended.
pub(crate) fn read_entries(
    source: &Arc<SourceFile>,
    start: u64,
    lines_before: usize,
) -> io::Result<(ReadEntries, ReadEnd)> {
    let file = source.file();
    let len = file.metadata()?.len();
    let split = if len.saturating_sub(start) >= halves::PARALLEL_BYTES as u64 && halves::two_cores()
    {
        text_file::line_end_after(file, start + (len - start) / 2, len)?
    } else {
        None
    };
    let Some(split) = split else {
        return read_range(source, start, None, lines_before);
    };
    let (first, second) = halves::on_two_threads(
        || read_range(source, start, Some(split), lines_before),
        || read_range(source, split, None, 0),
    );
    let ((mut read, first_end), (rest, end)) = (first?, second?);
    read.append(rest, lines_before + first_end.lines);
    Ok((
        read,
        ReadEnd {
            lines: first_end.lines + end.lines,
            end: if end.lines == 0 {
                first_end.end
            } else {
                end.end
            },
            last_byte: end.last_byte.or(first_end.last_byte),
        },
    ))
}

/// Reads the lines from `start` to `limit` (`None`: the file's end) as entries.
fn read_range(
    source: &Arc<SourceFile>,
    start: u64,
    limit: Option<u64>,
    lines_before: usize,
) -> io::Result<(ReadEntries, ReadEnd)> {
    let mut read = ReadEntries::default();
    let end = text_file::for_each_line(source.file(), start, limit, lines_before, |line, text| {
        read_line(&mut read, source, line, text);
        ControlFlow::Continue(())
    })?;
    Ok((read, end))
}

/// Reads one line as an entry, or reports why it is skipped.
fn read_line(read: &mut ReadEntries, source: &Arc<SourceFile>, line: RawLine, text: LineText<'_>) {
    let entries_before = read.entries.len();
    let (report, kept) = (&mut read.report, &mut read.kept);
    let text = match text {
        Ok(text) => text,
        Err(bytes) => return parse::skip_bad_utf8(&line, bytes, entries_before, report, kept),
    };
    if text.bytes().all(|byte| byte.is_ascii_whitespace()) {
        return;
    }
    // The quick pass settles the usual line; serde_json decides (and words) the rest.
    let scanned =
        quick_scan::scan(text).map_or_else(|| scan::scan(text), |facts| Ok(Scanned::Object(facts)));
    let facts = match scanned {
        Ok(Scanned::Object(facts)) => facts,
        Ok(Scanned::NotAnObject) => {
            let reason = "not a JSON object".to_owned();
            return parse::skip(&line, reason, text.as_bytes(), entries_before, report, kept);
        }
        Err(error) => {
            return parse::skip_not_json(
                &line,
                text.as_bytes(),
                &error,
                entries_before,
                report,
                kept,
            );
        }
    };
    let stored = match facts.entry_type.as_deref() {
        Some("session") => {
            let reason = "a second session header (Pi ignores it)".to_owned();
            return parse::skip(&line, reason, text.as_bytes(), entries_before, report, kept);
        }
        // Nearly all of a session's bytes: left in the file until asked for.
        Some("message") => Line::in_file(source, line.offset, text.as_bytes()),
        _ => Line::whole(text.to_owned()),
    };
    match Entry::from_facts(stored, facts) {
        Ok(entry) => {
            read.entries.push(entry);
            read.lines.push(line.number);
        }
        Err(error) => {
            let reason = format!("not an entry: {error}");
            parse::skip(&line, reason, text.as_bytes(), entries_before, report, kept);
        }
    }
}
