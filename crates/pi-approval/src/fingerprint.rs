//! The fingerprint that binds a decision to the exact arguments decided on: taken when the
//! decision is made, checked again just before the tool runs, so nothing (a hook, a retry, a
//! bug) can change the arguments between approval and execution unnoticed.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// `sha256:<hex>` of the tool's name and the canonical JSON of its final arguments (object
/// keys sorted, no white space), so key order and formatting do not matter and a call of
/// another tool with the same arguments has another fingerprint.
///
/// ```
/// use pi_approval::Fingerprint;
/// use serde_json::json;
///
/// let approved = Fingerprint::of("bash", &json!({"command": "ls", "timeout": 5}));
/// assert_eq!(approved, Fingerprint::of("bash", &json!({"timeout": 5, "command": "ls"})));
/// assert!(approved.check("bash", &json!({"command": "ls", "timeout": 5})).is_ok());
/// assert!(approved.check("bash", &json!({"command": "rm -rf ~", "timeout": 5})).is_err());
/// ```
#[derive(Clone)]
pub struct Fingerprint {
    /// `sha256:<hex>`: what the session records and what compares equal.
    text: String,
    /// The bytes that were hashed (the tool's name, a zero byte, the canonical JSON), kept by
    /// a fingerprint taken in this process: the check at execution compares the arguments'
    /// bytes with these, which is exact and spares a second hash. A fingerprint read back
    /// from a session has none and is checked by hashing.
    hashed: Option<Arc<[u8]>>,
}

/// The arguments about to run are not the ones decided on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the arguments of {tool} changed after they were approved ({approved} became {found})")]
pub struct FingerprintMismatch {
    /// The tool.
    pub tool: String,
    /// The fingerprint taken at the decision.
    pub approved: Fingerprint,
    /// The fingerprint of what was about to run.
    pub found: Fingerprint,
}

impl Fingerprint {
    /// The fingerprint of a call.
    pub fn of(tool: &str, arguments: &Value) -> Self {
        let hashed = hashed_bytes(tool, arguments);
        let digest = Sha256::digest(&hashed);
        let mut text = String::with_capacity(PREFIX.len() + 64);
        text.push_str(PREFIX);
        // The digits are ASCII: this never falls back to the empty text.
        text.push_str(std::str::from_utf8(&hex(&digest)).unwrap_or_default());
        Self {
            text,
            hashed: Some(hashed.into()),
        }
    }

    /// Whether `arguments` are exactly what was decided on; the executor calls this last.
    pub fn check(&self, tool: &str, arguments: &Value) -> Result<(), FingerprintMismatch> {
        let found = hashed_bytes(tool, arguments);
        let same = match &self.hashed {
            Some(hashed) => **hashed == *found,
            // Compared digit by digit (as many as there are): no text is made unless they
            // differ.
            None => self
                .text
                .strip_prefix(PREFIX)
                .is_some_and(|digits| digits.as_bytes() == hex(&Sha256::digest(&found))),
        };
        if same {
            Ok(())
        } else {
            Err(FingerprintMismatch {
                tool: tool.to_owned(),
                approved: self.clone(),
                found: Self::of(tool, arguments),
            })
        }
    }

    /// The text (`sha256:...`).
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

/// Only the text counts: a fingerprint read back from a session equals the one taken.
impl PartialEq for Fingerprint {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for Fingerprint {}

impl std::hash::Hash for Fingerprint {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Fingerprint").field(&self.text).finish()
    }
}

/// Written and read as its text alone.
impl Serialize for Fingerprint {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Fingerprint {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(|text| Self { text, hashed: None })
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

const PREFIX: &str = "sha256:";

/// What is hashed: the tool's name, a zero byte and the canonical JSON of the arguments.
fn hashed_bytes(tool: &str, arguments: &Value) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(tool.len() + 128);
    bytes.extend_from_slice(tool.as_bytes());
    // A byte no tool name has keeps `ab` + `{...}` apart from `a` + `b{...}`.
    bytes.push(0);
    write_canonical(arguments, &mut bytes);
    bytes
}

/// The lower-case hex digits of a SHA-256 digest, two per byte (by hand: `write!("{:02x}")`
/// per byte cost more than the hash itself).
fn hex(digest: &impl AsRef<[u8]>) -> [u8; 64] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut digits = [b'0'; 64];
    for (pair, byte) in digits.chunks_exact_mut(2).zip(digest.as_ref()) {
        for (digit, nibble) in pair.iter_mut().zip([byte >> 4, byte & 0x0f]) {
            *digit = HEX.get(usize::from(nibble)).copied().unwrap_or(b'0');
        }
    }
    digits
}

/// Canonical JSON: keys sorted by their UTF-8 bytes, no white space, strings and numbers as
/// serde_json writes them (the workspace keeps insertion order, so sorting is done here).
/// Strings and numbers are written by serde_json's own writer, straight into the buffer.
fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|(a, _), (b, _)| a.as_bytes().cmp(b.as_bytes()));
            out.push(b'{');
            for (index, (key, value)) in entries.into_iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_scalar(key, out);
                out.push(b':');
                write_canonical(value, out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        scalar => write_scalar(scalar, out),
    }
}

/// A string, number, boolean or null as compact JSON.
fn write_scalar(value: &(impl Serialize + ?Sized), out: &mut Vec<u8>) {
    // Writing a string or a number into a `Vec` cannot fail; were it ever to, a byte no
    // JSON text has marks it, so the fingerprint matches no other call's.
    if serde_json::to_writer(&mut *out, value).is_err() {
        out.push(0xff);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_check_compares_every_digit_and_the_prefix() {
        let arguments = json!({"path": "src/lib.rs", "limit": [1, 2.5, null, true], "s": "é\""});
        let approved = Fingerprint::of("read", &arguments);
        assert!(approved.check("read", &arguments).is_ok());
        // Canonical: key order does not matter.
        let reordered = json!({"s": "é\"", "limit": [1, 2.5, null, true], "path": "src/lib.rs"});
        assert!(approved.check("read", &reordered).is_ok());
        let text = approved.as_str();
        // Read back from a session (text only), it is checked by hashing.
        let read_back = |text: String| Fingerprint { text, hashed: None };
        let stored = read_back(text.to_owned());
        assert_eq!(stored, approved);
        assert!(stored.check("read", &reordered).is_ok());
        assert!(stored.check("read", &json!({"path": "x"})).is_err());
        assert!(stored.check("write", &arguments).is_err());
        let shortened = read_back(text[..text.len() - 1].to_owned());
        assert!(shortened.check("read", &arguments).is_err());
        let longer = read_back(format!("{text}0"));
        assert!(longer.check("read", &arguments).is_err());
        let other_prefix = read_back(text.replacen("sha256:", "sha512:", 1));
        assert!(other_prefix.check("read", &arguments).is_err());
        // Taken here, it compares the bytes: another tool or other arguments differ.
        assert!(approved.check("write", &arguments).is_err());
        let changed = json!({"path": "src/lib.rs", "limit": [1, 2.5, null, false], "s": "é\""});
        assert!(approved.check("read", &changed).is_err());
        let mismatch = approved.check("read", &json!({"path": "x"})).unwrap_err();
        assert_eq!(mismatch.approved, approved);
        assert_eq!(
            mismatch.found,
            Fingerprint::of("read", &json!({"path": "x"}))
        );
    }

    #[test]
    fn the_canonical_text_is_compact_json_with_sorted_keys() {
        let mut out = Vec::new();
        write_canonical(
            &json!({"b": [1, "x\n"], "a": {"d": null, "c": -0.5}}),
            &mut out,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"a":{"c":-0.5,"d":null},"b":[1,"x\n"]}"#
        );
    }
}
