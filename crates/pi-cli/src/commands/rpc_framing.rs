//! Pi's RPC framing: one JSON record per line, LF the only delimiter (a `U+2028` inside a
//! string is not a line end, which generic line readers get wrong), an optional CR before it
//! stripped. A record may be at most [`MAX_RECORD_BYTES`]: a longer one is skipped to its end
//! and reported, so a client cannot make the process hold unbounded input.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// The largest command line read (images arrive base64-encoded inside `prompt`).
pub(crate) const MAX_RECORD_BYTES: usize = 64 << 20;

/// One record read from the input.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Record {
    /// A line, without its LF (and CR).
    Line(Vec<u8>),
    /// A line longer than the limit, skipped.
    TooLong,
}

/// The next record of `input`; `None` at the end of input (a last line without LF counts).
pub(crate) async fn next_record(
    input: &mut (impl AsyncBufRead + Unpin),
) -> std::io::Result<Option<Record>> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (line.is_empty(), too_long) {
                (true, false) => None,
                (_, true) => Some(Record::TooLong),
                (false, false) => Some(Record::Line(strip_cr(line))),
            });
        }
        let (taken, ended) = match available.iter().position(|byte| *byte == b'\n') {
            Some(end) => (end + 1, true),
            None => (available.len(), false),
        };
        if !too_long {
            let part = available.get(..taken).unwrap_or_default();
            let part = if ended {
                part.get(..taken - 1).unwrap_or_default()
            } else {
                part
            };
            if line.len() + part.len() > MAX_RECORD_BYTES {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(part);
            }
        }
        input.consume(taken);
        if ended {
            return Ok(Some(if too_long {
                Record::TooLong
            } else {
                Record::Line(strip_cr(line))
            }));
        }
    }
}

fn strip_cr(mut line: Vec<u8>) -> Vec<u8> {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn records(input: &[u8]) -> Vec<Record> {
        let mut reader = tokio::io::BufReader::with_capacity(4, input);
        let mut all = Vec::new();
        while let Some(record) = next_record(&mut reader).await.unwrap_or(None) {
            all.push(record);
        }
        all
    }

    #[tokio::test]
    async fn lf_alone_ends_a_record() {
        let text = "{\"a\":\"x\u{2028}y\"}\r\n{\"b\":1}\n\nlast".as_bytes();
        assert_eq!(
            records(text).await,
            [
                Record::Line("{\"a\":\"x\u{2028}y\"}".as_bytes().to_vec()),
                Record::Line(b"{\"b\":1}".to_vec()),
                Record::Line(Vec::new()),
                Record::Line(b"last".to_vec()),
            ]
        );
    }
}
