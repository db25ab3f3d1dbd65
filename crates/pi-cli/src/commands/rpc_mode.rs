//! `pi-tool --mode rpc`: Pi's RPC mode. Commands arrive as JSON lines on stdin; each gets one
//! `{"type":"response","command",...,"success"}` line (with the command's `id` when it had
//! one), and the agent's events stream on stdout as JSON lines meanwhile. The session is the
//! runtime's ([`CodingSession`]); this file reads commands and writes lines.
//!
//! Commands this program does not have yet are answered with `success: false` and a reason,
//! never silence; a malformed line gets a `parse` error and the process keeps serving.

use std::process::ExitCode;
use std::sync::Arc;

use pi_agent::AgentEvent;
use pi_ai::{Message, UserContent, UserMessage};
use pi_coding_agent::{CodingSession, Model, ModelRegistry, ThinkingLevel};
use pi_tool::Content;
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::rpc_framing::{Record, next_record};

/// What RPC mode knows besides the session.
pub(crate) struct RpcState {
    /// The model in use.
    pub(crate) model: Model,
    /// Its thinking level.
    pub(crate) thinking_level: ThinkingLevel,
    /// Every model, for `get_available_models`.
    pub(crate) registry: ModelRegistry,
}

/// A line for stdout that is not an agent event: a response, or `agent_settled`.
type Line = Value;

/// Serves commands from stdin until it ends or a stop signal arrives.
pub(crate) async fn serve(
    session: CodingSession,
    state: RpcState,
    shutdown: &crate::shutdown::Shutdown,
) -> anyhow::Result<ExitCode> {
    let session = Arc::new(session);
    let (lines, from_commands) = unbounded_channel::<Line>();
    let writer = tokio::spawn(write_lines(session.subscribe(), from_commands));
    let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
    let mut running: Option<tokio::task::JoinHandle<()>> = None;
    loop {
        let record = tokio::select! {
            record = next_record(&mut stdin) => record,
            () = shutdown.token().cancelled() => break,
        };
        let line = match record {
            Ok(Some(Record::Line(line))) => line,
            Ok(Some(Record::TooLong)) => {
                let _ = lines.send(failure(
                    None,
                    "parse",
                    &format!(
                        "Failed to parse command: the line is longer than {} bytes",
                        super::rpc_framing::MAX_RECORD_BYTES
                    ),
                ));
                continue;
            }
            Ok(None) | Err(_) => break,
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let command: Value = match serde_json::from_slice(&line) {
            Ok(command @ Value::Object(_)) => command,
            Ok(_) => {
                let _ = lines.send(failure(
                    None,
                    "parse",
                    "Failed to parse command: a command is a JSON object",
                ));
                continue;
            }
            Err(error) => {
                let _ = lines.send(failure(
                    None,
                    "parse",
                    &format!("Failed to parse command: {error}"),
                ));
                continue;
            }
        };
        if let Some(task) = &running
            && task.is_finished()
        {
            running = None;
        }
        let response = handle(&command, &session, &state, &lines, &mut running).await;
        if let Some(response) = response {
            let _ = lines.send(response);
        }
    }
    // The input ended: what runs is stopped, every call answered, and the lines written.
    session.abort();
    if let Some(task) = running {
        let _ = task.await;
    }
    drop(lines);
    let session = Arc::into_inner(session);
    if let Some(session) = session
        && let Some(failure) = session.close().await
    {
        report!("pi-tool: {failure}");
    }
    let _ = writer.await;
    Ok(ExitCode::SUCCESS)
}

/// Writes the agent's events and the command loop's lines, one JSON line each. Events come
/// first when both are waiting: a line sent after a prompt ended (its `agent_settled`) then
/// follows every event of that prompt.
async fn write_lines(
    mut events: UnboundedReceiver<AgentEvent>,
    mut lines: UnboundedReceiver<Line>,
) {
    let mut events_open = true;
    loop {
        let next = tokio::select! {
            biased;
            event = events.recv(), if events_open => match event {
                Some(event) => serde_json::to_value(&event).ok(),
                None => {
                    events_open = false;
                    continue;
                }
            },
            line = lines.recv() => match line {
                Some(line) => Some(line),
                None => break,
            },
        };
        if let Some(value) = next
            && !write_line(&value)
        {
            break;
        }
    }
    // The command loop is done; the events that remain are the last run's.
    while events_open {
        match events.recv().await {
            Some(event) => {
                if let Ok(value) = serde_json::to_value(&event)
                    && !write_line(&value)
                {
                    break;
                }
            }
            None => events_open = false,
        }
    }
}

fn write_line(value: &Value) -> bool {
    let Ok(mut line) = serde_json::to_vec(value) else {
        return true;
    };
    line.push(b'\n');
    let mut stdout = std::io::stdout().lock();
    std::io::Write::write_all(&mut stdout, &line)
        .and_then(|()| std::io::Write::flush(&mut stdout))
        .is_ok()
}

/// Sets `key` of a JSON object (the values here are always objects built by `json!`).
fn insert(object: &mut Value, key: &str, value: Value) {
    if let Some(object) = object.as_object_mut() {
        object.insert(key.to_owned(), value);
    }
}

fn success(id: Option<&Value>, command: &str, data: Option<Value>) -> Value {
    let mut response = json!({"type": "response", "command": command, "success": true});
    if let Some(data) = data {
        insert(&mut response, "data", data);
    }
    with_id(response, id)
}

fn failure(id: Option<&Value>, command: &str, error: &str) -> Value {
    with_id(
        json!({"type": "response", "command": command, "success": false, "error": error}),
        id,
    )
}

fn with_id(mut response: Value, id: Option<&Value>) -> Value {
    if let Some(id) = id {
        insert(&mut response, "id", id.clone());
    }
    response
}

/// Why a command Pi has is not answered here yet.
fn not_built(command: &str) -> Option<&'static str> {
    Some(match command {
        "set_model" | "cycle_model" => "changing the model during a session is not built yet",
        "set_thinking_level" | "cycle_thinking_level" => {
            "changing the thinking level during a session is not built yet"
        }
        "set_steering_mode" | "set_follow_up_mode" => "queue modes are not built yet",
        "set_auto_retry" | "abort_retry" => "automatic retry is not built yet",
        "bash" | "abort_bash" => "running bash outside the agent is not built yet",
        "export_html" => "the HTML export is not built yet",
        "new_session" | "switch_session" | "fork" | "clone" | "get_fork_messages" => {
            "changing sessions in RPC mode is not built yet"
        }
        "extension_ui_response" => "there are no extensions, so no UI request was made",
        _ => return None,
    })
}

/// The user message of a `prompt`, `steer` or `follow_up`: its text, then its images.
fn user_message(command: &Value) -> Result<Message, String> {
    let Some(text) = command.get("message").and_then(Value::as_str) else {
        return Err("the command needs a \"message\" string".to_owned());
    };
    let mut blocks = vec![pi_tool::text(text)];
    if let Some(images) = command.get("images") {
        let images: Vec<Content> = serde_json::from_value(images.clone())
            .map_err(|error| format!("\"images\" are not image contents: {error}"))?;
        blocks.extend(images);
    }
    let mut message = UserMessage::text(String::new());
    message.content = UserContent::Blocks(blocks);
    Ok(message.into())
}

/// Answers one command; `None` when the answer is sent later (a prompt, once accepted).
async fn handle(
    command: &Value,
    session: &Arc<CodingSession>,
    state: &RpcState,
    lines: &UnboundedSender<Line>,
    running: &mut Option<tokio::task::JoinHandle<()>>,
) -> Option<Value> {
    let id = command.get("id");
    let kind = command
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if let Some(reason) = not_built(kind) {
        return Some(failure(id, kind, reason));
    }
    let session_error =
        |error: pi_coding_agent::RuntimeError| failure(id, kind, &pi_tool::error_text(&error));
    Some(match kind {
        "prompt" => {
            let message = match user_message(command) {
                Ok(message) => message,
                Err(error) => return Some(failure(id, kind, &error)),
            };
            if session.is_streaming() || running.is_some() {
                return Some(
                    match command.get("streamingBehavior").and_then(Value::as_str) {
                        Some("steer") => {
                            session.steering().push(message);
                            success(id, kind, None)
                        }
                        Some("followUp") => {
                            session.follow_ups().push(message);
                            success(id, kind, None)
                        }
                        _ => failure(
                            id,
                            kind,
                            "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.",
                        ),
                    },
                );
            }
            let _ = lines.send(success(id, kind, None));
            let prompt_session = Arc::clone(session);
            let settled = lines.clone();
            *running = Some(tokio::spawn(async move {
                let outcome = prompt_session.prompt(vec![message]).await;
                if let Some(failure) = outcome.recording_failure {
                    report!("pi-tool: {failure}");
                }
                let _ = settled.send(json!({"type": "agent_settled"}));
            }));
            return None;
        }
        "steer" | "follow_up" => match user_message(command) {
            Ok(message) => {
                if kind == "steer" {
                    session.steering().push(message);
                } else {
                    session.follow_ups().push(message);
                }
                success(id, kind, None)
            }
            Err(error) => failure(id, kind, &error),
        },
        "abort" => {
            session.abort();
            if let Some(task) = running.take() {
                let _ = task.await;
            }
            success(id, kind, None)
        }
        "get_state" => {
            let messages = session.messages().map(|messages| messages.len());
            let mut data = json!({
                "model": state.model.to_pi_json(),
                "thinkingLevel": state.thinking_level,
                "isStreaming": session.is_streaming(),
                "isCompacting": false,
                "steeringMode": "all",
                "followUpMode": "all",
                "sessionFile": session.session_file(),
                "sessionId": session.session_id(),
                "autoCompactionEnabled": true,
                "messageCount": messages.unwrap_or(0),
                "pendingMessageCount": session.steering().len() + session.follow_ups().len(),
            });
            if let Some(name) = session.name() {
                insert(&mut data, "sessionName", json!(name));
            }
            success(id, kind, Some(data))
        }
        "get_messages" => match session.messages() {
            Ok(messages) => success(id, kind, Some(json!({"messages": messages}))),
            Err(error) => session_error(error),
        },
        "get_available_models" => {
            let models: Vec<Value> = state
                .registry
                .available()
                .into_iter()
                .map(Model::to_pi_json)
                .collect();
            success(id, kind, Some(json!({"models": models})))
        }
        "get_session_stats" => match session.stats() {
            Ok(stats) => success(id, kind, Some(json!(stats))),
            Err(error) => session_error(error),
        },
        "get_last_assistant_text" => match session.last_assistant_text() {
            Ok(text) => success(id, kind, Some(json!({"text": text}))),
            Err(error) => session_error(error),
        },
        "set_session_name" => {
            let name = command.get("name").and_then(Value::as_str).unwrap_or("");
            if name.trim().is_empty() {
                failure(id, kind, "Session name cannot be empty")
            } else {
                match session.set_name(name) {
                    Ok(()) => success(id, kind, None),
                    Err(error) => session_error(error),
                }
            }
        }
        "get_entries" => entries(session, command.get("since").and_then(Value::as_str))
            .map_or_else(
                |error| failure(id, kind, &error),
                |data| success(id, kind, Some(data)),
            ),
        "get_tree" => success(id, kind, Some(tree(session))),
        "compact" => {
            let focus = command.get("customInstructions").and_then(Value::as_str);
            match session.compact(focus).await {
                Ok(compacted) => success(
                    id,
                    kind,
                    Some(json!({
                        "summary": compacted_summary(session),
                        "firstKeptEntryId": compacted.first_kept_entry_id,
                        "tokensBefore": compacted.tokens_before,
                        "estimatedTokensAfter": compacted.tokens_after,
                        "details": {
                            "readFiles": compacted.read_files,
                            "modifiedFiles": compacted.modified_files,
                        },
                    })),
                ),
                Err(error) => session_error(error),
            }
        }
        "set_auto_compaction" => failure(
            id,
            kind,
            "turning automatic compaction off is read from settings.json (compaction.enabled) at start",
        ),
        "get_commands" => success(id, kind, Some(json!({"commands": []}))),
        other => failure(id, other, &format!("Unknown command: {other}")),
    })
}

/// The session's entries in append order (after `since`, when given), and its leaf.
fn entries(session: &CodingSession, since: Option<&str>) -> Result<Value, String> {
    session.with_entries(|stored| {
        let all = stored.entries();
        let start = match since {
            None => 0,
            Some(id) => {
                all.iter()
                    .position(|entry| entry.id() == id)
                    .ok_or_else(|| format!("Entry not found: {id}"))?
                    + 1
            }
        };
        let entries: Vec<Value> = all
            .get(start..)
            .unwrap_or_default()
            .iter()
            .filter_map(|entry| entry.as_map().ok().cloned().map(Value::Object))
            .collect();
        Ok(json!({"entries": entries, "leafId": stored.leaf_id()}))
    })
}

/// The session as a tree of `{entry, children, label?}` nodes, and its leaf.
fn tree(session: &CodingSession) -> Value {
    session.with_entries(|stored| {
        let view = stored.tree();
        // An explicit stack, not recursion: a session file decides how deep its tree is.
        fn node(entry: &pi_session::Entry, stored: &pi_session::Session) -> Value {
            let mut node = json!({
                "entry": entry.as_map().ok().cloned().map_or(Value::Null, Value::Object),
                "children": [],
            });
            if let Some(label) = stored.label_of(entry.id()) {
                insert(&mut node, "label", json!(label));
            }
            node
        }
        let mut roots = Vec::new();
        // (the node being filled, its children still to visit)
        let mut stack: Vec<(Value, Vec<&pi_session::Entry>)> = Vec::new();
        for root in view.roots() {
            stack.push((node(root, stored), view.children(root.id()).collect()));
            while let Some((_, pending)) = stack.last_mut() {
                if let Some(child) = pending.pop() {
                    let children = view.children(child.id()).collect();
                    stack.push((node(child, stored), children));
                    continue;
                }
                let Some((done, _)) = stack.pop() else {
                    break;
                };
                match stack.last_mut() {
                    Some((parent, _)) => {
                        if let Some(children) =
                            parent.get_mut("children").and_then(Value::as_array_mut)
                        {
                            // Children were popped last-first: put each at the front.
                            children.insert(0, done);
                        }
                    }
                    None => roots.push(done),
                }
            }
        }
        json!({"tree": roots, "leafId": stored.leaf_id()})
    })
}

/// The summary of the compaction just written (the session's last `compaction` entry).
fn compacted_summary(session: &CodingSession) -> Option<String> {
    session.with_entries(|stored| {
        stored
            .entries()
            .iter()
            .rev()
            .find(|entry| entry.is_compaction())
            .and_then(|entry| entry.field("summary").ok().flatten().cloned())
            .and_then(|summary| summary.as_str().map(str::to_owned))
    })
}
