//! Where JSON strings end, for the two readers of session lines: [`checked_end`] for loading's
//! quick scan (the end, and whether every escape is one JSON allows), [`quote_or_backslash`]
//! for the context's decoder (the next stop: the closing quote or an escape to decode).
//!
//! Why not `memchr2` alone: text with code in it has an escape (a newline, a quote) every 20 to
//! 40 bytes, and for such short distances `memchr2`'s call through a function pointer and its
//! set-up cost more than the search. Bytes are compared here 16 at a time, inline, with one
//! vector compare per byte value and one byte-mask instruction (`wide`'s safe wrappers over
//! SSE2, which every x86-64 has, so no run-time check either; `unsafe_code = "forbid"` rules
//! out the intrinsics, and plain Rust does not compile to the byte mask).

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

/// Bytes of a string looked at together by [`checked_end`].
const WIDE_BLOCK: usize = 4 * BLOCK;

/// Where the JSON string whose text starts at `start` ends (the offset of its closing quote),
/// and whether it has escapes; `None` when it does not end in `bytes`, or has an escape JSON
/// does not allow or a `\u` escape of a surrogate (left to serde_json).
///
/// Why blocks of 64 bytes: stopping at each escape, as [`quote_or_backslash`] does, makes each
/// escape wait for the one before it (where it ends decides where the search goes on). Here
/// one mask of quotes and one of backslashes cover 64 bytes. In the usual block (no two
/// backslashes side by side) every backslash starts an escape whose letter is the next byte,
/// so the end is the first quote not right after a backslash and the escapes before it are
/// checked independently: load of the benchmark's 10,000-entry file 23.1-24.4 ms -> 17.9-20.0
/// ms. Other blocks take their escapes in order, each clearing the bits its letters cover.
pub(crate) fn checked_end(bytes: &[u8], start: usize) -> Option<(usize, bool)> {
    let mut at = start;
    // The first byte that is not part of an escape already read.
    let mut free_from = start;
    let mut escapes = false;
    while let Some(block) = bytes.get(at..at + WIDE_BLOCK) {
        let (quotes, backslashes) = masks(block);
        let mut covered = bits_below(free_from.saturating_sub(at));
        let (mut quotes, mut backslashes) = (quotes & !covered, backslashes & !covered);
        if let Some(usual) = UsualBlock::of(block, quotes, backslashes) {
            escapes |= usual.escapes != 0;
            if usual.end != 0 {
                return Some((at + usual.end.trailing_zeros() as usize, escapes));
            }
            at += WIDE_BLOCK;
            free_from = at;
            continue;
        }
        loop {
            let end = quotes & quotes.wrapping_neg();
            // Escapes that start before the first quote still standing.
            let pending = backslashes & end.wrapping_sub(1);
            if pending == 0 {
                if end != 0 {
                    return Some((at + end.trailing_zeros() as usize, escapes));
                }
                break;
            }
            let backslash = at + pending.trailing_zeros() as usize;
            free_from = backslash + 1 + escape_length(bytes, backslash + 1)?;
            escapes = true;
            covered = bits_below(free_from.saturating_sub(at));
            quotes &= !covered;
            backslashes &= !covered;
        }
        at += WIDE_BLOCK;
    }
    // Less than a block left: one stop at a time.
    let mut at = free_from;
    loop {
        at = quote_or_backslash(bytes, at)?;
        if bytes.get(at) == Some(&b'"') {
            return Some((at, escapes));
        }
        escapes = true;
        at += 1 + escape_length(bytes, at + 1)?;
    }
}

/// A block of [`WIDE_BLOCK`] bytes of a string in which every escape is a backslash and one
/// letter JSON allows (no `\u`), no two backslashes are side by side and the last byte is not
/// one: then each backslash starts an escape whose letter is the next byte, and the string's
/// end is the first quote not right after a backslash. Its escapes are checked independently
/// of each other (no escape's end decides where the next one starts).
struct UsualBlock {
    /// The bit of the string's closing quote; 0 when it goes on past the block.
    end: u64,
    /// The bits of the backslashes of the escapes before the end.
    escapes: u64,
}

impl UsualBlock {
    /// `block` (with its `quotes` and `backslashes` masks, less any bytes an escape from the
    /// block before covers) when it is a usual block.
    fn of(block: &[u8], quotes: u64, backslashes: u64) -> Option<Self> {
        if backslashes & (backslashes << 1 | 1 << 63) != 0 {
            return None;
        }
        let standing = quotes & !(backslashes << 1);
        let end = standing & standing.wrapping_neg();
        let escapes = backslashes & end.wrapping_sub(1);
        let mut pending = escapes;
        let mut simple = true;
        while pending != 0 {
            let letter = block.get(pending.trailing_zeros() as usize + 1).copied();
            let meaning = letter.map_or(0, escaped);
            simple &= meaning != 0 && meaning != UNICODE_ESCAPE;
            pending &= pending - 1;
        }
        simple.then_some(Self { end, escapes })
    }
}

/// The length of the escape whose letter is at `at` (after a backslash): 1, or 5 for `\u` and
/// its four hex digits. `None` for a letter JSON does not allow, bad hex digits, and a
/// surrogate (a pair, or a lone half serde_json refuses), which serde_json decides.
fn escape_length(bytes: &[u8], at: usize) -> Option<usize> {
    match escaped(*bytes.get(at)?) {
        0 => None,
        UNICODE_ESCAPE => {
            let hex = bytes.get(at + 1..at + 5)?;
            let mut code = 0;
            for &digit in hex {
                code = code * 16 + char::from(digit).to_digit(16)?;
            }
            (!(0xD800..=0xDFFF).contains(&code)).then_some(5)
        }
        _ => Some(1),
    }
}

/// The bits of a 64-bit mask below bit `count` (all of them from 64 on).
fn bits_below(count: usize) -> u64 {
    match u32::try_from(count) {
        Ok(count) if count < u64::BITS => (1 << count) - 1,
        _ => u64::MAX,
    }
}

/// Bit `i` set where `block`'s byte `i` is a quote, and where it is a backslash.
#[inline]
fn masks(block: &[u8]) -> (u64, u64) {
    let quote = u8x16::splat(b'"');
    let backslash = u8x16::splat(b'\\');
    let (mut quotes, mut backslashes) = (0, 0);
    for (index, chunk) in block.chunks_exact(BLOCK).enumerate() {
        let Ok(chunk) = <[u8; BLOCK]>::try_from(chunk) else {
            continue;
        };
        let chunk = u8x16::new(chunk);
        // `move_mask` sets the low 16 bits, one per byte.
        let shift = index * BLOCK;
        quotes |= u64::from(chunk.cmp_eq(quote).move_mask() as u16) << shift;
        backslashes |= u64::from(chunk.cmp_eq(backslash).move_mask() as u16) << shift;
    }
    (quotes, backslashes)
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

    /// The plain way: one stop at a time.
    fn end_stop_by_stop(bytes: &[u8], start: usize) -> Option<(usize, bool)> {
        let mut at = start;
        let mut escapes = false;
        loop {
            at += memchr::memchr2(b'"', b'\\', bytes.get(at..)?)?;
            if bytes.get(at) == Some(&b'"') {
                return Some((at, escapes));
            }
            escapes = true;
            at += 1 + escape_length(bytes, at + 1)?;
        }
    }

    proptest! {
        /// Blocks find the end a stop at a time would, refuse what it refuses, across block
        /// boundaries (escapes split by them included) and in the tail.
        #[test]
        fn a_string_ends_where_one_stop_at_a_time_ends_it(
            pieces in proptest::collection::vec(
                prop_oneof![
                    Just("a"), Just("\""), Just("\\\""), Just("\\\\"), Just("\\n"),
                    Just("\\u00e9"), Just("\\ud800"), Just("\\x"), Just("\\u12"), Just("é"),
                    Just("bcdefghijklmnopqrstuvwxyz0123456789"),
                ],
                0..60,
            ),
        ) {
            let text: String = pieces.concat();
            let bytes = text.as_bytes();
            for start in 0..bytes.len().min(70) {
                prop_assert_eq!(
                    checked_end(bytes, start),
                    end_stop_by_stop(bytes, start),
                    "{} from {}", text, start
                );
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
