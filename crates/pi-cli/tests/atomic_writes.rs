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
use std::os::unix::fs::MetadataExt;
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

/// `pi-tool --coding-tools DIR call NAME ARGS` as an unprivileged user: `nobody` through
/// `setpriv` when the tests run as root (root may write any file, so the refusal could not
/// show), this user otherwise.
fn call_unprivileged(dir: &std::path::Path, name: &str, arguments: &str) -> (i32, String) {
    let binary = env!("CARGO_BIN_EXE_pi-tool");
    let dir_text = dir.to_str().unwrap();
    let as_root = std::fs::metadata("/proc/self").unwrap().uid() == 0;
    let mut command = if as_root {
        let mut setpriv = Command::new("setpriv");
        setpriv.args(["--reuid=65534", "--regid=65534", "--clear-groups", binary]);
        setpriv
    } else {
        eprintln!("not root: running as this user, who is unprivileged already");
        Command::new(binary)
    };
    let output = command
        .args(["--coding-tools", dir_text, "call", name, arguments])
        .output()
        .expect("setpriv (util-linux) runs the binary as nobody");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// A read-only file was overwritten by `write` and `edit` (the rename over it needs only the
/// directory's write bit). The user marked it "do not change": both refuse, and it stays.
#[test]
fn a_read_only_file_is_never_changed() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // The directory is writable by the unprivileged user, the file is theirs but read-only.
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let file = dir.path().join("readonly.txt");
    std::fs::write(&file, "keep me\n").unwrap();
    if std::fs::metadata("/proc/self").unwrap().uid() == 0 {
        std::os::unix::fs::chown(&file, Some(65534), Some(65534)).unwrap();
    }
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
    for (name, arguments) in [
        (
            "write",
            r#"{"path":"readonly.txt","content":"overwritten"}"#,
        ),
        (
            "edit",
            r#"{"path":"readonly.txt","edits":[{"oldText":"keep","newText":"lose"}]}"#,
        ),
    ] {
        let (code, stdout) = call_unprivileged(dir.path(), name, arguments);
        assert_eq!(code, 1, "{name}: {stdout}");
        assert!(stdout.contains("read-only"), "{name}: {stdout}");
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "keep me\n",
            "{name}"
        );
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o444, "{name}");
    }
    // A writable file beside it is written as usual by the same user: the refusal is the mode's.
    let (code, stdout) = call_unprivileged(
        dir.path(),
        "write",
        r#"{"path":"new.txt","content":"fresh\n"}"#,
    );
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("new.txt")).unwrap(),
        "fresh\n"
    );
}
