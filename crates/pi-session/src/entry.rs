//! One entry line: `{type, id, parentId, timestamp, ...}`. The entry IS its line, kept byte
//! for byte as read, so fields and entry types this crate does not know survive a rewrite
//! untouched. A loaded `message` entry's line stays in the session file and is read again when
//! asked for; other lines are in memory (`line.rs`). Loading reads only what the tree needs
//! from a line (see `scan.rs`); the whole JSON object is parsed on the first call that asks
//! for it ([`Entry::kind`], [`Entry::field`], [`Entry::as_map`]) and kept, and a context
//! parses a message straight into its typed form from the line (see `context.rs`).
//!
//! What reads the line can fail (the file was rewritten since it was loaded, or a disk
//! error), so those calls return a [`Result`].

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use crate::error::Result;
use crate::line::{Line, SourceFile};
use crate::scan::{self, Facts, Present, Role, Scanned};

/// An entry of the session tree.
#[derive(Clone)]
pub struct Entry {
    line: Line,
    /// Borrowed for the types Pi writes: most entries share those few names.
    entry_type: Cow<'static, str>,
    id: Box<str>,
    parent_id: Option<Box<str>>,
    timestamp: Option<Box<str>>,
    role: Option<Role>,
    /// The first required field missing, when the type is known and lacks one.
    malformed: Option<&'static str>,
    /// The whole object, parsed from the line when first asked for.
    object: OnceLock<Map<String, Value>>,
}

/// Why a JSON object is not an entry at all (no string `type` or `id`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NotAnEntry {
    /// The line is JSON but not an object.
    #[error("not a JSON object")]
    NotAnObject,
    /// `type` is missing or not a string.
    #[error("no string \"type\"")]
    NoType,
    /// `id` is missing or not a string.
    #[error("no string \"id\"")]
    NoId,
}

impl fmt::Debug for Entry {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Entry")
            .field("id", &self.id)
            .field("parent_id", &self.parent_id)
            .field("line", &self.line)
            .finish()
    }
}

impl Entry {
    /// The entry held in `value`. `parentId` may be missing or `null` (a root) or name an entry
    /// that does not exist (also a root, as in Pi); a non-string `parentId` is a root too.
    pub fn from_value(value: Value) -> Result<Self, NotAnEntry> {
        let Value::Object(raw) = value else {
            return Err(NotAnEntry::NotAnObject);
        };
        Self::from_map(raw)
    }

    /// Whether `value` can be an entry (see [`Entry::from_value`]).
    pub fn check(value: &Value) -> Result<(), NotAnEntry> {
        let Value::Object(raw) = value else {
            return Err(NotAnEntry::NotAnObject);
        };
        if !raw.get("type").is_some_and(Value::is_string) {
            return Err(NotAnEntry::NoType);
        }
        if !raw.get("id").is_some_and(Value::is_string) {
            return Err(NotAnEntry::NoId);
        }
        Ok(())
    }

    /// The entry held in `raw` (see [`Entry::from_value`]); its line is `raw` written out.
    pub fn from_map(raw: Map<String, Value>) -> Result<Self, NotAnEntry> {
        let (text, facts, raw) = written(raw);
        let mut entry = Self::from_facts(Line::whole(text), facts)?;
        entry.object = OnceLock::from(raw);
        Ok(entry)
    }

    /// The entry whose line is `line` (which was read as a JSON object with `facts`).
    pub(crate) fn from_facts(line: Line, mut facts: Facts) -> Result<Self, NotAnEntry> {
        let entry_type = facts.entry_type.take().ok_or(NotAnEntry::NoType)?;
        let id = facts.id.take().ok_or(NotAnEntry::NoId)?;
        Ok(Self::assemble(line, type_name(entry_type), id, facts))
    }

    fn assemble(line: Line, entry_type: Cow<'static, str>, id: String, facts: Facts) -> Self {
        Self {
            line,
            role: if entry_type == "message" {
                facts.role
            } else {
                None
            },
            malformed: missing_field(&entry_type, facts.present),
            entry_type,
            id: id.into(),
            parent_id: facts.parent_id.map(String::into_boxed_str),
            timestamp: facts.timestamp.map(String::into_boxed_str),
            object: OnceLock::new(),
        }
    }

    /// A new entry of `entry_type` in Pi's key order (`type, id, parentId, timestamp`, then
    /// `fields` in order). A field named as one of those four is left out: the tree's own
    /// values are the entry's, so what is written always reads back as this entry.
    pub fn build(
        entry_type: &str,
        id: String,
        parent_id: Option<String>,
        timestamp: String,
        fields: Map<String, Value>,
    ) -> Self {
        Self::build_in_order(entry_type, id, parent_id, timestamp, fields, false)
    }

    /// Like [`Entry::build`], with `id, parentId, timestamp` after `fields` (Pi's order for
    /// `custom` and `custom_message`). Cannot fail: the type and id are this call's.
    pub(crate) fn build_fields_first(
        entry_type: &str,
        id: String,
        parent_id: Option<String>,
        timestamp: String,
        fields: Map<String, Value>,
    ) -> Self {
        Self::build_in_order(entry_type, id, parent_id, timestamp, fields, true)
    }

    fn build_in_order(
        entry_type: &str,
        id: String,
        parent_id: Option<String>,
        timestamp: String,
        fields: Map<String, Value>,
        fields_first: bool,
    ) -> Self {
        const TREE_KEYS: [&str; 4] = ["type", "id", "parentId", "timestamp"];
        let mut fields = fields
            .into_iter()
            .filter(|(key, _)| !TREE_KEYS.contains(&key.as_str()));
        let mut raw = Map::with_capacity(fields.size_hint().0 + 4);
        raw.insert("type".into(), entry_type.into());
        if fields_first {
            raw.extend(fields.by_ref());
        }
        raw.insert("id".into(), id.clone().into());
        raw.insert(
            "parentId".into(),
            parent_id.map_or(Value::Null, Value::String),
        );
        raw.insert("timestamp".into(), timestamp.into());
        raw.extend(fields);
        let (text, facts, raw) = written(raw);
        let mut entry = Self::assemble(
            Line::whole(text),
            type_name(entry_type.to_owned()),
            id,
            facts,
        );
        entry.object = OnceLock::from(raw);
        entry
    }

    /// A new entry whose `line` was written from typed data with these tree fields, this
    /// message role and this required field present (so nothing is read back from it).
    pub(crate) fn written_line(
        line: Line,
        entry_type: &'static str,
        id: String,
        parent_id: Option<String>,
        timestamp: String,
        role: Option<Role>,
        required: u8,
    ) -> Self {
        let mut present = Present::default();
        present.set(required, true);
        let facts = Facts {
            entry_type: None,
            id: None,
            parent_id,
            timestamp: Some(timestamp),
            role,
            present,
        };
        Self::assemble(line, Cow::Borrowed(entry_type), id, facts)
    }

    /// The entry id (8 hex digits when Pi or this crate made it).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The parent's id; `None` for a root.
    pub fn parent_id(&self) -> Option<&str> {
        self.parent_id.as_deref()
    }

    /// The entry's `type` tag.
    pub fn entry_type(&self) -> &str {
        &self.entry_type
    }

    /// When it was written (ISO-8601), if recorded.
    pub fn timestamp(&self) -> Option<&str> {
        self.timestamp.as_deref()
    }

    /// The line as read from (or written to) the file, without its newline: the entry itself.
    /// Read from the file again for a loaded `message` entry.
    pub fn line(&self) -> Result<Cow<'_, str>> {
        self.line.text()
    }

    /// Where the line is.
    pub(crate) fn stored_line(&self) -> &Line {
        &self.line
    }

    /// The entry with its line read from `offset` of `source` from now on, where it was just
    /// written: its copy in memory is let go.
    pub(crate) fn left_in(mut self, source: &Arc<SourceFile>, offset: u64) -> Self {
        self.line = self.line.left_in(source, offset);
        self
    }

    /// The entry with its line, if it is left in a file, read from `offset` of `source` from
    /// now on: the line was copied there.
    pub(crate) fn moved_to(mut self, source: &Arc<SourceFile>, offset: u64) -> Self {
        self.line = self.line.moved_to(source, offset);
        self
    }

    /// The line's length in bytes (without reading it).
    pub fn line_len(&self) -> usize {
        self.line.len()
    }

    /// The whole JSON object, unknown fields included (parsed from the line on first use).
    pub fn as_map(&self) -> Result<&Map<String, Value>> {
        if let Some(object) = self.object.get() {
            return Ok(object);
        }
        // The line was read as a JSON object; an empty map only if that changed.
        let object = serde_json::from_str(&self.line()?).unwrap_or_default();
        Ok(self.object.get_or_init(|| object))
    }

    /// One field of the object.
    pub fn field(&self, key: &str) -> Result<Option<&Value>> {
        Ok(self.as_map()?.get(key))
    }

    /// The message of a `message` entry from a user, the assistant or a tool, read straight
    /// from the line into its typed form (no JSON value of the entry is built or kept).
    /// `None` for other entries and roles, and for a message that does not read this way (a
    /// `content: null`, a missing field): [`Entry::kind`] has its JSON then.
    pub fn message(&self) -> Result<Option<pi_ai::Message>> {
        let Some(role) = self.role.filter(|_| self.malformed.is_none()) else {
            return Ok(None);
        };
        Ok(crate::context::typed_message(&self.line()?, role))
    }

    /// The role of a `message` entry's message, read at load.
    pub(crate) fn role(&self) -> Option<Role> {
        self.role
    }

    /// The first required field a known type lacks, read at load without parsing the entry.
    pub(crate) fn malformed(&self) -> Option<&'static str> {
        self.malformed
    }

    /// Whether this is a well-formed `compaction` entry (what [`Entry::kind`] would call
    /// [`EntryKind::Compaction`]), without parsing any other type's line: a walk back to the
    /// last compaction stays cheap over a long session.
    pub fn is_compaction(&self) -> bool {
        self.entry_type() == "compaction" && matches!(self.kind(), Ok(EntryKind::Compaction { .. }))
    }

    /// The typed view of this entry. A known type whose required fields are missing or of the
    /// wrong type is [`EntryKind::Malformed`]: kept in the file, left out of the context.
    pub fn kind(&self) -> Result<EntryKind<'_>> {
        if let Some(missing) = self.malformed {
            return Ok(EntryKind::Malformed {
                entry_type: self.entry_type(),
                missing,
            });
        }
        let raw = self.as_map()?;
        Ok(self
            .kind_checked(raw)
            .unwrap_or_else(|missing| EntryKind::Malformed {
                entry_type: self.entry_type(),
                missing,
            }))
    }

    fn kind_checked<'a>(
        &'a self,
        raw: &'a Map<String, Value>,
    ) -> Result<EntryKind<'a>, &'static str> {
        let text = |key| raw.get(key).and_then(Value::as_str);
        Ok(match self.entry_type() {
            "message" => EntryKind::Message(
                raw.get("message")
                    .filter(|m| m.is_object())
                    .ok_or("message")?,
            ),
            "model_change" => EntryKind::ModelChange {
                provider: text("provider").ok_or("provider")?,
                model_id: text("modelId").ok_or("modelId")?,
            },
            "thinking_level_change" => EntryKind::ThinkingLevelChange {
                thinking_level: text("thinkingLevel").ok_or("thinkingLevel")?,
            },
            "compaction" => EntryKind::Compaction {
                summary: text("summary").ok_or("summary")?,
                first_kept_entry_id: text("firstKeptEntryId"),
                tokens_before: raw.get("tokensBefore").and_then(Value::as_f64),
                details: raw.get("details"),
                from_hook: raw
                    .get("fromHook")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            },
            "branch_summary" => EntryKind::BranchSummary {
                from_id: text("fromId").unwrap_or("root"),
                summary: text("summary").unwrap_or_default(),
                details: raw.get("details"),
            },
            "custom" => EntryKind::Custom {
                custom_type: text("customType").ok_or("customType")?,
                data: raw.get("data"),
            },
            "custom_message" => EntryKind::CustomMessage {
                custom_type: text("customType").ok_or("customType")?,
                content: raw.get("content"),
                display: raw.get("display").and_then(Value::as_bool).unwrap_or(false),
                details: raw.get("details"),
            },
            "label" => EntryKind::Label {
                target_id: text("targetId").ok_or("targetId")?,
                // A missing or empty label clears the target's label.
                label: text("label").filter(|label| !label.is_empty()),
            },
            "session_info" => EntryKind::SessionInfo { name: text("name") },
            other => EntryKind::Unknown(other),
        })
    }

    /// The same entry moved to `id` under `parent_id` (a fork re-chains what it copies).
    pub(crate) fn with_tree_position(&self, id: String, parent_id: Option<String>) -> Result<Self> {
        let mut raw = self.as_map()?.clone();
        raw.insert("id".into(), id.into());
        raw.insert(
            "parentId".into(),
            parent_id.map_or(Value::Null, Value::String),
        );
        // `type` stays a string and `id` is one: this is an entry.
        Ok(Self::from_map(raw).unwrap_or_else(|_| self.clone()))
    }

    /// The line as written to the file (without its newline).
    pub fn to_line(&self) -> Result<String> {
        Ok(self.line()?.into_owned())
    }
}

/// `raw` written out as a line, what loading would read of that line, and `raw` back.
fn written(raw: Map<String, Value>) -> (String, Facts, Map<String, Value>) {
    let value = Value::Object(raw);
    let facts = match scan::scan_value(&value) {
        Scanned::Object(facts) => facts,
        Scanned::NotAnObject => Facts::default(),
    };
    // Writing a `Value` out cannot fail (its keys are strings).
    let text = serde_json::to_string(&value).unwrap_or_default();
    let raw = match value {
        Value::Object(raw) => raw,
        _ => Map::new(),
    };
    (text, facts, raw)
}

/// An entry type's name, borrowed when it is one of the types Pi writes.
fn type_name(entry_type: String) -> Cow<'static, str> {
    const KNOWN: [&str; 9] = [
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    ];
    match KNOWN.iter().find(|known| **known == entry_type) {
        Some(known) => Cow::Borrowed(known),
        None => Cow::Owned(entry_type),
    }
}

/// The first field `entry_type` requires that `present` lacks, in the order
/// [`Entry::kind`] checks them.
fn missing_field(entry_type: &str, present: Present) -> Option<&'static str> {
    let required: &[(u8, &'static str)] = match entry_type {
        "message" => &[(Present::MESSAGE, "message")],
        "model_change" => &[
            (Present::PROVIDER, "provider"),
            (Present::MODEL_ID, "modelId"),
        ],
        "thinking_level_change" => &[(Present::THINKING_LEVEL, "thinkingLevel")],
        "compaction" => &[(Present::SUMMARY, "summary")],
        "custom" | "custom_message" => &[(Present::CUSTOM_TYPE, "customType")],
        "label" => &[(Present::TARGET_ID, "targetId")],
        _ => &[],
    };
    required
        .iter()
        .find(|(bit, _)| !present.has(*bit))
        .map(|(_, name)| *name)
}

/// A typed, borrowed view of an [`Entry`], one variant per type Pi writes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EntryKind<'a> {
    /// `message`: a user, assistant, toolResult, bashExecution or custom message, as JSON.
    Message(&'a Value),
    /// `model_change {provider, modelId}`.
    ModelChange {
        /// The provider.
        provider: &'a str,
        /// The model id.
        model_id: &'a str,
    },
    /// `thinking_level_change {thinkingLevel}`.
    ThinkingLevelChange {
        /// `off`, `minimal`, `low`, `medium`, `high`, `xhigh`.
        thinking_level: &'a str,
    },
    /// `compaction {summary, firstKeptEntryId, tokensBefore, details?, fromHook?}`.
    Compaction {
        /// The summary of what came before.
        summary: &'a str,
        /// The first entry kept verbatim after the summary.
        first_kept_entry_id: Option<&'a str>,
        /// The estimated context size before compacting.
        tokens_before: Option<f64>,
        /// `{readFiles, modifiedFiles}` for Pi's own compactions; anything for extensions.
        details: Option<&'a Value>,
        /// Whether an extension produced it.
        from_hook: bool,
    },
    /// `branch_summary {fromId, summary, details?}`.
    BranchSummary {
        /// The entry the branch left from (`root` when it left before the first entry).
        from_id: &'a str,
        /// The summary of the abandoned branch (empty ones are not sent to the model).
        summary: &'a str,
        /// Extra data, not sent to the model.
        details: Option<&'a Value>,
    },
    /// `custom {customType, data?}`: extension state, never sent to the model.
    Custom {
        /// The extension's tag.
        custom_type: &'a str,
        /// Its data.
        data: Option<&'a Value>,
    },
    /// `custom_message {customType, content, display, details?}`: sent as a user message.
    CustomMessage {
        /// The extension's tag.
        custom_type: &'a str,
        /// A string or text/image blocks.
        content: Option<&'a Value>,
        /// Whether a UI shows it.
        display: bool,
        /// Extra data, not sent to the model.
        details: Option<&'a Value>,
    },
    /// `label {targetId, label?}`: sets (or, without `label`, clears) a bookmark.
    Label {
        /// The labelled entry.
        target_id: &'a str,
        /// The label; `None` clears it.
        label: Option<&'a str>,
    },
    /// `session_info {name?}`: the session's display name.
    SessionInfo {
        /// The name; empty or missing clears it.
        name: Option<&'a str>,
    },
    /// A type this crate does not know: kept and written back unchanged.
    Unknown(&'a str),
    /// A known type lacking a required field: kept, but not used.
    Malformed {
        /// The entry's type.
        entry_type: &'a str,
        /// The first required field found missing or of the wrong type.
        missing: &'static str,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str) -> Entry {
        let Ok(Scanned::Object(facts)) = scan::scan(line) else {
            panic!("an object: {line}");
        };
        Entry::from_facts(Line::whole(line.to_owned()), facts).unwrap()
    }

    /// What loading decides without parsing the entry is what `kind` decides from the object.
    #[test]
    fn malformed_entries_are_found_at_load_as_kind_finds_them() {
        let lines = [
            r#"{"type":"message","id":"a","message":{"role":"user"}}"#,
            r#"{"type":"message","id":"a","message":"text"}"#,
            r#"{"type":"message","id":"a"}"#,
            r#"{"type":"model_change","id":"a","provider":"p","modelId":"m"}"#,
            r#"{"type":"model_change","id":"a","provider":"p"}"#,
            r#"{"type":"model_change","id":"a","modelId":"m"}"#,
            r#"{"type":"model_change","id":"a","provider":1,"modelId":2}"#,
            r#"{"type":"thinking_level_change","id":"a","thinkingLevel":null}"#,
            r#"{"type":"compaction","id":"a","summary":"s"}"#,
            r#"{"type":"compaction","id":"a","summary":{"text":"s"}}"#,
            r#"{"type":"branch_summary","id":"a"}"#,
            r#"{"type":"custom","id":"a","customType":"t"}"#,
            r#"{"type":"custom","id":"a","customType":"t","customType":false}"#,
            r#"{"type":"custom_message","id":"a","content":"c"}"#,
            r#"{"type":"label","id":"a","targetId":"b"}"#,
            r#"{"type":"label","id":"a","label":"x"}"#,
            r#"{"type":"session_info","id":"a"}"#,
            r#"{"type":"future","id":"a"}"#,
        ];
        for line in lines {
            let entry = read(line);
            let raw = entry.as_map().unwrap();
            assert_eq!(entry.malformed(), entry.kind_checked(raw).err(), "{line}");
        }
    }

    #[test]
    fn is_compaction_agrees_with_kind_and_parses_no_other_type() {
        let lines = [
            r#"{"type":"compaction","id":"a","summary":"s","firstKeptEntryId":"b"}"#,
            r#"{"type":"compaction","id":"a"}"#,
            r#"{"type":"compaction","id":"a","summary":{"text":"s"}}"#,
            r#"{"type":"message","id":"a","message":{"role":"user","content":"compaction"}}"#,
            r#"{"type":"custom","id":"a","customType":"compaction"}"#,
            r#"{"type":"future","id":"a","summary":"s"}"#,
        ];
        for line in lines {
            let entry = read(line);
            let expected = matches!(read(line).kind(), Ok(EntryKind::Compaction { .. }));
            assert_eq!(entry.is_compaction(), expected, "{line}");
            if entry.entry_type() != "compaction" {
                assert!(entry.object.get().is_none(), "parsed: {line}");
            }
        }
    }

    #[test]
    fn a_built_entry_is_its_line() {
        let mut fields = Map::new();
        fields.insert("summary".into(), "s".into());
        let built = Entry::build("compaction", "abcd1234".into(), None, "t".into(), fields);
        let line = built.line().unwrap();
        assert_eq!(
            line,
            r#"{"type":"compaction","id":"abcd1234","parentId":null,"timestamp":"t","summary":"s"}"#
        );
        let again = read(&line);
        assert_eq!(again.line().unwrap(), line);
        assert_eq!(again.as_map().unwrap(), built.as_map().unwrap());
        assert_eq!(built.malformed(), None);
        assert_eq!(built.timestamp(), Some("t"));
    }

    /// The tree's keys are the builder's: a field of the same name cannot make the line say
    /// another type or id than the entry (which would read back as no entry, or another one).
    #[test]
    fn a_field_named_like_a_tree_key_is_left_out_in_either_order() {
        let mut fields = Map::new();
        fields.insert("customType".into(), "t".into());
        fields.insert("type".into(), 5.into());
        fields.insert("id".into(), "forged".into());
        fields.insert("parentId".into(), "forged".into());
        fields.insert("timestamp".into(), false.into());
        let first = Entry::build(
            "custom",
            "abcd1234".into(),
            None,
            "t".into(),
            fields.clone(),
        );
        assert_eq!(
            first.line().unwrap(),
            r#"{"type":"custom","id":"abcd1234","parentId":null,"timestamp":"t","customType":"t"}"#
        );
        let last = Entry::build_fields_first(
            "custom",
            "abcd1234".into(),
            Some("00000001".into()),
            "t".into(),
            fields,
        );
        let line = last.line().unwrap();
        assert_eq!(
            line,
            r#"{"type":"custom","customType":"t","id":"abcd1234","parentId":"00000001","timestamp":"t"}"#
        );
        let again = read(&line);
        assert_eq!((again.id(), again.entry_type()), ("abcd1234", "custom"));
        assert_eq!(again.parent_id(), Some("00000001"));
        assert_eq!(last.malformed(), None);
    }
}
