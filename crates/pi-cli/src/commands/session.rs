//! `pi-tool session list [--all] [--json]`, `session context FILE [--leaf ID]`,
//! `session tree FILE`, `session export FILE [-o OUT.html]`, `session stats FILE [--json]` and `session approvals FILE [--json]`: Pi's session files as a person (or a test comparing us with Pi) reads
//! them. Nothing here writes to a session.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::UNIX_EPOCH;

use anyhow::Context;
use clap::{Args, Subcommand};
use pi_ai::{AssistantContent, Message, UserContent};
use pi_session::{EntryKind, LoadReport, Session, SessionSummary};
use pi_tool::Content;
use serde_json::{Value, json};

use pi_coding_agent::{FoundSession, find_session, session_dir};

#[derive(Debug, Args)]
pub(crate) struct SessionArgs {
    #[command(subcommand)]
    command: SessionCommand,
    /// Look for this directory's sessions in DIR instead of `~/.pi/agent/sessions/--<cwd>--/`.
    #[arg(long, value_name = "DIR", global = true)]
    session_dir: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum SessionCommand {
    /// This directory's sessions (the `--coding-tools` DIR, else the current one), newest
    /// first: time, id, entry count, name or first message.
    List {
        /// Every directory's sessions, with their directories.
        #[arg(long)]
        all: bool,
        /// A JSON array instead.
        #[arg(long)]
        json: bool,
    },
    /// The messages the model would be sent, one JSON line each (our wire shapes), nothing
    /// else on stdout; what loading noticed goes to stderr.
    Context {
        /// A session file, or an id prefix.
        file: String,
        /// Build the context at this entry instead of the leaf (the last entry).
        #[arg(long, value_name = "ID")]
        leaf: Option<String>,
    },
    /// The tree as indented text: one entry a line, a branch's children indented, labels in
    /// brackets, the leaf marked `<- leaf`.
    Tree {
        /// A session file, or an id prefix.
        file: String,
    },
    /// The approval decisions the session recorded (its `pi-tool.approval` entries), one a
    /// line: time, decision, tool, call id, who decided and for how long, the rule and its
    /// source, why.
    Approvals {
        /// A session file, or an id prefix.
        file: String,
        /// One JSON object a line instead (the entries' data).
        #[arg(long)]
        json: bool,
    },
    /// Tokens and cost: the messages by role, the tool calls, the answers' tokens and what
    /// they cost (Pi's `get_session_stats`), as one line, or as JSON.
    Stats {
        /// A session file, or an id prefix.
        file: String,
        /// Pi's JSON object instead.
        #[arg(long)]
        json: bool,
    },
    /// Write the session as one self-contained HTML page (Pi's `--export`): the tree, every
    /// message of every branch, tool calls with their results and diffs, images; the page
    /// runs no script and fetches nothing.
    Export {
        /// A session file, or an id prefix.
        file: String,
        /// The page's path (default: `pi-session-<file name>.html` in the current directory).
        #[arg(short, long, value_name = "OUT.html")]
        output: Option<PathBuf>,
    },
    /// Compact the session now (Pi's `/compact`): the model given by the flags summarises
    /// the older conversation, the newest `compaction.keepRecentTokens` stay verbatim, and the
    /// new entry is printed as JSON. Nothing is written when the summary is refused.
    Compact {
        /// A session file, or an id prefix.
        file: String,
        /// What the summary should focus on ("Additional focus: ...").
        #[arg(long, value_name = "TEXT")]
        focus: Option<String>,
        #[command(flatten)]
        model: super::agent_compaction::ModelArgs,
    },
}

/// Runs `pi-tool session ...` for the directory `cwd`.
pub(crate) fn run(args: SessionArgs, cwd: &Path) -> anyhow::Result<ExitCode> {
    let dir = || session_dir(args.session_dir.as_deref(), cwd);
    match args.command {
        SessionCommand::List { all, json } => {
            let listing = if all {
                let agent = pi_session::agent_dir()
                    .context("no home directory: set PI_CODING_AGENT_DIR")?;
                pi_session::list_all_sessions(&pi_session::sessions_root(&agent))?
            } else {
                pi_session::list_sessions(&dir()?)?
            };
            for error in &listing.unreadable {
                report!("pi-tool: {}", pi_tool::error_text(error));
            }
            if json {
                crate::output::print_line(&listing_json(&listing.sessions).to_string())?;
            } else {
                for summary in &listing.sessions {
                    let line = summary_line(summary, all);
                    crate::output::print_line(&pi_coding_agent::visible(&line))?;
                }
            }
        }
        SessionCommand::Export { file, output } => {
            let session = load(&file, &dir()?)?;
            let path = pi_export::write_session_html(&session, output.as_deref())?;
            crate::output::print_line(&pi_coding_agent::visible(&format!(
                "Exported to: {}",
                path.display()
            )))?;
        }
        SessionCommand::Context { file, leaf } => {
            let session = load(&file, &dir()?)?;
            let context = match &leaf {
                Some(id) => session.context_at(id)?,
                None => session.context()?,
            };
            crate::output::write_buffered(|out| {
                for message in &context.messages {
                    serde_json::to_writer(&mut *out, message)?;
                    out.write_all(b"\n")?;
                }
                Ok(())
            })?;
        }
        SessionCommand::Stats { file, json } => {
            let session = load(&file, &dir()?)?;
            let stats = pi_coding_agent::SessionStats::of(&session)?;
            if json {
                crate::output::print_line(&serde_json::to_string(&stats)?)?;
            } else {
                crate::output::print_line(&stats.summary())?;
            }
        }
        SessionCommand::Tree { file } => {
            let session = load(&file, &dir()?)?;
            crate::output::print(&pi_coding_agent::visible(&tree_text(&session)?))?;
        }
        SessionCommand::Compact { file, focus, model } => {
            let path = match find_session(&file, &dir()?)? {
                FoundSession::Existing(path) => path,
                FoundSession::NewFile(path) => anyhow::bail!("{}: no such file", path.display()),
            };
            super::agent_compaction::compact_file(&path, cwd, &model, focus.as_deref())?;
        }
        SessionCommand::Approvals { file, json } => {
            let session = load(&file, &dir()?)?;
            let mut out = String::new();
            for record in pi_coding_agent::approval_records(&session) {
                if json {
                    out.push_str(&serde_json::to_string(&record)?);
                } else {
                    out.push_str(&pi_coding_agent::visible(&super::approval::record_line(
                        &record,
                    )));
                }
                out.push('\n');
            }
            crate::output::print(&out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Where the run works: `--coding-tools` DIR, else the current directory, absolute and with
/// links resolved (the path Pi's `process.cwd()` gives, so both name its sessions alike).
pub(crate) fn work_dir(coding_tools: Option<&Path>) -> anyhow::Result<PathBuf> {
    let dir = match coding_tools {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir().context("reading the current directory")?,
    };
    std::fs::canonicalize(&dir)
        .or_else(|_| std::path::absolute(&dir))
        .with_context(|| format!("resolving {}", dir.display()))
}

/// Loads a session for reading (path or id prefix); what loading noticed goes to stderr.
fn load(target: &str, dir: &Path) -> anyhow::Result<Session> {
    let path = match find_session(target, dir)? {
        FoundSession::Existing(path) => path,
        FoundSession::NewFile(path) => anyhow::bail!("{}: no such file", path.display()),
    };
    // Every error of a load names the file already.
    let session = Session::load(&path)?;
    print_report(&path, session.report());
    Ok(session)
}

/// Prints what loading `path` noticed (skipped lines, a torn last line, ...) on stderr.
pub(crate) fn print_report(path: &Path, report: &LoadReport) {
    if report.is_clean() {
        return;
    }
    for line in report.to_string().lines() {
        report!("pi-tool: {}: {line}", path.display());
    }
}

/// Sessions as the JSON array `session list --json` and `agent -r --json` print.
pub(crate) fn listing_json(sessions: &[SessionSummary]) -> Value {
    Value::Array(
        sessions
            .iter()
            .map(|summary| {
                json!({
                    "path": summary.path,
                    "id": summary.header.id(),
                    "cwd": summary.header.cwd(),
                    "created": summary.header.timestamp(),
                    "modified": modified_iso(summary),
                    "name": summary.name,
                    "parentSession": summary.header.parent_session(),
                    "firstMessage": summary.first_message,
                    "entryCount": summary.entry_count,
                    "messageCount": summary.message_count,
                })
            })
            .collect(),
    )
}

/// The file's modification time in ISO form.
pub(crate) fn modified_iso(summary: &SessionSummary) -> String {
    let millis = summary
        .modified
        .duration_since(UNIX_EPOCH)
        .ok()
        .and_then(|since| i64::try_from(since.as_millis()).ok())
        .unwrap_or(0);
    pi_session::millis_to_iso(millis).unwrap_or_default()
}

/// `text` on one line (runs of whitespace become one space), cut to `max` characters.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    one_line_of([text], max)
}

/// [`one_line`] of texts joined by spaces, reading only as far as the cut.
fn one_line_of<'a>(texts: impl IntoIterator<Item = &'a str>, max: usize) -> String {
    let mut flat = String::new();
    let mut chars = 0;
    for word in texts.into_iter().flat_map(str::split_whitespace) {
        if chars > 0 {
            flat.push(' ');
            chars += 1;
        }
        flat.push_str(word);
        chars += word.chars().count();
        if chars > max {
            break;
        }
    }
    if chars <= max {
        return flat;
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

fn summary_line(summary: &SessionSummary, with_cwd: bool) -> String {
    let title = summary
        .name
        .as_deref()
        .or(summary.first_message.as_deref())
        .unwrap_or("(no messages)");
    let mut line = format!(
        "{}  {}  {:>4} entries  {}",
        modified_iso(summary),
        summary.header.id(),
        summary.entry_count,
        one_line(title, 60)
    );
    if with_cwd {
        line.push_str(&format!("  ({})", summary.header.cwd()));
    }
    line
}

/// Levels of branching shown by indentation; deeper ones carry their depth as a number, so
/// the output grows with the file, not with the file times its nesting (20,000 nested branches
/// once printed 801 MB).
const MAX_INDENT_LEVELS: usize = 32;

/// The tree as text: an entry's only child follows at its depth, the children of a branch
/// point each start one level deeper (past [`MAX_INDENT_LEVELS`], the depth is written as
/// `[depth N]`). Walked with a stack, so a 100,000-entry chain needs no recursion.
fn tree_text(session: &Session) -> Result<String, pi_session::SessionError> {
    let view = session.tree();
    let leaf = session.leaf_id();
    let mut out = format!("session {}  cwd {}\n", session.id(), session.header().cwd());
    let mut stack: Vec<(&pi_session::Entry, usize)> = view.roots().map(|root| (root, 0)).collect();
    stack.reverse();
    while let Some((entry, depth)) = stack.pop() {
        out.push_str(&"  ".repeat(depth.min(MAX_INDENT_LEVELS)));
        if depth > MAX_INDENT_LEVELS {
            out.push_str(&format!("[depth {depth}] "));
        }
        out.push_str(entry.id());
        out.push(' ');
        out.push_str(&describe(entry)?);
        if let Some(label) = view.label(entry.id()) {
            out.push_str(&format!(" [{label}]"));
        }
        if leaf == Some(entry.id()) {
            out.push_str("  <- leaf");
        }
        out.push('\n');
        let children: Vec<&pi_session::Entry> = view.children(entry.id()).collect();
        let child_depth = if children.len() > 1 { depth + 1 } else { depth };
        stack.extend(children.into_iter().rev().map(|child| (child, child_depth)));
    }
    Ok(out)
}

/// One entry in a few words: its type and what it says.
fn describe(entry: &pi_session::Entry) -> Result<String, pi_session::SessionError> {
    // The usual entry, read typed: building its JSON value made a 10,000-entry tree slow.
    if let Some(message) = entry.message()? {
        return Ok(describe_typed_message(&message));
    }
    Ok(match entry.kind()? {
        EntryKind::Message(message) => describe_message(message),
        EntryKind::ModelChange { provider, model_id } => format!("model: {provider}/{model_id}"),
        EntryKind::ThinkingLevelChange { thinking_level } => format!("thinking: {thinking_level}"),
        EntryKind::Compaction {
            summary,
            tokens_before,
            ..
        } => format!(
            "compaction ({} tokens before): {}",
            tokens_before.unwrap_or(0.0),
            one_line(summary, 60)
        ),
        EntryKind::BranchSummary { summary, .. } => {
            format!("branch summary: {}", one_line(summary, 60))
        }
        EntryKind::Custom { custom_type, .. } => format!("custom {custom_type}"),
        EntryKind::CustomMessage {
            custom_type,
            content,
            ..
        } => format!(
            "custom message {custom_type}: {}",
            one_line(&content.map(text_of).unwrap_or_default(), 60)
        ),
        EntryKind::Label { target_id, label } => match label {
            Some(label) => format!("label {target_id}: {label}"),
            None => format!("label {target_id} cleared"),
        },
        EntryKind::SessionInfo { name } => format!("name: {}", name.unwrap_or("")),
        EntryKind::Unknown(kind) => format!("{kind} (unknown type, kept)"),
        EntryKind::Malformed {
            entry_type,
            missing,
        } => format!("{entry_type} (lacks {missing})"),
    })
}

/// A user, assistant or tool-result message in a few words, as [`describe_message`] words
/// its JSON.
fn describe_typed_message(message: &Message) -> String {
    match message {
        Message::User(user) => {
            let text = match &user.content {
                UserContent::Text(text) => one_line(text, 60),
                UserContent::Blocks(blocks) => {
                    one_line_of(blocks.iter().filter_map(Content::as_text), 60)
                }
            };
            format!("user: {text}")
        }
        Message::Assistant(assistant) => {
            let texts = assistant.content.iter().filter_map(|block| match block {
                AssistantContent::Text { text, .. } => Some(text.as_str()),
                _ => None,
            });
            let mut line = format!("assistant: {}", one_line_of(texts, 60));
            let calls: Vec<&str> = assistant
                .content
                .iter()
                .filter_map(|block| match block {
                    AssistantContent::ToolCall { name, .. } => Some(&**name),
                    _ => None,
                })
                .collect();
            if !calls.is_empty() {
                line.push_str(&format!(" -> {}", calls.join(", ")));
            }
            line
        }
        Message::ToolResult(result) => format!(
            "tool result {}: {}",
            result.tool_name,
            one_line_of(result.content.iter().filter_map(Content::as_text), 60)
        ),
    }
}

fn describe_message(message: &Value) -> String {
    let role = message.get("role").and_then(Value::as_str).unwrap_or("?");
    let content = message.get("content");
    let text = content.map(text_of).unwrap_or_default();
    match role {
        "assistant" => {
            let calls: Vec<&str> = content
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|block| block.get("type").and_then(Value::as_str) == Some("toolCall"))
                .filter_map(|block| block.get("name").and_then(Value::as_str))
                .collect();
            let mut line = format!("assistant: {}", one_line(&text, 60));
            if !calls.is_empty() {
                line.push_str(&format!(" -> {}", calls.join(", ")));
            }
            line
        }
        "toolResult" => format!(
            "tool result {}: {}",
            message
                .get("toolName")
                .and_then(Value::as_str)
                .unwrap_or("?"),
            one_line(&text, 60)
        ),
        other => format!("{other}: {}", one_line(&text, 60)),
    }
}

/// The text of a string or of text blocks.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_flattens_and_cuts() {
        assert_eq!(one_line("a\n  b\tc", 10), "a b c");
        assert_eq!(one_line("abcdef", 4), "abc…");
        assert_eq!(one_line("abcd", 4), "abcd");
        assert_eq!(one_line("ab cd ef", 5), "ab c…");
        assert_eq!(one_line("ab cd", 5), "ab cd");
        assert_eq!(one_line("ab cd ef", 4), "ab …");
        assert_eq!(one_line("  ", 4), "");
        assert_eq!(one_line_of(["a ", "\nb", "c"], 10), "a b c");
    }

    #[test]
    fn typed_messages_are_described_as_their_json_is() {
        let model = pi_ai::ModelInfo {
            api: "a".into(),
            provider: "p".into(),
            model: "m".into(),
        };
        let long = "word ".repeat(40);
        let messages = [
            Message::User(pi_ai::UserMessage::text("hello\n  there")),
            Message::User(pi_ai::UserMessage {
                content: UserContent::Blocks(vec![
                    pi_tool::text("one"),
                    pi_tool::image("AA==", "image/png"),
                    pi_tool::text(&long),
                ]),
                timestamp: 1,
            }),
            Message::Assistant(pi_ai::AssistantMessage::new(
                &model,
                vec![
                    AssistantContent::Thinking {
                        thinking: "hidden".into(),
                        thinking_signature: None,
                        redacted: None,
                    },
                    AssistantContent::text("let me look"),
                    AssistantContent::tool_call("c1", "read", json!({"path": "a"})),
                    AssistantContent::tool_call("c2", "bash", json!({})),
                ],
            )),
            Message::Assistant(pi_ai::AssistantMessage::new(&model, Vec::new())),
            Message::ToolResult(pi_tool::ToolResultMessage {
                tool_call_id: "c1".into(),
                tool_name: "read".into(),
                content: vec![pi_tool::text(&long)],
                details: None,
                is_error: false,
                timestamp: 1,
            }),
        ];
        for message in messages {
            let value = serde_json::to_value(&message).unwrap();
            assert_eq!(describe_typed_message(&message), describe_message(&value));
        }
    }
}
