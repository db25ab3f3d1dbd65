//! A block's text while it streams, kept in segments so that a long answer is never copied to
//! grow.
//!
//! A `String` doubles its buffer when it fills: at 32 MiB of text it moves to a 64 MiB buffer,
//! holding 96 MiB for the copy, and keeps up to half of it unused. Segments of at most
//! [`SEGMENT`] bytes grow without moving what is written; the whole is put together once, at
//! its exact size, when the block closes. No crate of the field does this small thing without
//! bringing a rope's editing machinery, hence these few lines.

/// The most a segment takes before the next one starts (a single larger delta is its own
/// segment).
pub(super) const SEGMENT: usize = 1 << 20;

/// Text appended in pieces, read once at the end.
#[derive(Debug, Default)]
pub(super) struct SegmentedText {
    /// Full segments, in order.
    full: Vec<String>,
    /// The segment being written.
    last: String,
    /// Bytes in all of them.
    len: usize,
}

impl SegmentedText {
    /// Appends `piece`.
    pub(super) fn push_str(&mut self, piece: &str) {
        let fits = self.last.capacity() - self.last.len() >= piece.len();
        if !fits && self.last.len() + piece.len() > SEGMENT && !self.last.is_empty() {
            let next = String::with_capacity(SEGMENT.max(piece.len()));
            self.full.push(std::mem::replace(&mut self.last, next));
        }
        self.last.push_str(piece);
        self.len += piece.len();
    }

    /// The whole text. A text of one segment is handed over as it is; a longer one is copied
    /// into a buffer of its exact size, each segment let go as soon as it is copied.
    pub(super) fn into_string(self) -> String {
        if self.full.is_empty() {
            return self.last;
        }
        let mut whole = String::with_capacity(self.len);
        for segment in self.full {
            whole.push_str(&segment);
        }
        whole.push_str(&self.last);
        whole
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_comes_back_whole_and_exact_however_it_was_split() {
        for piece in [1, 7, 4096, SEGMENT - 1, SEGMENT, SEGMENT + 3, 3 * SEGMENT] {
            let text: String = (0..(5 * SEGMENT / 2 + 11))
                .map(|i| char::from(b'a' + (i % 26) as u8))
                .collect();
            let mut segmented = SegmentedText::default();
            for chunk in text.as_bytes().chunks(piece) {
                segmented.push_str(std::str::from_utf8(chunk).unwrap());
            }
            assert!(segmented.full.iter().all(|s| s.len() <= SEGMENT.max(piece)));
            let whole = segmented.into_string();
            assert_eq!(whole, text, "pieces of {piece}");
            assert_eq!(whole.capacity(), whole.len(), "pieces of {piece}");
        }
    }

    #[test]
    fn a_short_text_is_one_segment_handed_over() {
        let mut segmented = SegmentedText::default();
        segmented.push_str("hello, ");
        segmented.push_str("world");
        assert!(segmented.full.is_empty());
        assert_eq!(segmented.into_string(), "hello, world");
    }
}
