//! A file's lines, and the entries of a version-3 file read from them.
//!
//! The file is read in pieces that end at line ends (`text_file.rs`), each checked as UTF-8
//! once, as a whole, and its newlines found with `memchr` (SIMD) as it was read; entries keep
//! ranges of their piece's buffer. Big files are read on two threads, each taking half
//! of the lines (`halves.rs`): checking each line's JSON is nearly the whole cost of a load and
//! the lines are independent.

use std::sync::Arc;

use crate::entry::{Entry, Line};
use crate::halves;
use crate::parse::{self, KeptLine};
use crate::quick_scan;
use crate::report::LoadReport;
use crate::scan::{self, Scanned};
use crate::text_file::Piece;

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
    /// Which of the buffers [`split`] returns holds it (when it is UTF-8).
    buffer: usize,
    /// Where it starts in that buffer.
    start: usize,
    /// Its bytes, when they are not UTF-8 (and so not in a buffer).
    bad: Option<Box<[u8]>>,
}

impl RawLine {
    /// The line at `start..end` of piece `buffer`, which starts at `piece_offset` in the file,
    /// after `before` lines.
    fn at(before: usize, piece_offset: usize, buffer: usize, start: usize, end: usize) -> Self {
        Self {
            number: before + 1,
            offset: piece_offset + start,
            len: end - start,
            torn: false,
            buffer,
            start,
            bad: None,
        }
    }

    /// Its text, when it is UTF-8.
    pub(crate) fn text<'a>(&self, buffers: &'a [Arc<String>]) -> Option<&'a str> {
        self.in_buffer(buffers).map(|(_, text)| text)
    }

    /// The buffer holding it and its text there, when it is UTF-8.
    fn in_buffer<'a>(&self, buffers: &'a [Arc<String>]) -> Option<(&'a Arc<String>, &'a str)> {
        if self.bad.is_some() {
            return None;
        }
        let buffer = buffers.get(self.buffer)?;
        Some((buffer, buffer.get(self.start..self.start + self.len)?))
    }

    /// Its bytes, when they are not UTF-8.
    pub(crate) fn bad_bytes(&self) -> Option<&[u8]> {
        self.bad.as_deref()
    }

    /// Its range of `buffer` (the one holding it), as an entry's line.
    fn entry_line(&self, buffer: &Arc<String>) -> Line {
        Line::new(Arc::clone(buffer), self.start, self.start + self.len)
    }
}

/// Splits a file read as `pieces` (each but the last ending with a newline) into its lines, as
/// `split(b'\n')` of the whole would (a file ending with a newline has an empty last line),
/// and the buffers holding their text, one per piece.
pub(crate) fn split(pieces: Vec<Piece>) -> (Vec<Arc<String>>, Vec<RawLine>) {
    let count = pieces.len();
    let newlines: usize = pieces.iter().map(|piece| piece.newlines().len()).sum();
    let mut lines = Vec::with_capacity(newlines + 1);
    let mut buffers = Vec::with_capacity(count);
    let mut piece_offset = 0;
    for (index, piece) in pieces.into_iter().enumerate() {
        let bytes = piece.as_bytes();
        let first_line = lines.len();
        let mut start = 0;
        for &end in piece.newlines() {
            lines.push(RawLine::at(lines.len(), piece_offset, index, start, end));
            start = end + 1;
        }
        if index + 1 == count {
            let mut last = RawLine::at(lines.len(), piece_offset, index, start, bytes.len());
            last.torn = start < bytes.len();
            lines.push(last);
        }
        piece_offset += bytes.len();
        let piece_lines = lines.get_mut(first_line..).unwrap_or_default();
        buffers.push(Arc::new(piece_text(piece, piece_lines)));
    }
    (buffers, lines)
}

/// A piece's text, for its `lines`: the piece itself when it is all UTF-8.
fn piece_text(piece: Piece, lines: &mut [RawLine]) -> String {
    match piece.into_text() {
        Ok(text) => text,
        Err(bytes) => {
            // Rare (a crash cut a character in two, or a foreign writer): copy the UTF-8 lines
            // into a new buffer and keep the others' bytes apart.
            let mut text = String::with_capacity(bytes.len());
            for line in lines {
                let original = bytes.get(line.start..line.start + line.len);
                match original.map(std::str::from_utf8) {
                    Some(Ok(valid)) => {
                        line.start = text.len();
                        text.push_str(valid);
                        text.push('\n');
                    }
                    _ => line.bad = Some(original.unwrap_or_default().into()),
                }
            }
            text
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
pub(crate) fn read_entries(buffers: &[Arc<String>], lines: &[RawLine]) -> ReadEntries {
    halves::in_halves(
        lines,
        |line| line.len,
        |part| read_chunk(buffers, part),
        |mut first, second| {
            first.append(second);
            first
        },
    )
}

/// Reads consecutive lines as entries.
fn read_chunk(buffers: &[Arc<String>], lines: &[RawLine]) -> ReadEntries {
    let mut read = ReadEntries {
        entries: Vec::with_capacity(lines.len()),
        lines: Vec::with_capacity(lines.len()),
        ..ReadEntries::default()
    };
    for line in lines {
        let entries_before = read.entries.len();
        let (report, kept) = (&mut read.report, &mut read.kept);
        let Some((buffer, text)) = line.in_buffer(buffers) else {
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
