//! The entries of a version-3 file, read line by line (`text_file.rs`).
//!
//! A `message` entry keeps only its line's place in the file (`line.rs`); every other entry's
//! line is copied into memory. A big file is read on two threads, each taking the lines of one
//! half of its bytes (split just after a newline near the middle): checking each line's JSON is
//! nearly the whole cost of a load and the lines are independent.

use std::ops::ControlFlow;
use std::sync::Arc;

use crate::entry::Entry;
use crate::halves;
use crate::line::{Line, SourceFile};
use crate::parse::{self, KeptLine};
use crate::quick_scan;
use crate::report::LoadReport;
use crate::scan::{self, Scanned};
use crate::text_file::{self, LineText, RawLine, ReadEnd, ReadLinesError};

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
) -> Result<(ReadEntries, ReadEnd), ReadLinesError> {
    read_entries_within(source, start, lines_before, crate::MAX_LINE_BYTES)
}

/// [`read_entries`] with lines of at most `max_line` bytes (tests use small ones).
fn read_entries_within(
    source: &Arc<SourceFile>,
    start: u64,
    lines_before: usize,
    max_line: usize,
) -> Result<(ReadEntries, ReadEnd), ReadLinesError> {
    let file = source.file();
    let len = file.metadata()?.len();
    let split = if len.saturating_sub(start) >= halves::PARALLEL_BYTES as u64 && halves::two_cores()
    {
        text_file::line_end_after(file, start + (len - start) / 2, len)?
    } else {
        None
    };
    let Some(split) = split else {
        return read_range(source, start, None, lines_before, max_line);
    };
    let (first, second) = halves::on_two_threads(
        || read_range(source, start, Some(split), lines_before, max_line),
        || read_range(source, split, None, 0, max_line),
    );
    let (mut read, first_end) = first?;
    // The second half numbered its lines from its own start.
    let (rest, end) = second.map_err(|error| match error {
        ReadLinesError::LineTooLong(line) => {
            ReadLinesError::LineTooLong(line + lines_before + first_end.lines)
        }
        other => other,
    })?;
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
    max_line: usize,
) -> Result<(ReadEntries, ReadEnd), ReadLinesError> {
    let mut read = ReadEntries::default();
    let end = text_file::for_each_line_within(
        source.file(),
        start,
        limit,
        lines_before,
        max_line,
        |line, text| {
            read_line(&mut read, source, line, text);
            ControlFlow::Continue(())
        },
    )?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of `before` entries of about 1 KiB each, a line of `long` bytes, then one entry.
    fn file_with_a_long_line(before: usize, long: usize) -> (tempfile::TempDir, Arc<SourceFile>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut text = String::new();
        let entry = |index: usize| {
            format!(
                r#"{{"type":"label","id":"e{index}","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","targetId":"x","label":"{}"}}"#,
                "l".repeat(1000)
            )
        };
        for index in 0..before {
            text.push_str(&entry(index));
            text.push('\n');
        }
        text.push_str(&"z".repeat(long));
        text.push('\n');
        text.push_str(&entry(before));
        text.push('\n');
        std::fs::write(&path, text).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        (dir, Arc::new(SourceFile::new(file, &path)))
    }

    fn too_long_line(result: Result<(ReadEntries, ReadEnd), ReadLinesError>) -> usize {
        match result {
            Err(ReadLinesError::LineTooLong(line)) => line,
            other => panic!("expected a line too long, got {other:?}"),
        }
    }

    #[test]
    fn a_line_over_the_limit_is_named_by_its_number_in_either_half() {
        // 2,000 entries of ~1 KiB: two halves on a machine with two cores; the long line
        // sits in the second half.
        let (_dir, source) = file_with_a_long_line(2000, 300 << 10);
        let line = too_long_line(read_entries_within(&source, 0, 1, 256 << 10));
        assert_eq!(
            line, 2002,
            "numbered from the file's first line (one before)"
        );
        // In the first half.
        let (_dir, source) = file_with_a_long_line(10, 300 << 10);
        assert_eq!(
            too_long_line(read_entries_within(&source, 0, 1, 256 << 10)),
            12
        );
        // At the limit itself the line is read (and skipped as not JSON).
        let (_dir, source) = file_with_a_long_line(2000, 256 << 10);
        let (read, end) = read_entries_within(&source, 0, 1, 256 << 10).unwrap();
        assert_eq!((read.entries.len(), end.lines), (2001, 2002));
        assert_eq!(read.report.skipped.len(), 1);
    }
}
