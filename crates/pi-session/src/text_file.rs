//! Reading a session file line by line through one small buffer that is reused.
//!
//! Why not the whole file at once: at 50 MB, reading the file into fresh memory was most of a
//! load in a fresh process (the kernel maps one fresh page per 4 KB of the copy: ~14,900 page
//! faults, 49 ms of system time in an 89 ms process). A buffer of [`BUFFER_BYTES`], reused
//! for every part of the file, is faulted in once and stays in the core's cache. Each part
//! read ends at its last newline; what follows is moved to the buffer's start and read on with
//! the next part, and a line longer than the buffer grows it. A part's complete lines are
//! checked as UTF-8 at once, and its newlines found with `memchr`.
//!
//! Reading goes to the file's end as it is when reached, not to a length taken before: lines
//! another program appends meanwhile are read, as a plain `read` would have read them.

use std::fs::File;
use std::io;
use std::ops::ControlFlow;
use std::os::unix::fs::FileExt;

/// The reading buffer's size: big enough that a system call per part costs little beside the
/// work on its lines (a 5 MB file is ~85 reads), small enough to stay in a core's L2 cache
/// between the read and the scan, and little fresh memory: with 1 MiB, a fresh process
/// faulted in 256 pages per buffer (three buffers: the header's and one per half), and a load
/// of 1,000 entries took 2.8 ms instead of 2.0-2.2 ms (fresh processes taking turns, best of
/// 8; 10,000 entries: no change).
pub(crate) const BUFFER_BYTES: usize = 64 << 10;

/// The longest line a session file may have, in bytes (without its newline): 128 MiB. A
/// longer line makes opening, listing or reading the file fail with
/// [`SessionError::LineTooLong`](crate::SessionError::LineTooLong) naming the line, after
/// holding at most this many of its bytes (a 1 GB line took 3 GB before). Far above what a
/// session writes: a model response is at most 32 MiB by default, a tool result 16 MiB.
pub const MAX_LINE_BYTES: usize = 128 << 20;

/// How much is read at a time while looking for a newline to split a file at.
const PROBE_BYTES: usize = 64 << 10;

/// Why lines could not be read.
#[derive(Debug)]
pub(crate) enum ReadLinesError {
    /// A system call failed.
    Io(io::Error),
    /// The line with this 1-based number is longer than [`MAX_LINE_BYTES`]; reading
    /// stopped there, having held at most that many bytes of it.
    LineTooLong(usize),
}

impl From<io::Error> for ReadLinesError {
    fn from(error: io::Error) -> Self {
        Self::Io(error)
    }
}

/// One line of the file, without its newline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawLine {
    /// 1-based line number.
    pub(crate) number: usize,
    /// Byte offset of its start in the file.
    pub(crate) offset: u64,
    /// Its length in bytes.
    pub(crate) len: usize,
    /// It is the file's last line and has no newline after it.
    pub(crate) torn: bool,
}

/// A line's content: its text, or its bytes when they are not UTF-8.
pub(crate) type LineText<'a> = Result<&'a str, &'a [u8]>;

/// Where a reading of lines stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReadEnd {
    /// The offset just after the last line visited (with its newline, if it has one).
    pub(crate) end: u64,
    /// How many lines were visited.
    pub(crate) lines: usize,
    /// The last byte of the last line visited, or its newline.
    pub(crate) last_byte: Option<u8>,
}

/// Calls `each` on every line of `file` from `start` (which must be a line's start) up to
/// `limit` (a line's start too; `None`: the file's end), in order, numbering them from
/// `lines_before + 1`, until `each` breaks (the line it breaks on counts as visited).
pub(crate) fn for_each_line(
    file: &File,
    start: u64,
    limit: Option<u64>,
    lines_before: usize,
    each: impl FnMut(RawLine, LineText<'_>) -> ControlFlow<()>,
) -> Result<ReadEnd, ReadLinesError> {
    for_each_line_within(file, start, limit, lines_before, MAX_LINE_BYTES, each)
}

/// [`for_each_line`] with lines of at most `max_line` bytes (tests use small ones).
pub(crate) fn for_each_line_within(
    file: &File,
    start: u64,
    limit: Option<u64>,
    lines_before: usize,
    max_line: usize,
    mut each: impl FnMut(RawLine, LineText<'_>) -> ControlFlow<()>,
) -> Result<ReadEnd, ReadLinesError> {
    // One byte more than a line may have, so that a line of `max_line` bytes and its
    // newline fit.
    let most = max_line.saturating_add(1);
    let mut buffer = vec![0; BUFFER_BYTES.min(most)];
    // The file offset of `buffer[0]`, and how many bytes of it hold file content.
    let mut buffer_offset = start;
    let mut filled = 0;
    let mut at_end = false;
    let mut read_end = ReadEnd {
        end: start,
        lines: 0,
        last_byte: None,
    };
    loop {
        while filled < buffer.len() && !at_end {
            let left = limit.map_or(usize::MAX, |limit| {
                usize::try_from(limit.saturating_sub(buffer_offset + filled as u64))
                    .unwrap_or(usize::MAX)
            });
            let room = (buffer.len() - filled).min(left);
            let Some(space) = buffer
                .get_mut(filled..filled + room)
                .filter(|s| !s.is_empty())
            else {
                at_end = true;
                break;
            };
            match file.read_at(space, buffer_offset + filled as u64) {
                Ok(0) => at_end = true,
                Ok(read) => filled += read,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error.into()),
            }
        }
        let content = buffer.get(..filled).unwrap_or_default();
        let complete = if at_end {
            filled
        } else {
            match memchr::memrchr(b'\n', content) {
                Some(newline) => newline + 1,
                None => {
                    // The buffer holds only the start of one line (what came before it was
                    // moved out). Its end is found first, reading ahead without keeping: a
                    // line over the limit is refused having held no more than the buffer,
                    // and one within it is read on into a buffer of its size, grown once.
                    let searched = buffer_offset + filled as u64;
                    let stop = buffer_offset.saturating_add(most as u64);
                    let length = match line_end(file, searched, limit, stop)? {
                        Some(end) => usize::try_from(end - buffer_offset).unwrap_or(usize::MAX),
                        None => usize::MAX,
                    };
                    if length > max_line {
                        return Err(ReadLinesError::LineTooLong(
                            lines_before + read_end.lines + 1,
                        ));
                    }
                    // Room for the line and its newline; never smaller than it was.
                    let size = length.saturating_add(1).max(buffer.len());
                    buffer.resize(size, 0);
                    continue;
                }
            }
        };
        let part = content.get(..complete).unwrap_or_default();
        let flow = visit_lines(
            part,
            buffer_offset,
            at_end,
            lines_before,
            &mut read_end,
            &mut each,
        );
        if flow.is_break() || at_end {
            return Ok(read_end);
        }
        buffer.copy_within(complete..filled, 0);
        buffer_offset += complete as u64;
        filled -= complete;
    }
}

/// Visits the lines of `part`, which starts at `offset` of the file and ends with a newline
/// unless it is the file's end (`at_end`; then what follows its last newline is a torn line).
fn visit_lines(
    part: &[u8],
    offset: u64,
    at_end: bool,
    lines_before: usize,
    read_end: &mut ReadEnd,
    each: &mut impl FnMut(RawLine, LineText<'_>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    // Checked as UTF-8 at once; each line's own check only when the part is not all text
    // (a crash cut a character in two, or a foreign writer).
    let text = std::str::from_utf8(part).ok();
    let mut visit = |start: usize, end: usize, torn: bool| {
        let bytes = part.get(start..end).unwrap_or_default();
        let line = RawLine {
            number: lines_before + read_end.lines + 1,
            offset: offset + start as u64,
            len: end - start,
            torn,
        };
        read_end.lines += 1;
        read_end.end = offset + end as u64 + u64::from(!torn);
        read_end.last_byte = if torn {
            bytes.last().copied()
        } else {
            Some(b'\n')
        };
        let line_text = match text.and_then(|text| text.get(start..end)) {
            Some(line_text) => Ok(line_text),
            None => std::str::from_utf8(bytes).map_err(|_| bytes),
        };
        each(line, line_text)
    };
    let mut start = 0;
    for newline in memchr::memchr_iter(b'\n', part) {
        visit(start, newline, false)?;
        start = newline + 1;
    }
    if at_end && start < part.len() {
        visit(start, part.len(), true)?;
    }
    ControlFlow::Continue(())
}

/// Where the line that goes on at `from` ends: the offset of its newline, or of the file's end
/// (or `limit`) when it has none; `None` when it goes on to `stop` or beyond.
fn line_end(file: &File, from: u64, limit: Option<u64>, stop: u64) -> io::Result<Option<u64>> {
    let mut probe = vec![0; PROBE_BYTES];
    let mut offset = from;
    let end = limit.map_or(stop, |limit| limit.min(stop));
    while offset < end {
        let want = usize::try_from(end - offset).map_or(PROBE_BYTES, |left| left.min(PROBE_BYTES));
        let chunk = match probe.get_mut(..want) {
            Some(chunk) => chunk,
            None => &mut probe,
        };
        let read = match file.read_at(chunk, offset) {
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        let Some(chunk) = chunk.get(..read).filter(|chunk| !chunk.is_empty()) else {
            return Ok(Some(offset));
        };
        if let Some(newline) = memchr::memchr(b'\n', chunk) {
            return Ok(Some(offset + newline as u64));
        }
        offset += read as u64;
    }
    // The limit of a range ends the line there; `stop` means it is too long.
    Ok(limit
        .filter(|&limit| limit <= stop && offset >= limit)
        .map(|_| offset))
}

/// The offset just after the first newline at or after `from`, if it is before `len`.
pub(crate) fn line_end_after(file: &File, from: u64, len: u64) -> io::Result<Option<u64>> {
    let mut probe = vec![0; PROBE_BYTES];
    let mut offset = from;
    while offset < len {
        let read = file.read_at(&mut probe, offset)?;
        let Some(chunk) = probe.get(..read).filter(|chunk| !chunk.is_empty()) else {
            return Ok(None);
        };
        if let Some(newline) = memchr::memchr(b'\n', chunk) {
            let end = offset + newline as u64 + 1;
            return Ok((end < len).then_some(end));
        }
        offset += read as u64;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_with(bytes: &[u8]) -> (tempfile::NamedTempFile, File) {
        let mut temp = tempfile::NamedTempFile::new().unwrap();
        temp.write_all(bytes).unwrap();
        let file = File::open(temp.path()).unwrap();
        (temp, file)
    }

    /// One visited line with its text, or its bytes when they are not UTF-8.
    type SeenLine = (RawLine, Result<String, Vec<u8>>);

    /// Every line visited from `start` to `limit`, and the end.
    fn lines_of(file: &File, start: u64, limit: Option<u64>) -> (Vec<SeenLine>, ReadEnd) {
        let mut seen = Vec::new();
        let end = for_each_line(file, start, limit, 0, |line, text| {
            seen.push((line, text.map(str::to_owned).map_err(<[u8]>::to_vec)));
            ControlFlow::Continue(())
        })
        .unwrap();
        (seen, end)
    }

    /// What splitting the whole file's bytes on newlines gives (a file ending with a newline
    /// has no empty last line here).
    fn expected(bytes: &[u8]) -> Vec<(u64, Vec<u8>, bool)> {
        let mut lines = Vec::new();
        let mut offset = 0;
        for piece in bytes.split_inclusive(|&byte| byte == b'\n') {
            let torn = piece.last() != Some(&b'\n');
            let line = piece.strip_suffix(b"\n").unwrap_or(piece);
            lines.push((offset, line.to_vec(), torn));
            offset += piece.len() as u64;
        }
        lines
    }

    fn as_expected(seen: &[(RawLine, Result<String, Vec<u8>>)]) -> Vec<(u64, Vec<u8>, bool)> {
        seen.iter()
            .map(|(line, text)| {
                let bytes = match text {
                    Ok(text) => text.as_bytes().to_vec(),
                    Err(bytes) => bytes.clone(),
                };
                assert_eq!(bytes.len(), line.len);
                (line.offset, bytes, line.torn)
            })
            .collect()
    }

    #[test]
    fn lines_longer_than_the_buffer_and_across_its_parts_are_read_whole() {
        let mut bytes = Vec::new();
        let mut index = 0;
        while bytes.len() < 3 * BUFFER_BYTES {
            let len = if index == 7 {
                BUFFER_BYTES * 2 + 5
            } else {
                index * 997 % 9000
            };
            bytes.extend(format!("{{\"n\":{index},\"t\":\"é{}ü\"}}\n", "x".repeat(len)).bytes());
            index += 1;
        }
        bytes.extend(b"{\"torn\":");
        let (_temp, file) = file_with(&bytes);
        let (seen, end) = lines_of(&file, 0, None);
        assert_eq!(as_expected(&seen), expected(&bytes));
        assert!(seen.iter().all(|(_, text)| text.is_ok()));
        let numbers: Vec<usize> = seen.iter().map(|(line, _)| line.number).collect();
        assert_eq!(numbers, (1..=seen.len()).collect::<Vec<_>>());
        assert_eq!(end.end, bytes.len() as u64);
        assert_eq!(end.lines, seen.len());
        assert_eq!(end.last_byte, Some(b':'));
    }

    #[test]
    fn a_limit_and_a_start_read_only_their_range() {
        let bytes = b"{}\n{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n";
        let (_temp, file) = file_with(bytes);
        let (seen, end) = lines_of(&file, 3, Some(19));
        let texts: Vec<_> = seen.iter().map(|(_, text)| text.clone().unwrap()).collect();
        assert_eq!(texts, ["{\"a\":1}", "{\"b\":2}"]);
        assert_eq!(seen[1].0.offset, 11);
        assert_eq!((end.end, end.lines, end.last_byte), (19, 2, Some(b'\n')));
    }

    #[test]
    fn a_line_that_is_not_utf8_is_given_as_bytes_and_the_others_as_text() {
        let bytes = b"ok\n\xff\xfe\nfine\n\xe2\x82";
        let (_temp, file) = file_with(bytes);
        let (seen, _) = lines_of(&file, 0, None);
        assert_eq!(as_expected(&seen), expected(bytes));
        let is_text: Vec<bool> = seen.iter().map(|(_, text)| text.is_ok()).collect();
        assert_eq!(is_text, [true, false, true, false]);
    }

    #[test]
    fn breaking_stops_after_that_line() {
        let bytes = b"\n  \n{\"type\":\"session\"}\n{}\n";
        let (_temp, file) = file_with(bytes);
        let mut visited = 0;
        let end = for_each_line(&file, 0, None, 0, |_, text| {
            visited += 1;
            if text.unwrap().starts_with('{') {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .unwrap();
        assert_eq!(visited, 3);
        assert_eq!((end.end, end.lines), (23, 3));
    }

    #[test]
    fn a_line_over_the_limit_stops_the_reading_and_is_named() {
        let bytes = b"{}\n0123456789\n0123456789a\n{}\n";
        let (_temp, file) = file_with(bytes);
        let mut seen = 0;
        let result = for_each_line_within(&file, 0, None, 4, 10, |_, _| {
            seen += 1;
            ControlFlow::Continue(())
        });
        assert!(
            matches!(result, Err(ReadLinesError::LineTooLong(7))),
            "{result:?}"
        );
        assert_eq!(seen, 2, "the lines before it were read");
        // A torn last line over the limit too.
        let (_temp, file) = file_with(b"{}\n0123456789abc");
        let result = for_each_line_within(&file, 0, None, 0, 10, |_, _| ControlFlow::Continue(()));
        assert!(
            matches!(result, Err(ReadLinesError::LineTooLong(2))),
            "{result:?}"
        );
    }

    #[test]
    fn an_empty_range_has_no_lines() {
        let (_temp, file) = file_with(b"");
        let (seen, end) = lines_of(&file, 0, None);
        assert!(seen.is_empty());
        assert_eq!((end.end, end.lines, end.last_byte), (0, 0, None));
    }

    #[test]
    fn a_split_is_after_a_newline_before_the_end() {
        let (_temp, file) = file_with(b"{}\n{\"a\":1}\n{\"b\":2}");
        assert_eq!(line_end_after(&file, 4, 18).unwrap(), Some(11));
        assert_eq!(line_end_after(&file, 12, 18).unwrap(), None);
    }
}
