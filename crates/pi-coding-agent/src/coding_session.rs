//! [`CodingSession`]: one conversation with a coding agent, as every front end drives it. It
//! owns the agent (the model, the tools, the system prompt, the approval gate), the session it
//! is recorded in, and compaction, so the print and JSON modes, and the interactive, RPC and
//! editor front ends after them, differ only in how they show events and ask a person.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use pi_agent::{Agent, AgentConfig, AgentEvent, AgentRun, ExecutionMode, MessageQueue};
use pi_ai::{Message, Provider, UserMessage};
use pi_approval::{Approver, SealKey};
use pi_session::Session;
use pi_tool::ToolRegistry;
use serde_json::Value;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::approvals::ApprovalSetup;
use crate::auto_retry::{RetryPolicy, RetryState};
use crate::compaction::{CompactedRun, Compactor, run_compacted};
use crate::mcp_servers::McpServers;
use crate::prompt_commands::PromptCommands;
use crate::recorder::{History, Recorder};
use crate::run_prompt::{PromptOptions, PromptSource, RunPrompt};
use crate::runtime_error::RuntimeError;
use crate::tools::OfferedTool;

/// What a coding session is made of. The front end reads its flags into these; the session
/// does the rest.
pub struct CodingSessionOptions {
    /// The directory the agent works in.
    pub cwd: PathBuf,
    /// The agent directory (settings, the approval seal key, `models.json`); `None`: none (a
    /// home-less run). [`pi_tool::path::agent_dir`] gives Pi's.
    pub agent_dir: Option<PathBuf>,
    /// The model.
    pub provider: Arc<dyn Provider>,
    /// The tools offered to the model.
    pub tools: ToolRegistry,
    /// MCP servers whose tools are among `tools`: kept connected while the session lasts.
    pub mcp_servers: McpServers,
    /// Where the conversation is recorded (see [`crate::open_session`]).
    pub session: Session,
    /// The approval mode, rules and protected paths.
    pub approvals: ApprovalSetup,
    /// Whom the gate asks when the policy says `ask`.
    pub approver: Arc<dyn Approver>,
    /// What the system prompt is built from; its `tools`, `agent_dir` and `project_trusted`
    /// are filled in from this session's.
    pub prompt: PromptOptions,
    /// The model's context window, when known from a flag or the model registry (else Pi's
    /// `models.json` or the built-in table).
    pub context_window: Option<u64>,
    /// The thinking level chosen for the run (`None`: none chosen; a new session records
    /// `off`).
    pub thinking_level: Option<String>,
    /// Whether a batch's calls run one after another.
    pub execution: ExecutionMode,
    /// The most model responses per prompt.
    pub max_turns: Option<usize>,
    /// The time limit of one tool call.
    pub tool_timeout: Option<Duration>,
    /// Stops the session: its runs end, every call answered.
    pub stop: CancellationToken,
    /// When a response that failed transiently is asked for again.
    pub retry: RetryPolicy,
}

/// A session that started, with what it noticed on the way (for the front end to show).
pub struct Started {
    /// The session.
    pub session: CodingSession,
    /// Things a person should know but that did not stop the start, in words: a context file
    /// cut, an allow rule of an untrusted project ignored, an approval not restored.
    pub warnings: Vec<String>,
    /// The files that went into the system prompt.
    pub prompt_sources: Vec<PromptSource>,
}

/// One conversation with the coding agent.
pub struct CodingSession {
    agent: Agent,
    recorder: Recorder,
    compactor: Compactor,
    /// The conversation the first prompt continues from (later prompts read the session).
    history: Mutex<Option<History>>,
    /// Stops the whole session (a stop signal, or the session file failing).
    stop: CancellationToken,
    /// The token of the prompt running now, which [`CodingSession::abort`] cancels.
    current: Mutex<Option<CancellationToken>>,
    /// Whether a prompt is running.
    streaming: std::sync::atomic::AtomicBool,
    /// The person's shell commands that ended while a prompt ran (Pi's `bashExecution`),
    /// written when it ends so no entry lands between a call and its result. Locked while a
    /// prompt ends too, so a command ending then is either held and written or written at
    /// once, never left behind.
    pending_bash: Mutex<Vec<Value>>,
    /// When a failed response is asked for again, whether it is now (RPC's `set_auto_retry`
    /// turns it off and on while the session runs), and how often the prompt did; the agent's
    /// `agent_end` reads it too (its `willRetry`).
    retry: Arc<RetryState>,
    /// The wait before the next attempt, while one is waited for: [`Self::abort_retry`]
    /// cancels it.
    retry_wait: Mutex<Option<CancellationToken>>,
    /// Writes each message into the session as it ends.
    follower: JoinHandle<()>,
    _mcp_servers: McpServers,
    /// The skills and prompt templates a message may call.
    commands: PromptCommands,
}

/// How a prompt went.
#[derive(Debug)]
pub struct PromptOutcome {
    /// Every message the prompt added (a run retried after an overflow included), and how
    /// it ended.
    pub run: AgentRun,
    /// Why the session stopped taking entries, if it did: the run was stopped for it.
    pub recording_failure: Option<String>,
}

impl CodingSession {
    /// Starts a session: the system prompt built, the session prepared (a new one records the
    /// model and thinking level), the approval gate set up with the rules the person allowed
    /// for this session in its earlier runs (when sealed by this user's key).
    pub fn start(options: CodingSessionOptions) -> Result<Started, RuntimeError> {
        let CodingSessionOptions {
            cwd,
            agent_dir,
            provider,
            tools,
            mcp_servers,
            session,
            mut approvals,
            approver,
            mut prompt,
            context_window,
            thinking_level,
            execution,
            max_turns,
            tool_timeout,
            stop,
            retry,
        } = options;
        let mut warnings = Vec::new();
        let model = provider.model();
        let compactor = Compactor::load(context_window, agent_dir.as_deref(), &cwd, &model)?;
        let seal = seal_key(&session, agent_dir.as_deref(), &mut warnings);
        let (recorder, history) = Recorder::start(
            session,
            &model,
            thinking_level.as_deref(),
            stop.clone(),
            seal,
        )?;
        // Traces name the session as the conversation (`gen_ai.conversation.id`).
        let conversation = recorder.with_session(|session| session.id().to_owned());
        // Built once: the agent sends this same text with every turn.
        prompt.tools = OfferedTool::all(&tools);
        prompt.agent_dir = agent_dir;
        prompt.project_trusted = approvals.project_trusted;
        let mut built = RunPrompt::build(&prompt);
        let commands = std::mem::take(&mut built.commands);
        warnings.extend(
            built
                .warnings
                .iter()
                .map(|warning| pi_tool::error_text(warning)),
        );
        let retry = Arc::new(RetryState::new(retry));
        let (will_retry, answered) = (Arc::clone(&retry), Arc::clone(&retry));
        let mut config = AgentConfig::new(provider, Arc::new(tools))
            .with_before_request(recorder.before_request())
            .with_will_retry(move |messages| will_retry.will_retry(messages))
            .with_after_response(move |answer| answered.answered(answer))
            .with_conversation_id(conversation)
            .with_system_prompt(built.text)
            .with_execution(execution);
        if let Some(turns) = max_turns {
            config = config.with_max_turns(turns);
        }
        if let Some(limit) = tool_timeout {
            config = config.with_tool_timeout(limit);
        }
        // The session file holds the approval records a resume reads back: writing it asks.
        if let Some(path) =
            recorder.with_session(|session| session.file_path().map(Path::to_path_buf))
        {
            approvals.protected.add(&path);
        }
        let gate = approvals.gate(approver);
        // A continued session allows again what its person allowed for the session, when this
        // program wrote the record: a record a model forged in the session file restores nothing.
        let (remembered, unsealed) = recorder.session_rules();
        warnings.extend(unsealed.iter().map(|rule| {
            format!(
                "the remembered approval {rule} is not restored: its record is not sealed by this \
                 user's key for this session (written by another program?); it asks again"
            )
        }));
        for rule in remembered {
            if let Err(error) = gate.remember_for_session(&rule) {
                warnings.push(format!(
                    "a remembered approval rule is not restored: {}",
                    pi_tool::error_text(&error)
                ));
            }
        }
        let agent = Agent::new(config.with_approval_gate(gate));
        // The recorder reads only these: every event sent to a subscriber is a copy.
        let follower = recorder.follow(agent.subscribe_to(|event| {
            matches!(
                event,
                AgentEvent::MessageEnd { .. } | AgentEvent::ApprovalDecision(_)
            )
        }));
        Ok(Started {
            session: Self {
                agent,
                recorder,
                compactor,
                history: Mutex::new(Some(history)),
                stop,
                current: Mutex::new(None),
                streaming: std::sync::atomic::AtomicBool::new(false),
                pending_bash: Mutex::new(Vec::new()),
                retry_wait: Mutex::new(None),
                retry,
                follower,
                _mcp_servers: mcp_servers,
                commands,
            },
            warnings,
            prompt_sources: built.sources,
        })
    }

    /// `message` with a leading `/skill:NAME` or `/TEMPLATE args` expanded from the run's
    /// skills and prompt templates, as Pi's sessions read every prompt. Call it on each
    /// message a person typed before [`Self::prompt`]; any other message comes back as it was.
    pub fn expand_commands(&self, message: UserMessage) -> UserMessage {
        self.commands.expand_message(message)
    }

    /// The run's skills and prompt templates.
    pub fn commands(&self) -> &PromptCommands {
        &self.commands
    }

    /// Every event of the session's runs, from now on.
    pub fn subscribe(&self) -> UnboundedReceiver<AgentEvent> {
        self.agent.subscribe()
    }

    /// The events `wanted` accepts, from now on (each event sent is a copy: ask only for what
    /// is read).
    pub fn subscribe_to(&self, wanted: fn(&AgentEvent) -> bool) -> UnboundedReceiver<AgentEvent> {
        self.agent.subscribe_to(wanted)
    }

    /// Messages that steer the running prompt: delivered after the current tool calls.
    pub fn steering(&self) -> MessageQueue {
        self.agent.steering()
    }

    /// Messages that run after the prompt would have ended.
    pub fn follow_ups(&self) -> MessageQueue {
        self.agent.follow_ups()
    }

    /// Queues `message` to steer the running prompt, announced as a `queue_update`.
    pub fn steer(&self, message: impl Into<Message>) {
        self.agent.steering().push(message);
        self.agent.announce_queues();
    }

    /// Queues `message` to run once the prompt would have ended, announced as a
    /// `queue_update`.
    pub fn follow_up(&self, message: impl Into<Message>) {
        self.agent.follow_ups().push(message);
        self.agent.announce_queues();
    }

    /// Takes every queued message out, steering first, then follow-ups (announced as a
    /// `queue_update` when there were any): what an abort gives back to the person.
    pub fn clear_queues(&self) -> Vec<Message> {
        let mut taken = self.agent.steering().drain();
        taken.extend(self.agent.follow_ups().drain());
        if !taken.is_empty() {
            self.agent.announce_queues();
        }
        taken
    }

    /// The session file, when the session is kept in one.
    pub fn session_file(&self) -> Option<PathBuf> {
        self.recorder
            .with_session(|session| session.file_path().map(Path::to_path_buf))
    }

    /// The session's id.
    pub fn session_id(&self) -> String {
        self.recorder
            .with_session(|session| session.id().to_owned())
    }

    /// The session's header, as its file's first line holds it (Pi's `--mode json` prints it
    /// first).
    pub fn header(&self) -> serde_json::Map<String, serde_json::Value> {
        self.recorder
            .with_session(|session| session.header().as_map().clone())
    }

    /// The session's counts, tokens and cost (Pi's `get_session_stats`).
    pub fn stats(&self) -> Result<crate::session_stats::SessionStats, RuntimeError> {
        let window = self.compactor.window().filter(|window| *window > 0);
        self.recorder
            .with_session(|session| {
                let mut stats = crate::session_stats::SessionStats::of(session)?;
                if let Some(window) = window {
                    stats.context_usage =
                        Some(crate::session_stats::ContextUsage::of(session, window)?);
                }
                Ok(stats)
            })
            .map_err(|source| RuntimeError::Session {
                what: "reading the session's statistics".to_owned(),
                source,
            })
    }

    /// Names the session (Pi's `--name`): a `session_info` entry, shown by session lists.
    pub fn set_name(&self, name: &str) -> Result<(), RuntimeError> {
        self.recorder
            .with_session(|session| session.set_name(name).map(|_| ()))
            .map_err(|source| RuntimeError::Session {
                what: "naming the session".to_owned(),
                source,
            })
    }

    /// Sends `prompts` and runs until the model is done, compacting before, after and on a
    /// context overflow (then retrying once). Every message is in the session when this
    /// returns.
    pub async fn prompt(&self, prompts: Vec<Message>) -> PromptOutcome {
        // The messages of this prompt are counted from here (the recorder's earlier ones are in).
        self.recorder.next_run();
        let history = match self.take_history() {
            Ok(history) => history,
            Err(error) => {
                return PromptOutcome {
                    run: AgentRun {
                        messages: Vec::new(),
                        end: pi_agent::EndReason::Error,
                        error: Some(error),
                    },
                    recording_failure: None,
                };
            }
        };
        let signal = self.stop.child_token();
        *lock(&self.current) = Some(signal.clone());
        self.streaming
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let mut outcome = self.run_with_retries(history, prompts, &signal).await;
        *lock(&self.current) = None;
        let mut pending = lock(&self.pending_bash);
        self.streaming
            .store(false, std::sync::atomic::Ordering::SeqCst);
        for message in pending.drain(..) {
            if let Err(error) = self.append_bash_message(message) {
                outcome
                    .recording_failure
                    .get_or_insert_with(|| pi_tool::error_text(&error));
            }
        }
        outcome
    }

    /// Runs, and asks again after a transient failure as the retry policy says (each attempt
    /// recorded as it ends); every attempt's messages are in the outcome.
    async fn run_with_retries(
        &self,
        history: History,
        prompts: Vec<Message>,
        signal: &CancellationToken,
    ) -> PromptOutcome {
        let mut messages = Vec::new();
        let mut history = history;
        let mut prompts = prompts;
        self.retry.set_attempts(0);
        loop {
            let CompactedRun { run, last_run } = run_compacted(
                &self.agent,
                &self.recorder,
                &self.compactor,
                history,
                std::mem::take(&mut prompts),
                signal,
            )
            .await;
            let last = run.messages.len().saturating_sub(last_run);
            let recording_failure = self
                .recorder
                .finish(run.messages.get(last..).unwrap_or_default())
                .err();
            // The decision `agent_end` announced (`willRetry`), unless the session failed since.
            let may_retry = run.end == pi_agent::EndReason::Error
                && self.retry.will_retry(&run.messages)
                && recording_failure.is_none()
                && !signal.is_cancelled();
            messages.extend(run.messages);
            if !may_retry {
                // A retry that got an answer was announced with that answer (the agent's
                // `after_response`); retries still counted here ended in a failure.
                let attempt = self.retry.take_attempts();
                if attempt > 0 {
                    self.agent.announce(AgentEvent::AutoRetryEnd {
                        success: false,
                        attempt,
                        final_error: Some(run.error.clone().unwrap_or_default()),
                    });
                }
                return outcome(messages, run.end, run.error, recording_failure);
            }
            let attempt = self.retry.attempts().saturating_add(1);
            self.retry.set_attempts(attempt);
            let delay = self.retry.policy().delay(attempt);
            // Ready to be aborted before anyone hears of the wait.
            let wait = CancellationToken::new();
            *lock(&self.retry_wait) = Some(wait.clone());
            self.agent.announce(AgentEvent::AutoRetryStart {
                attempt,
                max_attempts: self.retry.policy().max_retries,
                delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                error_message: run.error.clone().unwrap_or_default(),
            });
            let stopped = tokio::select! {
                () = tokio::time::sleep(delay) => None,
                () = signal.cancelled() => Some(pi_agent::EndReason::Aborted),
                // `abort_retry`: no more attempts; the prompt ends with the failure it had.
                () = wait.cancelled() => Some(pi_agent::EndReason::Error),
            };
            *lock(&self.retry_wait) = None;
            if let Some(end) = stopped {
                self.agent.announce(AgentEvent::AutoRetryEnd {
                    success: false,
                    attempt,
                    final_error: Some("Retry cancelled".to_owned()),
                });
                return outcome(messages, end, run.error, None);
            }
            // The failed answer stays in the file, but the request asks again without it.
            self.recorder.next_run();
            history = match self.recorder.with_session(|session| session.context()) {
                Ok(context) => History {
                    messages: crate::compaction::without_failed_tail(context.messages),
                    tokens: None,
                },
                Err(error) => {
                    let why = format!(
                        "the conversation could not be read back to retry: {}",
                        pi_tool::error_text(&error)
                    );
                    return outcome(messages, pi_agent::EndReason::Error, Some(why), None);
                }
            };
        }
    }

    /// Whether a prompt is running now.
    pub fn is_streaming(&self) -> bool {
        self.streaming.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The conversation the model would be sent next (the session's context at its leaf).
    pub fn messages(&self) -> Result<Vec<Message>, RuntimeError> {
        // Until the first prompt (or a change to the session) the conversation read at start
        // is still held: no reading every message of a long session again.
        if let Some(history) = lock(&self.history).as_ref() {
            return Ok(history.messages.clone());
        }
        self.recorder
            .with_session(|session| session.context().map(|context| context.messages))
            .map_err(|source| RuntimeError::Session {
                what: "reading the conversation".to_owned(),
                source,
            })
    }

    /// The session's name, if it has one.
    pub fn name(&self) -> Option<String> {
        self.recorder
            .with_session(|session| session.name().map(str::to_owned))
    }

    /// The text of the last answer, if there is one.
    pub fn last_assistant_text(&self) -> Result<Option<String>, RuntimeError> {
        Ok(self
            .messages()?
            .iter()
            .rev()
            .find_map(|message| match message {
                Message::Assistant(answer) => Some(answer.text()),
                _ => None,
            }))
    }

    /// Works on the session's entries for a moment (the session is locked meanwhile): RPC's
    /// `get_entries` and `get_tree` read them.
    pub fn with_entries<R>(&self, work: impl FnOnce(&Session) -> R) -> R {
        self.recorder.with_session(|session| work(session))
    }

    /// Writes the session as one self-contained HTML page (Pi's `/export` and RPC's
    /// `export_html`) to `output`, or to `pi-session-<file name>.html` in the current
    /// directory; the path written.
    pub fn export_html(&self, output: Option<&Path>) -> Result<PathBuf, pi_export::ExportError> {
        self.with_entries(|session| pi_export::write_session_html(session, output))
    }

    /// The user and assistant messages of every branch of the session (Pi's `/tree`).
    pub fn tree_points(&self) -> Vec<crate::session_tree::TreePoint> {
        self.recorder
            .with_session(|session| crate::session_tree::tree_points(session))
    }

    /// Sets the label of the entry `entry_id` (Pi's `/tree` Shift+L), or clears it with `None`
    /// or an empty text: a `label` entry, as Pi records one (it becomes the leaf, so the next
    /// message follows it). Refused while a prompt runs (its messages go on the leaf).
    pub fn set_label(&self, entry_id: &str, label: Option<&str>) -> Result<(), RuntimeError> {
        if self.is_streaming() {
            return Err(RuntimeError::Busy("labelling an entry"));
        }
        let label = label.map(str::trim).filter(|label| !label.is_empty());
        self.recorder
            .with_session(|session| session.label(entry_id, label).map(|_| ()))
            .map_err(|source| RuntimeError::Session {
                what: format!("labelling {entry_id}"),
                source,
            })?;
        // The next prompt continues from the new leaf.
        *lock(&self.history) = None;
        Ok(())
    }

    /// Goes to the message `entry_id` of the tree (Pi's `/tree`): to just before a user
    /// message, whose text comes back to edit and send again (the next prompt starts a new
    /// branch there), or onto an answer, to go on from it. Refused while a prompt runs.
    pub fn navigate(&self, entry_id: &str) -> Result<Option<String>, RuntimeError> {
        if self.is_streaming() {
            return Err(RuntimeError::Busy("moving in the session tree"));
        }
        let text = self
            .recorder
            .with_session(|session| crate::session_tree::navigate(session, entry_id))
            .map_err(|source| RuntimeError::Session {
                what: format!("going to {entry_id}"),
                source,
            })?;
        // The next prompt continues from the new leaf.
        *lock(&self.history) = None;
        Ok(text)
    }

    /// Records a shell command the person ran (Pi's `bashExecution`): the model reads it with
    /// the next prompt, unless it is excluded from the context (`!!cmd`). While a prompt runs
    /// it is held and written when the prompt ends (after the prompt's messages, as Pi does),
    /// so the running prompt's requests do not carry it and the next prompt's do.
    pub fn record_bash_execution(
        &self,
        execution: &crate::user_bash::BashExecution,
    ) -> Result<(), RuntimeError> {
        let timestamp = u64::try_from(chrono::Utc::now().timestamp_millis()).unwrap_or(0);
        let message = execution.to_message(timestamp);
        let mut pending = lock(&self.pending_bash);
        if self.is_streaming() {
            pending.push(message);
            return Ok(());
        }
        self.append_bash_message(message)
    }

    /// Writes a `bashExecution` message into the session; the next prompt reads it.
    fn append_bash_message(&self, message: Value) -> Result<(), RuntimeError> {
        self.recorder
            .with_session(|session| session.append_message_value(message))
            .map_err(|source| RuntimeError::Session {
                what: "recording a shell command".to_owned(),
                source,
            })?;
        // The next prompt reads the conversation again, with the command in it.
        *lock(&self.history) = None;
        Ok(())
    }

    /// Compacts the session now (Pi's `/compact`), with `focus` as extra instructions for
    /// the summary. Refused while a prompt runs.
    pub async fn compact(
        &self,
        focus: Option<&str>,
    ) -> Result<pi_agent::compaction::Compacted, RuntimeError> {
        if self.is_streaming() {
            return Err(RuntimeError::Busy("compacting"));
        }
        let mut session = self.recorder.take_session();
        let outcome = self
            .agent
            .compact(
                &mut session,
                self.compactor.settings(),
                pi_agent::compaction::CompactionReason::Manual,
                focus,
                &self.stop,
            )
            .await;
        self.recorder.give_back(session);
        // The next prompt continues from the compacted context.
        *lock(&self.history) = None;
        outcome.map_err(|source| RuntimeError::Compaction { source })
    }

    /// Turns the automatic retry of transient failures on or off (Pi's `set_auto_retry`);
    /// a prompt running now follows the new setting from its next failure.
    pub fn set_auto_retry(&self, enabled: bool) {
        self.retry.set_enabled(enabled);
    }

    /// Turns the automatic compaction on or off (Pi's `set_auto_compaction`); `/compact`
    /// works either way.
    pub fn set_auto_compaction(&self, enabled: bool) {
        self.compactor.set_enabled(enabled);
    }

    /// Whether the session compacts by itself.
    pub fn auto_compaction(&self) -> bool {
        self.compactor.is_enabled()
    }

    /// Whether failed responses are asked for again.
    pub fn auto_retry(&self) -> bool {
        self.retry.is_enabled()
    }

    /// Stops a retry being waited for (Pi's `abort_retry`): no further attempt, the prompt
    /// ends with the failure it had. Nothing happens when no retry is waited for.
    pub fn abort_retry(&self) {
        if let Some(wait) = lock(&self.retry_wait).as_ref() {
            wait.cancel();
        }
    }

    /// Stops the prompt running now (its tools see their signal cancelled, every call is
    /// answered); the session goes on.
    pub fn abort(&self) {
        if let Some(current) = lock(&self.current).as_ref() {
            current.cancel();
        }
    }

    /// Ends the session: the event streams close once the last event is delivered, and every
    /// message is written. The failure that stopped the session file, if any.
    pub async fn close(self) -> Option<String> {
        let Self {
            agent,
            recorder,
            follower,
            ..
        } = self;
        drop(agent); // closes the event channels
        // A follower that panicked wrote what it could; `finish` below catches up the rest.
        let _ = follower.await;
        recorder.finish(&[]).err()
    }

    /// Ends the session as [`CodingSession::close`] does and gives its session back, to start
    /// another [`CodingSession`] on it (another model, another thinking level). The failure that
    /// stopped the session file, if any, is the error.
    pub async fn into_session(self) -> Result<Session, String> {
        let Self {
            agent,
            recorder,
            follower,
            ..
        } = self;
        drop(agent);
        let _ = follower.await;
        recorder.finish(&[])?;
        Ok(recorder.take_session())
    }

    /// The conversation the next prompt continues from: the session's at its leaf (the first
    /// prompt's was read, and measured, when the session started).
    fn take_history(&self) -> Result<History, String> {
        if let Some(history) = lock(&self.history).take() {
            return Ok(history);
        }
        let context = self.recorder.with_session(|session| {
            session.context().map_err(|error| {
                format!(
                    "the conversation could not be read back from the session: {}",
                    pi_tool::error_text(&error)
                )
            })
        })?;
        Ok(History {
            messages: context.messages,
            tokens: None,
        })
    }
}

/// The key approval records are sealed with: only a session kept in a file holds records.
fn seal_key(
    session: &Session,
    agent_dir: Option<&Path>,
    warnings: &mut Vec<String>,
) -> Option<Arc<SealKey>> {
    session.file_path()?;
    match SealKey::load_or_create(agent_dir?) {
        Ok(key) => Some(Arc::new(key)),
        Err(error) => {
            warnings.push(format!(
                "approval records are not sealed, so a resumed session asks again: {}",
                pi_tool::error_text(&error)
            ));
            None
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Only plain values are held under these locks: a panic leaves them usable.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A prompt's outcome from every attempt's messages and how the last one ended.
fn outcome(
    messages: Vec<Message>,
    end: pi_agent::EndReason,
    error: Option<String>,
    recording_failure: Option<String>,
) -> PromptOutcome {
    PromptOutcome {
        run: AgentRun {
            messages,
            end,
            error,
        },
        recording_failure,
    }
}
