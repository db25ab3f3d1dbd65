//! `write` replaces a file atomically: while a `pi-tool run` process writes one file over and
//! over, a reader never sees anything but a whole version, and after the process is killed with
//! SIGKILL at a random moment the file is one whole version, never torn.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

const SIZE: usize = 1024 * 1024;

#[test]
fn a_killed_writer_never_leaves_a_torn_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.txt");
    let versions: Vec<String> = ["A", "B", "C"].iter().map(|c| c.repeat(SIZE)).collect();
    std::fs::write(&file, &versions[0]).unwrap();
    let mut calls = String::new();
    for round in 0..60 {
        let call = serde_json::json!({"type": "toolCall", "id": format!("w{round}"), "name": "write",
            "arguments": {"path": "big.txt", "content": versions[round % 3]}});
        calls.push_str(&call.to_string());
        calls.push('\n');
    }
    for attempt in 0..6_u64 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pi-tool"))
            .args([
                "--coding-tools",
                dir.path().to_str().unwrap(),
                "run",
                "--concurrency",
                "1",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let input = calls.clone();
        let feeder = std::thread::spawn(move || {
            // Broken pipe once the process is killed: expected.
            let _ = stdin.write_all(input.as_bytes());
        });
        // Meanwhile a reader checks every version it can catch.
        let deadline = std::time::Instant::now() + Duration::from_millis(150 + attempt * 37 % 200);
        let mut reads = 0;
        while std::time::Instant::now() < deadline {
            if let Ok(content) = std::fs::read(&file) {
                reads += 1;
                assert!(
                    versions
                        .iter()
                        .any(|version| version.as_bytes() == content.as_slice()),
                    "attempt {attempt}, read {reads}: a reader saw a torn file of {} bytes",
                    content.len()
                );
            }
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let _ = feeder.join();
        let content = std::fs::read(&file).unwrap();
        assert!(
            versions
                .iter()
                .any(|version| version.as_bytes() == content.as_slice()),
            "attempt {attempt}: a torn file of {} bytes",
            content.len()
        );
    }
}
