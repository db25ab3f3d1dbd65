//! Ids and timestamps in the forms Pi writes: UUIDv7 session ids, 8-hex entry ids checked
//! against the ids already in the file, and ISO-8601 UTC timestamps with milliseconds.

use chrono::{SecondsFormat, Utc};

/// How many 8-hex candidates to try before falling back to a full UUID (Pi tries 100).
const SHORT_ID_TRIES: usize = 100;

/// A new session id: a UUIDv7, as Pi has written since 0.67.1 (time-ordered, so file names
/// sort by creation).
pub fn new_session_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// A new entry id: the first 8 hex digits of a random UUID, not yet `taken`; a full UUID if 100
/// tries all collide (Pi's rule, so ids look the same whoever wrote the file).
pub fn new_entry_id(taken: impl Fn(&str) -> bool) -> String {
    // Written on the stack: only the 8 digits kept are allocated.
    let mut buffer = uuid::Uuid::encode_buffer();
    for _ in 0..SHORT_ID_TRIES {
        let full = uuid::Uuid::new_v4().simple().encode_lower(&mut buffer);
        let short = full.get(..8).unwrap_or(full);
        if !taken(short) {
            return short.to_owned();
        }
    }
    uuid::Uuid::new_v4().to_string()
}

/// Now as Pi's `new Date().toISOString()`: `2026-09-01T10:00:00.000Z`.
pub fn now_iso() -> String {
    use std::fmt::Write;
    // Its exact length, so an entry keeps it without copying it again.
    let mut text = String::with_capacity("2026-09-01T10:00:00.000Z".len());
    let _ = write!(text, "{}", Utc::now().format("%Y-%m-%dT%H:%M:%S%.3fZ"));
    text
}

/// An instant given in milliseconds since the Unix epoch, in the form of [`now_iso`] (for file
/// times shown beside header timestamps); `None` out of chrono's range.
pub fn millis_to_iso(millis: i64) -> Option<String> {
    chrono::DateTime::from_timestamp_millis(millis)
        .map(|time| time.to_rfc3339_opts(SecondsFormat::Millis, true))
}

/// Milliseconds since the Unix epoch of an ISO timestamp, as `new Date(s).getTime()`; `None`
/// when it does not parse (Pi would get `NaN`).
pub fn iso_to_millis(timestamp: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(timestamp)
        .ok()
        .map(|time| time.timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_ids_are_eight_hex_and_avoid_taken_ones() {
        let id = new_entry_id(|_| false);
        assert_eq!(id.len(), 8);
        assert!(
            id.chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        // Every short id taken: the fallback is a full UUID.
        assert_eq!(new_entry_id(|_| true).len(), 36);
    }

    #[test]
    fn session_ids_are_uuid_v7() {
        let id = new_session_id();
        let parsed = uuid::Uuid::parse_str(&id).ok();
        assert_eq!(parsed.map(|uuid| uuid.get_version_num()), Some(7));
    }

    #[test]
    fn timestamps_match_javascripts_iso_form() {
        let now = now_iso();
        assert_eq!(now.len(), "2026-09-01T10:00:00.000Z".len());
        assert!(now.ends_with('Z'));
        assert_eq!(
            iso_to_millis("2026-09-01T10:00:00.001Z"),
            Some(1_788_256_800_001)
        );
        assert_eq!(iso_to_millis("yesterday"), None);
        assert_eq!(
            millis_to_iso(1_788_256_800_001).as_deref(),
            Some("2026-09-01T10:00:00.001Z")
        );
    }
}
