//! The session recorder: writes each message of a run into its session as it arrives, syncing
//! before each model request and at the end, so a killed process loses at most the message in
//! flight; keeps approval decisions as sealed `custom` entries; and gives back the rules a
//! person allowed "for this session" when the session is resumed.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use futures::FutureExt;
use futures::future::BoxFuture;
use pi_agent::compaction::session_context_tokens_of;
use pi_agent::{AgentEvent, BeforeRequestContext};
use pi_ai::{Message, ModelInfo};
use pi_approval::{ApprovalRecord, RECORD_CUSTOM_TYPE, SealKey};
use pi_session::{Entry, EntryKind, Session, SessionError};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

use crate::runtime_error::RuntimeError;

/// The thinking level a new session records when the run names none: Pi writes `off` for
/// models without one.
pub const DEFAULT_THINKING_LEVEL: &str = "off";

/// Writes a run into its session: each message as its `message_end` event arrives (so a killed
/// process loses at most the message in flight), any message the events have not delivered yet
/// before each model request, then `fdatasync`. The first failure (the file deleted, replaced or
/// written by another program; a full disk) stops the run, and nothing more is written.
#[derive(Clone)]
pub struct Recorder {
    state: Arc<Mutex<State>>,
    /// Seals the approval records written, and checks those read back (`None`: the key
    /// could not be had; records are written unsealed and none is restored).
    seal: Option<Arc<SealKey>>,
    /// Cancelled on a failure, to stop the run without waiting for the next request.
    stop: CancellationToken,
}

struct State {
    session: Session,
    /// How many messages of the runs so far are in the session.
    recorded: usize,
    /// Where the current run's messages begin in that count (a retry after a compaction is a
    /// second run).
    base: usize,
    /// How many `message_end` events have arrived (the n-th is the run's n-th message).
    announced: usize,
    /// Why the session stopped taking entries.
    failure: Option<String>,
}

/// What a run continues from: the session's context at its leaf and its size.
pub struct History {
    /// The messages the model is sent.
    pub messages: Vec<Message>,
    /// Their size as Pi compares it with the window (`None` when it could not be measured).
    pub tokens: Option<u64>,
}

impl Recorder {
    /// Prepares `session` for a run with `model` (and `thinking_level`, `None`: not chosen) and
    /// returns the recorder and the history the run continues from. A new session first
    /// records the model and thinking level (as Pi does); a continued one records a model
    /// change when the run uses another model, and a thinking change when one was chosen that
    /// the session does not have.
    pub fn start(
        mut session: Session,
        model: &ModelInfo,
        thinking_level: Option<&str>,
        stop: CancellationToken,
        seal: Option<Arc<SealKey>>,
    ) -> Result<(Self, History), RuntimeError> {
        let what = session_name(session.file_path());
        let context = session.context().map_err(|source| RuntimeError::Session {
            what: format!("reading the conversation of {what}"),
            source,
        })?;
        // Measured before anything is appended (a model change adds no message).
        let tokens = session_context_tokens_of(&session, &context).ok();
        let same_model = context
            .model
            .as_ref()
            .is_some_and(|used| used.provider == model.provider && used.model_id == model.model);
        let recording = |source| RuntimeError::Session {
            what: format!("recording the model in {what}"),
            source,
        };
        if session.entries().is_empty() {
            session
                .append_model_change(&model.provider, &model.model)
                .map_err(recording)?;
            session
                .append_thinking_level_change(thinking_level.unwrap_or(DEFAULT_THINKING_LEVEL))
                .map_err(recording)?;
        } else {
            if !same_model {
                session
                    .append_model_change(&model.provider, &model.model)
                    .map_err(recording)?;
            }
            if let Some(level) = thinking_level
                && context.thinking_level != level
            {
                session
                    .append_thinking_level_change(level)
                    .map_err(recording)?;
            }
        }
        let recorder = Self {
            state: Arc::new(Mutex::new(State {
                session,
                recorded: 0,
                base: 0,
                announced: 0,
                failure: None,
            })),
            seal,
            stop,
        };
        Ok((
            recorder,
            History {
                tokens,
                messages: context.messages,
            },
        ))
    }

    /// Follows the run's events, writing each message as it ends. Ends with the event stream.
    pub fn follow(&self, mut events: UnboundedReceiver<AgentEvent>) -> tokio::task::JoinHandle<()> {
        let recorder = self.clone();
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                match event {
                    AgentEvent::MessageEnd { message } => recorder.announced(&message),
                    AgentEvent::ApprovalDecision(record) => recorder.approval(&record),
                    _ => {}
                }
            }
        })
    }

    /// The `before_request` hook: writes what the events have not, then syncs; a failure ends
    /// the run before the request.
    pub fn before_request(
        &self,
    ) -> impl Fn(BeforeRequestContext) -> BoxFuture<'static, Result<(), String>> + Send + Sync + 'static
    {
        let recorder = self.clone();
        move |context| {
            let added = context
                .messages
                .get(context.added_from..)
                .unwrap_or_default();
            // A local fdatasync of a few lines: short enough to do on the loop's own task.
            let outcome = recorder.catch_up(added);
            async move { outcome }.boxed()
        }
    }

    /// Writes the run's messages the session does not have yet and syncs; the failure that
    /// stopped the session, if any.
    pub fn finish(&self, added: &[Message]) -> Result<(), String> {
        self.catch_up(added)
    }

    /// Keeps an approval decision as a `custom` entry (`pi-tool.approval`), which Pi keeps
    /// and never sends to the model.
    fn approval(&self, record: &ApprovalRecord) {
        let mut state = self.lock();
        if state.failure.is_some() {
            return;
        }
        let mut record = record.clone();
        if let Some(key) = &self.seal {
            key.seal(&mut record, state.session.id());
        }
        if let Err(error) = state
            .session
            .append_custom_data(RECORD_CUSTOM_TYPE, &record)
        {
            self.fail(&mut state, &error);
        }
    }

    /// The rules a person allowed "for this session" (or "always") in the session's earlier
    /// runs, oldest first: a resumed session allows them again. Only the path from the root
    /// to the leaf being resumed counts: a yes given on another branch was given for a
    /// conversation this one is not. Only records sealed with this user's key for this
    /// session count ([`SealKey`]); the second list holds the rules of those that are not
    /// (forged, copied from another session, or written before seals), which are not restored.
    pub fn session_rules(&self) -> (Vec<String>, Vec<String>) {
        let state = self.lock();
        // The leaf is always on its own path; were it not, nothing is restored.
        let branch = state.session.branch_entries(None).unwrap_or_default();
        let mut rules: Vec<String> = Vec::new();
        let mut refused: Vec<String> = Vec::new();
        for record in branch.into_iter().filter_map(approval_record) {
            let Some(rule) = record.session_rule() else {
                continue;
            };
            let sealed = self
                .seal
                .as_ref()
                .is_some_and(|key| key.verify(&record, state.session.id()));
            let list = if sealed { &mut rules } else { &mut refused };
            if !list.iter().any(|known| known == rule) {
                list.push(rule.to_owned());
            }
        }
        (rules, refused)
    }

    /// Starts counting the messages of another run (call after [`Recorder::finish`] of the
    /// previous one): a retry after a compaction.
    pub fn next_run(&self) {
        let mut state = self.lock();
        state.base = state.recorded;
    }

    /// Whether the session stopped taking entries.
    pub fn failed(&self) -> bool {
        self.lock().failure.is_some()
    }

    /// Works on the session (for a moment: the lock is held).
    pub fn with_session<R>(&self, work: impl FnOnce(&mut Session) -> R) -> R {
        work(&mut self.lock().session)
    }

    /// Takes the session out for work that waits (a compaction asks the model), leaving an
    /// empty one in its place; give it back with [`Recorder::give_back`]. Only between runs.
    pub fn take_session(&self) -> Session {
        let mut state = self.lock();
        let cwd = PathBuf::from(state.session.header().cwd());
        std::mem::replace(&mut state.session, Session::in_memory(&cwd))
    }

    /// Returns the session [`Recorder::take_session`] took.
    pub fn give_back(&self, session: Session) {
        self.lock().session = session;
    }

    fn announced(&self, message: &Message) {
        let mut state = self.lock();
        state.announced += 1;
        if state.failure.is_some() || state.announced <= state.recorded {
            return;
        }
        match state.session.append_message(message) {
            Ok(_) => state.recorded += 1,
            Err(error) => self.fail(&mut state, &error),
        }
    }

    fn catch_up(&self, added: &[Message]) -> Result<(), String> {
        let mut state = self.lock();
        if let Some(failure) = &state.failure {
            return Err(failure.clone());
        }
        let missing = added
            .get(state.recorded.saturating_sub(state.base)..)
            .unwrap_or_default();
        for message in missing {
            if let Err(error) = state.session.append_message(message) {
                self.fail(&mut state, &error);
                return Err(state.failure.clone().unwrap_or_default());
            }
            state.recorded += 1;
        }
        if let Err(error) = state.session.sync() {
            self.fail(&mut state, &error);
            return Err(state.failure.clone().unwrap_or_default());
        }
        Ok(())
    }

    fn fail(&self, state: &mut State, error: &SessionError) {
        state.failure = Some(format!(
            "the session could not be written, so the run was stopped: {}",
            pi_tool::error_text(error)
        ));
        self.stop.cancel();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock leaves counts that are still true: keep going.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// How a session is named in messages: its file, or "the session" in memory.
fn session_name(path: Option<&Path>) -> String {
    path.map_or_else(
        || "the session".to_owned(),
        |path| path.display().to_string(),
    )
}

/// The approval decisions a session holds (its `pi-tool.approval` custom entries) on every
/// branch, in file order; entries that do not read as one are skipped.
pub fn approval_records(session: &Session) -> impl Iterator<Item = ApprovalRecord> + '_ {
    session.entries().iter().filter_map(approval_record)
}

/// The approval decision an entry holds, if it is a `pi-tool.approval` entry that reads as one.
fn approval_record(entry: &Entry) -> Option<ApprovalRecord> {
    // The type is known from the load; `kind()` parses the whole line, which for every
    // message of a resumed 10,000-entry session was 52 MB of JSON read again (perf). A
    // `custom` line is in memory (only message lines stay in the file): reading it cannot fail.
    if entry.entry_type() != "custom" {
        return None;
    }
    match entry.kind() {
        Ok(EntryKind::Custom {
            custom_type,
            data: Some(data),
        }) if custom_type == RECORD_CUSTOM_TYPE => {
            serde_json::from_value::<ApprovalRecord>(data.clone()).ok()
        }
        _ => None,
    }
}
