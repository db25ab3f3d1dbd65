//! JSONL input with a bound on each line: a line longer than the limit is answered as too long
//! (and skipped without being held in memory) instead of growing a buffer until the process
//! runs out of memory.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// The longest input line read whole: 16 MiB.
pub(crate) const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// One input line.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// The line, without its `\n` (and `\r`).
    Whole(Vec<u8>),
    /// A line over the limit, of this many bytes; its content was dropped.
    TooLong(usize),
}

/// Reads lines of at most `limit` bytes from `input`.
pub(crate) struct BoundedLines<R> {
    input: R,
    limit: usize,
}

impl<R: AsyncBufRead + Unpin> BoundedLines<R> {
    pub(crate) fn new(input: R, limit: usize) -> Self {
        Self { input, limit }
    }

    /// The next line; `None` at the end of the input.
    pub(crate) async fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        let mut line = Vec::new();
        let mut length = 0_usize;
        let mut any = false;
        loop {
            let buffer = self.input.fill_buf().await?;
            if buffer.is_empty() {
                return Ok(any.then(|| finish(line, length, self.limit)));
            }
            any = true;
            let (chunk, ended) = match buffer.iter().position(|byte| *byte == b'\n') {
                Some(end) => (buffer.get(..end).unwrap_or_default(), true),
                None => (buffer, false),
            };
            length = length.saturating_add(chunk.len());
            if length <= self.limit {
                line.extend_from_slice(chunk);
            } else if !line.is_empty() {
                // Over the limit: stop holding the line.
                line = Vec::new();
            }
            let consumed = chunk.len() + usize::from(ended);
            self.input.consume(consumed);
            if ended {
                return Ok(Some(finish(line, length, self.limit)));
            }
        }
    }
}

fn finish(mut line: Vec<u8>, length: usize, limit: usize) -> Line {
    if length > limit {
        return Line::TooLong(length);
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Line::Whole(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn long_lines_are_named_and_dropped_the_rest_kept() {
        let input: &[u8] = b"short\r\n0123456789abc\nlast";
        let mut lines = BoundedLines::new(tokio::io::BufReader::with_capacity(4, input), 8);
        assert_eq!(
            lines.next_line().await.unwrap(),
            Some(Line::Whole(b"short".to_vec()))
        );
        assert_eq!(lines.next_line().await.unwrap(), Some(Line::TooLong(13)));
        assert_eq!(
            lines.next_line().await.unwrap(),
            Some(Line::Whole(b"last".to_vec()))
        );
        assert_eq!(lines.next_line().await.unwrap(), None);
    }

    /// What the reader must give for `input`: its `\n`-separated lines (none after a final
    /// `\n`), each without one trailing `\r`, or its length when its bytes before the `\n`
    /// are over `limit`.
    fn expected(input: &[u8], limit: usize) -> Vec<Line> {
        if input.is_empty() {
            return Vec::new();
        }
        let mut parts: Vec<&[u8]> = input.split(|byte| *byte == b'\n').collect();
        if input.ends_with(b"\n") {
            parts.pop();
        }
        parts
            .into_iter()
            .map(|part| {
                if part.len() > limit {
                    Line::TooLong(part.len())
                } else {
                    Line::Whole(part.strip_suffix(b"\r").unwrap_or(part).to_vec())
                }
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]

        /// Any bytes, read through any buffer size, under any limit: the reader agrees with
        /// splitting the whole input at once.
        #[test]
        fn lines_match_a_plain_split_whatever_the_buffer(
            input in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just(b'\n'),
                    proptest::strategy::Just(b'\r'),
                    proptest::strategy::Just(b'a'),
                    proptest::prelude::any::<u8>(),
                ],
                0..300,
            ),
            capacity in 1_usize..24,
            limit in 0_usize..32,
        ) {
            let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
            let read = runtime.block_on(async {
                let reader = tokio::io::BufReader::with_capacity(capacity, input.as_slice());
                let mut lines = BoundedLines::new(reader, limit);
                let mut read = Vec::new();
                while let Some(line) = lines.next_line().await.unwrap() {
                    read.push(line);
                }
                read
            });
            proptest::prop_assert_eq!(read, expected(&input, limit));
        }
    }
}
