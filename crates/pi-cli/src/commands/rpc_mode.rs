//! `pi-tool --mode rpc`: Pi's RPC mode. Commands arrive as JSON lines on stdin; each gets one
//! `{"type":"response","command",...,"success"}` line (with the command's `id` when it had
//! one), and the agent's events stream on stdout as JSON lines meanwhile. The session is the
//! runtime's ([`CodingSession`]); this file reads commands and writes lines.
//!
//! Commands this program does not have yet are answered with `success: false` and a reason,
//! never silence; a malformed line gets a `parse` error and the process keeps serving.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use pi_ai::{Message, UserContent, UserMessage};
use pi_coding_agent::{BashExecution, CodingSession, HostError, Model, SessionHost, ThinkingLevel};
use pi_tool::Content;
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::event_lines::{forward, write_lines};
use super::rpc_framing::{Record, next_record};

/// What serves the session's events, and the prompt running on it.
struct Listener {
    /// Copies the session's events to stdout, then `agent_settled` when told.
    forwarder: JoinHandle<()>,
    /// Tells the forwarder a prompt is settled.
    settled: UnboundedSender<()>,
    /// The prompt running, if any.
    running: Option<JoinHandle<()>>,
    /// The person's shell command running (RPC's `bash`), and what stops it (`abort_bash`).
    bash: Option<(CancellationToken, JoinHandle<()>)>,
}

impl Listener {
    fn new(session: &CodingSession, out: &UnboundedSender<Value>) -> Self {
        let events = session.subscribe();
        let (settled, settle) = unbounded_channel();
        Self {
            forwarder: tokio::spawn(forward(events, settle, out.clone())),
            settled,
            running: None,
            bash: None,
        }
    }

    /// Whether a prompt runs (its task is reaped once finished).
    fn busy(&mut self, session: &CodingSession) -> bool {
        if self.running.as_ref().is_some_and(JoinHandle::is_finished) {
            self.running = None;
        }
        self.running.is_some() || session.is_streaming()
    }

    /// Waits for the prompt running, then for every event of the closed session to be out.
    async fn finish(self) {
        if let Some(task) = self.running {
            let _ = task.await;
        }
        let _ = self.forwarder.await;
    }
}

/// Serves commands from stdin until it ends or a stop signal arrives.
pub(crate) async fn serve(
    mut host: SessionHost,
    shutdown: &crate::shutdown::Shutdown,
) -> anyhow::Result<ExitCode> {
    // One channel for every line, so they leave in the order they were made: a response
    // before the events of the prompt it accepted, `agent_settled` after them.
    let (out, lines) = unbounded_channel::<Value>();
    let writer = tokio::spawn(write_lines(lines));
    let mut listener = Listener::new(host.session()?, &out);
    let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
    loop {
        let record = tokio::select! {
            record = next_record(&mut stdin) => record,
            () = shutdown.token().cancelled() => break,
        };
        let line = match record {
            Ok(Some(Record::Line(line))) => line,
            Ok(Some(Record::TooLong)) => {
                let _ = out.send(failure(
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
                let _ = out.send(failure(
                    None,
                    "parse",
                    "Failed to parse command: a command is a JSON object",
                ));
                continue;
            }
            Err(error) => {
                let _ = out.send(failure(
                    None,
                    "parse",
                    &format!("Failed to parse command: {error}"),
                ));
                continue;
            }
        };
        let Ok(session) = host.session().map(Arc::clone) else {
            break;
        };
        let busy = listener.busy(&session);
        let response = if kind_of(&command) == "set_auto_compaction" {
            let id = command.get("id");
            match command.get("enabled").and_then(Value::as_bool) {
                Some(enabled) => {
                    host.set_auto_compaction(enabled);
                    Some(success(id, "set_auto_compaction", None))
                }
                None => Some(failure(
                    id,
                    "set_auto_compaction",
                    "the command needs an \"enabled\" boolean",
                )),
            }
        } else if kind_of(&command) == "set_auto_retry" {
            // The host keeps it for the sessions it starts again.
            let id = command.get("id");
            match command.get("enabled").and_then(Value::as_bool) {
                Some(enabled) => {
                    host.set_auto_retry(enabled);
                    Some(success(id, "set_auto_retry", None))
                }
                None => Some(failure(
                    id,
                    "set_auto_retry",
                    "the command needs an \"enabled\" boolean",
                )),
            }
        } else if CHANGES.contains(&kind_of(&command)) {
            let before = Arc::as_ptr(&session);
            drop(session);
            let response = change(&command, &mut host, busy).await;
            // A session started again (even the one before, after a failed change) is
            // another session: its events need a listener of their own, and the closed
            // one's events are all out before the response.
            let restarted = host.session().map(|now| Arc::as_ptr(now) != before);
            if !matches!(restarted, Ok(false)) {
                let next = host.session().ok().map(|now| Listener::new(now, &out));
                if let Some(next) = next {
                    std::mem::replace(&mut listener, next).finish().await;
                }
            }
            Some(response)
        } else {
            handle(&command, &session, &host, &mut listener, busy, &out).await
        };
        if let Some(response) = response {
            let _ = out.send(response);
        }
        if host.session().is_err() {
            report!("pi-tool: the session could not be started again; RPC mode ends");
            break;
        }
    }
    // The input ended: what runs is stopped, every call answered, and the lines written.
    if let Ok(session) = host.session() {
        session.abort();
    }
    if let Some(task) = listener.running.take() {
        let _ = task.await;
    }
    if let Some(failure) = host.close().await {
        report!("pi-tool: {failure}");
    }
    listener.finish().await;
    drop(out);
    let _ = writer.await;
    Ok(ExitCode::SUCCESS)
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
        "extension_ui_response" => "there are no extensions, so no UI request was made",
        _ => return None,
    })
}

/// The commands that start the session again (another model, level or session file).
const CHANGES: [&str; 8] = [
    "set_model",
    "cycle_model",
    "set_thinking_level",
    "cycle_thinking_level",
    "new_session",
    "switch_session",
    "fork",
    "clone",
];

/// A command's `type`.
fn kind_of(command: &Value) -> &str {
    command
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// Answers a command of [`CHANGES`]: the runtime's [`SessionHost`] makes the change (or
/// keeps the session as it was and says why).
async fn change(command: &Value, host: &mut SessionHost, busy: bool) -> Value {
    let id = command.get("id");
    let kind = kind_of(command);
    if busy {
        return failure(id, kind, &pi_tool::error_text(&HostError::Busy));
    }
    let text = |name: &str| command.get(name).and_then(Value::as_str).unwrap_or("");
    let done = match kind {
        "set_model" => host
            .set_model(text("provider"), text("modelId"))
            .await
            .map(|changed| (changed, Some(host.model().model.to_pi_json()))),
        "cycle_model" => match host.cycle_model().await {
            Ok(None) => return success(id, kind, Some(Value::Null)),
            Ok(Some(changed)) => Ok((
                changed,
                Some(json!({
                    "model": host.model().model.to_pi_json(),
                    "thinkingLevel": host.model().thinking_level,
                    "isScoped": !host.scope().is_empty(),
                })),
            )),
            Err(error) => Err(error),
        },
        "set_thinking_level" => match text("level").parse::<ThinkingLevel>() {
            Err(error) => return failure(id, kind, &error.to_string()),
            Ok(level) => host
                .set_thinking_level(level)
                .await
                .map(|changed| (changed, None)),
        },
        "cycle_thinking_level" => match host.cycle_thinking_level().await {
            Ok(None) => return success(id, kind, Some(Value::Null)),
            Ok(Some(changed)) => Ok((changed, Some(json!({"level": host.model().thinking_level})))),
            Err(error) => Err(error),
        },
        "new_session" => host
            .new_session()
            .await
            .map(|changed| (changed, Some(json!({"cancelled": false})))),
        "switch_session" => host
            .switch_session(Path::new(text("sessionPath")))
            .await
            .map(|changed| (changed, Some(json!({"cancelled": false})))),
        "fork" => host
            .fork(text("entryId"))
            .await
            .map(|(changed, text)| (changed, Some(json!({"text": text, "cancelled": false})))),
        "clone" => host
            .clone_session()
            .await
            .map(|changed| (changed, Some(json!({"cancelled": false})))),
        other => return failure(id, other, &format!("Unknown command: {other}")),
    };
    match done {
        Ok((changed, data)) => {
            for warning in &changed.warnings {
                report!("pi-tool: warning: {warning}");
            }
            success(id, kind, data)
        }
        Err(error) => failure(id, kind, &pi_tool::error_text(&error)),
    }
}

/// RPC's `bash`: runs the person's command in the working directory, records it in the session
/// as Pi's `bashExecution` (the model reads it with the next prompt), then answers with Pi's
/// `BashResult`.
async fn user_bash(
    command: String,
    session: Arc<CodingSession>,
    cwd: std::path::PathBuf,
    stop: CancellationToken,
    id: Option<Value>,
    out: UnboundedSender<Value>,
) {
    let response = match BashExecution::run(&command, &cwd, false, &stop).await {
        Err(error) => failure(
            id.as_ref(),
            "bash",
            &format!("Could not run the command: {error}"),
        ),
        Ok(run) => match session.record_bash_execution(&run) {
            Err(error) => failure(id.as_ref(), "bash", &pi_tool::error_text(&error)),
            Ok(()) => {
                let mut data = json!({
                    "output": run.output,
                    "exitCode": run.exit_code,
                    "cancelled": run.cancelled,
                    "truncated": run.truncated,
                });
                if let Some(path) = &run.full_output_path {
                    insert(&mut data, "fullOutputPath", json!(path));
                }
                success(id.as_ref(), "bash", Some(data))
            }
        },
    };
    let _ = out.send(response);
}

/// The user message of a `prompt`, `steer` or `follow_up`: its text (a `/template` or
/// `/skill:name` expanded), then its images.
fn user_message(command: &Value, session: &CodingSession) -> Result<Message, String> {
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
    Ok(session.expand_commands(message).into())
}

/// Answers one command that keeps the session; `None` when the answer was sent already (a
/// prompt, once accepted).
async fn handle(
    command: &Value,
    session: &Arc<CodingSession>,
    host: &SessionHost,
    listener: &mut Listener,
    busy: bool,
    out: &UnboundedSender<Value>,
) -> Option<Value> {
    let id = command.get("id");
    let kind = kind_of(command);
    if let Some(reason) = not_built(kind) {
        return Some(failure(id, kind, reason));
    }
    let session_error =
        |error: pi_coding_agent::RuntimeError| failure(id, kind, &pi_tool::error_text(&error));
    Some(match kind {
        "prompt" => {
            let message = match user_message(command, session) {
                Ok(message) => message,
                Err(error) => return Some(failure(id, kind, &error)),
            };
            if busy {
                return Some(
                    match command.get("streamingBehavior").and_then(Value::as_str) {
                        Some("steer") => {
                            session.steer(message);
                            success(id, kind, None)
                        }
                        Some("followUp") => {
                            session.follow_up(message);
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
            let _ = out.send(success(id, kind, None));
            let prompt_session = Arc::clone(session);
            let settled = listener.settled.clone();
            listener.running = Some(tokio::spawn(async move {
                let outcome = prompt_session.prompt(vec![message]).await;
                if let Some(failure) = outcome.recording_failure {
                    report!("pi-tool: {failure}");
                }
                let _ = settled.send(());
            }));
            return None;
        }
        "steer" | "follow_up" => match user_message(command, session) {
            Ok(message) => {
                if kind == "steer" {
                    session.steer(message);
                } else {
                    session.follow_up(message);
                }
                success(id, kind, None)
            }
            Err(error) => failure(id, kind, &error),
        },
        "abort" => {
            session.abort();
            if let Some(task) = listener.running.take() {
                let _ = task.await;
            }
            success(id, kind, None)
        }
        "bash" => {
            let Some(command_line) = command.get("command").and_then(Value::as_str) else {
                return Some(failure(id, kind, "the command needs a \"command\" string"));
            };
            // During a prompt too, as Pi: the command runs now, its record waits for the
            // prompt to end (`CodingSession::record_bash_execution`).
            if listener
                .bash
                .as_ref()
                .is_some_and(|(_, task)| !task.is_finished())
            {
                return Some(failure(id, kind, "A bash command is already running"));
            }
            let stop = CancellationToken::new();
            let task = tokio::spawn(user_bash(
                command_line.to_owned(),
                Arc::clone(session),
                host.setup().cwd.clone(),
                stop.clone(),
                id.cloned(),
                out.clone(),
            ));
            listener.bash = Some((stop, task));
            return None;
        }
        "abort_bash" => {
            if let Some((stop, _)) = &listener.bash {
                stop.cancel();
            }
            success(id, kind, None)
        }
        "abort_retry" => {
            session.abort_retry();
            success(id, kind, None)
        }
        "get_state" => {
            let messages = session.messages().map(|messages| messages.len());
            let mut data = json!({
                "model": host.model().model.to_pi_json(),
                "thinkingLevel": host.model().thinking_level,
                "isStreaming": busy,
                "isCompacting": false,
                "steeringMode": queue_mode(&session.steering()),
                "followUpMode": queue_mode(&session.follow_ups()),
                "sessionFile": session.session_file(),
                "sessionId": session.session_id(),
                "autoCompactionEnabled": session.auto_compaction(),
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
            let models: Vec<Value> = host
                .registry()
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
        "export_html" => {
            let output = command.get("outputPath").and_then(Value::as_str);
            match session.export_html(output.map(std::path::Path::new)) {
                Ok(path) => success(id, kind, Some(json!({"path": path}))),
                Err(error) => failure(id, kind, &pi_tool::error_text(&error)),
            }
        }
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
        "set_steering_mode" | "set_follow_up_mode" => {
            let queue = if kind == "set_steering_mode" {
                session.steering()
            } else {
                session.follow_ups()
            };
            match command.get("mode").and_then(Value::as_str) {
                Some("all") => {
                    queue.set_one_at_a_time(false);
                    success(id, kind, None)
                }
                Some("one-at-a-time") => {
                    queue.set_one_at_a_time(true);
                    success(id, kind, None)
                }
                other => failure(
                    id,
                    kind,
                    &format!("mode must be \"all\" or \"one-at-a-time\", not {other:?}"),
                ),
            }
        }
        "get_commands" => {
            let commands = session.commands();
            let mut listed: Vec<Value> = commands
                .templates
                .iter()
                .map(|template| {
                    json!({"name": template.name, "description": template.description,
                           "source": "prompt", "path": template.path})
                })
                .collect();
            listed.extend(commands.skills.iter().map(|skill| {
                json!({"name": format!("skill:{}", skill.name), "description": skill.description,
                       "source": "skill", "path": skill.path})
            }));
            success(id, kind, Some(json!({"commands": listed})))
        }
        "get_fork_messages" => {
            let messages: Vec<Value> = host
                .fork_points()
                .into_iter()
                .map(|point| json!({"entryId": point.entry_id, "text": point.text}))
                .collect();
            success(id, kind, Some(json!({"messages": messages})))
        }
        other => failure(id, other, &format!("Unknown command: {other}")),
    })
}

/// Pi's name of a queue's mode.
fn queue_mode(queue: &pi_agent::MessageQueue) -> &'static str {
    if queue.is_one_at_a_time() {
        "one-at-a-time"
    } else {
        "all"
    }
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
