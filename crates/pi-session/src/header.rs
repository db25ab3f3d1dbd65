//! Line 1 of a session file: `{"type":"session","version":3,"id","timestamp","cwd","parentSession"?}`.

use serde_json::{Map, Value};

/// The version this crate writes (Pi's `CURRENT_SESSION_VERSION`).
pub const CURRENT_VERSION: u64 = 3;

/// The header of a session file. Fields Pi may add later are kept in the object and written
/// back unchanged.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionHeader {
    raw: Map<String, Value>,
}

impl SessionHeader {
    /// A version-3 header in Pi's key order: `type, version, id, timestamp, cwd[, parentSession]`.
    pub fn new(id: &str, timestamp: &str, cwd: &str, parent_session: Option<&str>) -> Self {
        let mut raw = Map::new();
        raw.insert("type".into(), "session".into());
        raw.insert("version".into(), CURRENT_VERSION.into());
        raw.insert("id".into(), id.into());
        raw.insert("timestamp".into(), timestamp.into());
        raw.insert("cwd".into(), cwd.into());
        if let Some(parent) = parent_session {
            raw.insert("parentSession".into(), parent.into());
        }
        Self { raw }
    }

    /// The header in `value`, if it is one: an object with `"type":"session"` and a string `id`
    /// (the test Pi applies before accepting a file).
    pub fn from_value(value: Value) -> Option<Self> {
        let Value::Object(raw) = value else {
            return None;
        };
        let is_header = raw.get("type").and_then(Value::as_str) == Some("session")
            && raw.get("id").is_some_and(Value::is_string);
        is_header.then_some(Self { raw })
    }

    /// The session id.
    pub fn id(&self) -> &str {
        self.str_field("id").unwrap_or_default()
    }

    /// The format version; a header without one is version 1.
    pub fn version(&self) -> u64 {
        self.raw.get("version").and_then(Value::as_u64).unwrap_or(1)
    }

    /// When the session started (ISO-8601), if recorded.
    pub fn timestamp(&self) -> Option<&str> {
        self.str_field("timestamp")
    }

    /// The working directory the session belongs to (empty for very old files).
    pub fn cwd(&self) -> &str {
        self.str_field("cwd").unwrap_or_default()
    }

    /// The file this session was forked from.
    pub fn parent_session(&self) -> Option<&str> {
        self.str_field("parentSession")
    }

    /// The whole header object, unknown fields included.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.raw
    }

    pub(crate) fn set_version(&mut self, version: u64) {
        self.raw.insert("version".into(), version.into());
    }

    fn str_field(&self, key: &str) -> Option<&str> {
        self.raw.get(key).and_then(Value::as_str)
    }
}
