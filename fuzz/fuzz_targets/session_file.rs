//! Any bytes as a session file (after a valid header when the first byte is even, so entries
//! are reached): loading, the context and the tree never panic, the context read from its end
//! is the context reversed, and a message the quick readers read is exactly the one
//! serde_json reads from the same line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Write;

const HEADER: &[u8] = br#"{"type":"session","version":3,"id":"01a24909-7150-7000-8000-000000000000","timestamp":"2026-12-06T00:00:00.000Z","cwd":"/work"}"#;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("pi-fuzz-session-{}.jsonl", std::process::id()));
    let Ok(mut file) = std::fs::File::create(&path) else { return };
    if data.first().is_some_and(|byte| byte % 2 == 0) {
        let _ = file.write_all(HEADER);
        let _ = file.write_all(b"\n");
    }
    let _ = file.write_all(data.get(1..).unwrap_or_default());
    drop(file);
    let Ok(session) = pi_session::Session::load(&path) else { return };
    let context = session.context();
    let from_end: Result<Vec<_>, _> = session
        .context_from_end()
        .and_then(|from_end| from_end.collect());
    match (&context, &from_end) {
        (Ok(context), Ok(from_end)) => {
            let reversed: Vec<_> = from_end.iter().rev().map(|item| &item.message).collect();
            assert_eq!(reversed, context.messages.iter().collect::<Vec<_>>());
        }
        (Err(_), Err(_)) => {}
        (context, from_end) => panic!("context {context:?}, from its end {from_end:?}"),
    }
    let tree = session.tree();
    for root in tree.roots().take(4) {
        let _ = tree.children(root.id()).count();
    }
    for entry in session.entries().iter().take(64) {
        let _ = session.context_at(entry.id());
        if entry.entry_type() != "message" {
            continue;
        }
        if let Ok(Some(typed)) = entry.message() {
            let line = entry.line().expect("a line read a moment ago reads again");
            let slow = serde_json::from_str::<serde_json::Value>(&line)
                .ok()
                .and_then(|line| line.get("message").cloned())
                .and_then(|message| serde_json::from_value::<pi_ai::Message>(message).ok());
            assert_eq!(Some(typed), slow, "line: {line}");
        }
    }
});
