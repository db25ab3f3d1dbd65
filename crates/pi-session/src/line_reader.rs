//! A serde `Deserializer` for entry lines, which are JSON already checked (at load, or written
//! by serde_json): a context reads each message from its line into its typed form with it.
//!
//! It reads what serde_json's own deserializer reads and hands the visitors the same calls
//! (a string without escapes borrowed from the line, numbers as `u64`, `i64` or `f64` by
//! serde_json's rules), but finds each string's end 16 bytes at a time (`string_end.rs`, vector
//! compares) where serde_json walks the bytes eight at a time: message text is most of a
//! session's bytes, and this read was half of a context's time.
//!
//! It may decline ([`Declined`]) anything it does not expect: nesting deeper than
//! [`MAX_DEPTH`], an externally tagged enum with data, a surrogate escape, a number it does not
//! read itself and serde_json refuses. The caller then takes its slower path, which decides
//! and words the error, so declining costs time, never a different result. What it must
//! never do is succeed where serde_json would give something else: tests compare the two.
//!
//! (Over 500 lines with its unit tests, which start at `mod tests`: the deserializer, its string
//! and number readers and the access types serde asks for are one protocol, read in one file.)

use std::fmt;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use crate::string_end;

/// Nesting deeper than this is declined (serde_json's own limit is 128).
const MAX_DEPTH: usize = 100;

/// The most a string with escapes reserves at its first escape (see `LineReader::string`).
const FIRST_ALLOCATION: usize = 64 * 1024;

/// Why a line was not read; the caller's other path says what is wrong with it.
#[derive(Debug)]
pub(crate) struct Declined;

impl fmt::Display for Declined {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("declined by the quick reader")
    }
}

impl std::error::Error for Declined {}

impl de::Error for Declined {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Declined
    }
}

type Result<T> = std::result::Result<T, Declined>;

/// `T` read from `line`, a JSON text with nothing but whitespace after its value.
pub(crate) fn from_line<'de, T: de::Deserialize<'de>>(line: &'de str) -> Result<T> {
    let mut reader = LineReader {
        text: line,
        bytes: line.as_bytes(),
        pos: 0,
        depth: 0,
    };
    let value = T::deserialize(&mut reader)?;
    reader.skip_whitespace();
    if reader.pos == reader.bytes.len() {
        Ok(value)
    } else {
        Err(Declined)
    }
}

struct LineReader<'de> {
    text: &'de str,
    bytes: &'de [u8],
    pos: usize,
    depth: usize,
}

/// A string as read: borrowed from the line when it has no escapes.
enum Text<'de> {
    Borrowed(&'de str),
    Decoded(String),
}

impl<'de> LineReader<'de> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// The next byte after whitespace, not consumed.
    fn next_token(&mut self) -> Result<u8> {
        self.skip_whitespace();
        self.peek().ok_or(Declined)
    }

    /// Consumes `byte` after whitespace.
    fn expect(&mut self, byte: u8) -> Result<()> {
        if self.next_token()? == byte {
            self.pos += 1;
            Ok(())
        } else {
            Err(Declined)
        }
    }

    fn literal(&mut self, word: &[u8]) -> Result<()> {
        let end = self.pos + word.len();
        if self.bytes.get(self.pos..end) == Some(word) {
            self.pos = end;
            Ok(())
        } else {
            Err(Declined)
        }
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Declined);
        }
        self.pos += 1;
        Ok(())
    }

    /// A string (at its opening quote), decoded in one pass: each stop is either the
    /// closing quote or an escape, decoded on the spot. (Finding the end first and decoding
    /// after stopped twice at every escape, and code is full of them: a newline or a quote
    /// every 20 to 40 characters.)
    fn string(&mut self) -> Result<Text<'de>> {
        let start = self.pos + 1;
        // Where the text not yet copied into `decoded` starts.
        let mut run = start;
        let mut at = start;
        let mut decoded: Option<String> = None;
        loop {
            let rest = self.bytes.get(at..).ok_or(Declined)?;
            at = string_end::quote_or_backslash(self.bytes, at).ok_or(Declined)?;
            // `run` and `at` are at ASCII bytes (after an escape, at a quote or a backslash),
            // so on character boundaries.
            let plain = self.text.get(run..at).ok_or(Declined)?;
            if self.bytes.get(at) == Some(&b'"') {
                self.pos = at + 1;
                return Ok(match decoded {
                    None => Text::Borrowed(plain),
                    Some(mut text) => {
                        text.push_str(plain);
                        // Gives back what the first escape reserved past the end (in place
                        // with glibc; jemalloc moves the text to a smaller size class, which
                        // measured no slower and 8% smaller for `session context`).
                        text.shrink_to_fit();
                        Text::Decoded(text)
                    }
                });
            }
            // The rest of the line bounds the text, so one allocation usually holds it; the
            // cap keeps the allocation modest when a long line has many short strings with
            // escapes (glibc maps each block from 128 KiB on separately); a longer text grows
            // from there.
            let text = decoded
                .get_or_insert_with(|| String::with_capacity(rest.len().min(FIRST_ALLOCATION)));
            text.push_str(plain);
            let (character, length) = self.escape(at + 1)?;
            text.push(character);
            at += 1 + length;
            run = at;
        }
    }

    /// The character an escape stands for and the escape's length after its backslash (the
    /// letter at `at`), as serde_json decodes it; surrogate escapes (pairs and lone halves)
    /// are declined.
    fn escape(&self, at: usize) -> Result<(char, usize)> {
        let character = match string_end::escaped(*self.bytes.get(at).ok_or(Declined)?) {
            0 => return Err(Declined),
            string_end::UNICODE_ESCAPE => {
                let hex = self.bytes.get(at + 1..at + 5).ok_or(Declined)?;
                let mut code = 0;
                for &digit in hex {
                    code = code * 16 + char::from(digit).to_digit(16).ok_or(Declined)?;
                }
                // `None` for a surrogate half.
                return Ok((char::from_u32(code).ok_or(Declined)?, 5));
            }
            decoded => char::from(decoded),
        };
        Ok((character, 1))
    }

    /// Where the string whose text starts at `start` ends (its closing quote), and whether it
    /// has escapes.
    fn string_end(&self, start: usize) -> Result<(usize, bool)> {
        let mut at = start;
        let mut escaped = false;
        loop {
            at = string_end::quote_or_backslash(self.bytes, at).ok_or(Declined)?;
            if self.bytes.get(at) == Some(&b'"') {
                return Ok((at, escaped));
            }
            // A backslash: the escaped byte cannot end the string (`\u` digits are hex).
            escaped = true;
            at += 2;
        }
    }

    /// A number's text (at its first byte).
    fn number_text(&mut self) -> Result<&'de str> {
        let start = self.pos;
        while matches!(
            self.peek(),
            Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
        ) {
            self.pos += 1;
        }
        self.text.get(start..self.pos).ok_or(Declined)
    }

    fn number<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let text = self.number_text()?;
        let (negative, digits) = match text.strip_prefix('-') {
            Some(digits) => (true, digits),
            None => (false, text),
        };
        // Plain integers (serde_json gives `u64`, or `i64` when negative) are read here;
        // fractions, exponents, `-0` and integers out of range go through serde_json's own
        // number reading, so every `f64` is the one it would make.
        let plain = digits.len() <= 19
            && !digits.is_empty()
            && digits.bytes().all(|byte| byte.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0'));
        if plain && let Ok(magnitude) = digits.parse::<u64>() {
            if !negative {
                return visitor.visit_u64(magnitude);
            }
            if magnitude != 0
                && let Some(value) = 0_i64.checked_sub_unsigned(magnitude)
            {
                return visitor.visit_i64(value);
            }
        }
        let number: serde_json::Number = text.parse().map_err(|_| Declined)?;
        if let Some(value) = number.as_u64() {
            visitor.visit_u64(value)
        } else if let Some(value) = number.as_i64() {
            visitor.visit_i64(value)
        } else {
            visitor.visit_f64(number.as_f64().ok_or(Declined)?)
        }
    }

    /// Skips one value (for fields nobody reads).
    fn skip_value(&mut self) -> Result<()> {
        match self.next_token()? {
            b'"' => {
                let start = self.pos + 1;
                self.pos = self.string_end(start)?.0 + 1;
                Ok(())
            }
            b'{' => {
                self.enter()?;
                let mut first = true;
                loop {
                    match self.next_token()? {
                        b'}' => break,
                        b',' if !first => self.pos += 1,
                        _ if first => {}
                        _ => return Err(Declined),
                    }
                    first = false;
                    if self.next_token()? != b'"' {
                        return Err(Declined);
                    }
                    self.skip_value()?;
                    self.expect(b':')?;
                    self.skip_value()?;
                }
                self.pos += 1;
                self.depth -= 1;
                Ok(())
            }
            b'[' => {
                self.enter()?;
                let mut first = true;
                loop {
                    match self.next_token()? {
                        b']' => break,
                        b',' if !first => self.pos += 1,
                        _ if first => {}
                        _ => return Err(Declined),
                    }
                    first = false;
                    self.skip_value()?;
                }
                self.pos += 1;
                self.depth -= 1;
                Ok(())
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number_text().map(drop),
            _ => Err(Declined),
        }
    }
}

impl<'de> de::Deserializer<'de> for &mut LineReader<'de> {
    type Error = Declined;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.next_token()? {
            b'"' => match self.string()? {
                Text::Borrowed(text) => visitor.visit_borrowed_str(text),
                Text::Decoded(text) => visitor.visit_string(text),
            },
            b'{' => {
                self.enter()?;
                let value = visitor.visit_map(Members {
                    reader: self,
                    first: true,
                })?;
                self.expect(b'}')?;
                self.depth -= 1;
                Ok(value)
            }
            b'[' => {
                self.enter()?;
                let value = visitor.visit_seq(Elements {
                    reader: self,
                    first: true,
                })?;
                self.expect(b']')?;
                self.depth -= 1;
                Ok(value)
            }
            b't' => {
                self.literal(b"true")?;
                visitor.visit_bool(true)
            }
            b'f' => {
                self.literal(b"false")?;
                visitor.visit_bool(false)
            }
            b'n' => {
                self.literal(b"null")?;
                visitor.visit_unit()
            }
            b'-' | b'0'..=b'9' => self.number(visitor),
            _ => Err(Declined),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.next_token()? == b'n' {
            self.literal(b"null")?;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    /// Unit variants (a string); an enum written as an object with data is declined.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if self.next_token()? != b'"' {
            return Err(Declined);
        }
        match self.string()? {
            Text::Borrowed(text) => visitor.visit_enum(text.into_deserializer()),
            Text::Decoded(text) => visitor.visit_enum(text.into_deserializer()),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.skip_value()?;
        visitor.visit_unit()
    }

    /// serde_json hands strings to a bytes visitor as bytes; not needed here, so declined.
    fn deserialize_bytes<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Declined)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Declined)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

/// An object's members.
struct Members<'a, 'de> {
    reader: &'a mut LineReader<'de>,
    first: bool,
}

impl<'de> de::MapAccess<'de> for Members<'_, 'de> {
    type Error = Declined;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.reader.next_token()? {
            b'}' => return Ok(None),
            b',' if !self.first => self.reader.pos += 1,
            _ if self.first => {}
            _ => return Err(Declined),
        }
        self.first = false;
        if self.reader.next_token()? != b'"' {
            return Err(Declined);
        }
        let key = match self.reader.string()? {
            Text::Borrowed(text) => seed.deserialize(de::value::BorrowedStrDeserializer::new(text)),
            Text::Decoded(text) => seed.deserialize(text.into_deserializer()),
        }?;
        self.reader.expect(b':')?;
        Ok(Some(key))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(&mut *self.reader)
    }
}

/// An array's elements.
struct Elements<'a, 'de> {
    reader: &'a mut LineReader<'de>,
    first: bool,
}

impl<'de> de::SeqAccess<'de> for Elements<'_, 'de> {
    type Error = Declined;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.reader.next_token()? {
            b']' => return Ok(None),
            b',' if !self.first => self.reader.pos += 1,
            _ if self.first => {}
            _ => return Err(Declined),
        }
        self.first = false;
        seed.deserialize(&mut *self.reader).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quick_scan::tests::{corpus, mutations};
    use pi_ai::{AssistantMessage, UserMessage};
    use pi_tool::ToolResultMessage;
    use proptest::prelude::*;
    use serde::Deserialize;
    use serde_json::Value;

    proptest! {
        /// Text of any mix of escapes, short or kilobytes long, reads as serde_json reads it,
        /// or is declined (a surrogate escape) and left to it.
        #[test]
        fn any_escaped_text_reads_as_serde_json_reads_it(
            pieces in proptest::collection::vec(
                prop_oneof![
                    Just("a"), Just("\\\""), Just("\\\\"), Just("\\n"), Just("\\t"),
                    Just("\\/"), Just("\\u00e9"), Just("\\ud83d\\ude00"), Just("é"),
                    Just("bcdefghijklmnopqrstuvwxyz0123456789"),
                ],
                0..80,
            ),
        ) {
            let text: String = pieces.concat();
            let line = format!(r#"{{"a":"{text}","b":["{text}",1]}}"#);
            let ours: Result<std::collections::BTreeMap<String, Value>> = from_line(&line);
            let theirs: std::collections::BTreeMap<String, Value> =
                serde_json::from_str(&line).unwrap();
            if let Ok(ours) = ours {
                prop_assert_eq!(ours, theirs, "{}", line);
            } else {
                prop_assert!(text.contains("\\ud83d"), "declined: {}", line);
            }
        }
    }

    #[test]
    fn decoded_text_keeps_no_room_reserved_for_the_rest_of_the_line() {
        let line = format!(r#"{{"a":"x\ny","b":"{}"}}"#, "z".repeat(1000));
        let map: std::collections::BTreeMap<String, String> = from_line(&line).unwrap();
        let text = &map["a"];
        assert_eq!(text, "x\ny");
        assert_eq!(text.capacity(), text.len());
    }

    #[test]
    fn a_text_longer_than_the_first_allocation_is_decoded_whole() {
        let long = "ab\\\"c".repeat(FIRST_ALLOCATION / 2);
        let line = format!(r#"{{"a":"{long}"}}"#);
        let map: std::collections::BTreeMap<String, String> = from_line(&line).unwrap();
        assert_eq!(map["a"], "ab\"c".repeat(FIRST_ALLOCATION / 2));
        assert_eq!(map["a"].capacity(), map["a"].len());
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct MessageLine<T> {
        message: T,
    }

    /// `line` read by this reader and by serde_json as `T`: when this one reads it, both
    /// give the same; returns whether this one read it.
    fn same<T: for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug>(line: &str) -> bool {
        let Ok(ours) = from_line::<T>(line) else {
            return false;
        };
        assert_eq!(Some(ours), serde_json::from_str::<T>(line).ok(), "{line}");
        true
    }

    /// For every JSON line (the corpus and each one-edit change of it that is still JSON),
    /// what this reader reads, as a `Value` or as a message, serde_json reads the same.
    #[test]
    fn what_the_reader_reads_serde_json_reads_the_same() {
        let (mut values, mut messages) = (0, 0);
        for line in corpus() {
            assert!(same::<Value>(&line), "declined: {line}");
            let role = |name| line.contains(&format!(r#""role":"{name}""#));
            // Every third change (replacements and insertions both, at shifting places).
            for variant in mutations(&line).iter().step_by(3).chain([&line]) {
                if serde_json::from_str::<Value>(variant).is_err() {
                    continue;
                }
                values += usize::from(same::<Value>(variant));
                // Each message type on the lines of its role (the others fail either way).
                if role("user") {
                    messages += usize::from(same::<MessageLine<UserMessage>>(variant));
                }
                if role("assistant") {
                    messages += usize::from(same::<MessageLine<AssistantMessage>>(variant));
                }
                if role("toolResult") {
                    messages += usize::from(same::<MessageLine<ToolResultMessage>>(variant));
                }
            }
        }
        assert!(values > 10_000 && messages > 1_000, "{values} {messages}");
    }

    #[test]
    fn numbers_are_read_as_serde_json_reads_them() {
        for number in [
            "0",
            "-0",
            "7",
            "-7",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "0.1",
            "-1.5e-7",
            "1E+2",
            "2.5e300",
            "1e400",
            "123456789012345678901234567890",
        ] {
            let line = format!("[{number}]");
            let ours = from_line::<Value>(&line).ok();
            let theirs = serde_json::from_str::<Value>(&line).ok();
            assert_eq!(ours, theirs, "{number}");
            if let (Some(ours), Some(theirs)) = (&ours, &theirs) {
                // Value equality treats -0.0 and 0.0 alike: compare the bits too.
                let bits = |value: &Value| value[0].as_f64().map(f64::to_bits);
                assert_eq!(bits(ours), bits(theirs), "{number}");
                assert_eq!(ours[0].is_f64(), theirs[0].is_f64(), "{number}");
            }
        }
    }
}
