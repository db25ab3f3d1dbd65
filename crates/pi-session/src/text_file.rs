//! Reading a whole session file into memory as text, in pieces that each end at a line end.
//!
//! Why pieces: at 50 MB, copying the file out of the page cache into fresh memory was most of
//! a load (one `read` of a 52 MB file took ~32 ms here, mostly the kernel faulting in the
//! buffer's pages, and checking it as UTF-8 another ~8 ms, both on one core). A big file is
//! read as two pieces on two threads, split just after a newline near its middle, and each
//! thread checks its own piece as UTF-8 and finds its newlines: no line straddles two pieces,
//! and a newline is never inside a multi-byte character, so each piece is valid text on its
//! own when the file is. Reading in pieces small enough to stay in a core's cache was tried
//! and was slower (load at 10,000 entries ~15 ms -> ~30 ms): each small buffer is zeroed and
//! faulted in by the program before the read instead of by the kernel during it.
//!
//! A file that changes while it is read (another program appending or rewriting it) is read
//! again from the start in one piece, as a plain `read` would have seen it.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::string::FromUtf8Error;

use crate::halves;

/// From this many bytes on, a file is read in two pieces on two threads; below it, a thread
/// costs more than it saves.
const SPLIT_BYTES: u64 = 4 << 20;

/// How much is read at a time while looking for the newline to split at.
const PROBE_BYTES: usize = 64 << 10;

/// A part of a file: its text (or its bytes when they are not all UTF-8) and where its
/// newlines are, found by the thread that read it.
#[derive(Debug)]
pub(crate) struct Piece {
    text: Result<String, FromUtf8Error>,
    newlines: Vec<usize>,
}

impl Piece {
    fn new(bytes: Vec<u8>) -> Self {
        let newlines = memchr::memchr_iter(b'\n', &bytes).collect();
        Self {
            text: String::from_utf8(bytes),
            newlines,
        }
    }

    /// Its bytes.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match &self.text {
            Ok(text) => text.as_bytes(),
            Err(error) => error.as_bytes(),
        }
    }

    /// The offsets of its newlines, in order.
    pub(crate) fn newlines(&self) -> &[usize] {
        &self.newlines
    }

    /// Its text, or its bytes when they are not all UTF-8.
    pub(crate) fn into_text(self) -> Result<String, Vec<u8>> {
        self.text.map_err(FromUtf8Error::into_bytes)
    }
}

/// The whole of `file`, which must be positioned at its start, in pieces in file order: every
/// piece but the last ends with a newline.
pub(crate) fn read_pieces(file: &File) -> io::Result<Vec<Piece>> {
    let len = file.metadata()?.len();
    if len < SPLIT_BYTES || !halves::two_cores() {
        return read_in_one_piece(file, len);
    }
    let Some(split) = line_end_after(file, len / 2, len)? else {
        return read_in_one_piece(file, len);
    };
    let (first, second) = halves::on_two_threads(
        || read_piece(file, 0, split),
        || read_piece(file, split, len - split),
    );
    match (first, second) {
        // Nothing after the length read above: the file did not grow meanwhile.
        (Ok(first), Ok(second)) if file.read_at(&mut [0], len)? == 0 => Ok(vec![first, second]),
        (Err(error), _) | (_, Err(error)) if error.kind() != io::ErrorKind::UnexpectedEof => {
            Err(error)
        }
        // It grew or shrank while it was read: read it again as it is now.
        _ => {
            (&*file).seek(SeekFrom::Start(0))?;
            read_in_one_piece(file, len)
        }
    }
}

fn read_in_one_piece(mut file: &File, len: u64) -> io::Result<Vec<Piece>> {
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    Ok(vec![Piece::new(bytes)])
}

/// The `len` bytes of `file` from `offset`, read into memory nothing touches before the read:
/// std's positioned read wants an initialised buffer, and zeroing one first (`calloc` must
/// clear memory a previous load freed) cost ~5% of a load; rustix's `pread` fills a `Vec`'s
/// spare capacity instead.
fn read_piece(file: &File, offset: u64, len: u64) -> io::Result<Piece> {
    let len = usize::try_from(len).map_err(|_| io::ErrorKind::OutOfMemory)?;
    let mut bytes = Vec::with_capacity(len);
    while bytes.len() < len {
        let at = offset + bytes.len() as u64;
        match rustix::io::pread(file, rustix::buffer::spare_capacity(&mut bytes), at) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => {}
            Err(error) => return Err(error.into()),
        }
    }
    // The spare capacity is `len` exactly (`with_capacity`); should an allocator's rounding
    // ever show through, what was read past the piece is not part of it.
    bytes.truncate(len);
    Ok(Piece::new(bytes))
}

/// The offset just after the first newline at or after `from`, if it is before `len`.
fn line_end_after(file: &File, from: u64, len: u64) -> io::Result<Option<u64>> {
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

    /// The pieces put together, after checking where each one's newlines are.
    fn joined(pieces: &[Piece]) -> Vec<u8> {
        for piece in pieces {
            let newlines: Vec<usize> = memchr::memchr_iter(b'\n', piece.as_bytes()).collect();
            assert_eq!(piece.newlines(), newlines);
        }
        pieces
            .iter()
            .flat_map(|piece| piece.as_bytes().to_vec())
            .collect()
    }

    fn file_with(bytes: &[u8]) -> (tempfile::NamedTempFile, File) {
        let mut temp = tempfile::NamedTempFile::new().unwrap();
        temp.write_all(bytes).unwrap();
        let file = File::open(temp.path()).unwrap();
        (temp, file)
    }

    #[test]
    fn a_big_file_is_read_in_pieces_that_end_at_line_ends() {
        // Lines of several lengths, with multi-byte characters around the middle.
        let mut bytes = Vec::new();
        let mut index = 0;
        while (bytes.len() as u64) < SPLIT_BYTES + 1000 {
            bytes.extend(
                format!(
                    "{{\"n\":{index},\"text\":\"é{}ü\"}}\n",
                    "x".repeat(index % 997)
                )
                .bytes(),
            );
            index += 1;
        }
        let (_temp, file) = file_with(&bytes);
        let pieces = read_pieces(&file).unwrap();
        assert_eq!(joined(&pieces), bytes);
        assert_eq!(pieces.len(), if halves::two_cores() { 2 } else { 1 });
        for piece in &pieces {
            assert_eq!(piece.as_bytes().last(), Some(&b'\n'));
            assert!(piece.text.is_ok(), "each piece is whole text");
        }
    }

    #[test]
    fn a_big_file_with_one_long_line_after_its_middle_stays_whole() {
        let mut bytes = b"{}\n".to_vec();
        bytes.extend(std::iter::repeat_n(
            b'a',
            usize::try_from(SPLIT_BYTES).unwrap(),
        ));
        let (_temp, file) = file_with(&bytes);
        let pieces = read_pieces(&file).unwrap();
        assert_eq!(pieces.len(), 1);
        assert_eq!(joined(&pieces), bytes);
    }

    #[test]
    fn bytes_that_are_not_utf8_stay_in_their_piece() {
        let mut bytes = b"ok\n\xff\xfe\n".to_vec();
        bytes.extend(b"{}\n".repeat(usize::try_from(SPLIT_BYTES).unwrap() / 3 + 1));
        let (_temp, file) = file_with(&bytes);
        let pieces = read_pieces(&file).unwrap();
        assert_eq!(joined(&pieces), bytes);
        assert!(pieces.first().unwrap().text.is_err());
        assert_eq!(pieces.last().unwrap().text.is_ok(), pieces.len() == 2);
    }

    #[test]
    fn a_piece_is_its_range_and_a_range_past_the_end_is_an_early_end() {
        let (_temp, file) = file_with(b"{}\n{\"a\":1}\n{\"b\":2}\n");
        let piece = read_piece(&file, 3, 8).unwrap();
        assert_eq!(piece.as_bytes(), b"{\"a\":1}\n");
        assert_eq!(piece.newlines(), [7]);
        // A file that shrank after its length was taken.
        let error = read_piece(&file, 3, 100).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn a_small_file_is_one_piece() {
        let (_temp, file) = file_with(b"{}\n{\"a\":1}");
        let pieces = read_pieces(&file).unwrap();
        assert_eq!(pieces.len(), 1);
        assert_eq!(joined(&pieces), b"{}\n{\"a\":1}");
    }
}
