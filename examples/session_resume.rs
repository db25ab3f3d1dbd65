//! A conversation kept in a session file and continued later: create a session, append a run's
//! messages, reopen the file, rebuild the context and carry on from it. The file is Pi's own
//! JSONL format, so upstream Pi can open it too. The model here is scripted (no key needed).
//!
//! Run: `cargo run --example session_resume [DIR]`   (DIR defaults to a folder in the temp dir)

use std::path::PathBuf;
use std::sync::Arc;

use pi_agent::{Agent, AgentConfig, AgentRun};
use pi_ai::{FauxProvider, UserMessage};
use pi_session::Session;
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
    let agent = Agent::new(AgentConfig::new(
        model.clone(),
        Arc::new(builtin::registry()),
    ));

    // 1. A new session and a first run. The file appears with the first append.
    let mut session = Session::create(&dir, &cwd);
    let first = agent.prompt("Echo Pi").await;
    save(&mut session, &first)?;
    let path = session
        .file_path()
        .ok_or("the session has no file")?
        .to_path_buf();
    println!(
        "run 1 wrote {} messages to {}",
        first.messages.len(),
        path.display()
    );
    // One writer at a time: the file is locked while a `Session` has it open.
    drop(session);

    // 2. Later, perhaps in another process: reopen the file and rebuild the conversation.
    let mut session = Session::open(&path)?;
    let history = session.context()?.messages;
    let prompt = UserMessage::text("What did echo say?").into();
    let second = agent
        .run(history, vec![prompt], CancellationToken::new())
        .await;
    save(&mut session, &second)?;

    // The resumed request carried the whole first run, then the new prompt.
    let sent = model
        .requests()
        .last()
        .map_or(0, |request| request.messages.len());
    println!(
        "run 2 sent the model {sent} messages; it answered: {}",
        last_text(&second)
    );
    println!(
        "the session now holds {} messages",
        session.context()?.messages.len()
    );
    Ok(())
}

/// Appends what a run added, then flushes it to the disk. (`pi-tool agent` appends each
/// message as it ends, from the run's events, so that a crash loses nothing; this waits for
/// the end of the run to stay short.)
fn save(session: &mut Session, run: &AgentRun) -> Result<(), pi_session::SessionError> {
    for message in &run.messages {
        session.append_message(message)?;
    }
    session.sync()
}

/// The text of the run's last message (the model's final answer).
fn last_text(run: &AgentRun) -> String {
    match run.messages.last() {
        Some(pi_ai::Message::Assistant(answer)) => answer.text(),
        _ => String::new(),
    }
}
