//! The whole compaction over a scripted model and an in-memory session: what is written, what
//! the model is sent afterwards, and the guardrails.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::Path;

use pi_ai::{
    AssistantContent, AssistantMessage, FauxProvider, ModelInfo, StopReason, UserContent,
    UserMessage,
};
use pi_tool::{ToolResultMessage, text};
use serde_json::{Value, json};

use super::*;

const GOOD: &str = "## Goal\nShip it\n\n## Constraints & Preferences\n- (none)\n\n## Progress\n### Done\n- [x] read\n\n\
## Key Decisions\n- **none**: n/a\n\n## Next Steps\n1. test\n\n## Critical Context\n- (none)";

fn model() -> ModelInfo {
    ModelInfo {
        api: "faux".into(),
        provider: "faux".into(),
        model: "faux-1".into(),
    }
}

fn answer(text: &str) -> AssistantMessage {
    AssistantMessage::new(&model(), vec![AssistantContent::text(text)])
}

/// `turns` turns of: user, assistant reading a file, its (large) result, an answer.
fn session_with_turns(turns: usize) -> Session {
    let mut session = Session::in_memory(Path::new("/work"));
    for turn in 0..turns {
        session
            .append_message(&UserMessage::text(format!("question {turn}")).into())
            .unwrap();
        let call = AssistantMessage::new(
            &model(),
            vec![AssistantContent::tool_call(
                format!("c{turn}"),
                "read",
                json!({"path": format!("src/f{turn}.rs")}),
            )],
        );
        session.append_message(&call.into()).unwrap();
        let result = ToolResultMessage {
            tool_call_id: format!("c{turn}").into(),
            tool_name: "read".into(),
            content: vec![text("x".repeat(4_000))],
            details: None,
            is_error: false,
            timestamp: 0,
        };
        session.append_message(&result.into()).unwrap();
        session
            .append_message(&answer(&format!("answer {turn}")).into())
            .unwrap();
    }
    session
}

fn settings(keep: u64) -> CompactionSettings {
    CompactionSettings {
        keep_recent_tokens: keep,
        ..CompactionSettings::default()
    }
}

fn user_text(message: &Message) -> String {
    match message {
        Message::User(UserMessage {
            content: UserContent::Blocks(blocks),
            ..
        }) => blocks
            .iter()
            .filter_map(pi_tool::Content::as_text)
            .collect(),
        Message::User(UserMessage {
            content: UserContent::Text(text),
            ..
        }) => text.clone(),
        other => panic!("not a user message: {other:?}"),
    }
}

async fn compact(
    session: &mut Session,
    faux: &FauxProvider,
    keep: u64,
) -> Result<Compacted, CompactionError> {
    compact_session(
        session,
        faux,
        &settings(keep),
        None,
        &CancellationToken::new(),
    )
    .await
}

#[tokio::test]
async fn a_long_session_is_summarised_and_the_recent_part_kept() {
    let mut session = session_with_turns(10);
    let faux = FauxProvider::new([answer(GOOD)]).recording_requests();
    // A turn is 1,011 tokens (question 3, call 6, result 1,000, answer 2): keeping 3,031
    // reaches the budget exactly at the user message of turn 7, so no turn is split.
    let compacted = compact(&mut session, &faux, 3_031).await.unwrap();

    let context = session.context().unwrap();
    assert!(user_text(&context.messages[0]).starts_with(COMPACTION_SUMMARY_PREFIX));
    assert!(user_text(&context.messages[0]).contains("## Next Steps"));
    assert_eq!(context.entry_ids[1], compacted.first_kept_entry_id);
    assert_eq!(user_text(&context.messages[1]), "question 7");
    assert_eq!(context.messages.len(), 1 + 3 * 4);
    assert!(compacted.tokens_after < compacted.tokens_before);
    assert_eq!(compacted.read_files.len(), 7);
    assert_eq!(compacted.read_files[0], "src/f0.rs");

    // The entry as written: Pi's fields, the file lists, the estimate after.
    let entry = session.entry(&compacted.entry_id).unwrap();
    assert_eq!(
        entry.field("firstKeptEntryId").unwrap().unwrap(),
        &json!(compacted.first_kept_entry_id)
    );
    assert_eq!(entry.field("fromHook").unwrap(), Some(&json!(false)));
    let details = entry.field("details").unwrap().unwrap();
    assert_eq!(details["tokensAfter"], json!(compacted.tokens_after));
    assert_eq!(details["modifiedFiles"], json!([]));
    let summary = entry
        .field("summary")
        .unwrap()
        .and_then(Value::as_str)
        .unwrap();
    assert!(summary.ends_with("<read-files>\nsrc/f0.rs\nsrc/f1.rs\nsrc/f2.rs\nsrc/f3.rs\nsrc/f4.rs\nsrc/f5.rs\nsrc/f6.rs\n</read-files>"));

    // The request: Pi's system prompt, the serialised conversation, the first-time prompt.
    let requests = faux.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].system_prompt.as_deref(),
        Some(SUMMARY_SYSTEM_PROMPT)
    );
    assert!(requests[0].tools.is_empty());
    let prompt = user_text(&requests[0].messages[0]);
    assert!(prompt.starts_with("<conversation>\n[User]: question 0\n\n[Assistant tool calls]: read(path=\"src/f0.rs\")\n\n[Tool result]: xxx"));
    assert!(prompt.contains("[... 2000 more characters truncated]"));
    assert!(!prompt.contains("question 7") && !prompt.contains("<previous-summary>"));
}

#[tokio::test]
async fn a_second_compaction_updates_the_first_summary() {
    let mut session = session_with_turns(6);
    let faux = FauxProvider::new([answer(GOOD), answer(GOOD)]).recording_requests();
    compact(&mut session, &faux, 2_022).await.unwrap();
    // Never two in a row: nothing new since the last compaction.
    let again = compact(&mut session, &faux, 2_022).await.unwrap_err();
    assert!(
        matches!(again, CompactionError::AlreadyCompacted),
        "{again}"
    );
    for turn in 6..10 {
        session
            .append_message(&UserMessage::text(format!("question {turn}")).into())
            .unwrap();
        session
            .append_message(&answer(&"y".repeat(4_000)).into())
            .unwrap();
    }
    compact(&mut session, &faux, 2_006).await.unwrap();
    let prompt = user_text(&faux.requests()[1].messages[0]);
    assert!(
        prompt.contains("<previous-summary>\n## Goal\nShip it"),
        "{prompt}"
    );
    assert!(prompt.contains("PRESERVE"));
    // Turns 4 and 5, kept verbatim by the first compaction, are summarised now (Pi drops
    // them unsummarised), and the first compaction's files carry over.
    assert!(prompt.contains("[User]: question 4") && prompt.contains("[User]: question 7"));
    assert!(!prompt.contains("question 3") && !prompt.contains("question 8"));
    let entry = session.entries().last().unwrap();
    assert_eq!(
        entry.field("details").unwrap().unwrap()["readFiles"]
            .as_array()
            .unwrap()
            .len(),
        6
    );
}

#[tokio::test]
async fn a_summary_without_the_headings_or_empty_is_refused_and_nothing_written() {
    for reply in ["Here is a summary: things happened.", "   "] {
        let mut session = session_with_turns(6);
        let before = session.entries().len();
        let faux = FauxProvider::new([answer(reply)]);
        let error = compact(&mut session, &faux, 2_000).await.unwrap_err();
        match reply.trim() {
            "" => assert!(matches!(error, CompactionError::EmptySummary), "{error}"),
            _ => assert!(
                matches!(&error, CompactionError::MissingHeadings { missing } if missing.len() == 6),
                "{error}"
            ),
        }
        assert_eq!(session.entries().len(), before);
    }
}

#[tokio::test]
async fn a_compaction_that_does_not_shrink_the_context_is_refused() {
    let mut session = Session::in_memory(Path::new("/work"));
    for turn in 0..3 {
        session
            .append_message(&UserMessage::text(format!("q{turn}")).into())
            .unwrap();
        session.append_message(&answer("ok").into()).unwrap();
    }
    let long = format!("{GOOD}\n{}", "padding ".repeat(500));
    let faux = FauxProvider::new([answer(&long)]);
    let error = compact(&mut session, &faux, 2).await.unwrap_err();
    assert!(
        matches!(error, CompactionError::NoReduction { .. }),
        "{error}"
    );
    assert_eq!(session.entries().len(), 6);
}

#[tokio::test]
async fn nothing_to_summarise_is_refused_without_asking_the_model() {
    let mut session = session_with_turns(2);
    let faux = FauxProvider::new([]).recording_requests();
    let error = compact(&mut session, &faux, 1_000_000).await.unwrap_err();
    assert!(
        matches!(error, CompactionError::NothingToCompact),
        "{error}"
    );
    assert!(faux.requests().is_empty());
    let mut empty = Session::in_memory(Path::new("/work"));
    assert!(matches!(
        compact(&mut empty, &faux, 1).await,
        Err(CompactionError::NothingToCompact)
    ));
}

#[tokio::test]
async fn a_split_turn_gets_its_prefix_summarised() {
    // One turn with many tool calls: the cut falls inside it.
    let mut session = Session::in_memory(Path::new("/work"));
    session
        .append_message(&UserMessage::text("old question").into())
        .unwrap();
    session
        .append_message(&answer("old answer").into())
        .unwrap();
    session
        .append_message(&UserMessage::text("do the big task").into())
        .unwrap();
    for step in 0..8 {
        let call = AssistantMessage::new(
            &model(),
            vec![AssistantContent::tool_call(
                format!("s{step}"),
                "edit",
                json!({"path": format!("e{step}.rs")}),
            )],
        );
        session.append_message(&call.into()).unwrap();
        let result = ToolResultMessage {
            tool_call_id: format!("s{step}").into(),
            tool_name: "edit".into(),
            content: vec![text("z".repeat(4_000))],
            details: None,
            is_error: false,
            timestamp: 0,
        };
        session.append_message(&result.into()).unwrap();
    }
    let prefix = "## Original Request\nbig task\n\n## Early Progress\n- edits\n\n## Context for Suffix\n- more edits";
    let faux = FauxProvider::new([answer(GOOD), answer(prefix)]).recording_requests();
    let compacted = compact(&mut session, &faux, 3_000).await.unwrap();
    let summary = session
        .entry(&compacted.entry_id)
        .unwrap()
        .field("summary")
        .unwrap()
        .and_then(Value::as_str)
        .unwrap()
        .to_owned();
    assert!(
        summary.contains("\n\n---\n\n**Turn Context (split turn):**\n\n"),
        "{summary}"
    );
    assert!(summary.contains("## Original Request"));
    let prompts: Vec<String> = faux
        .requests()
        .iter()
        .map(|r| user_text(&r.messages[0]))
        .collect();
    assert!(
        prompts
            .iter()
            .any(|p| p.contains("[User]: old question") && !p.contains("big task"))
    );
    assert!(
        prompts
            .iter()
            .any(|p| p.contains("[User]: do the big task") && p.contains("## Context for Suffix"))
    );
    // The kept part starts at an assistant call, never at a result.
    let context = session.context().unwrap();
    assert!(matches!(context.messages[1], Message::Assistant(_)));
    assert_eq!(compacted.modified_files.len(), 6, "{compacted:?}");
}

#[tokio::test]
async fn the_agent_announces_compactions() {
    let mut session = session_with_turns(6);
    let faux = FauxProvider::new([answer("no headings")]);
    let agent = Agent::new(crate::AgentConfig::new(
        std::sync::Arc::new(faux),
        std::sync::Arc::new(pi_tool::builtin::registry()),
    ));
    let mut events = agent.subscribe();
    let outcome = agent
        .compact(
            &mut session,
            &settings(2_000),
            CompactionReason::Overflow,
            Some("tests"),
            &CancellationToken::new(),
        )
        .await;
    assert!(outcome.is_err());
    let start = events.try_recv().unwrap();
    assert_eq!(
        serde_json::to_value(&start).unwrap(),
        json!({"type": "compaction_start", "reason": "overflow"})
    );
    let end = serde_json::to_value(events.try_recv().unwrap()).unwrap();
    assert_eq!(end["type"], "compaction_end");
    assert_eq!(end["willRetry"], false);
    assert!(end["error"].as_str().unwrap().contains("headings"));
}

#[test]
fn context_tokens_use_the_last_good_usage_plus_what_followed() {
    let usage = pi_ai::Usage {
        input: 900,
        output: 100,
        total_tokens: 1_000,
        ..Default::default()
    };
    let messages = vec![
        Message::from(UserMessage::text("q")),
        Message::Assistant(answer("a").with_usage(usage)),
        Message::from(UserMessage::text("12345678")),
        Message::Assistant(answer("").with_error(StopReason::Error, "boom").with_usage(
            pi_ai::Usage {
                total_tokens: 99_999,
                ..Default::default()
            },
        )),
    ];
    // 1,000 + "12345678"/4 + the failed message's estimate (0).
    assert_eq!(context_tokens(&messages, None), 1_002);
    // Usage marked unusable (before a compaction) is skipped: all estimated.
    assert_eq!(
        context_tokens(&messages, Some(&[true, false, true, true])),
        1 + 1 + 2
    );
}

/// The size read from the context's end (what the check after a run reads) is the size of the
/// whole context, before and after a compaction.
#[tokio::test]
async fn a_sessions_size_read_from_its_end_is_the_size_of_its_whole_context() {
    let usage = |total_tokens| pi_ai::Usage {
        total_tokens,
        ..Default::default()
    };
    let whole = |session: &Session| {
        session_context_tokens_of(session, &session.context().unwrap()).unwrap()
    };
    let mut session = session_with_turns(10);
    let append = |session: &mut Session, message: Message| {
        session.append_message(&message).unwrap();
    };
    append(&mut session, answer("done").with_usage(usage(5_000)).into());
    append(&mut session, UserMessage::text("12345678").into());
    let failed = answer("").with_error(StopReason::Error, "boom");
    append(&mut session, failed.with_usage(usage(99_999)).into());
    // 5,000 + "12345678"/4 + the failed answer's estimate (0).
    assert_eq!(session_context_tokens(&session).unwrap(), 5_002);
    assert_eq!(whole(&session), 5_002);

    // After a compaction the usage is from before it (its context is gone): all estimated.
    // (Two summaries: the cut point splits the last turn, whose start is summarised apart.)
    let prefix = "## Original Request\nq\n\n## Early Progress\n- a\n\n## Context for Suffix\n- b";
    let faux = FauxProvider::new([answer(GOOD), answer(prefix)]);
    compact(&mut session, &faux, 3_031).await.unwrap();
    let estimated = session_context_tokens(&session).unwrap();
    assert_eq!(estimated, whole(&session));
    let context = session.context().unwrap();
    let unusable = vec![false; context.messages.len()];
    assert_eq!(
        estimated,
        context_tokens(&context.messages, Some(&unusable))
    );

    // A response after the compaction counts again.
    append(&mut session, answer("next").with_usage(usage(700)).into());
    append(&mut session, UserMessage::text("1234").into());
    assert_eq!(session_context_tokens(&session).unwrap(), 701);
    assert_eq!(whole(&session), 701);
}

#[test]
fn preparing_a_100k_entry_session_is_linear() {
    // 50,000 turns of a user message and an answer; a quadratic walk (a scan of the path per
    // entry, or per message looked up) would not finish in the test's lifetime.
    let mut session = Session::in_memory(Path::new("/work"));
    for turn in 0..50_000 {
        session
            .append_message(&UserMessage::text(format!("q{turn:05}")).into())
            .unwrap();
        session.append_message(&answer("ok").into()).unwrap();
    }
    let preparation = prepare(&session, &settings(3_000)).unwrap();
    // Each turn is 2 + 1 tokens: 3,000 tokens keep the last 1,000 turns.
    let first_kept = session.entry(&preparation.first_kept_entry_id).unwrap();
    assert_eq!(
        first_kept.field("message").unwrap().unwrap()["content"],
        "q49000"
    );
    assert_eq!(preparation.messages_to_summarize.len(), 98_000);
    assert!(preparation.turn_prefix.is_empty());
}
