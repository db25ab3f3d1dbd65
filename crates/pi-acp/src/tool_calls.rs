//! How one of our tool calls looks to an editor: its ACP `kind`, a short `title`, the files it
//! touches (`locations`), and its content (the result's text; for `edit` and `write` a `diff`
//! with the old and new text, so the editor can show the change).

use std::path::{Path, PathBuf};

use agent_client_protocol::v1::schema::{
    ContentBlock, Diff, ToolCallContent, ToolCallLocation, ToolKind,
};
use pi_tool::Content;
use serde_json::Value;

/// The largest file whose whole text a `write` diff shows as the old text; a larger one is
/// shown as new text only (reading it would hold the turn for nothing a person reads).
const MAX_DIFF_FILE_BYTES: u64 = 1024 * 1024;

/// The ACP kind of a tool, by its name: what an editor chooses an icon and a rendering by.
pub fn kind_of(tool: &str) -> ToolKind {
    match tool {
        "read" | "ls" => ToolKind::Read,
        "edit" | "write" => ToolKind::Edit,
        "bash" => ToolKind::Execute,
        "grep" | "find" => ToolKind::Search,
        name if name.contains("fetch") || name.contains("web") => ToolKind::Fetch,
        _ => ToolKind::Other,
    }
}

fn text_argument<'a>(arguments: &'a Value, name: &str) -> Option<&'a str> {
    arguments.get(name).and_then(Value::as_str)
}

/// A one-line title for a call, as an editor lists it (`Read src/main.rs`, `Run cargo test`).
pub fn title_of(tool: &str, arguments: &Value) -> String {
    let path = text_argument(arguments, "path");
    let pattern = text_argument(arguments, "pattern");
    let within = |what: String| match path {
        Some(path) => format!("{what} in {path}"),
        None => what,
    };
    match (tool, path) {
        ("read", Some(path)) => format!("Read {path}"),
        ("write", Some(path)) => format!("Write {path}"),
        ("edit", Some(path)) => format!("Edit {path}"),
        ("ls", _) => format!("List {}", path.unwrap_or(".")),
        ("bash", _) => match text_argument(arguments, "command") {
            Some(command) => format!("Run {}", first_line(command)),
            None => "Run a command".to_owned(),
        },
        ("grep", _) => within(format!("Search for {}", pattern.unwrap_or("a pattern"))),
        ("find", _) => within(format!("Find {}", pattern.unwrap_or("files"))),
        _ => tool.to_owned(),
    }
}

/// The first line of a command, marked when more follow.
fn first_line(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    if lines.next().is_some() {
        format!("{first} …")
    } else {
        first.to_owned()
    }
}

/// `path` of a call, made absolute against `cwd` (ACP paths are absolute).
pub(crate) fn absolute_path(arguments: &Value, cwd: &Path) -> Option<PathBuf> {
    text_argument(arguments, "path").map(|path| cwd.join(path))
}

/// The files a call works on: the path of the file tools (with the first line `read` asks
/// for), so an editor can follow the agent.
pub fn locations_of(tool: &str, arguments: &Value, cwd: &Path) -> Vec<ToolCallLocation> {
    if !matches!(tool, "read" | "write" | "edit" | "ls" | "grep" | "find") {
        return Vec::new();
    }
    let Some(path) = absolute_path(arguments, cwd) else {
        return Vec::new();
    };
    let location = ToolCallLocation::new(path);
    let line = arguments
        .get("offset")
        .and_then(Value::as_u64)
        .filter(|_| tool == "read")
        .and_then(|line| u32::try_from(line).ok());
    vec![location.line(line)]
}

/// The change an `edit` or `write` call asks for, as ACP diffs: one per replacement of an
/// edit; for a write, the new text, and with `read_old` the file's text now (when it exists
/// and is small: a call about to run; a replayed call's file has changed since). Empty for
/// any other tool or arguments that do not say what changes.
pub fn diffs_of(tool: &str, arguments: &Value, cwd: &Path, read_old: bool) -> Vec<ToolCallContent> {
    let Some(path) = absolute_path(arguments, cwd) else {
        return Vec::new();
    };
    match tool {
        "write" => {
            let Some(content) = text_argument(arguments, "content") else {
                return Vec::new();
            };
            let old = std::fs::metadata(&path)
                .ok()
                .filter(|_| read_old)
                .filter(|metadata| metadata.is_file() && metadata.len() <= MAX_DIFF_FILE_BYTES)
                .and_then(|_| std::fs::read_to_string(&path).ok());
            vec![ToolCallContent::Diff(
                Diff::new(path, content).old_text(old),
            )]
        }
        "edit" => {
            let edits = match arguments.get("edits").and_then(Value::as_array) {
                Some(edits) => edits.iter().collect(),
                // The older single-edit shape.
                None => vec![arguments],
            };
            edits
                .into_iter()
                .filter_map(|edit| {
                    let old = text_argument(edit, "oldText")?;
                    let new = text_argument(edit, "newText")?;
                    Some(ToolCallContent::Diff(
                        Diff::new(path.clone(), new).old_text(old.to_owned()),
                    ))
                })
                .collect()
        }
        _ => Vec::new(),
    }
}

/// A tool's content (a result or a progress report) as ACP content: text as text, images
/// as images.
pub fn content_of(content: &[Content]) -> Vec<ToolCallContent> {
    content
        .iter()
        .filter_map(|block| match block {
            Content::Text { text } if !text.is_empty() => Some(ToolCallContent::Content(
                agent_client_protocol::v1::schema::Content::new(ContentBlock::from(text.clone())),
            )),
            Content::Image { data, mime_type } => Some(ToolCallContent::Content(
                agent_client_protocol::v1::schema::Content::new(ContentBlock::Image(
                    agent_client_protocol::v1::schema::ImageContent::new(
                        data.clone(),
                        mime_type.clone(),
                    ),
                )),
            )),
            _ => None,
        })
        .collect()
}

/// One text block as tool call content.
pub(crate) fn text_content(text: impl Into<String>) -> ToolCallContent {
    ToolCallContent::Content(agent_client_protocol::v1::schema::Content::new(
        ContentBlock::from(text.into()),
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use serde_json::json;

    #[test]
    fn each_tool_has_its_kind_and_title() {
        assert_eq!(kind_of("read"), ToolKind::Read);
        assert_eq!(kind_of("edit"), ToolKind::Edit);
        assert_eq!(kind_of("write"), ToolKind::Edit);
        assert_eq!(kind_of("bash"), ToolKind::Execute);
        assert_eq!(kind_of("grep"), ToolKind::Search);
        assert_eq!(kind_of("find"), ToolKind::Search);
        assert_eq!(kind_of("web_fetch"), ToolKind::Fetch);
        assert_eq!(kind_of("mcp__x__y"), ToolKind::Other);
        assert_eq!(title_of("read", &json!({"path": "a.rs"})), "Read a.rs");
        assert_eq!(
            title_of("bash", &json!({"command": "cargo test\necho done"})),
            "Run cargo test …"
        );
        assert_eq!(
            title_of("grep", &json!({"pattern": "fn main", "path": "src"})),
            "Search for fn main in src"
        );
        assert_eq!(title_of("other", &json!({})), "other");
    }

    #[test]
    fn file_tools_locate_their_file_and_read_its_line() {
        let cwd = Path::new("/work");
        let locations = locations_of("read", &json!({"path": "a.rs", "offset": 7}), cwd);
        assert_eq!(locations.len(), 1);
        assert_eq!(locations[0].path, Path::new("/work/a.rs"));
        assert_eq!(locations[0].line, Some(7));
        assert!(locations_of("bash", &json!({"command": "ls"}), cwd).is_empty());
    }

    #[test]
    fn edits_and_writes_are_diffs_with_old_and_new_text() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "old text").unwrap();
        let write = diffs_of(
            "write",
            &json!({"path": "a.txt", "content": "new text"}),
            dir.path(),
            true,
        );
        let ToolCallContent::Diff(diff) = &write[0] else {
            panic!("{write:?}")
        };
        assert_eq!(diff.old_text.as_deref(), Some("old text"));
        assert_eq!(diff.new_text, "new text");
        assert_eq!(diff.path, dir.path().join("a.txt"));
        let created = diffs_of(
            "write",
            &json!({"path": "b.txt", "content": "x"}),
            dir.path(),
            true,
        );
        let ToolCallContent::Diff(diff) = &created[0] else {
            panic!("{created:?}")
        };
        assert_eq!(diff.old_text, None);
        let edit = diffs_of(
            "edit",
            &json!({"path": "a.txt", "edits": [{"oldText": "old", "newText": "new"}, {"oldText": "t", "newText": "T"}]}),
            dir.path(),
            true,
        );
        assert_eq!(edit.len(), 2);
        assert!(diffs_of("read", &json!({"path": "a.txt"}), dir.path(), true).is_empty());
        let replayed = diffs_of(
            "write",
            &json!({"path": "a.txt", "content": "new text"}),
            dir.path(),
            false,
        );
        let ToolCallContent::Diff(diff) = &replayed[0] else {
            panic!("{replayed:?}")
        };
        assert_eq!(diff.old_text, None);
    }
}
