//! The tree, its context and the branching API.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::path::Path;
use std::time::Instant;

use pi_ai::{AssistantContent, AssistantMessage, Message, ModelInfo, UserMessage};
use pi_session::{COMPACTION_SUMMARY_PREFIX, Session, list_sessions};
use serde_json::json;

fn user(text: &str) -> Message {
    Message::from(UserMessage::text(text))
}

fn assistant(text: &str) -> Message {
    let model = ModelInfo {
        api: "openai-completions".into(),
        provider: "openai".into(),
        model: "gpt-4.1".into(),
    };
    Message::from(AssistantMessage::new(
        &model,
        vec![AssistantContent::text(text)],
    ))
}

fn texts(session: &Session) -> Vec<String> {
    session
        .context()
        .unwrap()
        .messages
        .iter()
        .map(|message| match message {
            Message::User(m) => serde_json::to_value(&m.content).unwrap().to_string(),
            Message::Assistant(m) => m.text(),
            Message::ToolResult(m) => m.text(),
        })
        .collect()
}

#[test]
fn a_100000_entry_chain_builds_its_context_in_linear_time() {
    let mut session = Session::in_memory(Path::new("/w"));
    for n in 0..100_000 {
        session.append_message(&user(&n.to_string())).unwrap();
    }
    let started = Instant::now();
    let context = session.context().unwrap();
    let elapsed = started.elapsed();
    assert_eq!(context.messages.len(), 100_000);
    assert_eq!(session.branch_entries(None).unwrap().len(), 100_000);
    // Quadratic work over 100,000 entries (5e9 steps) would take far longer than this.
    assert!(
        elapsed.as_secs() < 5,
        "context of a 100k chain took {elapsed:?}"
    );
    eprintln!("context of a 100,000-entry chain: {elapsed:?}");
}

#[test]
fn branching_moves_the_leaf_and_summaries_join_the_context() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::create(dir.path(), Path::new("/w"));
    let first = session.append_message(&user("q1")).unwrap();
    let answer = session.append_message(&assistant("a1")).unwrap();
    session.append_message(&user("q2 abandoned")).unwrap();
    session.branch(&answer).unwrap();
    assert_eq!(session.leaf_id(), Some(answer.as_str()));
    let summary = session
        .branch_with_summary(
            Some(&answer),
            "tried q2",
            Some(json!({"readFiles": []})),
            Some(false),
        )
        .unwrap();
    assert_eq!(
        session.entry(&summary).unwrap().parent_id(),
        Some(answer.as_str())
    );
    session.append_message(&user("q3")).unwrap();
    let context = texts(&session);
    assert_eq!(context.len(), 4, "{context:?}");
    assert!(
        context[2].contains("The following is a summary of a branch")
            && context[2].contains("tried q2</summary>")
    );
    assert!(!context.iter().any(|text| text.contains("abandoned")));

    session.reset_leaf();
    let root = session.append_message(&user("new root")).unwrap();
    assert_eq!(session.entry(&root).unwrap().parent_id(), None);
    assert_eq!(session.tree().roots().count(), 2);
    assert_eq!(session.tree().children(&answer).count(), 2);

    session.label(&first, Some("start")).unwrap();
    assert_eq!(session.label_of(&first), Some("start"));
    session.set_name("my\nsession ").unwrap();
    assert_eq!(session.name(), Some("my session"));
    assert!(session.branch("nope").is_err());
    assert!(session.label("nope", Some("x")).is_err());

    // Everything survives a reload; the leaf is the last entry.
    let path = session.file_path().unwrap().to_path_buf();
    drop(session);
    let reloaded = Session::open(&path).unwrap();
    assert!(reloaded.report().is_clean(), "{}", reloaded.report());
    assert_eq!(reloaded.label_of(&first), Some("start"));
    assert_eq!(reloaded.name(), Some("my session"));
    assert_eq!(
        reloaded.entries().last().map(|e| e.id()),
        reloaded.leaf_id()
    );
}

#[test]
fn compaction_puts_the_summary_first_then_the_kept_entries() {
    let mut session = Session::in_memory(Path::new("/w"));
    session.append_model_change("anthropic", "claude").unwrap();
    session.append_thinking_level_change("high").unwrap();
    session.append_message(&user("old")).unwrap();
    let kept = session.append_message(&user("kept")).unwrap();
    session.append_message(&assistant("answer")).unwrap();
    session
        .append_compaction("SUM", &kept, 1234, None, None)
        .unwrap();
    session.append_message(&user("after")).unwrap();
    let context = session.context().unwrap();
    let texts = texts(&session);
    assert_eq!(texts.len(), 4, "{texts:?}");
    assert!(texts[0].contains(
        &serde_json::to_string(&format!("{COMPACTION_SUMMARY_PREFIX}SUM\n</summary>")).unwrap()
            [1..20]
    ));
    assert!(texts[1].contains("kept") && texts[2] == "answer" && texts[3].contains("after"));
    assert_eq!(context.thinking_level, "high");
    // The assistant message came after the model change: it sets the model.
    assert_eq!(context.model.unwrap().provider, "openai");
}

#[test]
fn fork_to_new_file_keeps_the_path_and_names_its_parent() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::create(dir.path(), Path::new("/w"));
    let q1 = session.append_message(&user("q1")).unwrap();
    session.label(&q1, Some("here")).unwrap();
    let a1 = session.append_message(&assistant("a1")).unwrap();
    session.append_message(&user("q2")).unwrap();
    let fork = session.fork_to_new_file(&a1, None).unwrap();
    let parent = std::path::absolute(session.file_path().unwrap()).unwrap();
    assert_eq!(
        fork.header().parent_session(),
        Some(parent.to_str().unwrap())
    );
    assert_ne!(fork.id(), session.id());
    let ids: Vec<&str> = fork.entries().iter().map(|e| e.entry_type()).collect();
    assert_eq!(ids, ["message", "message", "label"]);
    assert_eq!(
        fork.entry(&a1).unwrap().parent_id(),
        Some(q1.as_str()),
        "re-chained past the label"
    );
    assert_eq!(fork.label_of(&q1), Some("here"));
    let reloaded = Session::load(fork.file_path().unwrap()).unwrap();
    assert_eq!(reloaded.context().unwrap().messages.len(), 2);

    let copied = Session::fork_from(
        session.file_path().unwrap(),
        Path::new("/other"),
        dir.path(),
    )
    .unwrap();
    assert_eq!(copied.entries().len(), session.entries().len());
    assert_eq!(copied.header().cwd(), "/other");

    let listing = list_sessions(dir.path()).unwrap();
    assert_eq!(listing.sessions.len(), 3);
    let original = listing
        .sessions
        .iter()
        .find(|s| s.header.id() == session.id())
        .unwrap();
    assert_eq!(original.first_message.as_deref(), Some("q1"));
    assert_eq!((original.entry_count, original.message_count), (4, 3));
}

#[test]
fn a_fork_keeps_the_lines_it_does_not_re_chain_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("written-by-hand.jsonl");
    let lines = [
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}"#,
        r#"{"type":"message", "id":"a1", "parentId":null, "timestamp":"t", "message":{"role":"user","content":"café","timestamp":1}, "extra": 1.50}"#,
        r#"{"type":"label","id":"l1","parentId":"a1","timestamp":"t","targetId":"a1","label":"x"}"#,
        r#"{"type":"message","id":"b1","parentId":"l1","timestamp":"t","message":{"role":"user","content":"next","timestamp":2}}"#,
        r#"{"type":"message",  "id":"c1","parentId":"b1","timestamp":"t","message":{"role":"user","content":"Again","timestamp":3}}"#,
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let session = Session::load(&path).unwrap();
    let fork = session.fork_to_new_file("c1", None).unwrap();
    let forked = std::fs::read_to_string(fork.file_path().unwrap()).unwrap();
    let forked: Vec<&str> = forked.lines().collect();
    // The header, a1 and c1 as they were; b1 re-chained past the dropped label; the label
    // re-emitted at the end.
    assert_eq!(forked.len(), 5, "{forked:?}");
    assert_eq!(forked[1], lines[1]);
    assert_eq!(fork.entry("b1").unwrap().parent_id(), Some("a1"));
    assert_eq!(forked[3], lines[4]);
    assert_eq!(fork.label_of("a1"), Some("x"));
}

#[test]
fn version_1_files_are_migrated_and_rewritten_losslessly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.jsonl");
    let v1 = [
        r#"{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00Z","cwd":"/tmp"}"#,
        r#"{"type":"message","timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
        "garbage kept",
        r#"{"type":"message","timestamp":"2025-01-01T00:00:02Z","message":{"role":"hookMessage","customType":"x","content":"hook","display":true,"timestamp":2}}"#,
    ];
    std::fs::write(&path, v1.join("\n") + "\n").unwrap();
    let loaded = Session::load(&path).unwrap();
    assert_eq!(loaded.report().migrated_from, Some(1));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        v1.join("\n") + "\n",
        "load never rewrites"
    );
    let session = Session::open(&path).unwrap();
    assert_eq!(session.header().version(), 3);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\ngarbage kept\n"), "{text}");
    assert!(text.contains(r#""role":"custom""#));
    assert_eq!(session.context().unwrap().messages.len(), 2);
    drop(session);
    assert!(
        Session::open(&path)
            .unwrap()
            .report()
            .migrated_from
            .is_none()
    );
}

#[test]
fn old_pi_assistant_messages_without_total_tokens_or_cost_build_a_context() {
    let mut session = Session::in_memory(Path::new("/w"));
    session.append_message(&user("hi")).unwrap();
    session
        .append_message_value(json!({
            "role": "assistant",
            "content": [{"type": "text", "text": "hello"}],
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": {"input": 3, "output": 1, "cacheRead": 0, "cacheWrite": 0},
            "stopReason": "stop",
            "timestamp": 1
        }))
        .unwrap();
    let context = session.context().unwrap();
    let Message::Assistant(answer) = &context.messages[1] else {
        panic!("{:?}", context.messages[1]);
    };
    assert_eq!(answer.usage.input, 3);
    assert_eq!(answer.usage.total_tokens, 0);
}

/// A `custom_message` (what Pi's extensions append) is written in Pi's key order and sent to
/// the model as a user message with its content as text blocks (Pi's `convertToLlm`); a
/// `custom` entry sends nothing.
#[test]
fn a_custom_message_joins_the_context_as_a_user_message() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::create(dir.path(), Path::new("/w"));
    session.append_message(&user("hi")).unwrap();
    session
        .append_custom("note", Some(json!({"kept": true})))
        .unwrap();
    let id = session
        .append_custom_message("reminder", json!("run the tests"), true, None)
        .unwrap();
    assert_eq!(
        texts(&session),
        [r#""hi""#, r#"[{"type":"text","text":"run the tests"}]"#]
    );
    let line = session.entry(&id).unwrap().to_line().unwrap();
    let keys: Vec<String> =
        serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&line)
            .unwrap()
            .keys()
            .cloned()
            .collect();
    assert_eq!(
        keys,
        [
            "type",
            "customType",
            "content",
            "display",
            "id",
            "parentId",
            "timestamp"
        ]
    );
}

#[test]
fn the_context_settings_are_the_contexts_own_without_its_messages() {
    let mut session = Session::in_memory(Path::new("/w"));
    assert_eq!(session.context_settings().unwrap().thinking_level, "off");
    assert_eq!(session.context_settings().unwrap().model, None);
    session.append_model_change("anthropic", "claude").unwrap();
    session.append_thinking_level_change("high").unwrap();
    session.append_message(&user("question")).unwrap();
    let settings = session.context_settings().unwrap();
    assert_eq!(settings.model.unwrap().model_id, "claude");
    assert_eq!(settings.thinking_level, "high");
    // A later answer's model wins over the earlier change, as in the full context.
    session.append_message(&assistant("answer")).unwrap();
    let (settings, context) = (
        session.context_settings().unwrap(),
        session.context().unwrap(),
    );
    assert_eq!(settings.model, context.model);
    assert_eq!(settings.model.unwrap().provider, "openai");
    assert_eq!(settings.thinking_level, context.thinking_level);
}
