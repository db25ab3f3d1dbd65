//! A long message appended to a session file goes into the file through a small buffer: it
//! is never held a second time as its line. Alone in its own test binary, so the process's
//! peak memory is this test's.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use pi_session::Session;

#[path = "support/peak_memory.rs"]
mod peak;
use peak::peak_memory;

#[test]
fn a_long_message_is_appended_without_being_held_twice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let mut session = Session::create_at(&path, dir.path());
    session
        .append_message(&pi_ai::UserMessage::text("hi").into())
        .unwrap();
    // 16 MiB of text, each character escaped in JSON (a newline is two bytes there).
    let long: pi_ai::Message = pi_ai::UserMessage::text("\n".repeat(16 << 20)).into();
    let before = peak_memory();
    let id = session.append_message(&long).unwrap();
    let grown = peak_memory().saturating_sub(before);
    assert!(
        grown < 8 << 20,
        "appending a 32 MiB line grew the peak memory by {grown} bytes"
    );
    // And it reads back as it was.
    assert_eq!(
        session.entry(&id).unwrap().message().unwrap().as_ref(),
        Some(&long)
    );
}
