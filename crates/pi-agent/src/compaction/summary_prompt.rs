//! The summary request: the conversation serialised as plain text the way Pi serialises it (so
//! the model reads a record, not a conversation to continue), Pi's fixed headings, the UPDATE
//! variant when a previous summary exists, the split-turn prefix prompt, and the read and
//! modified files collected from tool calls.

use std::collections::BTreeSet;

use pi_ai::{AssistantContent, Message, UserContent};
use serde_json::Value;

/// Tool results longer than this are cut in the serialised conversation.
pub const TOOL_RESULT_MAX_CHARS: usize = 2_000;

/// The headings every summary must have, in Pi's order.
pub const SUMMARY_HEADINGS: [&str; 6] = [
    "## Goal",
    "## Constraints & Preferences",
    "## Progress",
    "## Key Decisions",
    "## Next Steps",
    "## Critical Context",
];

/// The headings of a split turn's prefix summary.
pub const TURN_PREFIX_HEADINGS: [&str; 3] = [
    "## Original Request",
    "## Early Progress",
    "## Context for Suffix",
];

/// The system prompt of every summary request.
pub const SUMMARY_SYSTEM_PROMPT: &str = "You summarise a conversation between a user and an AI coding assistant so that another model can pick the work up. \
Do not continue the conversation and do not answer anything asked in it: reply with the structured summary only.";

/// The body of Pi's format, shared by the first and the UPDATE prompt.
const FORMAT: &str = "## Goal
[What the user wants done; several items if the session covers several tasks.]

## Constraints & Preferences
- [Requirements, constraints and preferences the user stated, or \"(none)\"]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work under way]

### Blocked
- [What stops progress, if anything]

## Key Decisions
- **[Decision]**: [Why, briefly]

## Next Steps
1. [What comes next, in order]

## Critical Context
- [Data, examples or references needed to go on, or \"(none)\"]

Be brief in every section. Keep file paths, function names and error messages exactly as written.";

/// The prompt of a first compaction.
fn initial_prompt() -> String {
    format!(
        "The conversation above is to be summarised as a structured checkpoint another model will continue from.\n\nAnswer in EXACTLY this format:\n\n{FORMAT}"
    )
}

/// Pi's UPDATE prompt: the earlier summary is kept and extended.
fn update_prompt() -> String {
    format!(
        "The conversation above holds NEW messages; fold them into the summary given in <previous-summary>.\n\n\
Rules:\n\
- PRESERVE everything the previous summary says\n\
- ADD the new progress, decisions and context\n\
- UPDATE Progress: move finished items from \"In Progress\" to \"Done\"\n\
- UPDATE \"Next Steps\" to what remains\n\
- keep file paths, function names and error messages exactly\n\
- drop only what no longer matters\n\n\
Answer in EXACTLY this format:\n\n{FORMAT}"
    )
}

/// The prompt for the prefix of a turn that was cut in the middle.
const TURN_PREFIX_PROMPT: &str =
    "This is the START of a turn too large to keep; its END (the recent work) is kept verbatim.

Summarise the start so the kept end makes sense:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [Decisions and work done in this start]

## Context for Suffix
- [What is needed to understand the kept end]

Be brief; cover only what the kept end needs.";

/// The text of the summary request for `messages`.
///
/// ```
/// use pi_agent::compaction::history_prompt;
/// use pi_ai::{Message, UserMessage};
///
/// let text = history_prompt(&[Message::from(UserMessage::text("fix the bug"))], Some("old"), Some("tests"));
/// assert!(text.starts_with("<conversation>\n[User]: fix the bug\n</conversation>\n\n<previous-summary>\nold\n</previous-summary>"));
/// assert!(text.contains("PRESERVE") && text.ends_with("Additional focus: tests"));
/// ```
pub fn history_prompt(
    messages: &[Message],
    previous_summary: Option<&str>,
    focus: Option<&str>,
) -> String {
    let mut text = String::with_capacity(
        serialized_len_estimate(messages)
            + previous_summary.map_or(0, str::len)
            + focus.map_or(0, str::len)
            + PROMPT_ROOM,
    );
    write_conversation(&mut text, messages);
    if let Some(previous) = previous_summary {
        text.push_str("<previous-summary>\n");
        text.push_str(previous);
        text.push_str("\n</previous-summary>\n\n");
    }
    text.push_str(&if previous_summary.is_some() {
        update_prompt()
    } else {
        initial_prompt()
    });
    if let Some(focus) = focus.map(str::trim).filter(|focus| !focus.is_empty()) {
        text.push_str("\n\nAdditional focus: ");
        text.push_str(focus);
    }
    text
}

/// The text of the request that summarises a split turn's prefix.
pub fn turn_prefix_prompt(messages: &[Message]) -> String {
    let mut text = String::with_capacity(serialized_len_estimate(messages) + PROMPT_ROOM);
    write_conversation(&mut text, messages);
    text.push_str(TURN_PREFIX_PROMPT);
    text
}

/// Pi's `serializeConversation`: `[User]: …`, `[Assistant thinking]: …`, `[Assistant]: …`,
/// `[Assistant tool calls]: name(key="value", …)` and `[Tool result]: …` (cut to
/// [`TOOL_RESULT_MAX_CHARS`]), separated by blank lines.
pub fn serialize_conversation(messages: &[Message]) -> String {
    let mut text = String::new();
    write_parts(&mut text, messages);
    text
}

/// Room in a prompt for what surrounds the conversation: the tags and the fixed instructions.
const PROMPT_ROOM: usize = 8 << 10;

/// Appends `<conversation>\n`, the serialised `messages`, `\n</conversation>\n\n` to `out`.
fn write_conversation(out: &mut String, messages: &[Message]) {
    out.push_str("<conversation>\n");
    write_parts(out, messages);
    out.push_str("\n</conversation>\n\n");
}

/// About how long the serialised `messages` are (text bytes and labels; call arguments not
/// counted), so the prompt is allocated once: it is ~40 MB for a 10,000-entry session, and
/// building it as parts, joining them and formatting the prompt around the join held it three
/// times over (and more while each string doubled as it grew).
fn serialized_len_estimate(messages: &[Message]) -> usize {
    const LABEL: usize = 32;
    let texts = |content: &[pi_tool::Content]| -> usize {
        content
            .iter()
            .filter_map(pi_tool::Content::as_text)
            .map(str::len)
            .sum()
    };
    messages
        .iter()
        .map(|message| {
            LABEL
                + match message {
                    Message::User(user) => match &user.content {
                        UserContent::Text(text) => text.len(),
                        UserContent::Blocks(blocks) => texts(blocks),
                    },
                    Message::Assistant(assistant) => assistant
                        .content
                        .iter()
                        .map(|block| match block {
                            AssistantContent::Text { text, .. } => text.len() + 1,
                            AssistantContent::Thinking { thinking, .. } => thinking.len() + 1,
                            AssistantContent::ToolCall { name, .. } => 2 * LABEL + name.len(),
                        })
                        .sum(),
                    // At most the cut's characters, each up to four bytes, and the note.
                    Message::ToolResult(result) => {
                        texts(&result.content).min(4 * TOOL_RESULT_MAX_CHARS) + LABEL
                    }
                }
        })
        .sum()
}

/// Appends the serialised `messages` to `out`, each part after a blank line but the first.
fn write_parts(out: &mut String, messages: &[Message]) {
    let start = out.len();
    let part = |out: &mut String, label: &str, text: &str| {
        if out.len() > start {
            out.push_str("\n\n");
        }
        out.push_str(label);
        out.push_str(text);
    };
    for message in messages {
        match message {
            Message::User(user) => {
                let text = match &user.content {
                    UserContent::Text(text) => std::borrow::Cow::Borrowed(text.as_str()),
                    UserContent::Blocks(blocks) => blocks
                        .iter()
                        .filter_map(pi_tool::Content::as_text)
                        .collect::<String>()
                        .into(),
                };
                if !text.is_empty() {
                    part(out, "[User]: ", &text);
                }
            }
            Message::Assistant(assistant) => {
                let mut texts = Vec::new();
                let mut thinking = Vec::new();
                let mut calls = Vec::new();
                for block in &assistant.content {
                    match block {
                        AssistantContent::Text { text, .. } => texts.push(text.as_str()),
                        AssistantContent::Thinking { thinking: t, .. } => {
                            thinking.push(t.as_str());
                        }
                        AssistantContent::ToolCall {
                            name, arguments, ..
                        } => calls.push(format!("{name}({})", call_arguments(arguments))),
                    }
                }
                if !thinking.is_empty() {
                    part(out, "[Assistant thinking]: ", &thinking.join("\n"));
                }
                if !texts.is_empty() {
                    part(out, "[Assistant]: ", &texts.join("\n"));
                }
                if !calls.is_empty() {
                    part(out, "[Assistant tool calls]: ", &calls.join("; "));
                }
            }
            Message::ToolResult(result) => {
                let text = result.text();
                if !text.is_empty() {
                    part(
                        out,
                        "[Tool result]: ",
                        &truncate(&text, TOOL_RESULT_MAX_CHARS),
                    );
                }
            }
        }
    }
}

/// `key=<JSON value>` pairs, as Pi prints a call's arguments.
fn call_arguments(arguments: &Value) -> String {
    match arguments {
        Value::Object(map) => map
            .iter()
            .map(|(key, value)| format!("{key}={value}"))
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    }
}

/// The first `max` characters (UTF-16 units, as Pi counts; never half a character) and a note
/// of how many more there were.
fn truncate(text: &str, max: usize) -> String {
    let total = text.encode_utf16().count();
    if total <= max {
        return text.to_owned();
    }
    let mut units = 0;
    let mut end = 0;
    for (index, character) in text.char_indices() {
        if units + character.len_utf16() > max {
            break;
        }
        units += character.len_utf16();
        end = index + character.len_utf8();
    }
    format!(
        "{}\n\n[... {} more characters truncated]",
        text.get(..end).unwrap_or_default(),
        total - units
    )
}

/// The headings of `required` that `summary` lacks (each must start a line).
pub fn missing_headings<'a>(summary: &str, required: &[&'a str]) -> Vec<&'a str> {
    required
        .iter()
        .filter(|heading| !summary.lines().any(|line| line.trim() == **heading))
        .copied()
        .collect()
}

/// The files a conversation read and changed, from its `read`, `write` and `edit` calls.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileOps {
    read: BTreeSet<String>,
    modified: BTreeSet<String>,
}

impl FileOps {
    /// Adds the files of the calls in `message`.
    pub fn collect(&mut self, message: &Message) {
        let Message::Assistant(assistant) = message else {
            return;
        };
        for block in &assistant.content {
            let AssistantContent::ToolCall {
                name, arguments, ..
            } = block
            else {
                continue;
            };
            let Some(path) = arguments.get("path").and_then(Value::as_str) else {
                continue;
            };
            match name.as_str() {
                "read" => {
                    self.read.insert(path.to_owned());
                }
                "write" | "edit" => {
                    self.modified.insert(path.to_owned());
                }
                _ => {}
            }
        }
    }

    /// Adds an earlier compaction's `details{readFiles, modifiedFiles}`.
    pub fn collect_details(&mut self, details: &Value) {
        let list = |key: &str| {
            details
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        self.read.extend(list("readFiles"));
        self.modified.extend(list("modifiedFiles"));
    }

    /// Files only read (a modified file is listed as modified only), sorted.
    pub fn read_files(&self) -> Vec<String> {
        self.read.difference(&self.modified).cloned().collect()
    }

    /// Files written or edited, sorted.
    pub fn modified_files(&self) -> Vec<String> {
        self.modified.iter().cloned().collect()
    }

    /// Pi's `<read-files>` / `<modified-files>` blocks appended to a summary ("" with none).
    pub fn format(&self) -> String {
        let mut sections = Vec::new();
        let read = self.read_files();
        if !read.is_empty() {
            sections.push(format!("<read-files>\n{}\n</read-files>", read.join("\n")));
        }
        let modified = self.modified_files();
        if !modified.is_empty() {
            sections.push(format!(
                "<modified-files>\n{}\n</modified-files>",
                modified.join("\n")
            ));
        }
        if sections.is_empty() {
            String::new()
        } else {
            format!("\n\n{}", sections.join("\n\n"))
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use pi_ai::{AssistantMessage, ModelInfo, UserMessage};
    use pi_tool::{ToolResultMessage, text};
    use serde_json::json;

    fn model() -> ModelInfo {
        ModelInfo {
            api: "faux".into(),
            provider: "faux".into(),
            model: "m".into(),
        }
    }

    fn result(body: &str) -> Message {
        Message::ToolResult(ToolResultMessage {
            tool_call_id: "c1".into(),
            tool_name: "read".into(),
            content: vec![text(body)],
            details: None,
            is_error: false,
            timestamp: 0,
        })
    }

    #[test]
    fn serialises_as_pi_does() {
        let assistant = AssistantMessage::new(
            &model(),
            vec![
                AssistantContent::Thinking {
                    thinking: "hmm".into(),
                    thinking_signature: None,
                    redacted: None,
                },
                AssistantContent::text("Reading."),
                AssistantContent::tool_call("c1", "read", json!({"path": "src/a.rs", "limit": 5})),
                AssistantContent::tool_call("c2", "ls", json!({})),
            ],
        );
        let messages = [
            Message::from(UserMessage::text("look")),
            Message::Assistant(assistant),
            result("fn main() {}"),
            result(""),
        ];
        assert_eq!(
            serialize_conversation(&messages),
            "[User]: look\n\n[Assistant thinking]: hmm\n\n[Assistant]: Reading.\n\n\
[Assistant tool calls]: read(path=\"src/a.rs\", limit=5); ls()\n\n[Tool result]: fn main() {}"
        );
    }

    #[test]
    fn long_tool_results_are_cut_at_2000_characters() {
        let long = "é".repeat(2_500);
        let text = serialize_conversation(&[result(&long)]);
        assert!(text.starts_with(&format!("[Tool result]: {}", "é".repeat(2_000))));
        assert!(
            text.ends_with("\n\n[... 500 more characters truncated]"),
            "{}",
            &text[text.len() - 60..]
        );
        assert_eq!(truncate("short", 2_000), "short");
    }

    #[test]
    fn a_prompt_wraps_the_conversation_and_fits_the_room_reserved_for_it() {
        let long = "x\"y".repeat(3_000);
        let assistant = AssistantMessage::new(
            &model(),
            vec![
                AssistantContent::text(long.clone()),
                AssistantContent::tool_call("c1", "read", json!({"path": "src/a.rs"})),
            ],
        );
        let messages = [
            Message::from(UserMessage::text(long.clone())),
            Message::Assistant(assistant),
            result(&long),
        ];
        let conversation = serialize_conversation(&messages);
        let prompt = history_prompt(&messages, Some("## Goal\nx"), Some("tests"));
        assert!(prompt.starts_with(&format!(
            "<conversation>\n{conversation}\n</conversation>\n\n<previous-summary>\n## Goal\nx\n"
        )));
        // Allocated once: what was reserved up front holds the whole prompt.
        let reserved = serialized_len_estimate(&messages) + "## Goal\nx".len() + "tests".len();
        assert!(
            prompt.len() <= reserved + PROMPT_ROOM,
            "{} > {reserved}",
            prompt.len()
        );
        let prefix = turn_prefix_prompt(&messages);
        assert!(prefix.starts_with(&format!(
            "<conversation>\n{conversation}\n</conversation>\n\n"
        )));
        assert!(prefix.ends_with(TURN_PREFIX_PROMPT));
        assert!(prefix.len() <= serialized_len_estimate(&messages) + PROMPT_ROOM);
    }

    #[test]
    fn first_and_update_prompts_carry_pis_headings() {
        let first = history_prompt(&[], None, None);
        let update = history_prompt(&[], Some("## Goal\nx"), None);
        for prompt in [&first, &update] {
            assert!(
                missing_headings(prompt, &SUMMARY_HEADINGS).is_empty(),
                "{prompt}"
            );
        }
        assert!(!first.contains("<previous-summary>") && !first.contains("PRESERVE"));
        assert!(update.contains("<previous-summary>\n## Goal\nx\n</previous-summary>"));
        assert!(missing_headings(&turn_prefix_prompt(&[]), &TURN_PREFIX_HEADINGS).is_empty());
        assert_eq!(
            missing_headings("## Goal\n## Progress", &SUMMARY_HEADINGS),
            [
                "## Constraints & Preferences",
                "## Key Decisions",
                "## Next Steps",
                "## Critical Context"
            ]
        );
    }

    #[test]
    fn files_are_collected_from_calls_and_earlier_details() {
        let mut files = FileOps::default();
        files.collect(&Message::Assistant(AssistantMessage::new(
            &model(),
            vec![
                AssistantContent::tool_call("1", "read", json!({"path": "a.rs"})),
                AssistantContent::tool_call("2", "read", json!({"path": "b.rs"})),
                AssistantContent::tool_call("3", "edit", json!({"path": "b.rs"})),
                AssistantContent::tool_call("4", "bash", json!({"command": "ls"})),
            ],
        )));
        files.collect_details(&json!({"readFiles": ["z.md"], "modifiedFiles": ["w.rs"]}));
        assert_eq!(files.read_files(), ["a.rs", "z.md"]);
        assert_eq!(files.modified_files(), ["b.rs", "w.rs"]);
        assert_eq!(
            files.format(),
            "\n\n<read-files>\na.rs\nz.md\n</read-files>\n\n<modified-files>\nb.rs\nw.rs\n</modified-files>"
        );
        assert_eq!(FileOps::default().format(), "");
    }
}
