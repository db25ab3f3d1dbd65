//! The file tools stay inside their workspace: every escape (`..`, an absolute path, a symbolic
//! link out, `~`) is a clear error and nothing outside is read or written; files that would
//! block (a FIFO, `/dev/zero`) are refused at once.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use pi_coding_tools::{ShellSandbox, Workspace};
use pi_tool::ToolResultMessage;
use serde_json::json;

mod support;
use support::{call, layout};

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
    // `edit` on a FIFO blocked forever, on `/dev/zero` it grew to 8.6 GB; `write` replaced
    // a FIFO with a file without a word.
    let edit = json!({"path": "pipe", "edits": [{"oldText": "a", "newText": "b"}]});
    for (tool, arguments) in [
        ("edit", edit),
        ("write", json!({"path": "pipe", "content": "x"})),
    ] {
        let result = call(&workspace, tool, arguments).await;
        assert!(result.is_error, "{tool}: {}", result.text());
        assert!(
            result.text().contains("not a regular file"),
            "{tool}: {}",
            result.text()
        );
    }
    assert!(
        fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(),
        "the FIFO was replaced"
    );
    let open = Workspace::unconfined(Path::new("/"));
    for (tool, arguments) in [
        ("read", json!({"path": "/dev/zero"})),
        (
            "edit",
            json!({"path": "/dev/zero", "edits": [{"oldText": "a", "newText": "b"}]}),
        ),
    ] {
        let zero = call(&open, tool, arguments).await;
        assert!(
            zero.text().contains("not a regular file"),
            "{tool}: {}",
            zero.text()
        );
    }
}

#[cfg(target_os = "linux")]
#[tokio::test]
#[ignore = "needs bubblewrap: run scripts/test.sh, which installs it"]
async fn a_shell_under_bubblewrap_cannot_write_outside_or_connect_when_told_not_to() {
    a_confined_shell_cannot_write_outside_or_connect_when_told_not_to(ShellSandbox::Strongest)
        .await;
}

#[cfg(target_os = "linux")]
#[tokio::test]
#[ignore = "needs Landlock (Linux 5.13+, not blocked by a container): CI runs it with --include-ignored"]
async fn a_shell_under_landlock_cannot_write_outside_or_connect_when_told_not_to() {
    a_confined_shell_cannot_write_outside_or_connect_when_told_not_to(ShellSandbox::Landlock).await;
}

#[cfg(target_os = "linux")]
async fn a_confined_shell_cannot_write_outside_or_connect_when_told_not_to(sandbox: ShellSandbox) {
    let (_dir, root, outside) = layout();
    let workspace = Workspace::new(&root).with_shell_sandbox(sandbox);
    let target = outside.join("escaped.txt");
    let escape = format!(
        "echo pwned > {}; echo inside > here.txt; echo done",
        target.display()
    );
    let result = call(&workspace, "bash", json!({"command": escape})).await;
    let enforced = result.details.as_ref().unwrap()["sandbox"]
        .as_str()
        .unwrap()
        .to_owned();
    // A machine without any sandbox fails this test loudly: nothing below could be checked.
    let wanted = match sandbox {
        ShellSandbox::Strongest | ShellSandbox::Bubblewrap => "bubblewrap",
        ShellSandbox::Landlock => "landlock",
    };
    assert!(
        enforced.starts_with(wanted),
        "bash ran in {enforced:?}, not {wanted} (is bubblewrap installed? scripts/test.sh installs it)"
    );
    assert!(!target.exists(), "the shell wrote outside the workspace");
    assert!(
        result.text().contains("Permission denied")
            || result.text().contains("Read-only file system"),
        "{}",
        result.text()
    );
    assert_eq!(
        fs::read_to_string(root.join("here.txt")).unwrap(),
        "inside\n"
    );
    // Its own temporary directory is writable (the system's is not: see sandbox_attacks).
    let tmp = call(
        &workspace,
        "bash",
        json!({"command": "echo ok > \"$TMPDIR/pi-sandbox\" && cat \"$TMPDIR/pi-sandbox\""}),
    )
    .await;
    assert!(!tmp.is_error, "{}", tmp.text());

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
