//! A conversation kept in a session file and continued later, through the coding agent's
//! session runtime (`pi_coding_agent::CodingSession`, what `pi-tool agent` itself runs on):
//! the first run writes each message as it ends (a crash loses at most the one in flight),
//! then the file is reopened, as `pi-tool agent -c` does, and the conversation goes on. The file
//! is Pi's own JSONL format, so upstream Pi can open it too. The model here is scripted (no key
//! needed).
//!
//! Run: `cargo run --example session_resume [DIR]`   (DIR defaults to a folder in the temp dir)

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pi_ai::{FauxProvider, Message, UserMessage};
use pi_coding_agent::{
    ApprovalFlags, ApprovalSetup, CodingSession, CodingSessionOptions, McpServers, NobodyToAsk,
    PromptOptions, SessionTarget, open_session,
};
use pi_tool::builtin;
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("pi-examples-sessions"));
    std::fs::create_dir_all(&dir)?;
    let cwd = std::env::current_dir()?;

    // A scripted model: it calls `echo`, answers, then (in the resumed run) answers again.
    // It keeps every request so that we can show what the resumed run sent it.
    let model = Arc::new(
        FauxProvider::from_script(&json!([
            {"content": [{"type": "toolCall", "id": "call-1", "name": "echo", "arguments": {"value": "Pi"}}]},
            {"content": [{"type": "text", "text": "echo said Pi."}]},
            {"content": [{"type": "text", "text": "Earlier, echo said Pi."}]}
        ]))?
        .recording_requests(),
    );

    // 1. A new session file in DIR and a first prompt.
    let first = start(&model, SessionTarget::New, &dir, &cwd)?;
    let outcome = first
        .prompt(vec![UserMessage::text("Echo Pi").into()])
        .await;
    let path = first.session_file().ok_or("the session has no file")?;
    println!(
        "run 1 wrote {} messages to {}",
        outcome.run.messages.len(),
        path.display()
    );
    // One writer at a time: the file is locked while a session has it open.
    if let Some(failure) = first.close().await {
        return Err(failure.into());
    }

    // 2. Later, perhaps in another process: reopen the file and go on.
    let second = start(
        &model,
        SessionTarget::Named(path.display().to_string()),
        &dir,
        &cwd,
    )?;
    let outcome = second
        .prompt(vec![UserMessage::text("What did echo say?").into()])
        .await;
    second.close().await;

    // The resumed request carried the whole first run, then the new prompt.
    let sent = model
        .requests()
        .last()
        .map_or(0, |request| request.messages.len());
    let answer = match outcome.run.messages.last() {
        Some(Message::Assistant(answer)) => answer.text(),
        _ => String::new(),
    };
    println!("run 2 sent the model {sent} messages; it answered: {answer}");
    let saved = pi_session::Session::load(&path)?;
    println!(
        "the session now holds {} messages",
        saved.context()?.messages.len()
    );
    Ok(())
}

/// A coding session over the built-in tools, recorded in the session `target` names.
fn start(
    model: &Arc<FauxProvider>,
    target: SessionTarget,
    dir: &Path,
    cwd: &Path,
) -> Result<CodingSession, Box<dyn std::error::Error>> {
    let opened = open_session(&target, || Ok(dir.to_path_buf()), cwd)?;
    let (approvals, _ignored) = ApprovalSetup::load(&ApprovalFlags::default(), cwd)?;
    let started = CodingSession::start(CodingSessionOptions {
        cwd: cwd.to_path_buf(),
        agent_dir: pi_tool::path::agent_dir(),
        provider: model.clone(),
        tools: builtin::registry(),
        mcp_servers: McpServers::default(),
        session: opened.session,
        approver: Arc::new(NobodyToAsk {
            cwd: cwd.to_path_buf(),
            why: "this example has nobody to ask",
        }),
        approvals,
        prompt: PromptOptions::new(cwd),
        context_window: None,
        thinking_level: None,
        execution: Default::default(),
        max_turns: None,
        tool_timeout: None,
        stop: CancellationToken::new(),
        retry: pi_coding_agent::RetryPolicy::DISABLED,
    })?;
    for warning in &started.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(started.session)
}
