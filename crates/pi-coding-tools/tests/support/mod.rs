//! What the confinement tests share: a workspace beside a directory outside it, and a call.
#![allow(dead_code)]

use std::fs;
use std::time::Duration;

use pi_coding_tools::{Workspace, all_tools};
use pi_tool::{CallContext, ToolCall, ToolResultMessage, execute_tool_call};
use serde_json::Value;

pub(crate) async fn call(workspace: &Workspace, name: &str, arguments: Value) -> ToolResultMessage {
    let tools = all_tools(workspace);
    let call = ToolCall::new("c", name, arguments);
    tokio::time::timeout(
        Duration::from_secs(5),
        execute_tool_call(&call, &tools, CallContext::default()),
    )
    .await
    .expect("a tool call must not hang")
}

/// A place for the "outside" directory that is not under the temporary directory (which a
/// confined shell may write to): the first candidate that is not.
pub(crate) fn outside_parent() -> std::path::PathBuf {
    let temporary = fs::canonicalize(std::env::temp_dir()).unwrap_or_else(|_| std::env::temp_dir());
    let candidates = [
        std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")),
        std::path::PathBuf::from("/var/tmp"),
        std::env::var_os("HOME").map(Into::into).unwrap_or_default(),
    ];
    candidates
        .into_iter()
        .filter_map(|candidate| fs::canonicalize(candidate).ok())
        .find(|candidate| !candidate.starts_with(&temporary))
        .expect("a directory outside the temporary directory")
}

/// A workspace, and a directory outside both it and the temporary directory.
pub(crate) fn layout() -> (
    (tempfile::TempDir, tempfile::TempDir),
    std::path::PathBuf,
    std::path::PathBuf,
) {
    let work = tempfile::tempdir().unwrap();
    let away = tempfile::tempdir_in(outside_parent()).unwrap();
    let root = work.path().join("work");
    let outside = away.path().join("outside");
    fs::create_dir_all(root.join("src")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(root.join("src/a.txt"), "inside").unwrap();
    fs::write(outside.join("secret.txt"), "secret").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.join("secret.txt"), root.join("link.txt")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("door")).unwrap();
    }
    ((work, away), root, outside)
}

/// Whether `name` is a program on `PATH`.
pub(crate) fn program_exists(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|directory| directory.join(name).is_file())
    })
}
