//! Finding the next `"` or `\` in a JSON string: every string read in this crate stops there,
//! at its closing quote or at an escape.
//!
//! Why not `memchr2` alone: text with code in it has an escape (a newline, a quote) every 20 to
//! 40 bytes, and for such short distances `memchr2`'s call through a function pointer and its
//! set-up cost more than the search. The first [`INLINE_BLOCKS`] blocks of 16 bytes are looked
//! at here, inline, with one vector compare per byte value and one byte-mask instruction
//! (`wide`'s safe wrappers over SSE2, which every x86-64 has, so no run-time check either);
//! past them the string is long and plain, and `memchr2`'s wider loop is the faster one.

use wide::u8x16;

/// Bytes compared at once.
const BLOCK: usize = 16;

/// Blocks looked at inline before handing the rest to `memchr2`.
const INLINE_BLOCKS: usize = 4;

/// The offset of the first `"` or `\` in `bytes` at or after `from`.
#[inline]
pub(crate) fn quote_or_backslash(bytes: &[u8], from: usize) -> Option<usize> {
    let quote = u8x16::splat(b'"');
    let backslash = u8x16::splat(b'\\');
    let mut at = from;
    for _ in 0..INLINE_BLOCKS {
        let Some(block) = bytes
            .get(at..at + BLOCK)
            .and_then(|block| <[u8; BLOCK]>::try_from(block).ok())
        else {
            // Less than a block left: a plain loop.
            let tail = bytes.get(at..)?;
            return tail
                .iter()
                .position(|&byte| byte == b'"' || byte == b'\\')
                .map(|found| at + found);
        };
        let block = u8x16::new(block);
        let mask = (block.cmp_eq(quote) | block.cmp_eq(backslash)).move_mask();
        if mask != 0 {
            return Some(at + mask.trailing_zeros() as usize);
        }
        at += BLOCK;
    }
    memchr::memchr2(b'"', b'\\', bytes.get(at..)?).map(|found| at + found)
}

/// What [`escaped`] answers for `\u`, whose four hex digits follow.
pub(crate) const UNICODE_ESCAPE: u8 = 0xFF;

/// What the byte after a backslash stands for, from a table: `n` a newline, `"` a quote and so
/// on (the decoded byte, always ASCII), [`UNICODE_ESCAPE`] for `u`, and 0 for a byte no escape
/// starts with. A `match` on the letter compiled to an indirect jump through a table of
/// addresses, and which escape comes next in text is anybody's guess: that jump was ~20% of
/// a load of text full of escapes. Here the usual answer takes the same branch every time.
#[inline]
pub(crate) fn escaped(letter: u8) -> u8 {
    ESCAPES.get(usize::from(letter)).copied().unwrap_or(0)
}

#[allow(
    clippy::indexing_slicing,
    reason = "built at compile time: an index out of bounds fails the build, never a run"
)]
const ESCAPES: [u8; 256] = {
    let mut table = [0; 256];
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'/' as usize] = b'/';
    table[b'b' as usize] = 0x08;
    table[b'f' as usize] = 0x0C;
    table[b'n' as usize] = b'\n';
    table[b'r' as usize] = b'\r';
    table[b't' as usize] = b'\t';
    table[b'u' as usize] = UNICODE_ESCAPE;
    table
};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The table says what serde_json decodes each escape to, and refuses what it refuses.
    #[test]
    fn each_escape_means_what_json_says() {
        for letter in 0..=u8::MAX {
            let json = format!("\"\\{}\"", char::from(letter));
            let decoded: Result<String, _> = serde_json::from_str(&json);
            match escaped(letter) {
                0 => assert!(decoded.is_err(), "{json}"),
                UNICODE_ESCAPE => assert_eq!(letter, b'u'),
                byte => assert_eq!(decoded.unwrap(), char::from(byte).to_string(), "{json}"),
            }
        }
    }

    proptest! {
        /// The same answer as `memchr2` from every offset, for texts short and long (past the
        /// inline blocks), with the two bytes anywhere, multi-byte characters among them.
        #[test]
        fn finds_what_memchr2_finds(
            pieces in proptest::collection::vec(
                prop_oneof![Just("a"), Just("\""), Just("\\"), Just("é"), Just("bcdefghijklmnop")],
                0..40,
            ),
        ) {
            let text: String = pieces.concat();
            let bytes = text.as_bytes();
            for from in 0..=bytes.len() + 1 {
                let expected = bytes
                    .get(from..)
                    .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
                    .map(|found| from + found);
                prop_assert_eq!(quote_or_backslash(bytes, from), expected, "{} from {}", text, from);
            }
        }
    }
}
