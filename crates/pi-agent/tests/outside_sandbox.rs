//! `full-auto`'s second question: a call the sandbox or the workspace's confinement refused
//! asks, once, to run again outside it, with Pi's real coding tools. Yes runs the same
//! arguments on the unconfined tools and the result says so; no leaves the refusal, with
//! the person's reason; other modes never ask; every answer is announced as a decision.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod support;

use std::path::Path;
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use pi_agent::{AgentConfig, AgentEvent, ApprovalGate};
use pi_ai::Message;
use pi_approval::{
    Answer, AnswerFuture, ApprovalRecord, ApprovalRequest, Approver, DecidedBy, LocalPaths, Mode,
    Policy, RuleSet, Scope, Verdict,
};
use pi_coding_tools::{Workspace, all_tools};
use pi_tool::{RefusalKind, ToolResultMessage};
use serde_json::{Value, json};
use support::*;
use tokio_util::sync::CancellationToken;

/// Answers from a list, in order, noting every request.
struct Scripted {
    answers: Mutex<Vec<Answer>>,
    asked: Mutex<Vec<ApprovalRequest>>,
}

impl Scripted {
    fn new(answers: Vec<Answer>) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers.into_iter().rev().collect()),
            asked: Mutex::new(Vec::new()),
        })
    }
}

impl Approver for Scripted {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> AnswerFuture<'a> {
        self.asked.lock().unwrap().push(request.clone());
        let answer = self.answers.lock().unwrap().pop();
        async move { answer.unwrap_or(Answer::Deny { reason: None }) }.boxed()
    }

    fn what_would_allow(&self, _request: &ApprovalRequest) -> Option<String> {
        Some("--allow-dir would allow it.".into())
    }
}

/// Runs one model turn of `calls` in `mode` over the coding tools of `workspace` (and the
/// same tools unconfined for the second question); returns the results and the decisions.
async fn run(
    mode: Mode,
    workspace: &Workspace,
    calls: Vec<Value>,
    approver: &Arc<Scripted>,
) -> (Vec<ToolResultMessage>, Vec<ApprovalRecord>) {
    let model = faux(json!([{"content": calls}, answer("done")]));
    let policy = Policy::new(mode, RuleSet::default(), LocalPaths::new(workspace.cwd()));
    let gate = ApprovalGate::new(policy, Arc::clone(approver) as _)
        .with_tools_outside_sandbox(all_tools(&workspace.without_confinement()));
    let config =
        AgentConfig::new(model, Arc::new(all_tools(workspace))).with_approval_gate(Arc::new(gate));
    let (agent, mut events) = start(config);
    let run = agent
        .run(Vec::new(), prompt("go"), CancellationToken::new())
        .await;
    let results = run
        .messages
        .into_iter()
        .filter_map(|message| match message {
            Message::ToolResult(result) => Some(result),
            _ => None,
        })
        .collect();
    let records = drain(&mut events)
        .into_iter()
        .filter_map(|event| match event {
            AgentEvent::ApprovalDecision(record) => Some(ApprovalRecord::clone(&record)),
            _ => None,
        })
        .collect();
    (results, records)
}

/// A workspace `work/` and a file beside it, outside.
fn workspace_and_secret() -> (tempfile::TempDir, Workspace, String) {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("work")).unwrap();
    let secret = root.path().join("secret.txt");
    std::fs::write(&secret, "the secret").unwrap();
    let workspace = Workspace::new(root.path().join("work"));
    (root, workspace, secret.display().to_string())
}

fn outside_note(result: &ToolResultMessage) -> &Value {
    &result.details.as_ref().unwrap()["outsideSandbox"]
}

#[tokio::test]
async fn a_read_outside_the_workspace_asks_once_and_runs_outside_on_yes() {
    let (_root, workspace, secret) = workspace_and_secret();
    let approver = Scripted::new(vec![Answer::Once]);
    let read = call("c1", "read", json!({"path": secret}));
    let (results, records) = run(Mode::FullAuto, &workspace, vec![read], &approver).await;

    assert_eq!(results.len(), 1);
    assert!(!results[0].is_error, "{}", results[0].text());
    assert_eq!(results[0].text(), "the secret");
    assert_eq!(outside_note(&results[0])["ran"], true);
    assert_eq!(
        outside_note(&results[0])["refusal"]["kind"],
        "outside-workspace"
    );

    let asked = approver.asked.lock().unwrap();
    assert_eq!(asked.len(), 1, "asked once, only about running outside");
    let refusal = asked[0].outside_sandbox.as_ref().unwrap();
    assert_eq!(refusal.kind, RefusalKind::OutsideWorkspace);
    assert_eq!(asked[0].arguments, json!({"path": secret}));

    // Two decisions: the mode let the read run inside; the person let it run outside.
    assert_eq!(records.len(), 2, "{records:?}");
    assert_eq!(
        (
            records[0].decision,
            records[0].decided_by,
            &records[0].outside_sandbox
        ),
        (Verdict::Allow, DecidedBy::Mode, &None)
    );
    assert_eq!(
        (
            records[1].decision,
            records[1].policy,
            records[1].decided_by,
            records[1].scope
        ),
        (
            Verdict::Allow,
            Verdict::Ask,
            DecidedBy::User,
            Some(Scope::Once)
        )
    );
    assert_eq!(records[1].outside_sandbox.as_ref(), Some(refusal));
    assert_eq!(
        records[1].fingerprint, records[0].fingerprint,
        "the same call"
    );
    assert_eq!(records[1].session_rule(), None, "nothing is remembered");
}

#[tokio::test]
async fn no_leaves_the_refusal_with_the_reason_and_what_would_allow_it() {
    let (_root, workspace, secret) = workspace_and_secret();
    let approver = Scripted::new(vec![Answer::Deny {
        reason: Some("not that file".into()),
    }]);
    let read = call("c1", "read", json!({"path": secret}));
    let (results, records) = run(Mode::FullAuto, &workspace, vec![read], &approver).await;

    assert!(results[0].is_error);
    let text = results[0].text();
    assert!(text.contains("outside the workspace"), "{text}");
    assert!(text.contains("not that file"), "{text}");
    assert!(text.contains("--allow-dir would allow it."), "{text}");
    assert!(!text.contains("the secret"), "{text}");
    assert_eq!(outside_note(&results[0])["ran"], false);
    let last = records.last().unwrap();
    assert_eq!(
        (last.decision, last.decided_by, last.reason.as_deref()),
        (Verdict::Deny, DecidedBy::User, Some("not that file"))
    );
    assert!(last.outside_sandbox.is_some());
}

#[tokio::test]
async fn other_modes_leave_the_refusal_without_asking() {
    let (_root, workspace, secret) = workspace_and_secret();
    for mode in [Mode::ReadOnly, Mode::Ask, Mode::AutoEdit] {
        let approver = Scripted::new(vec![Answer::Once]);
        let read = call("c1", "read", json!({"path": secret}));
        let (results, records) = run(mode, &workspace, vec![read], &approver).await;
        assert!(results[0].is_error, "{mode}");
        assert!(approver.asked.lock().unwrap().is_empty(), "{mode} asked");
        assert_eq!(records.len(), 1, "{mode}: {records:?}");
        assert!(
            results[0]
                .details
                .as_ref()
                .unwrap()
                .get("outsideSandbox")
                .is_none(),
            "{mode}"
        );
    }
}

/// Fails, saying why, unless this machine's sandbox stops `bash` writing outside the workspace.
fn assert_bash_sandbox_holds(workspace: &Workspace) {
    let description = all_tools(workspace)
        .get("bash")
        .map(|tool| tool.definition().description)
        .unwrap_or_default();
    assert!(
        !description.contains("Not sandboxed on this machine"),
        "the sandbox cannot hold bash on this machine, so nothing here could be checked: {description}"
    );
}

/// A directory this test may write that the sandbox keeps read-only: not under the temporary
/// directory (a checkout in /tmp puts the target directory there). Fails, saying why, when
/// there is none: the test cannot check anything then, and must not pass.
fn outside_the_sandbox() -> std::path::PathBuf {
    let temp = std::env::temp_dir()
        .canonicalize()
        .unwrap_or_else(|_| std::env::temp_dir());
    let candidates = [
        Some(Path::new(env!("CARGO_TARGET_TMPDIR")).to_path_buf()),
        std::env::var_os("HOME").map(std::path::PathBuf::from),
    ];
    let found = candidates.into_iter().flatten().find(|dir| {
        let dir = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        !dir.starts_with(&temp)
    });
    let Some(found) = found else {
        panic!(
            "the target directory and HOME are both under {}, which the sandbox leaves writable: \
             set CARGO_TARGET_DIR or HOME outside it",
            temp.display()
        );
    };
    found.join(format!("outside-sandbox-{}", std::process::id()))
}

#[tokio::test]
#[ignore = "needs bash's sandbox (bubblewrap, or Landlock on Linux 5.13+): run scripts/test.sh, which installs bubblewrap"]
async fn a_write_the_sandbox_refused_runs_outside_on_yes() {
    // Outside the workspace and the temporary directory (both writable in the sandbox).
    let outside = outside_the_sandbox();
    std::fs::create_dir_all(&outside).unwrap();
    let made = outside.join("made.txt");
    let _ = std::fs::remove_file(&made);
    let root = tempfile::tempdir().unwrap();
    let workspace = Workspace::new(root.path());
    assert_bash_sandbox_holds(&workspace);
    let command = format!("touch '{}'", made.display());

    let refused = Scripted::new(vec![Answer::Deny { reason: None }]);
    let touch = call("c1", "bash", json!({"command": command}));
    let (results, records) = run(Mode::FullAuto, &workspace, vec![touch.clone()], &refused).await;
    assert!(results[0].is_error, "{}", results[0].text());
    assert!(!made.exists(), "no: it never ran outside");
    let refusal = refused.asked.lock().unwrap()[0]
        .outside_sandbox
        .clone()
        .unwrap();
    assert_eq!(refusal.kind, RefusalKind::WriteOutsideSandbox);
    assert_eq!(refusal.path.as_deref(), Some(made.to_str().unwrap()));
    assert_eq!(records.last().unwrap().decision, Verdict::Deny);

    let allowed = Scripted::new(vec![Answer::Once]);
    let (results, _) = run(Mode::FullAuto, &workspace, vec![touch], &allowed).await;
    assert!(!results[0].is_error, "{}", results[0].text());
    assert!(made.exists(), "yes: it ran outside the sandbox");
    let details = results[0].details.as_ref().unwrap();
    assert_eq!(details["outsideSandbox"]["ran"], true);
    assert!(
        details.get("sandbox").is_none(),
        "run without a sandbox: {details}"
    );
    std::fs::remove_dir_all(&outside).unwrap();
}
