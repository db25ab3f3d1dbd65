//! A session line over the limit is refused without being held: a 1 GB line took 3 GB, and
//! with the limit alone (a buffer grown to it) still 128 MiB and more. Opening and listing
//! such a file now hold little more than their reading buffer. Alone in its own test binary,
//! so the process's peak memory is this test's.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::os::unix::fs::FileExt;

use pi_session::{Session, SessionError};

#[path = "support/peak_memory.rs"]
mod peak;
use peak::peak_memory;

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;

#[test]
fn a_line_over_the_limit_is_refused_without_being_held() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, format!("{HEADER}\n")).unwrap();
    // Line 2: a gigabyte of zero bytes (a hole: no disk used), then an entry.
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    let start = file.metadata().unwrap().len();
    let long = 1u64 << 30;
    file.set_len(start + long).unwrap();
    file.write_at(b"\n{}\n", start + long).unwrap();
    drop(file);
    let before = peak_memory();

    assert!(matches!(
        Session::open(&path),
        Err(SessionError::LineTooLong { line: 2, .. })
    ));
    assert!(matches!(
        pi_session::read_summary(&path),
        Err(SessionError::LineTooLong { line: 2, .. })
    ));
    let grown = peak_memory().saturating_sub(before);
    assert!(
        grown < 16 << 20,
        "refusing a {long}-byte line grew the peak memory by {grown} bytes"
    );
}
