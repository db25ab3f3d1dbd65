//! Server-sent events read from a body's bytes, with a bound on what one event may hold.
//!
//! Written here rather than taken from a crate because the bound has to be where the bytes
//! arrive: a line that never ends, or an event whose `data:` lines never stop, would otherwise
//! be buffered without limit before anything could look at it. Parsing follows the WHATWG
//! event-stream rules: lines end with LF, CRLF or CR; a line starting with `:` is a comment; a
//! line without a colon is a field with an empty value; `data` lines join with LF; an empty line
//! dispatches the event, and an event without `data` is dropped (so keep-alive comments never
//! reach the caller).

/// One event: its `event:` name, if any, and its data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Event {
    /// The `event:` field (the last one given).
    pub(crate) name: Option<String>,
    /// The `data:` lines, joined with LF.
    pub(crate) data: String,
}

/// What a stream did that it may not.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SseError {
    /// One event (or one line) grew past the bound.
    #[error("the provider sent an event of more than {limit} bytes")]
    TooLarge {
        /// The bound, in bytes.
        limit: usize,
    },
    /// A field was not UTF-8.
    #[error("the provider sent an event that is not UTF-8")]
    NotUtf8,
}

/// Splits bytes into events, keeping at most `limit` bytes of one event (its unfinished line
/// and the data gathered so far together).
#[derive(Debug)]
pub(crate) struct Decoder {
    limit: usize,
    /// The line being read.
    line: Vec<u8>,
    /// The last byte was a CR: an LF right after it ends no second line.
    after_cr: bool,
    /// The first line may start with a byte-order mark.
    first_line: bool,
    name: Option<String>,
    data: Option<String>,
}

impl Decoder {
    /// A decoder whose events hold at most `limit` bytes.
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            limit,
            line: Vec::new(),
            after_cr: false,
            first_line: true,
            name: None,
            data: None,
        }
    }

    /// Reads `bytes`, appending every event they complete to `out`.
    pub(crate) fn push(&mut self, bytes: &[u8], out: &mut Vec<Event>) -> Result<(), SseError> {
        let mut rest = bytes;
        while !rest.is_empty() {
            if self.after_cr {
                self.after_cr = false;
                if let Some(after) = rest.strip_prefix(b"\n") {
                    rest = after;
                    continue;
                }
            }
            match rest
                .iter()
                .position(|byte| *byte == b'\n' || *byte == b'\r')
            {
                Some(end) => {
                    let (line, after) = rest.split_at(end);
                    self.grow(line)?;
                    self.after_cr = after.first() == Some(&b'\r');
                    rest = after.get(1..).unwrap_or_default();
                    let line = std::mem::take(&mut self.line);
                    self.line_done(&line, out)?;
                    // The buffer keeps its capacity for the next line.
                    self.line = line;
                    self.line.clear();
                }
                None => {
                    self.grow(rest)?;
                    rest = &[];
                }
            }
        }
        Ok(())
    }

    /// Adds to the unfinished line, within the bound.
    fn grow(&mut self, bytes: &[u8]) -> Result<(), SseError> {
        let held = self.data.as_ref().map_or(0, String::len);
        if held + self.line.len() + bytes.len() > self.limit {
            return Err(SseError::TooLarge { limit: self.limit });
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<Event>) -> Result<(), SseError> {
        let mut line = line;
        if self.first_line {
            self.first_line = false;
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if line.is_empty() {
            let name = self.name.take();
            if let Some(data) = self.data.take() {
                out.push(Event { name, data });
            }
            return Ok(());
        }
        if line.first() == Some(&b':') {
            return Ok(());
        }
        let (field, value) = match line.iter().position(|byte| *byte == b':') {
            Some(colon) => {
                let (field, value) = line.split_at(colon);
                let value = value.get(1..).unwrap_or_default();
                (field, value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        let text = || std::str::from_utf8(value).map_err(|_| SseError::NotUtf8);
        match field {
            b"data" => {
                let text = text()?;
                match &mut self.data {
                    Some(data) => {
                        data.push('\n');
                        data.push_str(text);
                    }
                    None => self.data = Some(text.to_owned()),
                }
            }
            b"event" => self.name = Some(text()?.to_owned()),
            // `id` and `retry` matter to a browser reconnecting, not to one response.
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(pieces: &[&[u8]], limit: usize) -> Result<Vec<Event>, SseError> {
        let mut decoder = Decoder::new(limit);
        let mut out = Vec::new();
        for piece in pieces {
            decoder.push(piece, &mut out)?;
        }
        Ok(out)
    }

    fn event(name: Option<&str>, data: &str) -> Event {
        Event {
            name: name.map(str::to_owned),
            data: data.to_owned(),
        }
    }

    #[test]
    fn events_split_anywhere_with_any_line_ending() {
        let text =
            b"\xEF\xBB\xBFevent: a\r\ndata: 1\r\ndata:2\r\n\r\n: keep-alive\n\ndata: x\rdata\r\r";
        let whole = decode(&[text], 1 << 10).unwrap();
        assert_eq!(whole, [event(Some("a"), "1\n2"), event(None, "x\n")]);
        for split in 0..text.len() {
            let (head, tail) = text.split_at(split);
            assert_eq!(
                decode(&[head, tail], 1 << 10).unwrap(),
                whole,
                "split at {split}"
            );
        }
        let bytewise: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(decode(&bytewise, 1 << 10).unwrap(), whole);
    }

    #[test]
    fn comments_and_events_without_data_give_nothing() {
        let keepalive = b": keepalive\n\n".repeat(1000);
        assert_eq!(decode(&[&keepalive], 64).unwrap(), []);
        assert_eq!(decode(&[b"event: ping\n\nid: 3\n\n"], 64).unwrap(), []);
    }

    #[test]
    fn an_endless_line_or_event_stops_at_the_limit() {
        let mut decoder = Decoder::new(100);
        let mut out = Vec::new();
        decoder.push(b"data: ", &mut out).unwrap();
        let mut refused = None;
        for round in 0..1000 {
            if let Err(error) = decoder.push(b"xxxxxxxxxx", &mut out) {
                refused = Some((round, error));
                break;
            }
        }
        assert_eq!(refused, Some((9, SseError::TooLarge { limit: 100 })));
        assert!(decoder.line.len() <= 100);
        // Many short data lines of one event count together.
        let many = b"data: xxxxxxxx\n".repeat(20);
        assert_eq!(
            decode(&[&many], 100),
            Err(SseError::TooLarge { limit: 100 })
        );
        // Comments are not kept, so a stream of them is never too large.
        let comments = b": xxxxxxxxxxxxxxxxxxxxxxxx\n".repeat(100);
        assert_eq!(decode(&[&comments], 100).unwrap(), []);
    }
}
