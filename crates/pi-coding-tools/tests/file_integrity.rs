//! What the user set on a file survives `write` and `edit`: the mode a new file gets, the mode,
//! owner and hard links of an existing one. (Read-only files, which need an unprivileged user
//! to show, are in `pi-cli`'s `atomic_writes` test.)
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::os::unix::fs::{MetadataExt, PermissionsExt};

use pi_coding_tools::{Workspace, all_tools};
use pi_tool::{CallContext, ToolCall, ToolResultMessage, execute_tool_call};
use serde_json::{Value, json};

async fn call(dir: &std::path::Path, name: &str, arguments: Value) -> ToolResultMessage {
    let tools = all_tools(&Workspace::new(dir));
    let call = ToolCall::new("c", name, arguments);
    execute_tool_call(&call, &tools, CallContext::default()).await
}

/// This process's umask, as `/proc/self/status` shows it.
fn umask() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|line| line.starts_with("Umask:"))
        .unwrap();
    u32::from_str_radix(line.trim_start_matches("Umask:").trim(), 8).unwrap()
}

/// New files were created `0600` (the temporary file's mode); upstream gives `0644` under umask
/// `022`, as every program does.
#[tokio::test]
async fn a_new_file_gets_the_mode_the_umask_gives() {
    let dir = tempfile::tempdir().unwrap();
    let result = call(
        dir.path(),
        "write",
        json!({"path": "sub/new.txt", "content": "x"}),
    )
    .await;
    assert!(!result.is_error, "{}", result.text());
    let mode = std::fs::metadata(dir.path().join("sub/new.txt"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o666 & !umask());
}

/// An existing file keeps its mode (set-group-ID included) and its owner.
#[tokio::test]
async fn an_existing_file_keeps_its_mode_and_owner() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.sh");
    std::fs::write(&file, "echo old\n").unwrap();
    let as_root = std::fs::metadata("/proc/self").unwrap().uid() == 0;
    if as_root {
        std::os::unix::fs::chown(&file, Some(65534), Some(65534)).unwrap();
    }
    // After the owner: `chown` clears set-group-ID.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o2750)).unwrap();
    let before = std::fs::metadata(&file).unwrap();
    let edit = json!({"path": "run.sh", "edits": [{"oldText": "old", "newText": "new"}]});
    let result = call(dir.path(), "edit", edit).await;
    assert!(!result.is_error, "{}", result.text());
    let after = std::fs::metadata(&file).unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "echo new\n");
    assert_eq!(after.mode() & 0o7777, 0o2750);
    assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
}

/// `edit` through one name of a file with two hard links replaced that name with a new file;
/// the other name kept the old text. Both names now see the change.
#[tokio::test]
async fn hard_links_stay_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("a.txt");
    let second = dir.path().join("b.txt");
    std::fs::write(&first, "hello\n").unwrap();
    std::fs::hard_link(&first, &second).unwrap();
    let inode = std::fs::metadata(&first).unwrap().ino();
    let edit = json!({"path": "a.txt", "edits": [{"oldText": "hello", "newText": "bye"}]});
    let result = call(dir.path(), "edit", edit).await;
    assert!(!result.is_error, "{}", result.text());
    let write = json!({"path": "b.txt", "content": "bye, longer than before\n"});
    let result = call(dir.path(), "write", write).await;
    assert!(!result.is_error, "{}", result.text());
    for name in [&first, &second] {
        let metadata = std::fs::metadata(name).unwrap();
        assert_eq!(metadata.ino(), inode);
        assert_eq!(metadata.nlink(), 2);
        assert_eq!(
            std::fs::read_to_string(name).unwrap(),
            "bye, longer than before\n"
        );
    }
    // Shorter content leaves no tail of the old.
    let result = call(
        dir.path(),
        "write",
        json!({"path": "a.txt", "content": "z"}),
    )
    .await;
    assert!(!result.is_error);
    assert_eq!(std::fs::read_to_string(&second).unwrap(), "z");
}
