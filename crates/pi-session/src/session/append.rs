//! Appending entries: each kind Pi writes, written to the file before the tree changes.

use pi_ai::Message;
use serde_json::{Map, Value};

use super::line_text::{is_long, line_text};
use super::{Session, Storage, encode, header_line};
use crate::entry::Entry;
use crate::error::{Result, SessionError};
use crate::ids::{new_entry_id, now_iso};
use crate::line::Line;
use crate::log::LogFile;
use crate::scan::{Present, Role};

/// From this many bytes, an appended message's line is read back from the session file when
/// needed instead of kept in memory.
const LEFT_IN_FILE_FROM: usize = 1 << 20;

impl Session {
    /// Appends a user, assistant or tool-result message; returns the entry id.
    pub fn append_message(&mut self, message: &Message) -> Result<String> {
        // Written straight from the typed message, in the key order `append` gives: no JSON
        // tree is built (and kept) for a line that is only written; it is parsed if asked for.
        let id = new_entry_id(|candidate| self.tree.contains(candidate));
        let parent = self.leaf_id().map(str::to_owned);
        let timestamp = now_iso();
        let line = MessageLine {
            entry_type: "message",
            id: &id,
            parent_id: parent.as_deref(),
            timestamp: &timestamp,
            message,
        };
        let role = match message {
            Message::User(_) => Role::User,
            Message::Assistant(_) => Role::Assistant,
            Message::ToolResult(_) => Role::ToolResult,
        };
        // A long message's line goes straight into an open file and is read back from there:
        // it is never held whole, beside the message it is written from.
        let streamed = match &mut self.storage {
            Storage::Open(log) if is_long(message) => {
                let reader = log.reader()?;
                let (offset, written) = log.append_streamed(|out| {
                    serde_json::to_writer(out, &line).map_err(std::io::Error::from)
                })?;
                Some(Line::written_in(&reader, offset, written))
            }
            _ => None,
        };
        let already_written = streamed.is_some();
        let stored = match streamed {
            Some(stored) => stored,
            None => Line::whole(line_text(&line, message).map_err(encode)?),
        };
        let entry = Entry::written_line(
            stored,
            "message",
            id.clone(),
            parent,
            timestamp,
            Some(role),
            Present::MESSAGE,
        );
        if already_written {
            self.tree.push(entry);
        } else {
            self.commit(entry)?;
        }
        Ok(id)
    }

    /// Appends a message given as JSON (for roles the coding agent adds, `bashExecution` and
    /// `custom`, or fields our types do not have); returns the entry id.
    pub fn append_message_value(&mut self, message: Value) -> Result<String> {
        self.append("message", fields([("message", message)]))
    }

    /// Appends a `model_change`.
    pub fn append_model_change(&mut self, provider: &str, model_id: &str) -> Result<String> {
        self.append(
            "model_change",
            fields([("provider", provider.into()), ("modelId", model_id.into())]),
        )
    }

    /// Appends a `thinking_level_change`.
    pub fn append_thinking_level_change(&mut self, thinking_level: &str) -> Result<String> {
        self.append(
            "thinking_level_change",
            fields([("thinkingLevel", thinking_level.into())]),
        )
    }

    /// Appends a `compaction` (the compaction algorithm itself lives with the agent loop).
    pub fn append_compaction(
        &mut self,
        summary: &str,
        first_kept_entry_id: &str,
        tokens_before: u64,
        details: Option<Value>,
        from_hook: Option<bool>,
    ) -> Result<String> {
        let mut map = fields([
            ("summary", summary.into()),
            ("firstKeptEntryId", first_kept_entry_id.into()),
            ("tokensBefore", tokens_before.into()),
        ]);
        insert_some(&mut map, "details", details);
        insert_some(&mut map, "fromHook", from_hook.map(Value::Bool));
        self.append("compaction", map)
    }

    /// Appends a `custom` entry (extension state, never sent to the model).
    pub fn append_custom(&mut self, custom_type: &str, data: Option<Value>) -> Result<String> {
        // Pi writes these with the extension's fields before the tree fields.
        let mut map = fields([("customType", custom_type.into())]);
        insert_some(&mut map, "data", data);
        self.append_fields_first("custom", map)
    }

    /// [`Session::append_custom`] with `data` written straight from its type: the same line,
    /// without building its JSON tree first.
    pub fn append_custom_data<T: serde::Serialize>(
        &mut self,
        custom_type: &str,
        data: &T,
    ) -> Result<String> {
        let id = new_entry_id(|candidate| self.tree.contains(candidate));
        let parent = self.leaf_id().map(str::to_owned);
        let timestamp = now_iso();
        let text = serde_json::to_string(&CustomLine {
            entry_type: "custom",
            custom_type,
            data,
            id: &id,
            parent_id: parent.as_deref(),
            timestamp: &timestamp,
        })
        .map_err(encode)?;
        let entry = Entry::written_line(
            Line::whole(text),
            "custom",
            id.clone(),
            parent,
            timestamp,
            None,
            Present::CUSTOM_TYPE,
        );
        self.commit(entry)?;
        Ok(id)
    }

    /// Appends a `custom_message` (sent to the model as a user message).
    pub fn append_custom_message(
        &mut self,
        custom_type: &str,
        content: Value,
        display: bool,
        details: Option<Value>,
    ) -> Result<String> {
        let mut map = fields([
            ("customType", custom_type.into()),
            ("content", content),
            ("display", display.into()),
        ]);
        insert_some(&mut map, "details", details);
        self.append_fields_first("custom_message", map)
    }

    /// Sets (or with `None` or an empty text, clears) the label of the entry `target_id`.
    pub fn label(&mut self, target_id: &str, label: Option<&str>) -> Result<String> {
        self.position(target_id)?;
        let mut map = fields([("targetId", target_id.into())]);
        insert_some(&mut map, "label", label.map(Value::from));
        self.append("label", map)
    }

    /// Names the session (a `session_info` entry; line breaks become spaces, as in Pi).
    pub fn set_name(&mut self, name: &str) -> Result<String> {
        let flattened: Vec<&str> = name.split(['\r', '\n']).filter(|p| !p.is_empty()).collect();
        let name = flattened.join(" ").trim().to_owned();
        self.append("session_info", fields([("name", name.into())]))
    }

    pub(super) fn append(&mut self, entry_type: &str, map: Map<String, Value>) -> Result<String> {
        let id = new_entry_id(|candidate| self.tree.contains(candidate));
        let parent = self.leaf_id().map(str::to_owned);
        let entry = Entry::build(entry_type, id.clone(), parent, now_iso(), map);
        self.commit(entry)?;
        Ok(id)
    }

    /// Like [`Session::append`], with the tree fields after `map` (Pi's order for `custom`
    /// and `custom_message`).
    pub(super) fn append_fields_first(
        &mut self,
        entry_type: &str,
        map: Map<String, Value>,
    ) -> Result<String> {
        let id = new_entry_id(|candidate| self.tree.contains(candidate));
        let parent = self.leaf_id().map(str::to_owned);
        let entry = Entry::build_fields_first(entry_type, id.clone(), parent, now_iso(), map);
        self.commit(entry)?;
        Ok(id)
    }

    /// Writes `entry` and, once written, adds it to the tree as the new leaf.
    fn commit(&mut self, entry: Entry) -> Result<()> {
        let written_at = {
            let line = entry.line()?;
            let line = line.as_ref();
            match &mut self.storage {
                Storage::Memory => None,
                Storage::ReadOnly(path) => {
                    return Err(SessionError::ReadOnly { path: path.clone() });
                }
                Storage::Pending(path) => {
                    let mut content = header_line(&self.header)?;
                    let offset = content.len() as u64;
                    content.push_str(line);
                    content.push('\n');
                    let log = LogFile::create(path, content.as_bytes())?;
                    self.storage = Storage::Open(log);
                    Some(offset)
                }
                Storage::Open(log) => Some(log.append_line(line)?),
            }
        };
        // A long message's line is read back from the file when it is needed, as a loaded
        // session's are, rather than held in memory beside the conversation for as long as
        // the session is open. (The entry is written: failing to open a reader only keeps it
        // in memory.)
        let entry = match (written_at, &mut self.storage) {
            (Some(offset), Storage::Open(log))
                if entry.line_len() >= LEFT_IN_FILE_FROM && entry.entry_type() == "message" =>
            {
                match log.reader() {
                    Ok(reader) => entry.left_in(&reader, offset),
                    Err(_) => entry,
                }
            }
            _ => entry,
        };
        self.tree.push(entry);
        Ok(())
    }
}

/// A `message` entry's line, written in one pass.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageLine<'a> {
    #[serde(rename = "type")]
    entry_type: &'static str,
    id: &'a str,
    parent_id: Option<&'a str>,
    timestamp: &'a str,
    message: &'a Message,
}

/// A `custom` entry's line, written in one pass (Pi's order: its fields, then the tree's).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct CustomLine<'a, T> {
    #[serde(rename = "type")]
    entry_type: &'static str,
    custom_type: &'a str,
    data: &'a T,
    id: &'a str,
    parent_id: Option<&'a str>,
    timestamp: &'a str,
}

pub(super) fn fields<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value))
        .collect()
}

pub(super) fn insert_some(map: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        map.insert(key.to_owned(), value);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::EntryKind;
    use pi_ai::{AssistantContent, AssistantMessage, ModelInfo, StopReason, UserMessage};

    /// Everything but the tree fields, which differ between two appends.
    fn message_part(line: &str) -> &str {
        let at = line.find(",\"message\":").unwrap();
        &line[at..]
    }

    #[test]
    fn a_message_written_in_one_pass_is_the_line_its_json_tree_would_give() {
        let model = ModelInfo {
            api: "a".into(),
            provider: "p".into(),
            model: "m".into(),
        };
        let mut assistant = AssistantMessage::new(
            &model,
            vec![
                AssistantContent::text("héllo \u{2028} \"quoted\""),
                AssistantContent::tool_call(
                    "c1",
                    "echo",
                    serde_json::json!({"z": 1.5, "a": [1, null]}),
                ),
            ],
        )
        .with_error(StopReason::Error, "boom");
        assistant.usage.cost.total = 0.000123;
        let messages: [Message; 2] = [UserMessage::text("hi").into(), assistant.into()];
        let mut session = Session::in_memory(std::path::Path::new("/work"));
        for message in &messages {
            let typed = session.append_message(message).unwrap();
            let tree = session
                .append_message_value(serde_json::to_value(message).unwrap())
                .unwrap();
            let typed = session.entry(&typed).unwrap();
            let tree = session.entry(&tree).unwrap();
            assert_eq!(
                message_part(&typed.line().unwrap()),
                message_part(&tree.line().unwrap())
            );
            assert_eq!(typed.kind().unwrap(), tree.kind().unwrap());
            assert!(matches!(typed.kind().unwrap(), EntryKind::Message(_)));
            assert_eq!(tree.parent_id(), Some(typed.id()));
        }
        let record = serde_json::json!({"decision": "allow", "n": [1, 2.5]});
        let typed = session
            .append_custom_data("pi-tool.approval", &record)
            .unwrap();
        let tree = session
            .append_custom("pi-tool.approval", Some(record.clone()))
            .unwrap();
        let (typed, tree) = (
            session.entry(&typed).unwrap(),
            session.entry(&tree).unwrap(),
        );
        let before_id = |line: &str| line[..line.find(",\"id\":").unwrap()].to_owned();
        assert_eq!(
            before_id(&typed.line().unwrap()),
            before_id(&tree.line().unwrap())
        );
        assert_eq!(typed.kind().unwrap(), tree.kind().unwrap());
        assert!(typed.malformed().is_none());
        // The typed lines read back as the messages they were written from.
        let context = session.context().unwrap();
        assert_eq!(context.messages.len(), 4);
        assert_eq!(context.messages[2], messages[1]);
    }

    #[test]
    fn a_long_message_is_read_back_from_the_file_not_kept_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let model = ModelInfo {
            api: "a".into(),
            provider: "p".into(),
            model: "m".into(),
        };
        let long = format!("{}\"end\"", "x\n".repeat(LEFT_IN_FILE_FROM));
        let answer: Message =
            AssistantMessage::new(&model, vec![AssistantContent::text(long)]).into();
        let short: Message = UserMessage::text("hi").into();
        let mut session = Session::create_at(&path, dir.path());
        session.append_message(&short).unwrap();
        let id = session.append_message(&answer).unwrap();
        let after = session.append_message(&short).unwrap();
        let stored = |session: &Session, id: &str| {
            matches!(
                session.entry(id).unwrap().stored_line(),
                crate::line::Line::File(_)
            )
        };
        assert!(stored(&session, &id), "the long line is in memory");
        assert!(
            !stored(&session, &after),
            "a short line is read from the file"
        );
        // Read back whole, here and after the file is opened again.
        let context = session.context().unwrap();
        assert_eq!(
            context.messages,
            [short.clone(), answer.clone(), short.clone()]
        );
        drop(session);
        let reopened = Session::open(&path).unwrap();
        assert_eq!(
            reopened.context().unwrap().messages,
            [short.clone(), answer, short]
        );
    }

    /// A session file in a fresh directory with one short message in it.
    fn file_session() -> (tempfile::TempDir, std::path::PathBuf, Session) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut session = Session::create_at(&path, dir.path());
        session
            .append_message(&UserMessage::text("hi").into())
            .unwrap();
        (dir, path, session)
    }

    #[test]
    fn a_long_message_after_a_torn_line_is_read_back_from_where_it_was_written() {
        let (_dir, path, session) = file_session();
        drop(session);
        // A crash tore the last line: the next append starts on a fresh line after it.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        std::io::Write::write_all(&mut file, br#"{"type":"message","id":"to"#).unwrap();
        drop(file);
        let mut session = Session::open(&path).unwrap();
        let long: Message = UserMessage::text("y".repeat(LEFT_IN_FILE_FROM)).into();
        let id = session.append_message(&long).unwrap();
        let entry = session.entry(&id).unwrap();
        assert!(matches!(entry.stored_line(), crate::line::Line::File(_)));
        assert!(entry.line().unwrap().starts_with(r#"{"type":"message""#));
        assert_eq!(session.context().unwrap().messages.last(), Some(&long));
    }

    #[test]
    fn a_long_message_changed_on_disk_since_is_noticed_not_misread() {
        let (_dir, path, mut session) = file_session();
        let long: Message = UserMessage::text("z".repeat(LEFT_IN_FILE_FROM)).into();
        session.append_message(&long).unwrap();
        // Another program rewrites the file in place: the line is no longer there.
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(0)
            .unwrap();
        let cut = text.replacen("zzzz", "", 1);
        std::os::unix::fs::FileExt::write_at(
            &std::fs::OpenOptions::new().write(true).open(&path).unwrap(),
            cut.as_bytes(),
            0,
        )
        .unwrap();
        assert!(matches!(
            session.context(),
            Err(SessionError::ChangedOnDisk { .. })
        ));
    }
}
