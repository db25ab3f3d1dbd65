//! A coding session a person or a program works in for a long time, and changes on the way:
//! another model or thinking level, a new session, another session file, a fork or a copy.
//! Each change closes the running [`CodingSession`] (every message written) and starts one
//! again from the same [`SessionSetup`]; when the new start fails, the old session comes back
//! with its model, so a failed `/model` or `switch_session` loses nothing.
//!
//! Every front end that keeps a session open (Pi's RPC mode, the interactive mode, the ACP
//! server) shares these rules: what "cycle the model" picks next, where a fork starts, which
//! session a `new` goes to, that nothing changes while a prompt runs.
//!
//! A front end that listens to the session's events subscribes again after each change
//! ([`SessionHost::session`] is then another session).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pi_ai::{Message, UserContent, UserMessage};
use pi_session::Session;
use pi_tool::Content;

use crate::coding_session::CodingSession;
use crate::model::Model;
use crate::model_provider::model_provider;
use crate::model_registry::ModelRegistry;
use crate::model_scope::{CycleDirection, ModelScope};
use crate::model_selection::ResolvedModel;
use crate::run_model::registry_model;
use crate::runtime_error::RuntimeError;
use crate::session_open::session_dir;
use crate::session_setup::SessionSetup;
use crate::settings::Settings;
use crate::thinking_level::ThinkingLevel;

/// Why a change to the session was not made. Whatever the reason, the session that ran
/// before is still the host's session, unless the error is [`HostError::Ended`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// A prompt is running: a change waits for it to end or be aborted.
    #[error("Agent is already processing; wait for it to finish, or abort it first")]
    Busy,
    /// No model of the registry has this provider and id.
    #[error("Model not found: {provider}/{id}")]
    ModelNotFound {
        /// The provider asked for.
        provider: String,
        /// The model id asked for.
        id: String,
    },
    /// A fork asked for an entry that is not a user message of the active branch.
    #[error("Invalid entry ID for forking: {0}")]
    NotAForkPoint(String),
    /// A copy of a session that has no entry yet.
    #[error("Cannot clone session: no current entry selected")]
    NothingToClone,
    /// The change could not be made (a model without a key, a session file that cannot be
    /// read or forked, a settings file that broke): the session before it goes on.
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    /// The running session's file stopped taking entries, or the session could not be started
    /// again: there is no session any more, and the front end ends.
    #[error("the session could not be started again: {0}")]
    Ended(String),
}

/// A user message of the active branch, where a fork may start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForkPoint {
    /// The message's entry id.
    pub entry_id: String,
    /// Its text (text blocks joined).
    pub text: String,
}

/// What a change did: the warnings of the new start, for the front end to show.
#[derive(Debug, Default)]
pub struct Changed {
    /// Things a person should know about the new session (a context file cut, an approval
    /// not restored).
    pub warnings: Vec<String>,
}

/// A session that can be started again with another model or on another session file.
pub struct SessionHost {
    setup: SessionSetup,
    registry: ModelRegistry,
    /// `--session-dir`: where new sessions and forks are kept (else the project's default).
    session_dir: Option<PathBuf>,
    model: ResolvedModel,
    /// `None` only after [`HostError::Ended`].
    session: Option<Arc<CodingSession>>,
    /// The automatic compaction turned on or off while the host runs (else the settings').
    auto_compaction: Option<bool>,
    /// The models cycling goes through (empty: every model with a key).
    scope: ModelScope,
}

/// The change a command asks for, once checked.
enum Change {
    /// Another model or thinking level, on the same session file.
    Model(ResolvedModel),
    /// Another session file, with the same model.
    Session(Session),
}

impl SessionHost {
    /// A host for `session`, started from `setup` with `model`; new sessions and forks go to
    /// `session_dir` (Pi's `--session-dir`) or the project's default directory.
    pub fn new(
        setup: SessionSetup,
        registry: ModelRegistry,
        session_dir: Option<PathBuf>,
        model: ResolvedModel,
        session: CodingSession,
    ) -> Self {
        Self {
            setup,
            registry,
            session_dir,
            model,
            session: Some(Arc::new(session)),
            auto_compaction: None,
            scope: ModelScope::default(),
        }
    }

    /// The models [`SessionHost::cycle_model_toward`] goes through: the `--models` patterns
    /// (else the settings' `enabledModels`) resolved by [`ModelScope::resolve`] at start.
    pub fn set_scope(&mut self, scope: ModelScope) {
        self.scope = scope;
    }

    /// The models cycling goes through (empty: every model with a key).
    pub fn scope(&self) -> &ModelScope {
        &self.scope
    }

    /// Turns `provider`/`id` on or off in the cycling scope, for this session (Pi's
    /// `/scoped-models`; [`ModelScope::toggle`] says how).
    pub fn toggle_in_scope(&mut self, provider: &str, id: &str) {
        let available = self.registry.available();
        self.scope.toggle(provider, id, &available);
    }

    /// Delivers steering and follow-up messages as the settings' `steeringMode` and
    /// `followUpMode` say (`one-at-a-time`, or `all`); a mode not set, or not one of these,
    /// leaves the queue as it is.
    pub fn apply_queue_modes(&self, settings: &Settings) {
        let Some(session) = &self.session else {
            return;
        };
        for (mode, queue) in [
            (&settings.steering_mode, session.steering()),
            (&settings.follow_up_mode, session.follow_ups()),
        ] {
            match mode.as_deref() {
                Some("one-at-a-time") => queue.set_one_at_a_time(true),
                Some("all") => queue.set_one_at_a_time(false),
                _ => {}
            }
        }
    }

    /// The running session. A prompt runs on a clone of this `Arc`; while one is alive no
    /// change is made ([`HostError::Busy`]).
    pub fn session(&self) -> Result<&Arc<CodingSession>, HostError> {
        self.session
            .as_ref()
            .ok_or_else(|| HostError::Ended("the session has ended".to_owned()))
    }

    /// The model in use, with its key and thinking level.
    pub fn model(&self) -> &ResolvedModel {
        &self.model
    }

    /// Every model known (`available()` for those with a key).
    pub fn registry(&self) -> &ModelRegistry {
        &self.registry
    }

    /// Turns the automatic retry of transient failures on or off, for this session and the
    /// ones it is started again as (Pi's `set_auto_retry`).
    pub fn set_auto_retry(&mut self, enabled: bool) {
        self.setup.retry.enabled = enabled;
        if let Some(session) = &self.session {
            session.set_auto_retry(enabled);
        }
    }

    /// Turns the automatic compaction on or off, for this session and the ones it is started
    /// again as (Pi's `set_auto_compaction`).
    pub fn set_auto_compaction(&mut self, enabled: bool) {
        self.auto_compaction = Some(enabled);
        if let Some(session) = &self.session {
            session.set_auto_compaction(enabled);
        }
    }

    /// What the session is started from.
    pub fn setup(&self) -> &SessionSetup {
        &self.setup
    }

    /// Where new sessions and forks go (`--session-dir`); `None`: the project's default
    /// directory (see [`crate::session_dir`]).
    pub fn session_dir(&self) -> Option<&Path> {
        self.session_dir.as_deref()
    }

    /// Another host with this one's registry, model and session directory, started from
    /// `setup` on `session`: a front end serving several sessions at once (the ACP server,
    /// one per editor session, each in its own directory with its own tools and approver)
    /// starts each from the first.
    pub fn start_another(
        &self,
        setup: SessionSetup,
        session: Session,
    ) -> Result<(SessionHost, Changed), HostError> {
        let started = setup.start(session, &self.model)?;
        let host = SessionHost::new(
            setup,
            self.registry.clone(),
            self.session_dir.clone(),
            self.model.clone(),
            started.session,
        );
        Ok((
            host,
            Changed {
                warnings: started.warnings,
            },
        ))
    }

    /// Where new sessions and forks go, and where the project's sessions are listed from
    /// (`--session-dir`, else the project's directory under the agent directory).
    pub fn session_directory(&self) -> Result<PathBuf, HostError> {
        Ok(session_dir(self.session_dir.as_deref(), &self.setup.cwd)?)
    }

    /// Whether a prompt runs on the session.
    pub fn is_busy(&self) -> bool {
        self.session
            .as_ref()
            .is_some_and(|session| Arc::strong_count(session) > 1 || session.is_streaming())
    }

    /// Switches to the registry's model `provider`/`id`, keeping the thinking level.
    pub async fn set_model(&mut self, provider: &str, id: &str) -> Result<Changed, HostError> {
        self.idle()?;
        let model = self
            .registry
            .find(provider, id)
            .ok_or_else(|| HostError::ModelNotFound {
                provider: provider.to_owned(),
                id: id.to_owned(),
            })?
            .clone();
        let resolved = self.checked(&model, self.model.thinking_level).await?;
        self.restart(Change::Model(resolved)).await
    }

    /// Switches to the next model of the scope, or of every model with a key when the scope
    /// is empty (Pi's `cycle_model`, forward).
    pub async fn cycle_model(&mut self) -> Result<Option<Changed>, HostError> {
        self.cycle_model_toward(CycleDirection::Forward).await
    }

    /// Switches to the next (or previous) model of the scope that has a key, at the level its
    /// pattern named (else the current one, clamped); with an empty scope, to the next model
    /// with a key, at the current level. A current model outside the list counts as its
    /// first, as Pi's. `None` when fewer than two models can be cycled to.
    pub async fn cycle_model_toward(
        &mut self,
        direction: CycleDirection,
    ) -> Result<Option<Changed>, HostError> {
        self.idle()?;
        let current = &self.model.model;
        let next = if self.scope.is_empty() {
            let available = self.registry.available();
            let count = available.len();
            let position = available
                .iter()
                .position(|model| model.provider == current.provider && model.id == current.id)
                .unwrap_or(0);
            let next = match direction {
                CycleDirection::Forward => (position + 1) % count.max(1),
                CycleDirection::Backward => (position + count.max(1) - 1) % count.max(1),
            };
            available
                .get(next)
                .filter(|_| count >= 2)
                .map(|model| ((*model).clone(), self.model.thinking_level))
        } else {
            let registry = &self.registry;
            self.scope
                .next(&current.provider, &current.id, direction, |entry| {
                    registry
                        .find(&entry.provider, &entry.id)
                        .is_some_and(|model| registry.has_configured_auth(model))
                })
                .and_then(|entry| {
                    let model = registry.find(&entry.provider, &entry.id)?;
                    let level = entry.thinking_level.unwrap_or(self.model.thinking_level);
                    Some((model.clone(), level))
                })
        };
        let Some((next, level)) = next else {
            return Ok(None);
        };
        let resolved = self.checked(&next, level).await?;
        self.restart(Change::Model(resolved)).await.map(Some)
    }

    /// Sets the thinking level of the current model.
    pub async fn set_thinking_level(&mut self, level: ThinkingLevel) -> Result<Changed, HostError> {
        self.idle()?;
        let model = self.model.model.clone();
        let resolved = self.checked(&model, level).await?;
        self.restart(Change::Model(resolved)).await
    }

    /// Goes to the model's next supported thinking level; `None` when it supports only one.
    pub async fn cycle_thinking_level(&mut self) -> Result<Option<Changed>, HostError> {
        self.idle()?;
        let levels = self.model.model.supported_thinking_levels();
        if levels.len() < 2 {
            return Ok(None);
        }
        let position = levels
            .iter()
            .position(|level| *level == self.model.thinking_level)
            .map_or(0, |position| position + 1);
        let next = levels
            .get(position % levels.len())
            .copied()
            .unwrap_or(ThinkingLevel::Off);
        let model = self.model.model.clone();
        let resolved = self.checked(&model, next).await?;
        self.restart(Change::Model(resolved)).await.map(Some)
    }

    /// Asks and allows as `mode` says from now on (an editor's approval mode selector): the
    /// session starts again with the same model and file. The tools are as they were made
    /// (a mode that runs them unconfined, `yolo`, needs them made so from the start).
    pub async fn set_approval_mode(
        &mut self,
        mode: pi_approval::Mode,
    ) -> Result<Changed, HostError> {
        self.idle()?;
        if self.setup.approvals.mode == mode {
            return Ok(Changed::default());
        }
        // Kept even when the start fails: the session brought back is started from this
        // setup too, so the mode in force is always the setup's.
        self.setup.approvals.mode = mode;
        self.restart(Change::Model(self.model.clone())).await
    }

    /// Pi's `/reload`: the settings, the approval rules, the context files (`AGENTS.md`), the
    /// skills and the prompt templates read again from disk, and the session started again on
    /// them, with the same model, file and tools; the queue modes the settings name
    /// (`steeringMode`, `followUpMode`) applied again. The warnings of the new start, and the
    /// allow rules an untrusted project's settings lost, in words.
    pub async fn reload(&mut self) -> Result<Changed, HostError> {
        self.idle()?;
        let (setup, settings, ignored) = self.setup.reloaded()?;
        self.setup = setup;
        let mut changed = self.restart(Change::Model(self.model.clone())).await?;
        self.apply_queue_modes(&settings);
        changed.warnings.extend(ignored);
        Ok(changed)
    }

    /// Starts a new, empty session in the session directory, with the same model.
    pub async fn new_session(&mut self) -> Result<Changed, HostError> {
        self.idle()?;
        let dir = session_dir(self.session_dir.as_deref(), &self.setup.cwd)?;
        let session = Session::create(&dir, &self.setup.cwd);
        self.restart(Change::Session(session)).await
    }

    /// Goes on in the session file at `path`, with the same model.
    pub async fn switch_session(&mut self, path: &Path) -> Result<Changed, HostError> {
        self.idle()?;
        let current = self.session()?.session_file();
        if current.as_deref() == Some(path) {
            return Ok(Changed::default());
        }
        let session = Session::open(path).map_err(|source| RuntimeError::Session {
            what: format!("opening {}", path.display()),
            source,
        })?;
        self.restart(Change::Session(session)).await
    }

    /// Pi's `/import FILE`: the session file at `path` copied into the session directory
    /// (under its own name) and continued there, with the same model; the copy's path and the
    /// new start's warnings. The
    /// file is read first, so one that is not a session is refused before anything is
    /// copied; a file of that name already in the directory (another session) is refused
    /// rather than overwritten. A file already in the directory is continued in place.
    pub async fn import_session(&mut self, path: &Path) -> Result<(PathBuf, Changed), HostError> {
        self.idle()?;
        let source = std::path::absolute(path).map_err(|source| RuntimeError::Io {
            what: format!("importing {}", path.display()),
            source,
        })?;
        Session::load(&source).map_err(|source_error| RuntimeError::Session {
            what: format!("importing {}", source.display()),
            source: source_error,
        })?;
        let dir = self.session_directory()?;
        let name = source.file_name().ok_or_else(|| RuntimeError::Io {
            what: format!("importing {}", source.display()),
            source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name"),
        })?;
        let destination = dir.join(name);
        if destination != source {
            let copied = std::fs::create_dir_all(&dir).and_then(|()| {
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&destination)
                    .and_then(|mut file| {
                        let mut input = std::fs::File::open(&source)?;
                        std::io::copy(&mut input, &mut file).map(|_| ())
                    })
            });
            if let Err(error) = copied {
                // A partial copy is ours to remove; a file that was there is not touched.
                if error.kind() != std::io::ErrorKind::AlreadyExists {
                    let _ = std::fs::remove_file(&destination);
                }
                return Err(RuntimeError::Io {
                    what: format!("copying {} to {}", source.display(), destination.display()),
                    source: error,
                }
                .into());
            }
        }
        let changed = self.switch_session(&destination).await?;
        Ok((destination, changed))
    }

    /// The user messages of the active branch, oldest first: where [`SessionHost::fork`] may
    /// start.
    pub fn fork_points(&self) -> Vec<ForkPoint> {
        self.session
            .as_ref()
            .map(|session| session.with_entries(fork_points))
            .unwrap_or_default()
    }

    /// Starts a new session file holding the active branch up to just before the user
    /// message `entry_id`, and gives back that message's text (for the person to edit and
    /// send again), as Pi's `/fork` does.
    pub async fn fork(&mut self, entry_id: &str) -> Result<(Changed, String), HostError> {
        self.idle()?;
        let dir = session_dir(self.session_dir.as_deref(), &self.setup.cwd).ok();
        let cwd = self.setup.cwd.clone();
        let (session, text) = self.session()?.with_entries(|stored| {
            let point = fork_points(stored)
                .into_iter()
                .find(|point| point.entry_id == entry_id)
                .ok_or_else(|| HostError::NotAForkPoint(entry_id.to_owned()))?;
            let parent = stored
                .entry(&point.entry_id)
                .and_then(|entry| entry.parent_id());
            let session = match parent {
                Some(parent) => {
                    stored
                        .fork_to_new_file(parent, dir.as_deref())
                        .map_err(|source| RuntimeError::Session {
                            what: format!("forking at {parent}"),
                            source,
                        })?
                }
                // The first message: the fork is an empty session.
                None => match &dir {
                    Some(dir) => Session::create(dir, &cwd),
                    None => Session::in_memory(&cwd),
                },
            };
            Ok::<_, HostError>((session, point.text))
        })?;
        let changed = self.restart(Change::Session(session)).await?;
        Ok((changed, text))
    }

    /// Goes on in a copy of the whole active branch, in a new session file (Pi's `/clone`).
    pub async fn clone_session(&mut self) -> Result<Changed, HostError> {
        self.idle()?;
        let dir = session_dir(self.session_dir.as_deref(), &self.setup.cwd).ok();
        let session = self.copy_branch(dir.as_deref())?;
        self.restart(Change::Session(session)).await
    }

    /// A copy of the whole active branch in a new session file in `dir` (by default beside
    /// this one), whose header names this session as its parent; this session goes on
    /// untouched. An empty session has nothing to copy ([`HostError::NothingToClone`]).
    /// ACP's `session/fork` opens the copy as a session of its own.
    pub fn copy_branch(&self, dir: Option<&Path>) -> Result<Session, HostError> {
        self.session()?.with_entries(|stored| {
            let leaf = stored.leaf_id().ok_or(HostError::NothingToClone)?;
            stored.fork_to_new_file(leaf, dir).map_err(|source| {
                HostError::from(RuntimeError::Session {
                    what: format!("copying the session at {leaf}"),
                    source,
                })
            })
        })
    }

    /// Ends the session (a running prompt is aborted, every call answered, every message
    /// written); the failure that stopped the session file, if any.
    pub async fn close(mut self) -> Option<String> {
        let session = self.session.take()?;
        session.abort();
        match Arc::into_inner(session) {
            Some(session) => session.close().await,
            // A prompt task still holds it: it ends with the abort and writes what it had.
            None => None,
        }
    }

    /// `Err(Busy)` while a prompt runs.
    fn idle(&self) -> Result<(), HostError> {
        self.session()?;
        if self.is_busy() {
            return Err(HostError::Busy);
        }
        Ok(())
    }

    /// `model` at `level` with its key, its wire built once so a model that cannot be used
    /// fails before the running session is closed.
    async fn checked(
        &mut self,
        model: &Model,
        level: ThinkingLevel,
    ) -> Result<ResolvedModel, HostError> {
        let resolved = registry_model(&mut self.registry, model, level).await?;
        model_provider(
            &resolved,
            self.setup.thinking_budgets,
            self.setup.wire.clone(),
            self.setup.block_images,
        )?;
        Ok(resolved)
    }

    /// Closes the running session and starts it again as `change` asks; on a failed start
    /// the session before comes back with its model.
    async fn restart(&mut self, change: Change) -> Result<Changed, HostError> {
        let running = self.session.take().ok_or(HostError::Busy)?;
        let running = match Arc::try_unwrap(running) {
            Ok(running) => running,
            Err(still_shared) => {
                self.session = Some(still_shared);
                return Err(HostError::Busy);
            }
        };
        // The queue modes are the person's choice, not the session's.
        let modes = (
            running.steering().is_one_at_a_time(),
            running.follow_ups().is_one_at_a_time(),
        );
        let old = running.into_session().await.map_err(HostError::Ended)?;
        let file = old.file_path().map(Path::to_path_buf);
        let (session, model, previous) = match change {
            Change::Model(model) => (old, model, None),
            Change::Session(new) => (new, self.model.clone(), Some(old)),
        };
        let (started, model) = match self.setup.start(session, &model) {
            Ok(started) => (started, model),
            Err(error) => {
                // Back to the session that was running, with its model. A model change gave
                // its session to the failed start, so it is opened again from its file.
                let back = match previous {
                    Some(old) => Ok(old),
                    None => reopen(file.as_deref()),
                };
                let restored = back.and_then(|old| {
                    self.setup
                        .start(old, &self.model)
                        .map_err(|again| pi_tool::error_text(&again))
                });
                return match restored {
                    Ok(started) => {
                        self.install(started.session, modes);
                        Err(HostError::Runtime(error))
                    }
                    Err(again) => Err(HostError::Ended(format!(
                        "{} (and the session before: {again})",
                        pi_tool::error_text(&error)
                    ))),
                };
            }
        };
        self.model = model;
        self.install(started.session, modes);
        Ok(Changed {
            warnings: started.warnings,
        })
    }

    fn install(&mut self, session: CodingSession, (steering, follow_ups): (bool, bool)) {
        if let Some(enabled) = self.auto_compaction {
            session.set_auto_compaction(enabled);
        }
        session.steering().set_one_at_a_time(steering);
        session.follow_ups().set_one_at_a_time(follow_ups);
        self.session = Some(Arc::new(session));
    }
}

/// The session a failed model change started from, read again from its file: the failed
/// start took the session it was given. An in-memory session cannot come back.
fn reopen(file: Option<&Path>) -> Result<Session, String> {
    let file = file.ok_or("the session was not kept in a file, so it cannot be opened again")?;
    Session::open(file).map_err(|error| {
        format!(
            "opening {} again: {}",
            file.display(),
            pi_tool::error_text(&error)
        )
    })
}

/// The user messages of `stored`'s active branch.
fn fork_points(stored: &Session) -> Vec<ForkPoint> {
    let Ok(branch) = stored.branch_entries(None) else {
        return Vec::new();
    };
    branch
        .into_iter()
        .filter_map(|entry| match entry.message() {
            Ok(Some(Message::User(user))) => Some(ForkPoint {
                entry_id: entry.id().to_owned(),
                text: user_text(&user),
            }),
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
