//! The file tools stay inside their workspace: every escape (`..`, an absolute path, a symbolic
//! link out, `~`) is a clear error and nothing outside is read or written; files that would
//! block (a FIFO, `/dev/zero`) are refused at once.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::fs;
use std::path::Path;
use std::time::Duration;

use pi_coding_tools::{Workspace, all_tools};
use pi_tool::{CallContext, ToolCall, ToolResultMessage, execute_tool_call};
use serde_json::{Value, json};

async fn call(workspace: &Workspace, name: &str, arguments: Value) -> ToolResultMessage {
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
fn outside_parent() -> std::path::PathBuf {
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
fn layout() -> (
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

fn refused(result: &ToolResultMessage) {
    assert!(result.is_error, "{}", result.text());
    assert!(
        result.text().contains("is outside the workspace"),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn every_escape_is_refused_and_nothing_outside_changes() {
    let (_dir, root, outside) = layout();
    let workspace = Workspace::new(&root);
    let secret = outside.join("secret.txt");
    let secret_path = secret.to_str().unwrap();

    for path in [
        "../outside/secret.txt",
        secret_path,
        "link.txt",
        "door/secret.txt",
        "src/../../outside/secret.txt",
        "~/.bashrc",
    ] {
        refused(&call(&workspace, "read", json!({"path": path})).await);
    }
    for path in [
        "../outside/new.txt",
        "link.txt",
        "door/new.txt",
        "src/missing/../../../outside/new.txt",
    ] {
        refused(
            &call(
                &workspace,
                "write",
                json!({"path": path, "content": "pwned"}),
            )
            .await,
        );
    }
    refused(
        &call(
            &workspace,
            "edit",
            json!({"path": "link.txt", "edits": [{"oldText": "secret", "newText": "pwned"}]}),
        )
        .await,
    );
    refused(&call(&workspace, "ls", json!({"path": ".."})).await);
    refused(
        &call(
            &workspace,
            "find",
            json!({"pattern": "*.txt", "path": "door"}),
        )
        .await,
    );
    refused(
        &call(
            &workspace,
            "grep",
            json!({"pattern": "secret", "path": ".."}),
        )
        .await,
    );

    assert_eq!(fs::read_to_string(&secret).unwrap(), "secret");
    assert!(!outside.join("new.txt").exists());

    // Inside is as before, `..` that stays inside included.
    let read = call(&workspace, "read", json!({"path": "src/../src/a.txt"})).await;
    assert_eq!(read.text(), "inside");
    let wrote = call(
        &workspace,
        "write",
        json!({"path": "src/new/b.txt", "content": "ok"}),
    )
    .await;
    assert!(!wrote.is_error, "{}", wrote.text());
}

#[tokio::test]
async fn granted_roots_and_unconfined_workspaces_reach_further() {
    let (_dir, root, outside) = layout();
    let granted = Workspace::new(&root).with_root(&outside);
    assert_eq!(
        call(&granted, "read", json!({"path": "link.txt"}))
            .await
            .text(),
        "secret"
    );
    let open = Workspace::unconfined(&root);
    let secret = outside.join("secret.txt");
    assert_eq!(
        call(&open, "read", json!({"path": secret.to_str().unwrap()}))
            .await
            .text(),
        "secret"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn files_that_would_block_are_refused_at_once() {
    let (_dir, root, _outside) = layout();
    let fifo = root.join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let workspace = Workspace::new(&root);
    let result = call(&workspace, "read", json!({"path": "pipe"})).await;
    assert!(result.is_error);
    assert!(
        result.text().contains("not a regular file"),
        "{}",
        result.text()
    );
    let open = Workspace::unconfined(Path::new("/"));
    let zero = call(&open, "read", json!({"path": "/dev/zero"})).await;
    assert!(
        zero.text().contains("not a regular file"),
        "{}",
        zero.text()
    );
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_confined_shell_cannot_write_outside_or_connect_when_told_not_to() {
    let (_dir, root, outside) = layout();
    let workspace = Workspace::new(&root);
    let target = outside.join("escaped.txt");
    let escape = format!(
        "echo pwned > {}; echo inside > here.txt; echo done",
        target.display()
    );
    let result = call(&workspace, "bash", json!({"command": escape})).await;
    let sandbox = result.details.as_ref().unwrap()["sandbox"]
        .as_str()
        .unwrap()
        .to_owned();
    if sandbox.starts_with("none") {
        eprintln!("SKIPPED: {sandbox}");
        return;
    }
    assert!(sandbox.starts_with("landlock"), "{sandbox}");
    assert!(!target.exists(), "the shell wrote outside the workspace");
    assert!(
        result.text().contains("Permission denied"),
        "{}",
        result.text()
    );
    assert_eq!(
        fs::read_to_string(root.join("here.txt")).unwrap(),
        "inside\n"
    );
    let temporary = std::env::temp_dir().join(format!("pi-sandbox-{}", std::process::id()));
    let tmp = call(
        &workspace,
        "bash",
        json!({"command": format!("echo ok > {}", temporary.display())}),
    )
    .await;
    assert!(!tmp.is_error, "{}", tmp.text());
    let _ = fs::remove_file(&temporary);

    // Network: a listener on loopback; the confined shell without network cannot reach it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let open = call(&workspace, "bash", json!({"command": connect})).await;
    assert!(open.text().contains("connected"), "{}", open.text());
    let closed = call(
        &workspace.clone().without_network(),
        "bash",
        json!({"command": connect}),
    )
    .await;
    assert!(!closed.text().contains("connected"), "{}", closed.text());
    assert!(closed.is_error);
}
