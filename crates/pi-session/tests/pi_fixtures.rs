//! Golden files written by upstream Pi 0.80.6's own SessionManager (tests/pi/make-fixtures.sh):
//! we read every line, write each entry back byte for byte, and build the same context Pi
//! built for the leaf (its buildSessionContext + convertToLlm, saved beside each file).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::path::{Path, PathBuf};

use pi_session::Session;
use serde_json::Value;

const FIXTURES: [&str; 3] = ["all-types", "compactions", "forked"];

fn fixture(name: &str, ext: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pi")
        .join(format!("{name}.{ext}"))
}

/// Fields Pi's messages carry that the project's wire types do not (the session file keeps
/// them; the model request never had them): usage's `reasoning`. `responseId` is modelled.
fn drop_unmodelled(message: &mut Value) {
    if let Some(Value::Object(usage)) = message.get_mut("usage") {
        usage.remove("reasoning");
    }
}

/// JSON equality with numbers compared as numbers (our `f64` cost `0` serialises as `0.0`).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

#[test]
fn pi_written_sessions_round_trip_byte_for_byte() {
    for name in FIXTURES {
        let path = fixture(name, "jsonl");
        let text =
            std::fs::read_to_string(&path).expect("fixture present: run tests/pi/make-fixtures.sh");
        let session = Session::load(&path).unwrap();
        assert!(session.report().is_clean(), "{name}: {}", session.report());
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(session.entries().len(), lines.len(), "{name}");
        for (entry, line) in session.entries().iter().zip(&lines) {
            assert_eq!(&entry.to_line().unwrap(), line, "{name}");
        }
        let header = serde_json::to_string(session.header().as_map()).unwrap();
        assert_eq!(Some(header.as_str()), text.lines().next(), "{name}");
    }
}

#[test]
fn our_context_is_pis_context() {
    for name in FIXTURES {
        let session = Session::load(&fixture(name, "jsonl")).unwrap();
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(fixture(name, "context.json")).unwrap())
                .unwrap();
        assert_eq!(session.leaf_id(), expected["leafId"].as_str(), "{name}");
        let context = session.context().unwrap();
        assert_eq!(context.thinking_level, expected["thinkingLevel"], "{name}");
        match (&context.model, expected["model"].as_object()) {
            (Some(model), Some(want)) => {
                assert_eq!(model.provider, want["provider"], "{name}");
                assert_eq!(model.model_id, want["modelId"], "{name}");
            }
            (None, None) => {}
            (ours, theirs) => panic!("{name}: model {ours:?} vs {theirs:?}"),
        }
        let ours: Vec<Value> = context
            .messages
            .iter()
            .map(|m| serde_json::to_value(m).unwrap())
            .collect();
        let mut theirs = expected["messages"].as_array().unwrap().clone();
        theirs.iter_mut().for_each(drop_unmodelled);
        assert_eq!(ours.len(), theirs.len(), "{name}: {ours:#?}");
        for (index, (ours, theirs)) in ours.iter().zip(&theirs).enumerate() {
            assert!(
                same_json(ours, theirs),
                "{name}: message {index}\n ours: {ours}\n Pi's: {theirs}"
            );
        }
    }
}

/// At every entry of Pi's files, the context read from its end is the context reversed, and
/// says which messages come after the latest compaction on the path.
#[test]
fn the_context_read_from_its_end_is_the_context_reversed() {
    let mut compacted_leaves = 0;
    for name in FIXTURES {
        let ids: Vec<String> = Session::load(&fixture(name, "jsonl"))
            .unwrap()
            .entries()
            .iter()
            .map(|entry| entry.id().to_owned())
            .collect();
        for id in ids {
            let mut session = Session::load(&fixture(name, "jsonl")).unwrap();
            session.branch(&id).unwrap();
            let context = session.context().unwrap();
            let from_end: Vec<_> = session
                .context_from_end()
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            let messages: Vec<_> = from_end.iter().rev().map(|m| m.message.clone()).collect();
            let entry_ids: Vec<_> = from_end.iter().rev().map(|m| m.entry_id).collect();
            assert_eq!(messages, context.messages, "{name} at {id}");
            assert_eq!(entry_ids, context.entry_ids, "{name} at {id}");

            let path = session.branch_entries(None).unwrap();
            let after: Vec<&str> = match path.iter().rposition(|e| e.entry_type() == "compaction") {
                Some(at) => {
                    compacted_leaves += 1;
                    path[at + 1..].iter().map(|entry| entry.id()).collect()
                }
                None => path.iter().map(|entry| entry.id()).collect(),
            };
            for message in &from_end {
                assert_eq!(
                    message.after_compaction,
                    after.contains(&message.entry_id),
                    "{name} at {id}: {}",
                    message.entry_id
                );
            }
        }
    }
    assert!(compacted_leaves > 0, "no leaf after a compaction was tried");
}

#[test]
fn the_fixtures_cover_every_entry_type_pi_writes() {
    let mut seen = std::collections::BTreeSet::new();
    for name in FIXTURES {
        let session = Session::load(&fixture(name, "jsonl")).unwrap();
        for entry in session.entries() {
            let role = entry
                .field("message")
                .unwrap()
                .and_then(|m| m["role"].as_str())
                .unwrap_or("");
            seen.insert(format!(
                "{}{}{role}",
                entry.entry_type(),
                if role.is_empty() { "" } else { ":" }
            ));
        }
    }
    let want = [
        "branch_summary",
        "compaction",
        "custom",
        "custom_message",
        "label",
        "message:assistant",
        "message:bashExecution",
        "message:custom",
        "message:toolResult",
        "message:user",
        "model_change",
        "session_info",
        "thinking_level_change",
    ];
    for kind in want {
        assert!(seen.contains(kind), "no {kind} in the fixtures: {seen:?}");
    }
}
