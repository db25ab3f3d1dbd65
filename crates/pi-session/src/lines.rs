//! A file's lines, and the entries of a version-3 file read from them.
//!
//! The file is split on newlines with `memchr` (SIMD) and checked as UTF-8 once, as a whole;
//! entries keep ranges of that one buffer. Big files are read on two threads, each taking half
//! of the lines (`halves.rs`): checking each line's JSON is nearly the whole cost of a load and
//! the lines are independent.

use std::sync::Arc;

use crate::entry::{Entry, Line};
use crate::halves;
use crate::parse::{self, KeptLine};
use crate::quick_scan;
use crate::report::LoadReport;
use crate::scan::{self, Scanned};

/// One line of the file (without its newline).
#[derive(Debug, Clone)]
pub(crate) struct RawLine {
    /// 1-based line number.
    pub(crate) number: usize,
    /// Byte offset of its start in the file.
    pub(crate) offset: usize,
    /// Its length in bytes.
    pub(crate) len: usize,
    /// It is the file's last line and has no newline after it.
    pub(crate) torn: bool,
    /// Where it starts in the buffer [`split`] returns (when it is UTF-8).
    start: usize,
    /// Its bytes, when they are not UTF-8 (and so not in the buffer).
    bad: Option<Box<[u8]>>,
}

impl RawLine {
    /// Its text, when it is UTF-8.
    pub(crate) fn text<'a>(&self, buffer: &'a str) -> Option<&'a str> {
        if self.bad.is_some() {
            return None;
        }
        buffer.get(self.start..self.start + self.len)
    }

    /// Its bytes, when they are not UTF-8.
    pub(crate) fn bad_bytes(&self) -> Option<&[u8]> {
        self.bad.as_deref()
    }

    /// Its range of `buffer`, as an entry's line.
    fn entry_line(&self, buffer: &Arc<String>) -> Line {
        Line::new(Arc::clone(buffer), self.start, self.start + self.len)
    }
}

/// Splits a file into its lines (as `split(b'\n')` would: a file ending with a newline has an
/// empty last line) and the buffer holding their text.
pub(crate) fn split(bytes: Vec<u8>) -> (Arc<String>, Vec<RawLine>) {
    let ends_with_newline = bytes.last() == Some(&b'\n');
    let mut lines = Vec::new();
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', &bytes).chain([bytes.len()]) {
        lines.push(RawLine {
            number: lines.len() + 1,
            offset: start,
            len: end - start,
            torn: false,
            start,
            bad: None,
        });
        start = end + 1;
    }
    if let Some(last) = lines.last_mut() {
        last.torn = !ends_with_newline;
    }
    match String::from_utf8(bytes) {
        Ok(text) => (Arc::new(text), lines),
        Err(error) => {
            // Rare (a crash cut a character in two, or a foreign writer): copy the UTF-8 lines
            // into a new buffer and keep the others' bytes apart.
            let bytes = error.into_bytes();
            let mut text = String::with_capacity(bytes.len());
            for line in &mut lines {
                let original = bytes.get(line.offset..line.offset + line.len);
                match original.map(std::str::from_utf8) {
                    Some(Ok(valid)) => {
                        line.start = text.len();
                        text.push_str(valid);
                        text.push('\n');
                    }
                    _ => line.bad = Some(original.unwrap_or_default().into()),
                }
            }
            (Arc::new(text), lines)
        }
    }
}

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
    fn append(&mut self, mut other: ReadEntries) {
        for line in &mut other.kept {
            line.entries_before += self.entries.len();
        }
        self.entries.append(&mut other.entries);
        self.lines.append(&mut other.lines);
        self.report.skipped.append(&mut other.report.skipped);
        self.report.torn_tail = self.report.torn_tail.or(other.report.torn_tail);
        self.kept.append(&mut other.kept);
    }
}

/// Reads `lines` (the lines after the header) as entries, on two threads when they are big.
pub(crate) fn read_entries(buffer: &Arc<String>, lines: &[RawLine]) -> ReadEntries {
    halves::in_halves(
        lines,
        |line| line.len,
        |part| read_chunk(buffer, part),
        |mut first, second| {
            first.append(second);
            first
        },
    )
}

/// Reads consecutive lines as entries.
fn read_chunk(buffer: &Arc<String>, lines: &[RawLine]) -> ReadEntries {
    let mut read = ReadEntries {
        entries: Vec::with_capacity(lines.len()),
        lines: Vec::with_capacity(lines.len()),
        ..ReadEntries::default()
    };
    for line in lines {
        let entries_before = read.entries.len();
        let (report, kept) = (&mut read.report, &mut read.kept);
        let Some(text) = line.text(buffer) else {
            parse::skip_bad_utf8(line, entries_before, report, kept);
            continue;
        };
        if text.bytes().all(|byte| byte.is_ascii_whitespace()) {
            continue;
        }
        // The quick pass settles the usual line; serde_json decides (and words) the rest.
        let scanned = quick_scan::scan(text)
            .map_or_else(|| scan::scan(text), |facts| Ok(Scanned::Object(facts)));
        let facts = match scanned {
            Ok(Scanned::Object(facts)) => facts,
            Ok(Scanned::NotAnObject) => {
                let reason = "not a JSON object".to_owned();
                parse::skip(line, reason, text.as_bytes(), entries_before, report, kept);
                continue;
            }
            Err(error) => {
                parse::skip_not_json(line, text.as_bytes(), &error, entries_before, report, kept);
                continue;
            }
        };
        if facts.entry_type.as_deref() == Some("session") {
            let reason = "a second session header (Pi ignores it)".to_owned();
            parse::skip(line, reason, text.as_bytes(), entries_before, report, kept);
            continue;
        }
        match Entry::from_facts(line.entry_line(buffer), facts) {
            Ok(entry) => {
                read.entries.push(entry);
                read.lines.push(line.number);
            }
            Err(error) => {
                let reason = format!("not an entry: {error}");
                parse::skip(line, reason, text.as_bytes(), entries_before, report, kept);
            }
        }
    }
    read
}
