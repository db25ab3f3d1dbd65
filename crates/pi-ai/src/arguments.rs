//! A tool call's argument text: buffered while it streams, parsed once when it ends.

use serde_json::Value;

/// A tool call's argument text while it streams: fragments are appended (amortised constant
/// time each) and the whole is parsed exactly once, when the call ends. Total work is linear in
/// the argument size however it is split.
///
/// ```
/// use pi_ai::ArgumentBuffer;
///
/// let mut buffer = ArgumentBuffer::default();
/// for fragment in ["{\"pa", "th\":\"a", ".rs\"}"] {
///     buffer.push(fragment);
/// }
/// assert_eq!(buffer.finish(), serde_json::json!({"path": "a.rs"}));
/// // Text that is not JSON stays text, for validation to refuse; nothing is guessed.
/// let mut broken = ArgumentBuffer::default();
/// broken.push("{\"path\":");
/// assert_eq!(broken.finish(), serde_json::json!("{\"path\":"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArgumentBuffer {
    /// UTF-8 by construction: only whole `&str` fragments are appended.
    bytes: Vec<u8>,
}

impl ArgumentBuffer {
    /// Appends a fragment.
    #[inline]
    pub fn push(&mut self, fragment: &str) {
        let bytes = fragment.as_bytes();
        // Local servers often send a byte or two at a time: a push costs about a nanosecond,
        // a `memcpy` call several.
        match bytes {
            [byte] => self.bytes.push(*byte),
            [first, second] => {
                self.bytes.push(*first);
                self.bytes.push(*second);
            }
            _ => self.bytes.extend_from_slice(bytes),
        }
    }

    /// How many bytes are buffered.
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }

    /// The arguments, parsed once (see [`parse_arguments`]).
    pub fn finish(self) -> Value {
        match String::from_utf8(self.bytes) {
            Ok(text) => parse_owned(text),
            // Unreachable (only `&str`s go in); kept total rather than asserted.
            Err(error) => parse_arguments(&String::from_utf8_lossy(error.as_bytes())),
        }
    }
}

/// A call's complete argument text as JSON: empty means no arguments (`{}`); anything that is
/// not JSON stays the text it was, for validation to refuse.
pub fn parse_arguments(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// [`parse_arguments`] of text it may keep: text that is not JSON becomes the value without a
/// copy.
fn parse_owned(text: String) -> Value {
    if text.trim().is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(_) => Value::String(text),
    }
}
