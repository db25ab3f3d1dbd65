//! The file-access and command-runner seams: with a [`FileAccess`] the file tools read and
//! write the text it serves (not the disk), still confined to the workspace; images and
//! binary files stay disk reads; with a [`CommandRunner`] `bash` gives the runner's output
//! and ending as a local run's result text.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use pi_coding_tools::{
    AccessFuture, CommandEnd, CommandRequest, CommandRun, CommandRunner, FileAccess, Workspace,
    all_tools,
};
use pi_tool::{
    CallContext, ToolCall, ToolContext, ToolError, ToolResultMessage, execute_tool_call,
};
use serde_json::{Map, Value, json};

/// Files held in memory, as an editor's buffers; every call noted.
#[derive(Default)]
struct Buffers {
    files: Mutex<HashMap<PathBuf, String>>,
    calls: Mutex<Vec<String>>,
}

impl FileAccess for Buffers {
    fn read_text<'a>(&'a self, path: &'a Path) -> AccessFuture<'a, String> {
        Box::pin(async move {
            self.calls
                .lock()
                .unwrap()
                .push(format!("read {}", path.display()));
            self.files
                .lock()
                .unwrap()
                .get(path)
                .cloned()
                .ok_or_else(|| ToolError::new("no such buffer"))
        })
    }

    fn write_text<'a>(&'a self, path: &'a Path, text: &'a str) -> AccessFuture<'a, ()> {
        Box::pin(async move {
            self.calls
                .lock()
                .unwrap()
                .push(format!("write {}", path.display()));
            self.files
                .lock()
                .unwrap()
                .insert(path.to_path_buf(), text.to_owned());
            Ok(())
        })
    }
}

async fn call(workspace: &Workspace, name: &str, arguments: Value) -> ToolResultMessage {
    execute_tool_call(
        &ToolCall::new("call-1", name, arguments),
        &all_tools(workspace),
        CallContext::default(),
    )
    .await
}

fn canonical(dir: &Path) -> PathBuf {
    std::fs::canonicalize(dir).unwrap()
}

#[tokio::test]
async fn file_tools_read_and_write_the_buffers_not_the_disk() {
    let dir = tempfile::tempdir().unwrap();
    let root = canonical(dir.path());
    std::fs::write(root.join("a.txt"), "on disk\n").unwrap();
    let buffers = Arc::new(Buffers::default());
    buffers
        .files
        .lock()
        .unwrap()
        .insert(root.join("a.txt"), "unsaved one\nunsaved two\n".to_owned());
    let workspace = Workspace::new(&root).with_file_access(buffers.clone());

    let read = call(&workspace, "read", json!({"path": "a.txt"})).await;
    assert!(!read.is_error, "{}", read.text());
    assert_eq!(read.text(), "unsaved one\nunsaved two\n");

    let edit = call(
        &workspace,
        "edit",
        json!({"path": "a.txt", "edits": [{"oldText": "two", "newText": "2"}]}),
    )
    .await;
    assert_eq!(edit.text(), "Successfully replaced 1 block(s) in a.txt.");
    assert_eq!(
        buffers.files.lock().unwrap()[&root.join("a.txt")],
        "unsaved one\nunsaved 2\n"
    );

    let write = call(
        &workspace,
        "write",
        json!({"path": "sub/new.txt", "content": "fresh"}),
    )
    .await;
    assert_eq!(write.text(), "Successfully wrote 5 bytes to sub/new.txt");
    assert_eq!(
        buffers.files.lock().unwrap()[&root.join("sub/new.txt")],
        "fresh"
    );
    // The disk was left alone (but for the new file's directory).
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "on disk\n"
    );
    assert!(!root.join("sub/new.txt").exists());
    assert!(root.join("sub").is_dir());
    assert_eq!(
        *buffers.calls.lock().unwrap(),
        [
            format!("read {}", root.join("a.txt").display()),
            format!("read {}", root.join("a.txt").display()),
            format!("write {}", root.join("a.txt").display()),
            // `write` reads what it replaces first (here nothing: a new file).
            format!("read {}", root.join("sub/new.txt").display()),
            format!("write {}", root.join("sub/new.txt").display()),
        ]
    );
}

#[tokio::test]
async fn paths_outside_the_workspace_are_refused_before_the_buffers_are_asked() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "key").unwrap();
    let buffers = Arc::new(Buffers::default());
    let workspace = Workspace::new(dir.path()).with_file_access(buffers.clone());
    let secret = outside.path().join("secret").display().to_string();
    for (tool, arguments) in [
        ("read", json!({"path": secret})),
        ("write", json!({"path": secret, "content": "x"})),
        (
            "edit",
            json!({"path": secret, "edits": [{"oldText": "key", "newText": "x"}]}),
        ),
    ] {
        let result = call(&workspace, tool, arguments).await;
        assert!(result.is_error, "{tool}: {}", result.text());
        assert!(
            result.text().contains("outside the workspace"),
            "{}",
            result.text()
        );
    }
    assert!(buffers.calls.lock().unwrap().is_empty());
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret")).unwrap(),
        "key"
    );
}

#[tokio::test]
async fn images_and_binary_files_are_read_from_disk() {
    let dir = tempfile::tempdir().unwrap();
    let root = canonical(dir.path());
    // A 1x1 PNG.
    let png = [
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f,
        0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8,
        0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00,
        0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ];
    std::fs::write(root.join("dot.png"), png).unwrap();
    std::fs::write(root.join("data.bin"), b"ab\0cd").unwrap();
    let buffers = Arc::new(Buffers::default());
    let workspace = Workspace::new(&root).with_file_access(buffers.clone());
    let image = call(&workspace, "read", json!({"path": "dot.png"})).await;
    assert!(!image.is_error, "{}", image.text());
    assert!(
        image
            .content
            .iter()
            .any(|block| matches!(block, pi_tool::Content::Image { .. })),
        "{image:?}"
    );
    let binary = call(&workspace, "read", json!({"path": "data.bin"})).await;
    assert!(!binary.is_error, "{}", binary.text());
    assert_eq!(binary.text(), "ab\0cd");
    assert!(buffers.calls.lock().unwrap().is_empty());
}

/// A runner that answers from a script, noting each request.
struct Scripted {
    run: CommandRun,
    requests: Mutex<Vec<CommandRequest>>,
}

impl CommandRunner for Scripted {
    fn run<'a>(
        &'a self,
        request: CommandRequest,
        _context: &'a ToolContext,
    ) -> AccessFuture<'a, CommandRun> {
        Box::pin(async move {
            self.requests.lock().unwrap().push(request);
            Ok(self.run.clone())
        })
    }
}

#[tokio::test]
async fn bash_gives_the_runners_output_as_a_local_runs_result() {
    let dir = tempfile::tempdir().unwrap();
    let mut details = Map::new();
    details.insert("terminalId".into(), json!("term-1"));
    let runner = Arc::new(Scripted {
        run: CommandRun {
            output: "built\nfailed: 1 test\n".to_owned(),
            truncated: false,
            end: CommandEnd::Exited(2),
            details,
        },
        requests: Mutex::new(Vec::new()),
    });
    let workspace = Workspace::new(dir.path()).with_command_runner(runner.clone());
    let result = call(
        &workspace,
        "bash",
        json!({"command": "make test", "timeout": 5}),
    )
    .await;
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "built\nfailed: 1 test\n\n\nCommand exited with code 2"
    );
    assert_eq!(result.details.unwrap()["terminalId"], "term-1");
    let requests = runner.requests.lock().unwrap();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].command, "make test");
    assert_eq!(requests[0].cwd, dir.path());
    assert_eq!(requests[0].timeout, Some(std::time::Duration::from_secs(5)));
    // The runner is handed the same command under the workspace's sandbox, for our launcher.
    assert!(requests[0].launch.is_confined());
    assert_eq!(requests[0].launch.command, "make test");
    let arguments = requests[0].launch.arguments();
    assert_eq!(arguments[0], pi_coding_tools::LAUNCHER_SUBCOMMAND);
}

/// A runner that steps aside: the command runs locally.
struct Aside;

impl CommandRunner for Aside {
    fn takes_commands(&self) -> bool {
        false
    }

    fn run<'a>(
        &'a self,
        _request: CommandRequest,
        _context: &'a ToolContext,
    ) -> AccessFuture<'a, CommandRun> {
        Box::pin(async { Err(ToolError::new("this runner takes no command")) })
    }
}

#[tokio::test]
async fn a_runner_that_steps_aside_leaves_the_command_local() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::new(dir.path()).with_command_runner(Arc::new(Aside));
    let result = call(&workspace, "bash", json!({"command": "echo local"})).await;
    assert_eq!(result.text(), "local\n", "{result:?}");
}

/// A failed command the sandbox stopped, run by a runner (our launcher in an editor's
/// terminal): the result names the refusal, as a local run's does.
#[tokio::test]
async fn a_runners_command_the_sandbox_refused_is_named_as_a_local_runs() {
    let dir = tempfile::tempdir().unwrap();
    let runner = Arc::new(Scripted {
        run: CommandRun {
            output: "bash: line 1: /etc/pi-test: Permission denied\n".to_owned(),
            truncated: false,
            end: CommandEnd::Exited(1),
            details: Map::new(),
        },
        requests: Mutex::new(Vec::new()),
    });
    let workspace = Workspace::new(dir.path()).with_command_runner(runner);
    let result = call(
        &workspace,
        "bash",
        json!({"command": "echo x > /etc/pi-test"}),
    )
    .await;
    assert!(result.is_error);
    let details = result.details.unwrap();
    assert!(details["sandbox"].is_string(), "{details}");
    let refusal = &details[pi_tool::SandboxRefusal::DETAILS_KEY];
    assert_eq!(refusal["path"], "/etc/pi-test", "{details}");
}
