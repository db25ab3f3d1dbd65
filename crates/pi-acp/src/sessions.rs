//! The editor's sessions of one connection: each a [`SessionHost`] started from the program's
//! own (its model, settings, approvals) in the directory the editor named, with tools confined
//! to that directory and an approver that asks the editor.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ClientCapabilities, McpServer, SessionConfigOption, SessionConfigOptionCategory,
    SessionConfigSelectOption, SessionId, SessionInfo, SessionMode, SessionModeState,
};
use pi_approval::Mode;
use pi_coding_agent::{
    CodingSession, HostError, McpServerSpec, McpServers, SessionHost, session_dir,
};
use pi_session::Session;
use pi_tool::ToolRegistry;
use pi_tool::environment::ToolEnvironment;

use crate::approver::EditorApprover;
use crate::editor_access::EditorAccess;
use crate::error::AcpError;

/// The coding tools of one directory.
pub struct SessionTools {
    /// The tools, confined to the directory as the program's options say (sandbox, extra
    /// roots, wording).
    pub tools: ToolRegistry,
    /// The same tools without sandbox or confinement, for an approval mode that asks to run a
    /// refused call outside it (`full-auto`); `None` otherwise.
    pub outside_tools: Option<ToolRegistry>,
}

/// Builds the coding tools of a session working in a directory, with what its editor serves
/// them ([`EditorAccess::workspace`] on the confined tools' workspace; the tools offered
/// outside the sandbox stay on the disk and the local shell).
pub type ToolsFor = Arc<dyn Fn(&Path, &EditorAccess) -> Result<SessionTools, String> + Send + Sync>;

/// One editor session.
pub struct EditorSession {
    /// The directory the editor named: the tools' workspace.
    pub cwd: PathBuf,
    /// The session, restarted on a model or thinking change.
    pub host: tokio::sync::Mutex<SessionHost>,
    /// The session a prompt runs on now, for `session/cancel` (the host is locked while it
    /// changes, never while a prompt runs).
    pub running: Mutex<Option<Arc<CodingSession>>>,
    /// The prompt tasks started on this session (finished ones are dropped as new ones come).
    turns: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    /// The editor's files, when the file tools go through them: a call's diff shows the
    /// change against the editor's buffer.
    pub files: Option<Arc<crate::EditorFiles>>,
}

impl EditorSession {
    /// Keeps the task running a prompt, so closing the session waits for it.
    pub fn add_turn(&self, turn: tokio::task::JoinHandle<()>) {
        let mut turns = lock(&self.turns);
        turns.retain(|turn| !turn.is_finished());
        turns.push(turn);
    }

    /// Notes the session a prompt runs on (`None` when it ends).
    pub fn set_running(&self, session: Option<Arc<CodingSession>>) {
        *lock(&self.running) = session;
    }

    /// Stops the prompt running, if any: its calls are answered, the turn ends `cancelled`.
    pub fn cancel(&self) {
        if let Some(session) = lock(&self.running).as_ref() {
            session.abort();
        }
    }
}

/// The longest session title listed (a first message can be long).
const MAX_TITLE_CHARS: usize = 80;

/// How often a turn that goes on after the connection ended is told again to stop.
const CANCEL_AGAIN: std::time::Duration = std::time::Duration::from_millis(50);
/// How long closing waits for a turn to end before dropping it.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// What every session of the connection is started from.
pub struct Sessions {
    template: tokio::sync::Mutex<SessionHost>,
    tools_for: ToolsFor,
    environment: ToolEnvironment,
    mcp_prefix: String,
    open: Mutex<HashMap<String, Arc<EditorSession>>>,
    /// What the client said it can do at `initialize` (its files, its terminals).
    client: Mutex<ClientCapabilities>,
    /// Our binary, which runs a command confined in the editor's terminal
    /// ([`pi_coding_tools::launcher`]); `None`: commands stay in the local sandbox.
    shell_launcher: Option<PathBuf>,
}

impl Sessions {
    /// Sessions started from `template` (the program's host: model, registry, settings,
    /// approvals), each with the tools `tools_for` builds for its directory; MCP servers the
    /// editor names get `environment` and their tools `mcp_prefix`.
    pub fn new(
        template: SessionHost,
        tools_for: ToolsFor,
        environment: ToolEnvironment,
        mcp_prefix: String,
    ) -> Self {
        Self {
            template: tokio::sync::Mutex::new(template),
            tools_for,
            environment,
            mcp_prefix,
            open: Mutex::new(HashMap::new()),
            client: Mutex::new(ClientCapabilities::default()),
            shell_launcher: None,
        }
    }

    /// The same, with `bash` running in the editor's terminal when the editor offers one:
    /// as `program` (our own binary, answering [`pi_coding_tools::LAUNCHER_SUBCOMMAND`] with
    /// [`pi_coding_tools::launch`]) started there, which confines the command as a local run
    /// is confined. Without it, commands stay in the local sandbox.
    #[must_use]
    pub fn with_shell_launcher(mut self, program: PathBuf) -> Self {
        self.shell_launcher = Some(program);
        self
    }

    /// Keeps what the client advertised at `initialize`: the sessions started after it use
    /// the editor's files and terminals when it offers them.
    pub fn set_client_capabilities(&self, capabilities: ClientCapabilities) {
        *lock(&self.client) = capabilities;
    }

    /// The open session with this id.
    pub fn get(&self, id: &SessionId) -> Result<Arc<EditorSession>, AcpError> {
        lock(&self.open)
            .get(&*id.0)
            .cloned()
            .ok_or_else(|| AcpError::UnknownSession(id.0.to_string()))
    }

    /// A new session in `cwd` (which must be an absolute directory), with the editor's MCP
    /// servers' tools; its id is the session file's.
    pub async fn create(
        &self,
        cwd: &Path,
        mcp: &[McpServer],
        connection: &ConnectionTo<Client>,
    ) -> Result<(Arc<EditorSession>, Vec<String>), AcpError> {
        let cwd = checked_cwd(cwd)?;
        let template = self.template.lock().await;
        let dir = session_dir(template.session_dir(), &cwd).map_err(AcpError::runtime)?;
        let session = Session::create(&dir, &cwd);
        drop(template);
        self.start(cwd, session, mcp, connection).await
    }

    /// A new session in `cwd` holding a copy of the open session `id`'s conversation (its
    /// active branch; nothing when it has none yet), with the editor's MCP servers' tools;
    /// the session forked from goes on untouched. Refused while `id` runs a prompt.
    pub async fn fork(
        &self,
        id: &SessionId,
        cwd: &Path,
        mcp: &[McpServer],
        connection: &ConnectionTo<Client>,
    ) -> Result<(Arc<EditorSession>, Vec<String>), AcpError> {
        let cwd = checked_cwd(cwd)?;
        let source = self.get(id)?;
        let template = self.template.lock().await;
        let dir = session_dir(template.session_dir(), &cwd).map_err(AcpError::runtime)?;
        drop(template);
        let session = {
            let host = source.host.lock().await;
            if host.is_busy() {
                return Err(AcpError::Busy);
            }
            match host.copy_branch(Some(&dir)) {
                Ok(session) => session,
                Err(HostError::NothingToClone) => Session::create(&dir, &cwd),
                Err(error) => return Err(AcpError::Session(pi_tool::error_text(&error))),
            }
        };
        self.start(cwd, session, mcp, connection).await
    }

    /// The stored sessions of `cwd` (the program's directory when the editor names none),
    /// newest first: their id, directory and title (the name, else the first message).
    pub async fn list(&self, cwd: Option<&Path>) -> Result<Vec<SessionInfo>, AcpError> {
        let template = self.template.lock().await;
        let cwd = match cwd {
            Some(cwd) => checked_cwd(cwd)?,
            None => template.setup().cwd.clone(),
        };
        let dir = session_dir(template.session_dir(), &cwd).map_err(AcpError::runtime)?;
        drop(template);
        if !dir.is_dir() {
            return Ok(Vec::new());
        }
        let mut listing = pi_session::list_sessions(&dir)
            .map_err(|error| AcpError::Session(pi_tool::error_text(&error)))?
            .sessions;
        listing.sort_by_key(|summary| std::cmp::Reverse(summary.modified));
        Ok(listing
            .into_iter()
            .map(|summary| {
                let title = summary
                    .name
                    .or(summary.first_message)
                    .map(|title| title.chars().take(MAX_TITLE_CHARS).collect::<String>());
                SessionInfo::new(
                    summary.header.id().to_owned(),
                    summary.header.cwd().to_owned(),
                )
                .title(title)
            })
            .collect())
    }

    /// The session whose id is `id`, among `cwd`'s sessions, opened again.
    pub async fn load(
        &self,
        id: &SessionId,
        cwd: &Path,
        mcp: &[McpServer],
        connection: &ConnectionTo<Client>,
    ) -> Result<(Arc<EditorSession>, Vec<String>), AcpError> {
        let cwd = checked_cwd(cwd)?;
        if lock(&self.open).contains_key(&*id.0) {
            return Err(AcpError::AlreadyOpen(id.0.to_string()));
        }
        let template = self.template.lock().await;
        let dir = session_dir(template.session_dir(), &cwd).map_err(AcpError::runtime)?;
        drop(template);
        let listing = pi_session::list_sessions(&dir)
            .map_err(|error| AcpError::Session(pi_tool::error_text(&error)))?;
        let path = listing
            .sessions
            .iter()
            .find(|summary| summary.header.id() == &*id.0)
            .map(|summary| summary.path.clone())
            .ok_or_else(|| AcpError::UnknownSession(id.0.to_string()))?;
        let session =
            Session::open(&path).map_err(|error| AcpError::Session(pi_tool::error_text(&error)))?;
        self.start(cwd, session, mcp, connection).await
    }

    async fn start(
        &self,
        cwd: PathBuf,
        session: Session,
        mcp: &[McpServer],
        connection: &ConnectionTo<Client>,
    ) -> Result<(Arc<EditorSession>, Vec<String>), AcpError> {
        let id = session.id().to_owned();
        let template = self.template.lock().await;
        // The settings and approval rules of the session's own directory (its project's),
        // not the program's.
        let (mut setup, ignored) = template
            .setup()
            .in_directory(&cwd)
            .map_err(AcpError::runtime)?;
        let access = EditorAccess::new(
            &lock(&self.client),
            connection,
            &SessionId::new(id.as_str()),
            self.shell_launcher.as_deref(),
        );
        let local = (self.tools_for)(&cwd, &access).map_err(AcpError::Tools)?;
        let mut tools = same_selection(&template.setup().tools, &local.tools)?;
        let (servers, mut warnings) =
            connect_mcp(mcp, &self.mcp_prefix, &self.environment, &mut tools).await?;
        warnings.extend(ignored);
        // The tools a refused call may run with outside the sandbox are this directory's
        // own: the program's would resolve the call's paths in the program's directory.
        setup.approvals.outside_tools = local.outside_tools;
        setup.tools = tools;
        setup.mcp_servers = servers;
        setup.approver = Arc::new(EditorApprover::new(
            connection.clone(),
            SessionId::new(id.as_str()),
            cwd.clone(),
        ));
        let (host, changed) = template
            .start_another(setup, session)
            .map_err(|error| AcpError::Session(pi_tool::error_text(&error)))?;
        drop(template);
        warnings.extend(changed.warnings);
        let editor_session = Arc::new(EditorSession {
            cwd,
            host: tokio::sync::Mutex::new(host),
            running: Mutex::new(None),
            turns: Mutex::new(Vec::new()),
            files: access.files(),
        });
        lock(&self.open).insert(id, Arc::clone(&editor_session));
        Ok((editor_session, warnings))
    }

    /// Ends every session: a prompt still running is aborted (every call answered) and each
    /// session closed, so every message is in its file. The failures of session files that
    /// stopped taking entries, in words.
    pub async fn close_all(&self) -> Vec<String> {
        let open: Vec<_> = lock(&self.open)
            .drain()
            .map(|(_, session)| session)
            .collect();
        let mut failures = Vec::new();
        for session in open {
            session.cancel();
            // The aborted turns end (every call answered) and let go of the session. A turn
            // that had not started its run when first told is told again until it ends.
            let turns = std::mem::take(&mut *lock(&session.turns));
            for mut turn in turns {
                let deadline = tokio::time::Instant::now() + CLOSE_WAIT;
                loop {
                    session.cancel();
                    tokio::select! {
                        _ = &mut turn => break,
                        () = tokio::time::sleep(CANCEL_AGAIN) => {}
                    }
                    if tokio::time::Instant::now() >= deadline {
                        turn.abort();
                        break;
                    }
                }
            }
            match Arc::try_unwrap(session) {
                Ok(session) => {
                    if let Some(failure) = session.host.into_inner().close().await {
                        failures.push(failure);
                    }
                }
                Err(shared) => {
                    if let Ok(running) = shared.host.lock().await.session() {
                        running.abort();
                    }
                }
            }
        }
        failures
    }
}

/// The tools the program offers (`template`: its options chose them), each coding tool
/// replaced by the one of the session's directory from `local`; a tool that is not a coding
/// tool (an MCP server's of `--mcp`) is kept as it is.
fn same_selection(template: &ToolRegistry, local: &ToolRegistry) -> Result<ToolRegistry, AcpError> {
    let mut tools = ToolRegistry::default().with_wording(template.wording());
    for tool in template.list() {
        let chosen = local.get(tool.name()).unwrap_or(tool);
        tools
            .register(chosen.clone())
            .map_err(|error| AcpError::Tools(pi_tool::error_text(&error)))?;
    }
    Ok(tools)
}

/// The editor's `cwd`: absolute and a directory (ACP requires an absolute path).
fn checked_cwd(cwd: &Path) -> Result<PathBuf, AcpError> {
    if !cwd.is_absolute() {
        return Err(AcpError::BadCwd(format!(
            "{} is not an absolute path",
            cwd.display()
        )));
    }
    if !cwd.is_dir() {
        return Err(AcpError::BadCwd(format!(
            "{} is not a directory",
            cwd.display()
        )));
    }
    Ok(cwd.to_path_buf())
}

/// Connects the editor's MCP servers (stdio, and HTTP with no header but a bearer
/// `Authorization`) and imports their tools; any other transport is refused by name.
async fn connect_mcp(
    servers: &[McpServer],
    prefix: &str,
    environment: &ToolEnvironment,
    tools: &mut ToolRegistry,
) -> Result<(McpServers, Vec<String>), AcpError> {
    let specs = servers
        .iter()
        .map(mcp_spec)
        .collect::<Result<Vec<_>, _>>()?;
    McpServers::connect_servers(&specs, prefix, environment, tools)
        .await
        .map_err(AcpError::runtime)
}

/// Our description of an editor's MCP server.
fn mcp_spec(server: &McpServer) -> Result<McpServerSpec, AcpError> {
    match server {
        McpServer::Stdio(stdio) => Ok(McpServerSpec::Stdio {
            name: stdio.name.clone(),
            program: stdio.command.display().to_string(),
            args: stdio.args.clone(),
            env: stdio
                .env
                .iter()
                .map(|variable| (variable.name.clone(), variable.value.clone()))
                .collect(),
        }),
        McpServer::Http(http) => {
            let mut bearer = None;
            for header in &http.headers {
                let token = header
                    .name
                    .eq_ignore_ascii_case("authorization")
                    .then(|| header.value.strip_prefix("Bearer "))
                    .flatten();
                match token {
                    Some(token) if bearer.is_none() => bearer = Some(token.to_owned()),
                    _ => {
                        return Err(AcpError::McpTransport(format!(
                            "{}: only an `Authorization: Bearer` header can be sent to an HTTP MCP server, not {:?}",
                            http.name, header.name
                        )));
                    }
                }
            }
            Ok(McpServerSpec::Http {
                name: http.name.clone(),
                url: http.url.clone(),
                bearer,
            })
        }
        other => Err(AcpError::McpTransport(format!(
            "{}: only stdio and HTTP MCP servers are supported",
            serde_json::to_value(other)
                .ok()
                .and_then(|value| value
                    .get("name")
                    .and_then(|name| name.as_str().map(str::to_owned)))
                .unwrap_or_default()
        ))),
    }
}

/// The model and thinking level selectors of a session, as ACP session config options.
pub fn config_options(host: &SessionHost) -> Vec<SessionConfigOption> {
    let current = &host.model().model;
    let mut models: Vec<SessionConfigSelectOption> = host
        .registry()
        .available()
        .iter()
        .map(|model| SessionConfigSelectOption::new(model.reference(), model.reference()))
        .collect();
    if !models
        .iter()
        .any(|option| *option.value.0 == current.reference())
    {
        models.insert(
            0,
            SessionConfigSelectOption::new(current.reference(), current.reference()),
        );
    }
    let levels: Vec<SessionConfigSelectOption> = current
        .supported_thinking_levels()
        .into_iter()
        .map(|level| SessionConfigSelectOption::new(level.to_string(), level.to_string()))
        .collect();
    vec![
        SessionConfigOption::select(MODEL_OPTION, "Model", current.reference(), models)
            .category(SessionConfigOptionCategory::Model),
        SessionConfigOption::select(
            THINKING_OPTION,
            "Thinking",
            host.model().thinking_level.to_string(),
            levels,
        )
        .category(SessionConfigOptionCategory::ThoughtLevel),
    ]
}

/// The config option that chooses the model (`provider/id`).
pub const MODEL_OPTION: &str = "model";
/// The config option that chooses the thinking level.
pub const THINKING_OPTION: &str = "thinking";

/// Sets a config option of a session: the host starts the session again with the new model
/// or level (refused while a prompt runs).
pub async fn set_config_option(
    host: &mut SessionHost,
    option: &str,
    value: &str,
) -> Result<(), AcpError> {
    let changed = match option {
        MODEL_OPTION => {
            let (provider, id) = value
                .split_once('/')
                .ok_or_else(|| AcpError::BadValue(format!("{value:?} is not provider/model")))?;
            host.set_model(provider, id).await
        }
        THINKING_OPTION => {
            let level = value
                .parse()
                .map_err(|error| AcpError::BadValue(format!("{error}")))?;
            host.set_thinking_level(level).await
        }
        other => return Err(AcpError::BadValue(format!("no config option {other:?}"))),
    };
    changed
        .map(|_| ())
        .map_err(|error| AcpError::Session(pi_tool::error_text(&error)))
}

/// The approval modes an editor may switch a session to: the program's own mode, and those
/// that need no other tools than the ones made at start (`yolo`'s are unconfined, so it is
/// offered only when the program started in it).
fn offered_modes(current: Mode) -> Vec<Mode> {
    let mut modes = vec![Mode::ReadOnly, Mode::Ask, Mode::AutoEdit, Mode::FullAuto];
    if !modes.contains(&current) {
        modes.push(current);
    }
    modes
}

fn describe(mode: Mode) -> &'static str {
    match mode {
        Mode::ReadOnly => "Only reads run; everything else is refused",
        Mode::Ask => "Reads run; edits and commands ask first",
        Mode::AutoEdit => "Reads and edits inside the project run; commands ask first",
        Mode::FullAuto => "Everything runs inside the sandbox; what it refuses asks",
        Mode::Yolo => "Nothing asks and nothing is sandboxed",
    }
}

/// The session's approval modes, as ACP session modes.
pub fn modes(host: &SessionHost) -> SessionModeState {
    let current = host.setup().approvals.mode;
    let available = offered_modes(current)
        .into_iter()
        .map(|mode| SessionMode::new(mode.as_str(), mode.as_str()).description(describe(mode)))
        .collect();
    SessionModeState::new(current.as_str(), available)
}

/// Switches the session's approval mode (the session starts again with the same model and
/// file; refused while a prompt runs).
pub async fn set_mode(host: &mut SessionHost, id: &str) -> Result<(), AcpError> {
    let mode: Mode = id
        .parse()
        .map_err(|_| AcpError::BadValue(format!("no mode {id:?}")))?;
    if !offered_modes(host.setup().approvals.mode).contains(&mode) {
        return Err(AcpError::BadValue(format!(
            "the mode {id:?} needs the program started in it (--approval {id})"
        )));
    }
    host.set_approval_mode(mode)
        .await
        .map(|_| ())
        .map_err(|error| AcpError::Session(pi_tool::error_text(&error)))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Plain maps and handles: a panic elsewhere leaves them usable.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
