//! The session runtime as a front end drives it: several prompts in one session (each sent
//! the whole conversation, each message in the file), an abort that ends only the prompt
//! running, and a resumed session continuing from the file.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use pi_agent::EndReason;
use pi_ai::{FauxProvider, Message, UserMessage};
use pi_approval::{Mode, Permissions, ProjectTrust, Protected, RuleSet};
use pi_coding_agent::{
    ApprovalFlags, ApprovalSetup, CodingSession, CodingSessionOptions, McpServers, NobodyToAsk,
    PromptOptions, SessionTarget, open_session,
};
use pi_tool::schema::ObjectParams;
use pi_tool::{FnTool, RegisteredTool, ToolOutput, ToolRegistry, builtin};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn approvals(cwd: &Path) -> ApprovalSetup {
    ApprovalSetup {
        mode: Mode::FullAuto,
        rules: RuleSet::from_sources(&Permissions::default(), None, None, ProjectTrust::Untrusted),
        user_settings: None,
        cwd: cwd.to_path_buf(),
        project_trusted: false,
        outside_tools: None,
        protected: Protected::new(),
        flags: ApprovalFlags::default(),
    }
}

/// `wait` runs until its call is cancelled, then says so.
fn tools() -> ToolRegistry {
    let wait = FnTool::new(
        "wait",
        "Waits until cancelled",
        builtin::ValueParams::object_schema(),
        |_params: builtin::ValueParams, cx| async move {
            cx.signal().cancelled().await;
            Ok(ToolOutput::text("stopped waiting"))
        },
    );
    let mut tools = builtin::registry();
    tools.register(RegisteredTool::new(wait)).unwrap();
    tools
}

fn start(
    model: Arc<FauxProvider>,
    target: SessionTarget,
    dirs: &tempfile::TempDir,
) -> CodingSession {
    let cwd = dirs.path().join("work");
    std::fs::create_dir_all(&cwd).unwrap();
    let agent_dir = dirs.path().join("agent");
    let opened = open_session(&target, || Ok(dirs.path().join("sessions")), &cwd).unwrap();
    let mut prompt = PromptOptions::new(&cwd);
    prompt.today = "2026-12-07".to_owned();
    CodingSession::start(CodingSessionOptions {
        cwd: cwd.clone(),
        agent_dir: Some(agent_dir),
        provider: model,
        tools: tools(),
        mcp_servers: McpServers::default(),
        session: opened.session,
        approvals: approvals(&cwd),
        approver: Arc::new(NobodyToAsk {
            cwd: cwd.clone(),
            why: "the test has nobody to ask",
        }),
        prompt,
        context_window: None,
        thinking_level: None,
        execution: Default::default(),
        max_turns: None,
        tool_timeout: None,
        stop: CancellationToken::new(),
        retry: pi_coding_agent::RetryPolicy::DISABLED,
    })
    .unwrap()
    .session
}

fn text(reply: &str) -> Value {
    json!({"content": [{"type": "text", "text": reply}]})
}

fn user(text: &str) -> Vec<Message> {
    vec![UserMessage::text(text).into()]
}

fn file_messages(path: &Path) -> usize {
    pi_session::Session::load(path)
        .unwrap()
        .context()
        .unwrap()
        .messages
        .len()
}

#[tokio::test]
async fn each_prompt_continues_the_conversation_and_is_recorded() {
    let dirs = tempfile::tempdir().unwrap();
    let model = Arc::new(
        FauxProvider::from_script(&json!([text("one"), text("two"), text("three")]))
            .unwrap()
            .recording_requests(),
    );
    let session = start(model.clone(), SessionTarget::New, &dirs);
    for (n, prompt) in ["first", "second"].into_iter().enumerate() {
        let outcome = session.prompt(user(prompt)).await;
        assert_eq!(outcome.run.end, EndReason::Completed, "prompt {n}");
        assert!(outcome.recording_failure.is_none());
    }
    let path = session.session_file().unwrap();
    assert_eq!(session.close().await, None);
    // The second request carried the first exchange.
    let sent: Vec<usize> = model
        .requests()
        .iter()
        .map(|request| request.messages.len())
        .collect();
    assert_eq!(sent, [1, 3]);
    assert!(
        model.requests()[0]
            .system_prompt
            .as_deref()
            .is_some_and(|prompt| prompt.contains("2026-12-07")),
        "the runtime sends the system prompt it built"
    );
    assert_eq!(file_messages(&path), 4);

    // Resumed from the file: the third prompt is sent all four messages before it.
    let resumed = start(
        model.clone(),
        SessionTarget::Named(path.display().to_string()),
        &dirs,
    );
    resumed.prompt(user("third")).await;
    assert_eq!(resumed.close().await, None);
    assert_eq!(model.requests().last().unwrap().messages.len(), 5);
    assert_eq!(file_messages(&path), 6);
}

#[tokio::test]
async fn abort_ends_the_prompt_running_and_the_session_goes_on() {
    let dirs = tempfile::tempdir().unwrap();
    let model = Arc::new(
        FauxProvider::from_script(&json!([
            {"content": [{"type": "toolCall", "id": "c1", "name": "wait", "arguments": {"value": "x"}}]},
            text("never sent"),
        ]))
        .unwrap(),
    );
    let session = Arc::new(start(model, SessionTarget::New, &dirs));
    let aborter = Arc::clone(&session);
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        aborter.abort();
    });
    let outcome = tokio::time::timeout(Duration::from_secs(10), session.prompt(user("wait")))
        .await
        .expect("abort ends the prompt");
    assert_eq!(outcome.run.end, EndReason::Aborted);
    // The call was answered.
    assert!(outcome.run.messages.iter().any(|message| matches!(
        message,
        Message::ToolResult(result) if result.tool_call_id == "c1"
    )));
    // The session is still usable: the next prompt runs (the script is spent, so the model
    // answers with an error, but a run happens and is recorded).
    let next = session.prompt(user("again")).await;
    assert!(!next.run.messages.is_empty());
    let session = Arc::into_inner(session).expect("the aborter is done");
    assert_eq!(session.close().await, None);
}
