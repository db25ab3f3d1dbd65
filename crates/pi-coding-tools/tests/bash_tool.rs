//! `bash` through the executor: output, failures as results with their output, time limits,
//! cancellation, daemons that keep the pipes open, long outputs kept whole in a file.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pi_coding_tools::{ShellSandbox, Workspace, bash_tool};
use pi_tool::{
    CallContext, ProgressCallback, ToolCall, ToolRegistry, ToolResultMessage, execute_tool_call,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

async fn run_in(cwd: &Path, arguments: Value, context: CallContext) -> ToolResultMessage {
    let tools =
        ToolRegistry::new([bash_tool(&Workspace::new(cwd).keeping_output_files())]).unwrap();
    execute_tool_call(&ToolCall::new("call-1", "bash", arguments), &tools, context).await
}

async fn run(command: &str) -> ToolResultMessage {
    let dir = tempfile::tempdir().unwrap();
    run_in(
        dir.path(),
        json!({"command": command}),
        CallContext::default(),
    )
    .await
}

#[tokio::test]
async fn output_of_both_streams_comes_back() {
    let result = run("echo out; echo err >&2; pwd >/dev/null").await;
    assert!(!result.is_error);
    let text = result.text();
    assert!(text.contains("out") && text.contains("err"), "{text}");
    assert_eq!(run("true").await.text(), "(no output)");
}

#[tokio::test]
async fn a_failing_command_keeps_its_output_and_says_its_code() {
    let result = run("echo partial; exit 3").await;
    assert!(result.is_error);
    assert_eq!(result.text(), "partial\n\n\nCommand exited with code 3");
}

#[tokio::test]
async fn the_time_limit_kills_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let result = run_in(
        dir.path(),
        json!({"command": "(sleep 1; touch survivor) & sleep 30; echo never", "timeout": 0.3}),
        CallContext::default(),
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "(no output)\n\nCommand timed out after 0.3 seconds"
    );
    // The background child was in the killed group: it never gets to leave its mark.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        !dir.path().join("survivor").exists(),
        "a child outlived the time limit"
    );
}

#[tokio::test]
async fn cancellation_stops_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let signal = CancellationToken::new();
    let cancel = {
        let signal = signal.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            signal.cancel();
        }
    };
    let context = CallContext {
        signal: Some(signal),
        report_progress: None,
    };
    let (result, ()) = tokio::join!(
        run_in(
            dir.path(),
            json!({"command": "echo begun; sleep 30"}),
            context
        ),
        cancel
    );
    assert!(result.is_error);
    assert_eq!(result.text(), "begun\n\n\nCommand aborted");
}

#[tokio::test]
async fn a_background_process_holding_the_pipes_does_not_hang_the_call() {
    let started = Instant::now();
    let result = run("sleep 30 & echo started").await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(!result.is_error);
    // Under bubblewrap the job ends with the shell's namespace, closing the pipe; elsewhere
    // (Landlock, no sandbox) it outlives the shell, holding the pipe open without writing,
    // and the result says so, as it was.
    let details = result.details.as_ref().unwrap();
    let sandbox = details["sandbox"].as_str().unwrap_or_default();
    if sandbox.starts_with("bubblewrap") {
        assert_eq!(result.text(), "started\n");
        assert!(details.get("outputStillOpen").is_none(), "{details}");
    } else {
        assert_eq!(
            result.text(),
            "started\n\n\n[A background process still holds the output open; reading stopped \
             after 250 ms without output, so what it writes later is not shown.]",
            "{sandbox}"
        );
        assert_eq!(details["outputStillOpen"], true);
    }
}

#[tokio::test]
async fn long_output_is_cut_to_its_tail_and_kept_whole_in_a_file() {
    let result = run("seq 1 3000").await;
    let text = result.text();
    // 3000 lines (the final newline ends the last one): the last 2000 start at 1001.
    assert!(text.starts_with("1001\n"), "{}", &text[..20]);
    let details = result.details.unwrap();
    let path = details["fullOutputPath"].as_str().unwrap().to_owned();
    assert!(
        text.ends_with(&format!(
            "3000\n\n[Showing lines 1001-3000 of 3000. Full output: {path}]"
        )),
        "{}",
        &text[text.len() - 120..]
    );
    let whole = std::fs::read_to_string(&path).unwrap();
    assert_eq!(whole.lines().count(), 3000);
    std::fs::remove_file(path).unwrap();

    let wide = run("head -c 300000 /dev/zero | tr '\\\\0' 'x'; echo; echo end").await;
    let details = wide.details.clone().unwrap();
    assert_eq!(details["truncation"]["truncatedBy"], "bytes");
    let path = details["fullOutputPath"].as_str().unwrap().to_owned();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 300_005);
    assert!(wide.text().contains("end\n"));
    std::fs::remove_file(path).unwrap();
}

#[tokio::test]
async fn progress_streams_the_output_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let context = CallContext {
        signal: None,
        report_progress: Some(ProgressCallback::new({
            let seen = Arc::clone(&seen);
            move |content| {
                seen.lock()
                    .unwrap()
                    .push(serde_json::to_value(content).unwrap())
            }
        })),
    };
    let result = run_in(
        dir.path(),
        json!({"command": "echo one; sleep 0.2; echo two"}),
        context,
    )
    .await;
    assert_eq!(result.text(), "one\ntwo\n");
    let seen = seen.lock().unwrap();
    assert!(seen.len() >= 2, "{seen:?}");
    assert_eq!(
        seen[0],
        json!({"content": [{"type": "text", "text": "one\n"}]})
    );
}

#[tokio::test]
async fn a_missing_working_directory_is_a_clear_failure() {
    let result = run_in(
        Path::new("/definitely/not/here"),
        json!({"command": "true"}),
        CallContext::default(),
    )
    .await;
    assert!(result.is_error);
    assert!(
        result.text().starts_with(
            "Tool bash failed: Working directory does not exist: /definitely/not/here"
        )
    );
}

/// 1 GB of fast output lost 20% of its bytes and the last line: the reader fell behind and
/// what was queued when the shell exited was dropped. Everything is read now, and the file
/// and the tail are the whole and the real end.
#[tokio::test]
async fn fast_output_is_never_lost() {
    let result = run("yes 0123456789 | head -c 99999999; echo THE-LAST-LINE").await;
    let text = result.text();
    let details = result.details.clone().unwrap();
    let path = details["fullOutputPath"].as_str().unwrap().to_owned();
    let expected = 99_999_999 + "THE-LAST-LINE\n".len() as u64;
    assert_eq!(std::fs::metadata(&path).unwrap().len(), expected);
    assert_eq!(details["truncation"]["totalBytes"], expected);
    let shown = text.split("\n\n[Showing").next().unwrap();
    assert!(
        shown.ends_with("\nTHE-LAST-LINE"),
        "{}",
        &text[text.len() - 300..]
    );
    std::fs::remove_file(path).unwrap();
}

/// stdout and stderr came back in a different order from run to run: one pipe for both keeps
/// the order they were written in.
#[tokio::test]
async fn stdout_and_stderr_keep_the_order_they_were_written_in() {
    let expected: String = (1..=30).map(|i| format!("out{i}\nerr{i}\n")).collect();
    for _ in 0..5 {
        let result = run("for i in $(seq 1 30); do echo out$i; echo err$i >&2; done").await;
        assert_eq!(result.text(), expected);
    }
}

/// `details.truncation` counted only the window kept in memory (14,629 lines of `seq 1 500000`).
#[tokio::test]
async fn the_totals_count_everything_the_command_wrote() {
    let result = run("seq 1 500000").await;
    let details = result.details.unwrap();
    let bytes: usize = (1..=500_000).map(|n: u32| n.to_string().len() + 1).sum();
    assert_eq!(details["truncation"]["totalLines"], 500_000);
    assert_eq!(details["truncation"]["totalBytes"], bytes);
    std::fs::remove_file(details["fullOutputPath"].as_str().unwrap()).unwrap();
}

/// A stopped command gets `SIGTERM` first and a grace to clean up, in both sandboxes (under
/// bubblewrap, which passes no signal on, each process inside is asked); one that ignores it
/// is killed all the same.
#[tokio::test]
async fn a_stopped_command_is_asked_to_end_then_killed() {
    let dir = tempfile::tempdir().unwrap();
    let polite = "trap 'echo cleaned-up; exit 3' TERM; echo begun; sleep 30 & wait";
    for sandbox in [ShellSandbox::Landlock, ShellSandbox::Strongest] {
        let workspace = Workspace::new(dir.path()).with_shell_sandbox(sandbox);
        let tools = ToolRegistry::new([bash_tool(&workspace)]).unwrap();
        let call = ToolCall::new("c", "bash", json!({"command": polite, "timeout": 0.5}));
        let result = execute_tool_call(&call, &tools, CallContext::default()).await;
        let details = result.details.clone().unwrap_or_default();
        assert!(
            result.text().contains("cleaned-up"),
            "{sandbox:?} ({}): {}",
            details["sandbox"],
            result.text()
        );
        assert!(
            result
                .text()
                .ends_with("Command timed out after 0.5 seconds")
        );
    }

    let started = Instant::now();
    let stubborn = "trap '' TERM; echo begun; sleep 30";
    let result = run_in(
        dir.path(),
        json!({"command": stubborn, "timeout": 0.5}),
        CallContext::default(),
    )
    .await;
    assert!(result.is_error);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

/// Full-output files of finished calls no longer pile up in the temporary directory: they go
/// with the workspace, unless it keeps them.
#[tokio::test]
async fn full_output_files_go_with_the_workspace_unless_kept() {
    let dir = tempfile::tempdir().unwrap();
    for keep in [false, true] {
        let workspace = Workspace::new(dir.path());
        let workspace = if keep {
            workspace.keeping_output_files()
        } else {
            workspace
        };
        let tools = ToolRegistry::new([bash_tool(&workspace)]).unwrap();
        let call = ToolCall::new("c", "bash", json!({"command": "seq 1 30000"}));
        let result = execute_tool_call(&call, &tools, CallContext::default()).await;
        let path = result.details.unwrap()["fullOutputPath"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(Path::new(&path).exists());
        drop((tools, workspace));
        assert_eq!(Path::new(&path).exists(), keep, "keep: {keep}");
        let _ = std::fs::remove_file(path);
    }
}
