//! The fingerprint that binds a decision to the exact arguments decided on: taken when the
//! decision is made, checked again just before the tool runs, so nothing (a hook, a retry, a
//! bug) can change the arguments between approval and execution unnoticed.

use std::fmt;

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
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Fingerprint(String);

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
        let mut hasher = Sha256::new();
        hasher.update(tool.as_bytes());
        // A byte no tool name has keeps `ab` + `{...}` apart from `a` + `b{...}`.
        hasher.update([0]);
        let mut canonical = String::new();
        write_canonical(arguments, &mut canonical);
        hasher.update(canonical.as_bytes());
        let digest = hasher.finalize();
        let mut text = String::with_capacity(7 + 64);
        text.push_str("sha256:");
        // By hand: `write!("{:02x}")` per byte cost more than the hash itself.
        const HEX: &[u8; 16] = b"0123456789abcdef";
        for byte in digest.iter() {
            for nibble in [byte >> 4, byte & 0x0f] {
                let digit = HEX.get(usize::from(nibble)).copied().unwrap_or(b'0');
                text.push(char::from(digit));
            }
        }
        Self(text)
    }

    /// Whether `arguments` are exactly what was decided on; the executor calls this last.
    pub fn check(&self, tool: &str, arguments: &Value) -> Result<(), FingerprintMismatch> {
        let found = Self::of(tool, arguments);
        if &found == self {
            Ok(())
        } else {
            Err(FingerprintMismatch {
                tool: tool.to_owned(),
                approved: self.clone(),
                found,
            })
        }
    }

    /// The text (`sha256:...`).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Canonical JSON: keys sorted by their UTF-8 bytes, no white space, strings and numbers as
/// serde_json writes them (the workspace keeps insertion order, so sorting is done here).
fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|(a, _), (b, _)| a.as_bytes().cmp(b.as_bytes()));
            out.push('{');
            for (index, (key, value)) in entries.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(value, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}
