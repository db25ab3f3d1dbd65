//! One entry line: `{type, id, parentId, timestamp, ...}`. The whole JSON object is kept as
//! read (key order included), so fields and entry types this crate does not know survive a
//! rewrite; typed views are borrowed from it on demand.

use serde_json::{Map, Value};

/// An entry of the session tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    id: String,
    parent_id: Option<String>,
    raw: Map<String, Value>,
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

    /// The entry held in `raw` (see [`Entry::from_value`]).
    pub fn from_map(raw: Map<String, Value>) -> Result<Self, NotAnEntry> {
        if !raw.get("type").is_some_and(Value::is_string) {
            return Err(NotAnEntry::NoType);
        }
        let id = raw
            .get("id")
            .and_then(Value::as_str)
            .ok_or(NotAnEntry::NoId)?
            .to_owned();
        let parent_id = raw
            .get("parentId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        Ok(Self { id, parent_id, raw })
    }

    /// A new entry of `entry_type` in Pi's key order (`type, id, parentId, timestamp`, then
    /// `fields` in order).
    pub fn build(
        entry_type: &str,
        id: String,
        parent_id: Option<String>,
        timestamp: String,
        fields: Map<String, Value>,
    ) -> Self {
        let mut raw = Map::with_capacity(fields.len() + 4);
        raw.insert("type".into(), entry_type.into());
        raw.insert("id".into(), id.clone().into());
        raw.insert(
            "parentId".into(),
            parent_id.clone().map_or(Value::Null, Value::String),
        );
        raw.insert("timestamp".into(), timestamp.into());
        raw.extend(fields);
        Self { id, parent_id, raw }
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
        self.raw
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// When it was written (ISO-8601), if recorded.
    pub fn timestamp(&self) -> Option<&str> {
        self.str("timestamp")
    }

    /// The whole JSON object, unknown fields included.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.raw
    }

    /// One field of the object.
    pub fn field(&self, key: &str) -> Option<&Value> {
        self.raw.get(key)
    }

    /// The typed view of this entry. A known type whose required fields are missing or of the
    /// wrong type is [`EntryKind::Malformed`]: kept in the file, left out of the context.
    pub fn kind(&self) -> EntryKind<'_> {
        self.kind_checked()
            .unwrap_or_else(|missing| EntryKind::Malformed {
                entry_type: self.entry_type(),
                missing,
            })
    }

    fn kind_checked(&self) -> Result<EntryKind<'_>, &'static str> {
        Ok(match self.entry_type() {
            "message" => EntryKind::Message(
                self.raw
                    .get("message")
                    .filter(|m| m.is_object())
                    .ok_or("message")?,
            ),
            "model_change" => EntryKind::ModelChange {
                provider: self.str("provider").ok_or("provider")?,
                model_id: self.str("modelId").ok_or("modelId")?,
            },
            "thinking_level_change" => EntryKind::ThinkingLevelChange {
                thinking_level: self.str("thinkingLevel").ok_or("thinkingLevel")?,
            },
            "compaction" => EntryKind::Compaction {
                summary: self.str("summary").ok_or("summary")?,
                first_kept_entry_id: self.str("firstKeptEntryId"),
                tokens_before: self.raw.get("tokensBefore").and_then(Value::as_f64),
                details: self.raw.get("details"),
                from_hook: self
                    .raw
                    .get("fromHook")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            },
            "branch_summary" => EntryKind::BranchSummary {
                from_id: self.str("fromId").unwrap_or("root"),
                summary: self.str("summary").unwrap_or_default(),
                details: self.raw.get("details"),
            },
            "custom" => EntryKind::Custom {
                custom_type: self.str("customType").ok_or("customType")?,
                data: self.raw.get("data"),
            },
            "custom_message" => EntryKind::CustomMessage {
                custom_type: self.str("customType").ok_or("customType")?,
                content: self.raw.get("content"),
                display: self
                    .raw
                    .get("display")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                details: self.raw.get("details"),
            },
            "label" => EntryKind::Label {
                target_id: self.str("targetId").ok_or("targetId")?,
                // A missing or empty label clears the target's label.
                label: self.str("label").filter(|label| !label.is_empty()),
            },
            "session_info" => EntryKind::SessionInfo {
                name: self.str("name"),
            },
            other => EntryKind::Unknown(other),
        })
    }

    pub(crate) fn set_tree_position(&mut self, id: String, parent_id: Option<String>) {
        self.raw.insert("id".into(), id.clone().into());
        self.raw.insert(
            "parentId".into(),
            parent_id.clone().map_or(Value::Null, Value::String),
        );
        self.id = id;
        self.parent_id = parent_id;
    }

    /// The line as written to the file (without its newline).
    pub fn to_line(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(&self.raw)
    }

    fn str(&self, key: &str) -> Option<&str> {
        self.raw.get(key).and_then(Value::as_str)
    }
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
