//! Where an entry's line is: in memory, or in the session file it was loaded from.
//!
//! Why in the file: a session's `message` lines are nearly all of its bytes (50 MB at 10,000
//! entries), and holding them in memory after a load cost more than reading them: in a fresh
//! process, which is how a person resumes, most of a load was the kernel mapping fresh pages
//! for the copy (docs/benchmarks.md, "Session benchmark"). So loading reads a version-3 file through one
//! small buffer that is reused, keeps each message line's place in the file, and the
//! context, a fork or a compaction reads the lines it needs again when it needs them. Every
//! other line is small and is copied into memory as it is read, so the tree, labels and names
//! never read the file again.
//!
//! A line is read back through the file handle the load used, so a session file renamed or
//! deleted since stays readable. A file rewritten in place since (by an editor, or a program
//! that rewrites sessions) is noticed: the line must still end where it ended, with the same
//! first and last bytes, else the read fails with [`SessionError::ChangedOnDisk`] rather than
//! hand out another entry's text.

use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Result, SessionError};

/// How many of a line's first bytes are kept to recognise it when it is read again: in Pi's
/// lines and ours they hold the type and the whole id.
const HEAD: usize = 40;
/// How many of its last bytes are kept too.
const TAIL: usize = 16;

/// Neighbouring lines in the file are read together up to this many bytes at a time.
const RUN_BYTES: u64 = 1 << 20;

/// Lines at most this far apart in the file count as neighbours (what lies between them is
/// read and passed over): a context skips a few small entries between its messages.
const RUN_GAP: u64 = 4 << 10;

/// An entry's line, without its newline.
#[derive(Clone)]
pub(crate) enum Line {
    /// A range of a shared buffer in memory.
    Memory {
        buffer: Arc<String>,
        start: usize,
        end: usize,
    },
    /// A range of the session file, read when asked for.
    File(FileLine),
}

impl Line {
    /// The bytes `start..end` of `buffer`, which must hold one line there.
    pub(crate) fn in_memory(buffer: Arc<String>, start: usize, end: usize) -> Self {
        Self::Memory { buffer, start, end }
    }

    /// `text` as a line of its own.
    pub(crate) fn whole(text: String) -> Self {
        let end = text.len();
        Self::in_memory(Arc::new(text), 0, end)
    }

    /// The line `text`, read at `offset` of `source`, left there and read again when needed.
    pub(crate) fn in_file(source: &Arc<SourceFile>, offset: u64, text: &[u8]) -> Self {
        let mut head = [0; HEAD];
        let mut tail = [0; TAIL];
        let head_len = text.len().min(HEAD);
        let tail_len = text.len().min(TAIL);
        head.get_mut(..head_len)
            .unwrap_or_default()
            .copy_from_slice(text.get(..head_len).unwrap_or_default());
        tail.get_mut(..tail_len)
            .unwrap_or_default()
            .copy_from_slice(text.get(text.len() - tail_len..).unwrap_or_default());
        Self::File(FileLine {
            source: Arc::clone(source),
            offset,
            len: text.len(),
            head,
            tail,
        })
    }

    /// The same line, if it is left in a file, read from `offset` of `source` from now on (it
    /// was copied there); a line in memory stays there.
    pub(crate) fn moved_to(self, source: &Arc<SourceFile>, offset: u64) -> Self {
        match self {
            Self::File(line) => Self::File(FileLine {
                source: Arc::clone(source),
                offset,
                ..line
            }),
            memory @ Self::Memory { .. } => memory,
        }
    }

    /// The line a [`RecordingWriter`] wrote at `offset` of `source`, read from there.
    pub(crate) fn written_in(source: &Arc<SourceFile>, offset: u64, written: WrittenLine) -> Self {
        Self::File(FileLine {
            source: Arc::clone(source),
            offset,
            len: written.len,
            head: written.head,
            tail: written.tail,
        })
    }

    /// The same line, now also written at `offset` of `source`: read from there from now on,
    /// its copy in memory let go.
    pub(crate) fn left_in(self, source: &Arc<SourceFile>, offset: u64) -> Self {
        match self.in_memory_text() {
            Some(text) => Self::in_file(source, offset, text.as_bytes()),
            None => self.moved_to(source, offset),
        }
    }

    /// Its text: borrowed when in memory, read from the file otherwise.
    pub(crate) fn text(&self) -> Result<Cow<'_, str>> {
        match self {
            Self::Memory { .. } => Ok(Cow::Borrowed(self.in_memory_text().unwrap_or_default())),
            Self::File(line) => line.read().map(Cow::Owned),
        }
    }

    /// Its text when it is in memory.
    pub(crate) fn in_memory_text(&self) -> Option<&str> {
        match self {
            Self::Memory { buffer, start, end } => buffer.get(*start..*end),
            Self::File(_) => None,
        }
    }

    /// Its length in bytes.
    pub(crate) fn len(&self) -> usize {
        match self {
            Self::Memory { start, end, .. } => end - start,
            Self::File(line) => line.len,
        }
    }
}

/// Calls `each` with every item of `items` and the text of its line (`line_of`), in order.
/// Lines in the file are read in runs of neighbours, one `pread` per run into a buffer that is
/// reused, and each is checked as [`Line::text`] checks it: a context of 10,000 messages reads
/// its 50 MB in ~50 system calls instead of 10,000 reads into 10,000 fresh buffers.
pub(crate) fn for_each_text<T>(
    items: &[T],
    line_of: impl Fn(&T) -> &Line,
    mut each: impl FnMut(&T, &str) -> Result<()>,
) -> Result<()> {
    let mut buffer = Vec::new();
    let mut rest = items;
    while let Some(first) = rest.first() {
        let Line::File(first_line) = line_of(first) else {
            each(first, line_of(first).in_memory_text().unwrap_or_default())?;
            rest = rest.get(1..).unwrap_or_default();
            continue;
        };
        // The run: the items after `first` whose lines follow it closely in the same file.
        let mut end = first_line.end();
        let run_len = 1 + rest
            .iter()
            .skip(1)
            .take_while(|item| match line_of(item) {
                Line::File(line)
                    if Arc::ptr_eq(&line.source, &first_line.source)
                        && line.offset >= end
                        && line.offset - end <= RUN_GAP
                        && line.end() - first_line.offset <= RUN_BYTES =>
                {
                    end = line.end();
                    true
                }
                _ => false,
            })
            .count();
        let (run, after) = rest.split_at(run_len.min(rest.len()));
        rest = after;
        // One byte more: the newline after the run's last line.
        let len = usize::try_from(end - first_line.offset + 1).unwrap_or(usize::MAX);
        // The buffer only grows: zeroing it again before every run wrote all of the
        // context's bytes once more (2-5% of a load + context).
        if buffer.len() < len {
            buffer.resize(len, 0);
        }
        let window = buffer.get_mut(..len).unwrap_or_default();
        let read = first_line
            .source
            .read_exact_or_less(window, first_line.offset)
            .map_err(|error| SessionError::io("read", &first_line.source.path, error))?;
        let run_bytes = window.get(..read).unwrap_or_default();
        let text = std::str::from_utf8(run_bytes).ok();
        for item in run {
            let Line::File(line) = line_of(item) else {
                continue;
            };
            let start = usize::try_from(line.offset - first_line.offset).unwrap_or(usize::MAX);
            let bytes = run_bytes.get(start..).unwrap_or_default();
            line.check(bytes)?;
            let line_text = match text.and_then(|text| text.get(start..start + line.len)) {
                Some(line_text) => line_text,
                None => std::str::from_utf8(bytes.get(..line.len).unwrap_or_default())
                    .map_err(|_| line.changed())?,
            };
            each(item, line_text)?;
        }
    }
    Ok(())
}

impl fmt::Debug for Line {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Memory { .. } => {
                fmt::Debug::fmt(self.in_memory_text().unwrap_or_default(), formatter)
            }
            Self::File(line) => write!(
                formatter,
                "<{} bytes at {} of {}>",
                line.len,
                line.offset,
                line.source.path.display()
            ),
        }
    }
}

/// What recognises a line written without being held whole: its length, first and last bytes.
pub(crate) struct WrittenLine {
    len: usize,
    head: [u8; HEAD],
    tail: [u8; TAIL],
}

impl WrittenLine {
    /// The line's length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

/// Passes a line's bytes on to `inner`, noting what [`WrittenLine`] keeps of them.
pub(crate) struct RecordingWriter<W> {
    inner: W,
    written: WrittenLine,
}

impl<W: io::Write> RecordingWriter<W> {
    pub(crate) fn new(inner: W) -> Self {
        Self {
            inner,
            written: WrittenLine {
                len: 0,
                head: [0; HEAD],
                tail: [0; TAIL],
            },
        }
    }

    /// What was written; the writer is given back.
    pub(crate) fn finish(self) -> (W, WrittenLine) {
        let mut written = self.written;
        // Fewer bytes than the tail holds: they are at its end, and are wanted at its start.
        if written.len < TAIL {
            written.tail.copy_within(TAIL - written.len.., 0);
        }
        (self.inner, written)
    }
}

impl<W: io::Write> io::Write for RecordingWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let count = self.inner.write(bytes)?;
        let bytes = bytes.get(..count).unwrap_or_default();
        let written = &mut self.written;
        if let Some(room) = written.head.get_mut(written.len.min(HEAD)..) {
            let taken = room.len().min(bytes.len());
            room.get_mut(..taken)
                .unwrap_or_default()
                .copy_from_slice(bytes.get(..taken).unwrap_or_default());
        }
        if bytes.len() >= TAIL {
            written
                .tail
                .copy_from_slice(bytes.get(bytes.len() - TAIL..).unwrap_or_default());
        } else {
            written.tail.rotate_left(bytes.len());
            written
                .tail
                .get_mut(TAIL - bytes.len()..)
                .unwrap_or_default()
                .copy_from_slice(bytes);
        }
        written.len += count;
        Ok(count)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A line left in the session file, and what recognises it there.
#[derive(Clone)]
pub(crate) struct FileLine {
    source: Arc<SourceFile>,
    offset: u64,
    len: usize,
    head: [u8; HEAD],
    tail: [u8; TAIL],
}

impl FileLine {
    /// The offset just after the line (where its newline is).
    fn end(&self) -> u64 {
        self.offset + self.len as u64
    }

    /// Reads the line again and checks it is the one loaded.
    fn read(&self) -> Result<String> {
        let mut bytes = self
            .source
            .read(self.offset, self.len + 1)
            .map_err(|error| SessionError::io("read", &self.source.path, error))?;
        self.check(&bytes)?;
        bytes.truncate(self.len);
        String::from_utf8(bytes).map_err(|_| self.changed())
    }

    /// Whether `bytes`, read at its offset, start with the line it was (and a newline or the
    /// file's end after it).
    fn check(&self, bytes: &[u8]) -> Result<()> {
        let line = bytes.get(..self.len).ok_or_else(|| self.changed())?;
        let ends = matches!(bytes.get(self.len), None | Some(b'\n'));
        let head_len = self.len.min(HEAD);
        let tail_len = self.len.min(TAIL);
        let same = line.get(..head_len) == self.head.get(..head_len)
            && line.get(self.len - tail_len..) == self.tail.get(..tail_len);
        if ends && same {
            Ok(())
        } else {
            Err(self.changed())
        }
    }

    fn changed(&self) -> SessionError {
        SessionError::ChangedOnDisk {
            path: self.source.path.clone(),
            offset: self.offset,
        }
    }
}

/// The session file lines were loaded from, open for reading them again.
#[derive(Debug)]
pub(crate) struct SourceFile {
    file: File,
    path: PathBuf,
}

impl SourceFile {
    /// `file`, opened at `path`.
    pub(crate) fn new(file: File, path: &Path) -> Self {
        Self {
            file,
            path: path.to_path_buf(),
        }
    }

    /// The open file.
    pub(crate) fn file(&self) -> &File {
        &self.file
    }

    /// Up to `len` bytes from `offset`: fewer only at the file's end.
    pub(crate) fn read(&self, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        read_at(&self.file, offset, len)
    }

    /// Fills `buffer` from `offset`, or less of it at the file's end; returns how much.
    fn read_exact_or_less(&self, buffer: &mut [u8], offset: u64) -> io::Result<usize> {
        let mut done = 0;
        while let Some(space) = buffer.get_mut(done..).filter(|space| !space.is_empty()) {
            match self.file.read_at(space, offset + done as u64) {
                Ok(0) => break,
                Ok(read) => done += read,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
        Ok(done)
    }
}

/// Up to `len` bytes of `file` from `offset` (fewer only at the file's end), read into memory
/// nothing touches first: std's positioned read wants an initialised buffer, and zeroing one
/// first (`calloc` must clear memory a previous read freed) cost ~5% of a load; rustix's
/// `pread` fills a `Vec`'s spare capacity instead.
pub(crate) fn read_at(file: &File, offset: u64, len: usize) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(len);
    while bytes.len() < len {
        let at = offset + bytes.len() as u64;
        match rustix::io::pread(file, rustix::buffer::spare_capacity(&mut bytes), at) {
            Ok(0) => break,
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => {}
            Err(error) => return Err(error.into()),
        }
    }
    // The spare capacity is `len` exactly (`with_capacity`); should an allocator's rounding
    // ever show through, what was read past `len` is not asked for.
    bytes.truncate(len);
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    #[test]
    fn a_recorded_line_is_recognised_as_one_read_from_its_text() {
        for text in ["", "ab", &"x".repeat(TAIL + 3), &"0123456789".repeat(20)] {
            let mut recording = RecordingWriter::new(Vec::new());
            // Written in uneven pieces, as a buffered serialiser hands them over.
            for piece in text.as_bytes().chunks(7) {
                io::Write::write_all(&mut recording, piece).unwrap();
            }
            let (bytes, written) = recording.finish();
            assert_eq!(bytes, text.as_bytes());
            let source = Arc::new(SourceFile::new(
                File::open("/dev/null").unwrap(),
                Path::new("/dev/null"),
            ));
            let (Line::File(recorded), Line::File(expected)) = (
                Line::written_in(&source, 0, written),
                Line::in_file(&source, 0, text.as_bytes()),
            ) else {
                panic!("not lines in a file")
            };
            assert_eq!(recorded.len, expected.len, "{text:?}");
            assert_eq!(recorded.head, expected.head, "{text:?}");
            assert_eq!(
                recorded.tail[..text.len().min(TAIL)],
                expected.tail[..text.len().min(TAIL)],
                "{text:?}"
            );
        }
    }

    /// `lines` written one per line to a file, each as a [`Line::File`] of it, with every
    /// `memory_every`-th line in memory instead.
    fn file_lines(dir: &Path, lines: &[String], memory_every: usize) -> Vec<Line> {
        let path = dir.join("lines.jsonl");
        let mut content = String::new();
        let mut offsets = Vec::new();
        for line in lines {
            offsets.push(content.len() as u64);
            content.push_str(line);
            content.push('\n');
        }
        std::fs::write(&path, &content).unwrap();
        let source = Arc::new(SourceFile::new(File::open(&path).unwrap(), &path));
        lines
            .iter()
            .zip(offsets)
            .enumerate()
            .map(|(index, (text, offset))| {
                if memory_every > 0 && index % memory_every == 0 {
                    Line::whole(text.clone())
                } else {
                    Line::in_file(&source, offset, text.as_bytes())
                }
            })
            .collect()
    }

    fn texts_in_runs(lines: &[&Line]) -> Result<Vec<String>> {
        let mut texts = Vec::new();
        for_each_text(
            lines,
            |line| line,
            |_, text| {
                texts.push(text.to_owned());
                Ok(())
            },
        )?;
        Ok(texts)
    }

    #[test]
    fn reading_in_runs_gives_each_line_as_reading_it_alone() {
        let dir = tempfile::tempdir().unwrap();
        // Short lines, lines longer than a run, a line with multi-byte characters, an empty
        // line, and lines in memory among them.
        let mut lines: Vec<String> = (0..200)
            .map(|i| format!("{{\"line\":{i},\"text\":\"é{}\"}}", "x".repeat(i * 7)))
            .collect();
        lines.insert(50, "y".repeat(3 << 20));
        lines.insert(51, String::new());
        lines.insert(120, "z".repeat((1 << 20) - 3));
        let all = file_lines(dir.path(), &lines, 9);
        // Every line, then every third (gaps bigger and smaller than a neighbour's), then in
        // reverse order (no line follows the one before it).
        let every: Vec<&Line> = all.iter().collect();
        let third: Vec<&Line> = all.iter().step_by(3).collect();
        let reversed: Vec<&Line> = all.iter().rev().collect();
        for picked in [every, third, reversed] {
            let alone: Vec<String> = picked
                .iter()
                .map(|line| line.text().unwrap().into_owned())
                .collect();
            assert_eq!(texts_in_runs(&picked).unwrap(), alone);
        }
        assert_eq!(all[50].text().unwrap(), lines[50]);
    }

    #[test]
    fn a_line_rewritten_in_place_is_refused_in_a_run_and_alone() {
        let dir = tempfile::tempdir().unwrap();
        let lines: Vec<String> = (0..20)
            .map(|i| format!("{{\"id\":\"{i:08}\",\"text\":\"same length\"}}"))
            .collect();
        let all = file_lines(dir.path(), &lines, 0);
        let path = dir.path().join("lines.jsonl");
        // Same length and the same first and last bytes are not enough to pass for line 7 when
        // another id is there: the id is in the first bytes kept.
        let content = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, content.replace("\"00000007\"", "\"00000070\"")).unwrap();
        let picked: Vec<&Line> = all.iter().collect();
        let error = texts_in_runs(&picked).unwrap_err();
        assert!(
            matches!(error, SessionError::ChangedOnDisk { offset, .. } if offset == 7 * (lines[0].len() as u64 + 1)),
            "{error}"
        );
        assert!(matches!(
            all[7].text(),
            Err(SessionError::ChangedOnDisk { .. })
        ));
        assert_eq!(all[6].text().unwrap(), lines[6]);
        // A line cut short by a truncation is refused too.
        std::fs::write(&path, &content[..content.len() - 5]).unwrap();
        assert!(matches!(
            all[19].text(),
            Err(SessionError::ChangedOnDisk { .. })
        ));
        assert!(texts_in_runs(&[&all[18], &all[19]]).is_err());
    }
}
