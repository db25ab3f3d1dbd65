//! `pi-tool --mode rpc`: Pi's RPC mode. Commands arrive as JSON lines on stdin; each gets one
//! `{"type":"response","command",...,"success"}` line (with the command's `id` when it had
//! one), and the agent's events stream on stdout as JSON lines meanwhile. The session is the
//! runtime's ([`CodingSession`]); this file reads commands and writes lines.
//!
//! Commands this program does not have yet are answered with `success: false` and a reason,
//! never silence; a malformed line gets a `parse` error and the process keeps serving.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use pi_ai::{Message, UserContent, UserMessage};
use pi_coding_agent::{
    CodingSession, Model, ModelRegistry, ResolvedModel, SessionSetup, ThinkingLevel,
    model_provider, registry_model, session_dir,
};
use pi_session::Session;
use pi_tool::Content;
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;

use super::event_lines::{forward, write_lines};
use super::rpc_framing::{Record, next_record};

/// What RPC mode knows besides the session: how to start it again (another session file,
/// another model or thinking level), the model in use and every model.
pub(crate) struct RpcState {
    /// Everything a session is made of but its file and its model.
    pub(crate) setup: SessionSetup,
    /// The model in use, with its key and thinking level.
    pub(crate) model: ResolvedModel,
    /// Every model, for `get_available_models`, `set_model` and `cycle_model`.
    pub(crate) registry: ModelRegistry,
    /// `--session-dir`, where `new_session` and forks are kept.
    pub(crate) session_dir: Option<PathBuf>,
}

/// The session commands run on, and what serves its events.
struct Live {
    session: Arc<CodingSession>,
    /// Copies the session's events to stdout, then `agent_settled` when told.
    forwarder: JoinHandle<()>,
    /// Tells the forwarder a prompt is settled.
    settled: UnboundedSender<()>,
    /// The prompt running, if any.
    running: Option<JoinHandle<()>>,
}

impl Live {
    fn new(session: CodingSession, out: &UnboundedSender<Value>) -> Self {
        let events = session.subscribe();
        let (settled, settle) = unbounded_channel();
        Self {
            session: Arc::new(session),
            forwarder: tokio::spawn(forward(events, settle, out.clone())),
            settled,
            running: None,
        }
    }

    /// Whether a prompt runs (its task is reaped once finished).
    fn busy(&mut self) -> bool {
        if self.running.as_ref().is_some_and(JoinHandle::is_finished) {
            self.running = None;
        }
        self.running.is_some() || self.session.is_streaming()
    }

    /// Ends the session and gives its file back (after every event of it is out).
    async fn close(self) -> Result<Session, String> {
        let Self {
            session,
            forwarder,
            running,
            ..
        } = self;
        if let Some(task) = running {
            let _ = task.await;
        }
        let Some(session) = Arc::into_inner(session) else {
            return Err("the session is still in use".to_owned());
        };
        let closed = session.into_session().await;
        let _ = forwarder.await;
        closed
    }
}

/// Serves commands from stdin until it ends or a stop signal arrives.
pub(crate) async fn serve(
    session: CodingSession,
    mut state: RpcState,
    shutdown: &crate::shutdown::Shutdown,
) -> anyhow::Result<ExitCode> {
    // One channel for every line, so they leave in the order they were made: a response
    // before the events of the prompt it accepted, `agent_settled` after them.
    let (out, lines) = unbounded_channel::<Value>();
    let writer = tokio::spawn(write_lines(lines));
    let mut live = Some(Live::new(session, &out));
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
        let Some(current) = live.as_mut() else {
            break;
        };
        let response = match session_change(&command, current, &state) {
            Some(Ok(change)) => {
                let Some(current) = live.take() else {
                    break;
                };
                let (next, response) = restart(current, change, &mut state, &command, &out).await;
                live = next;
                Some(response)
            }
            Some(Err(response)) => Some(response),
            None => handle(&command, current, &state, &out).await,
        };
        if let Some(response) = response {
            let _ = out.send(response);
        }
        if live.is_none() {
            report!("pi-tool: the session could not be started again; RPC mode ends");
            break;
        }
    }
    // The input ended: what runs is stopped, every call answered, and the lines written.
    if let Some(current) = live {
        current.session.abort();
        if let Err(failure) = current.close().await {
            report!("pi-tool: {failure}");
        }
    }
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
        "set_auto_retry" | "abort_retry" => "automatic retry is not built yet",
        "bash" | "abort_bash" => "running bash outside the agent is not built yet",
        "export_html" => "the HTML export is not built yet",
        "extension_ui_response" => "there are no extensions, so no UI request was made",
        _ => return None,
    })
}

/// What a command changes that needs the session started again.
enum Change {
    /// Another model or thinking level, on the same session file.
    Model(ResolvedModel),
    /// Another session file, with the same model.
    Session(Session),
}

/// The command's answer once the session started again.
enum Answer {
    /// No data.
    Done,
    /// The model (`set_model`).
    Model,
    /// `cycle_model`'s `{model, thinkingLevel, isScoped}`.
    CycledModel,
    /// `cycle_thinking_level`'s `{level}`.
    CycledLevel,
    /// `{cancelled: false}`.
    NotCancelled,
    /// `fork`'s `{text, cancelled: false}`.
    Forked(String),
}

/// The change a command asks for, when it asks for one: `Err` is its failure response.
fn session_change(
    command: &Value,
    live: &mut Live,
    state: &RpcState,
) -> Option<Result<(Change, Answer), Value>> {
    let id = command.get("id");
    let kind = command
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let changes = [
        "set_model",
        "cycle_model",
        "set_thinking_level",
        "cycle_thinking_level",
        "new_session",
        "switch_session",
        "fork",
        "clone",
    ];
    if !changes.contains(&kind) {
        return None;
    }
    if live.busy() {
        return Some(Err(failure(
            id,
            kind,
            "Agent is already processing; wait for it to finish, or abort it first",
        )));
    }
    let fail = |error: String| Err(failure(id, kind, &error));
    let text_of = |error: pi_coding_agent::RuntimeError| pi_tool::error_text(&error);
    let current = &state.model;
    let with_model = |model: &Model, level: ThinkingLevel| {
        registry_model(&state.registry, model, level)
            .and_then(|resolved| {
                // Built once here so an unbuilt wire fails before the session is closed.
                model_provider(
                    &resolved,
                    state.setup.thinking_budgets,
                    state.setup.wire.clone(),
                    state.setup.block_images,
                )
                .map(|_| resolved)
            })
            .map_err(text_of)
    };
    Some(match kind {
        "set_model" => {
            let provider = command
                .get("provider")
                .and_then(Value::as_str)
                .unwrap_or("");
            let id_wanted = command.get("modelId").and_then(Value::as_str).unwrap_or("");
            match state.registry.find(provider, id_wanted) {
                None => fail(format!("Model not found: {provider}/{id_wanted}")),
                Some(model) => with_model(model, current.thinking_level)
                    .map(|resolved| (Change::Model(resolved), Answer::Model))
                    .or_else(fail),
            }
        }
        "cycle_model" => {
            let available = state.registry.available();
            let position = available.iter().position(|model| {
                model.provider == current.model.provider && model.id == current.model.id
            });
            // The next available model after the current one (the first when the current one
            // is not among them); none when the current one is the only one.
            let next = match position {
                Some(_) if available.len() < 2 => None,
                Some(position) => available.get((position + 1) % available.len()),
                None => available.first(),
            };
            match next {
                None => Err(success(id, kind, Some(Value::Null))),
                Some(model) => with_model(model, current.thinking_level)
                    .map(|resolved| (Change::Model(resolved), Answer::CycledModel))
                    .or_else(fail),
            }
        }
        "set_thinking_level" => {
            let level = command.get("level").and_then(Value::as_str).unwrap_or("");
            match level.parse::<ThinkingLevel>() {
                Err(error) => fail(error.to_string()),
                Ok(level) => with_model(&current.model, level)
                    .map(|resolved| (Change::Model(resolved), Answer::Done))
                    .or_else(fail),
            }
        }
        "cycle_thinking_level" => {
            let levels = current.model.supported_thinking_levels();
            if levels.len() < 2 {
                Err(success(id, kind, Some(Value::Null)))
            } else {
                let position = levels
                    .iter()
                    .position(|level| *level == current.thinking_level)
                    .map_or(0, |position| position + 1);
                let next = levels
                    .get(position % levels.len())
                    .copied()
                    .unwrap_or(ThinkingLevel::Off);
                with_model(&current.model, next)
                    .map(|resolved| (Change::Model(resolved), Answer::CycledLevel))
                    .or_else(fail)
            }
        }
        "new_session" => match session_dir(state.session_dir.as_deref(), &state.setup.cwd) {
            Ok(dir) => Ok((
                Change::Session(Session::create(&dir, &state.setup.cwd)),
                Answer::NotCancelled,
            )),
            Err(error) => fail(text_of(error)),
        },
        "switch_session" => {
            let path = command
                .get("sessionPath")
                .and_then(Value::as_str)
                .unwrap_or("");
            if live.session.session_file().as_deref() == Some(Path::new(path)) {
                Ok((Change::Model(current.clone()), Answer::NotCancelled))
            } else {
                match Session::open(Path::new(path)) {
                    Ok(session) => Ok((Change::Session(session), Answer::NotCancelled)),
                    Err(error) => fail(format!("opening {path}: {}", pi_tool::error_text(&error))),
                }
            }
        }
        "fork" | "clone" => {
            let dir = session_dir(state.session_dir.as_deref(), &state.setup.cwd).ok();
            let forked = live.session.with_entries(|stored| {
                if kind == "clone" {
                    let Some(leaf) = stored.leaf_id() else {
                        return Err("Cannot clone session: no current entry selected".to_owned());
                    };
                    return stored
                        .fork_to_new_file(leaf, dir.as_deref())
                        .map(|session| (session, None))
                        .map_err(|error| pi_tool::error_text(&error));
                }
                let wanted = command.get("entryId").and_then(Value::as_str).unwrap_or("");
                let Some((entry, text)) = fork_messages(stored)
                    .into_iter()
                    .find(|(entry, _)| entry == wanted)
                else {
                    return Err(format!("Invalid entry ID for forking: {wanted}"));
                };
                // The new session ends before the message forked from, which the client
                // may edit and send again.
                let parent = stored.entry(&entry).and_then(|entry| entry.parent_id());
                let session = match parent {
                    Some(parent) => stored
                        .fork_to_new_file(parent, dir.as_deref())
                        .map_err(|error| pi_tool::error_text(&error))?,
                    None => match &dir {
                        Some(dir) => Session::create(dir, &state.setup.cwd),
                        None => Session::in_memory(&state.setup.cwd),
                    },
                };
                Ok((session, Some(text)))
            });
            match forked {
                Ok((session, Some(text))) => Ok((Change::Session(session), Answer::Forked(text))),
                Ok((session, None)) => Ok((Change::Session(session), Answer::NotCancelled)),
                Err(error) => fail(error),
            }
        }
        _ => return None,
    })
}

/// The user messages of the active branch, as `(entry id, text)`: where a fork may start.
fn fork_messages(stored: &Session) -> Vec<(String, String)> {
    let Ok(branch) = stored.branch_entries(None) else {
        return Vec::new();
    };
    branch
        .into_iter()
        .filter_map(|entry| match entry.message() {
            Ok(Some(Message::User(user))) => Some((entry.id().to_owned(), user_text(&user))),
            _ => None,
        })
        .collect()
}

fn user_text(user: &UserMessage) -> String {
    match &user.content {
        UserContent::Text(text) => text.clone(),
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(Content::as_text)
            .collect::<Vec<_>>()
            .join(""),
    }
}

/// Closes the live session and starts it again as `change` asks; the new live session (`None`
/// when even the old one could not be started again) and the command's response.
async fn restart(
    current: Live,
    (change, answer): (Change, Answer),
    state: &mut RpcState,
    command: &Value,
    out: &UnboundedSender<Value>,
) -> (Option<Live>, Value) {
    let id = command.get("id");
    let kind = command
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let modes = (
        current.session.steering().is_one_at_a_time(),
        current.session.follow_ups().is_one_at_a_time(),
    );
    let old = match current.close().await {
        Ok(old) => old,
        Err(error) => return (None, failure(id, kind, &error)),
    };
    let (session, model, previous) = match change {
        Change::Model(model) => (old, model, None),
        Change::Session(new) => (new, state.model.clone(), Some(old)),
    };
    let started = match state.setup.start(session, &model) {
        Ok(started) => started,
        Err(error) => {
            let response = failure(id, kind, &pi_tool::error_text(&error));
            // Back to the session that was running, with its model.
            let restored = previous
                .ok_or(())
                .and_then(|old| state.setup.start(old, &state.model).map_err(|_| ()));
            return (
                restored.ok().map(|started| Live::new(started.session, out)),
                response,
            );
        }
    };
    for warning in &started.warnings {
        report!("pi-tool: warning: {warning}");
    }
    state.model = model;
    let data = match answer {
        Answer::Done => None,
        Answer::Model => Some(state.model.model.to_pi_json()),
        Answer::CycledModel => Some(json!({
            "model": state.model.model.to_pi_json(),
            "thinkingLevel": state.model.thinking_level,
            "isScoped": false,
        })),
        Answer::CycledLevel => Some(json!({"level": state.model.thinking_level})),
        Answer::NotCancelled => Some(json!({"cancelled": false})),
        Answer::Forked(text) => Some(json!({"text": text, "cancelled": false})),
    };
    let live = Live::new(started.session, out);
    live.session.steering().set_one_at_a_time(modes.0);
    live.session.follow_ups().set_one_at_a_time(modes.1);
    (Some(live), success(id, kind, data))
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
    live: &mut Live,
    state: &RpcState,
    out: &UnboundedSender<Value>,
) -> Option<Value> {
    let busy = live.busy();
    let session = &live.session;
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
            let message = match user_message(command, session) {
                Ok(message) => message,
                Err(error) => return Some(failure(id, kind, &error)),
            };
            if busy {
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
            let _ = out.send(success(id, kind, None));
            let prompt_session = Arc::clone(session);
            let settled = live.settled.clone();
            live.running = Some(tokio::spawn(async move {
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
            if let Some(task) = live.running.take() {
                let _ = task.await;
            }
            success(id, kind, None)
        }
        "get_state" => {
            let messages = session.messages().map(|messages| messages.len());
            let mut data = json!({
                "model": state.model.model.to_pi_json(),
                "thinkingLevel": state.model.thinking_level,
                "isStreaming": busy,
                "isCompacting": false,
                "steeringMode": queue_mode(&session.steering()),
                "followUpMode": queue_mode(&session.follow_ups()),
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
            let messages: Vec<Value> = session
                .with_entries(fork_messages)
                .into_iter()
                .map(|(entry, text)| json!({"entryId": entry, "text": text}))
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
