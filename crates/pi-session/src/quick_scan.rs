//! Loading's line check for the lines sessions are made of, in one quick pass: the facts
//! [`crate::scan`] reads (`type`, `id`, `parentId`, `timestamp`, a message's `role`, the
//! required fields), found while checking the line's JSON.
//!
//! It answers only when it is sure: `Some(facts)` means the line is a JSON object a
//! `serde_json::Value` parse accepts and these are exactly the facts `scan::scan` reads.
//! Anything else (a line that is not JSON, not an object, holds a raw control byte or a
//! surrogate `\u` escape, nests deeper than [`MAX_DEPTH`], has a number that might not fit an
//! `f64`, or an escape inside a key or a fact's text) gets `None`, and the line goes to
//! `scan::scan`, which decides and words the report. So reports, offsets and what is refused
//! stay exactly what they were; this only makes the common case cheap.
//!
//! Why: a session line is mostly one long string (a message's text), and checking it with
//! serde_json walks every byte of it eight at a time; here a string's end is found 16 bytes
//! at a time (`string_end.rs`, vector compares) and raw control bytes with one vectorised
//! pass over the line. Measured in docs/benchmarks.md, "Session benchmark".

use crate::scan::{Facts, Present, Role};
use crate::string_end;

/// Nesting from this depth on is left to serde_json, which refuses it past 127 levels.
const MAX_DEPTH: usize = 100;

/// Integer digits (plus a positive exponent) from which a number is left to serde_json, which
/// refuses numbers too big for an `f64` (above ~1.8e308).
const MAX_MAGNITUDE: usize = 300;

/// The facts of `line` when it is surely a JSON object a `Value` parse accepts; `None` when
/// `scan::scan` must decide.
pub(crate) fn scan(line: &str) -> Option<Facts> {
    if has_control_byte(line.as_bytes()) {
        return None;
    }
    let mut reader = Reader {
        text: line,
        bytes: line.as_bytes(),
        pos: 0,
    };
    reader.skip_spaces();
    if reader.peek()? != b'{' {
        return None;
    }
    let facts = reader.entry()?;
    reader.skip_spaces();
    (reader.pos == reader.bytes.len()).then_some(facts)
}

/// Whether any byte is below 0x20. JSON allows none inside strings and only tab, CR and LF
/// between tokens; lines with any go to serde_json, so the string scan need not look for them.
fn has_control_byte(bytes: &[u8]) -> bool {
    // A minimum over the whole line, with no early exit, compiles to vector instructions.
    bytes
        .iter()
        .copied()
        .min()
        .is_some_and(|lowest| lowest < 0x20)
}

/// What a value was, as far as the facts care.
enum Seen<'a> {
    /// A string without escapes: its text.
    Text(&'a str),
    /// A string with escapes (checked, not decoded).
    EscapedText,
    /// An object.
    Object,
    /// Any other value.
    Other,
}

impl Seen<'_> {
    fn is_string(&self) -> bool {
        matches!(self, Seen::Text(_) | Seen::EscapedText)
    }

    /// A fact's text: `Some(None)` for a value that is not a string, `None` (leave the line to
    /// serde_json) for a string with escapes, which would have to be decoded.
    fn fact(self) -> Option<Option<String>> {
        match self {
            Seen::Text(text) => Some(Some(text.to_owned())),
            Seen::EscapedText => None,
            Seen::Object | Seen::Other => Some(None),
        }
    }
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Skips spaces (the only whitespace left once control bytes are ruled out).
    fn skip_spaces(&mut self) {
        while self.peek() == Some(b' ') {
            self.pos += 1;
        }
    }

    /// Consumes `byte` after optional spaces.
    fn expect(&mut self, byte: u8) -> Option<()> {
        self.skip_spaces();
        (self.peek()? == byte).then(|| self.pos += 1)
    }

    /// The top-level object (at `{`) and its facts.
    fn entry(&mut self) -> Option<Facts> {
        let mut facts = Facts::default();
        self.object(1, |reader, key, depth| {
            // A key with escapes might spell a fact's name: serde_json decodes it.
            let key = key?;
            match key {
                "type" => facts.entry_type = reader.value(depth)?.fact()?,
                "id" => facts.id = reader.value(depth)?.fact()?,
                "parentId" => facts.parent_id = reader.value(depth)?.fact()?,
                "timestamp" => facts.timestamp = reader.value(depth)?.fact()?,
                "message" => {
                    reader.skip_spaces();
                    if reader.peek()? == b'{' {
                        facts.role = reader.message(depth + 1)?;
                        facts.present.set(Present::MESSAGE, true);
                    } else {
                        reader.value(depth)?;
                        facts.role = None;
                        facts.present.set(Present::MESSAGE, false);
                    }
                }
                _ => match Present::bit_of(key) {
                    Some(bit) => {
                        let is_string = reader.value(depth)?.is_string();
                        facts.present.set(bit, is_string);
                    }
                    None => {
                        reader.value(depth)?;
                    }
                },
            }
            Some(())
        })?;
        Some(facts)
    }

    /// A `message` object (at `{`) and its `role` (the last one, when a string).
    fn message(&mut self, depth: usize) -> Option<Option<Role>> {
        let mut role = None;
        self.object(depth, |reader, key, depth| {
            if key? == "role" {
                role = reader.value(depth)?.fact()?.map(|name| Role::named(&name));
            } else {
                reader.value(depth)?;
            }
            Some(())
        })?;
        Some(role)
    }

    /// Any value, checked; nested values are at `depth + 1`.
    fn value(&mut self, depth: usize) -> Option<Seen<'a>> {
        self.skip_spaces();
        match self.peek()? {
            b'"' => self.string(),
            b'{' => {
                self.object(depth + 1, |reader, _, depth| reader.value(depth).map(drop))?;
                Some(Seen::Object)
            }
            b'[' => self.array(depth + 1),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// An object (at `{`) at `depth`, each member's value read by `member(reader, key,
    /// depth)`; the key is `None` when it has escapes.
    fn object(
        &mut self,
        depth: usize,
        mut member: impl FnMut(&mut Self, Option<&'a str>, usize) -> Option<()>,
    ) -> Option<()> {
        if depth >= MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        self.skip_spaces();
        if self.peek()? == b'}' {
            self.pos += 1;
            return Some(());
        }
        loop {
            self.skip_spaces();
            if self.peek()? != b'"' {
                return None;
            }
            let key = match self.string()? {
                Seen::Text(key) => Some(key),
                _ => None,
            };
            self.expect(b':')?;
            member(self, key, depth)?;
            self.skip_spaces();
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// An array (at `[`) at `depth`.
    fn array(&mut self, depth: usize) -> Option<Seen<'a>> {
        if depth >= MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        self.skip_spaces();
        if self.peek()? == b']' {
            self.pos += 1;
            return Some(Seen::Other);
        }
        loop {
            self.value(depth)?;
            self.skip_spaces();
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return Some(Seen::Other);
                }
                _ => return None,
            }
        }
    }

    /// A string (at its opening quote); its end and escapes are checked by
    /// [`string_end::checked_end`].
    fn string(&mut self) -> Option<Seen<'a>> {
        let start = self.pos + 1;
        let (end, escapes) = string_end::checked_end(self.bytes, start)?;
        self.pos = end + 1;
        Some(if escapes {
            Seen::EscapedText
        } else {
            // Both ends are ASCII quotes, so on character boundaries.
            Seen::Text(self.text.get(start..end)?)
        })
    }

    fn literal(&mut self, word: &[u8]) -> Option<Seen<'a>> {
        let end = self.pos + word.len();
        (self.bytes.get(self.pos..end)? == word).then(|| {
            self.pos = end;
            Seen::Other
        })
    }

    /// A number, by JSON's grammar; one that might be too big for an `f64` is left to
    /// serde_json (tiny ones it reads as 0, so a negative exponent never matters).
    fn number(&mut self) -> Option<Seen<'a>> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let integer_digits = match self.peek()? {
            b'0' => {
                self.pos += 1;
                1
            }
            b'1'..=b'9' => self.digits(),
            _ => return None,
        };
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        let mut magnitude = integer_digits;
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            let negative = self.peek() == Some(b'-');
            if matches!(self.peek(), Some(b'-' | b'+')) {
                self.pos += 1;
            }
            let start = self.pos;
            let digits = self.digits();
            if digits == 0 || digits > 3 {
                return None;
            }
            let exponent: usize = self.text.get(start..self.pos)?.parse().ok()?;
            if !negative {
                magnitude += exponent;
            }
        }
        (magnitude < MAX_MAGNITUDE).then_some(Seen::Other)
    }

    /// Skips ASCII digits; how many there were.
    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.peek().is_some_and(|byte| byte.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - start
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::scan::{self, Scanned};

    /// Lines of every entry type Pi writes (its golden sessions) and odd ones of ours.
    pub(crate) fn corpus() -> Vec<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi");
        let mut lines = Vec::new();
        for name in ["all-types.jsonl", "compactions.jsonl", "forked.jsonl"] {
            let text = std::fs::read_to_string(dir.join(name)).unwrap();
            lines.extend(text.lines().map(str::to_owned));
        }
        lines.extend(
            [
                r#"{"type":"message","id":"a","parentId":"b","message":{"role":"user","content":"a\nb\"c\\d\/e\u00e9\u20ac","timestamp":1}}"#,
                r#"{"type":"message","id":"a","message":{"role":"toolResult","content":[{"type":"text","text":"\u001b[1m"}],"isError":false,"n":[-0,0.5,-1.25e-7,1E+2,12345678901234567890]}}"#,
                r#" { "type" : "custom" , "id" : "a" , "customType" : "x" , "data" : { } , "e" : [ ] } "#,
                r#"{"type":"model_change","id":"a","provider":"p","modelId":"m","provider":1}"#,
                r#"{"type":"label","id":"a","targetId":"x\ty","message":[1],"message":{"role":7}}"#,
                r#"{"type":"message","id":"a","message":{"role":"assistant","role":"user"},"type":"message"}"#,
            ]
            .map(str::to_owned),
        );
        lines
    }

    /// Every way of changing `line` by one small edit at each place (in a long line, its
    /// first 200 and last 60 bytes, where the keys and the nesting are; a debug build is slow).
    pub(crate) fn mutations(line: &str) -> Vec<String> {
        const EDITS: [&str; 22] = [
            "",
            "\"",
            "\\",
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            "0",
            "-",
            "e",
            ".",
            " ",
            "\t",
            "\u{1}",
            "\\u",
            "\\ud800",
            "\\udc00\\ud800",
            "1e400",
            "é",
            "n",
        ];
        let mut out = Vec::new();
        let places = line
            .char_indices()
            .filter(|&(at, _)| at < 200 || at + 60 > line.len());
        for (at, _) in places {
            let (before, rest) = line.split_at(at);
            let after = &rest[rest.chars().next().map_or(0, char::len_utf8)..];
            for edit in EDITS {
                out.push(format!("{before}{edit}{after}"));
                out.push(format!("{before}{edit}{rest}"));
            }
        }
        out
    }

    /// Whenever the quick pass answers, serde_json's scan gives the same facts; and it does
    /// answer for the lines sessions are made of.
    #[test]
    fn the_quick_pass_answers_only_what_serde_json_would() {
        let mut answered = 0;
        for line in corpus() {
            let facts = scan(&line);
            assert!(
                facts.is_some(),
                "the usual line was left to serde_json: {line}"
            );
            for variant in mutations(&line).iter().chain([&line]) {
                if let Some(facts) = scan(variant) {
                    answered += 1;
                    assert_eq!(
                        scan::scan(variant).ok(),
                        Some(Scanned::Object(facts)),
                        "{variant}"
                    );
                }
            }
        }
        assert!(answered > 10_000, "{answered}");
    }

    #[test]
    fn doubtful_lines_are_left_to_serde_json() {
        let deep = format!(
            r#"{{"type":"a","id":"b","d":{}{}}}"#,
            "[".repeat(99),
            "]".repeat(99)
        );
        for line in [
            r#"{"type":"custom","id":"a","s":"\ud83d\ude00"}"#.to_owned(),
            r#"{"type":"custom","id":"a","n":1e400}"#.to_owned(),
            r#"{"type":"custom","id":"a","n":1e5000}"#.to_owned(),
            format!(r#"{{"type":"custom","id":"a","n":{}}}"#, "9".repeat(400)),
            r#"{"type":"c\u0075stom","id":"a"}"#.to_owned(),
            r#"{"typ\u0065":"custom","id":"a"}"#.to_owned(),
            "{\"type\":\"custom\",\r\"id\":\"a\"}".to_owned(),
            deep,
            "[1]".to_owned(),
        ] {
            assert_eq!(scan(&line), None, "{line}");
        }
    }
}
