//! The interactive mode's state and loop: keys from the terminal, events from the session,
//! calls waiting for approval, and the task running (a prompt, a compaction, a shell
//! command), each handled as it comes; the transcript goes into the scrollback, the viewport
//! shows what is live (the line being streamed, running tools, the queue, the editor, the
//! footer).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use pi_agent::AgentEvent;
use pi_ai::{AssistantMessageEvent, Message, UserContent, UserMessage};
use pi_approval::{Answer, Rule, RuleKind};
use pi_coding_agent::{
    BashExecution, CycleDirection, HostError, PromptOutcome, RuntimeError, SessionHost, TreeFilter,
    suggested_rules, visible,
};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use unicode_width::UnicodeWidthStr;

use crate::approval_view;
use crate::approver::{ApprovalAsk, ApprovalInbox};
use crate::editor::Editor;
use crate::file_complete;
use crate::footer::FooterInfo;
use crate::keybindings::{Action, KeyBindings};
use crate::picker::{Pick, Picker};
use crate::slash::{self, Slash};
use crate::terminal::Screen;
use crate::tool_view;
use crate::transcript::{self, BlockKind, Stream};
use crate::wrap::wrap_lines;

mod agent_events;
mod commands;
mod input;
mod resume;
mod scope;
mod sending;
mod settings;
mod text_entry;
mod tree;
mod view;

/// The viewport's height: live lines, the queue, the editor and the footer.
pub(crate) const VIEWPORT_HEIGHT: u16 = 14;
/// The editor's most rows.
const EDITOR_ROWS: usize = 5;
/// The messages of a resumed session shown at start.
const HISTORY_SHOWN: usize = 200;
/// Two Ctrl+C within this time exit.
const DOUBLE_CTRL_C: Duration = Duration::from_secs(2);
/// How long a status line stays.
const STATUS_SHOWN: Duration = Duration::from_secs(5);

/// What a finished task gives back.
enum Done {
    Prompt(Box<PromptOutcome>),
    Compact(Result<String, String>),
    Shell {
        command: String,
        output: Result<BashExecution, String>,
    },
}

/// A tool call running now.
struct RunningTool {
    id: String,
    line: Line<'static>,
    started: Instant,
    progress: Option<String>,
}

/// A message queued while the agent works.
struct Queued {
    follow_up: bool,
    text: String,
}

/// What the editor is for while a call waits for approval.
#[derive(Debug, Clone, PartialEq, Eq)]
enum AskInput {
    /// The choice keys.
    Choosing,
    /// The reason for a no, typed in the editor.
    Reason,
    /// The rule "always" saves, editable in the editor.
    Rule,
}

/// The interactive mode.
pub(crate) struct App {
    host: SessionHost,
    events: UnboundedReceiver<AgentEvent>,
    task: Option<JoinHandle<Done>>,
    editor: Editor,
    /// The person's draft, kept while the editor answers an approval.
    stashed: Option<String>,
    stream: Stream,
    /// Lines for the scrollback, inserted at the next draw.
    pending: Vec<Line<'static>>,
    tools: Vec<RunningTool>,
    /// The call whose lines were written last (a result right after its call needs no
    /// header again).
    last_call: Option<String>,
    asks: VecDeque<ApprovalAsk>,
    ask_input: AskInput,
    picker: Option<Picker>,
    status: Option<(Line<'static>, Instant)>,
    ctrl_c: Option<Instant>,
    queued: Vec<Queued>,
    initial: VecDeque<UserMessage>,
    last_result: Option<String>,
    footer: FooterInfo,
    cwd: PathBuf,
    user_settings: Option<PathBuf>,
    quit: bool,
    run_started: Option<Instant>,
    /// A compaction's end was shown from its event (a `/compact` then says no more).
    compaction_shown: bool,
    /// Stops the `!command` running.
    shell_stop: Option<CancellationToken>,
    /// The workspace's files, read on the first `@`.
    files: Option<Vec<String>>,
    /// Thinking is shown collapsed (Ctrl+T).
    hide_thinking: bool,
    /// Lines of thinking not shown in the block streaming now.
    hidden_thinking: usize,
    /// An OSC 52 sequence to write at the next draw (`/copy`).
    clipboard: Option<String>,
    /// Ctrl+G: the text goes to the external editor next.
    wants_editor: bool,
    /// Which key does what (Pi's defaults, the person's `keybindings.json` over them).
    bindings: KeyBindings,
    /// `/tree` is open, showing what this filter lets through.
    tree_view: Option<TreeFilter>,
    /// The entry whose label the editor holds (`/tree`'s Shift+L).
    labeling: Option<String>,
    /// `/resume` is open (`true`: named sessions only).
    resume_view: Option<bool>,
    /// The session whose new name the editor holds (`/resume`'s Ctrl+R).
    renaming: Option<PathBuf>,
    /// The session `/resume`'s Ctrl+D asked to delete, waiting for Ctrl+D again.
    deleting: Option<PathBuf>,
}

/// Waits for the task, or forever when there is none.
async fn finished(task: &mut Option<JoinHandle<Done>>) -> Result<Done, tokio::task::JoinError> {
    match task {
        Some(handle) => handle.await,
        None => std::future::pending().await,
    }
}

/// The text of a user message (its text blocks joined).
fn user_text(message: &UserMessage) -> String {
    match &message.content {
        UserContent::Text(text) => text.clone(),
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(pi_tool::Content::as_text)
            .collect::<Vec<_>>()
            .join(""),
    }
}

impl App {
    pub(crate) fn new(
        host: SessionHost,
        prompts: Vec<UserMessage>,
        user_settings: Option<PathBuf>,
    ) -> Result<Self, HostError> {
        let session = host.session()?;
        let events = session.subscribe();
        let cwd = host.setup().cwd.clone();
        let (bindings, binding_warnings) = KeyBindings::load(host.setup().agent_dir.as_deref());
        let mut app = Self {
            host,
            events,
            task: None,
            editor: Editor::new(),
            stashed: None,
            stream: Stream::default(),
            pending: Vec::new(),
            tools: Vec::new(),
            last_call: None,
            asks: VecDeque::new(),
            ask_input: AskInput::Choosing,
            picker: None,
            status: None,
            ctrl_c: None,
            queued: Vec::new(),
            initial: prompts.into(),
            last_result: None,
            footer: FooterInfo::default(),
            cwd,
            user_settings,
            quit: false,
            run_started: None,
            compaction_shown: false,
            shell_stop: None,
            files: None,
            hide_thinking: false,
            hidden_thinking: 0,
            clipboard: None,
            wants_editor: false,
            bindings,
            tree_view: None,
            labeling: None,
            resume_view: None,
            renaming: None,
            deleting: None,
        };
        // Read once for both: each read parses every message of the session.
        let messages = app.host.session()?.messages();
        app.show_messages(messages.as_deref());
        app.pending.push(transcript::notice(&format!(
            "pi-tool {} — {}. /hotkeys for the keys; Ctrl+D exits.",
            env!("CARGO_PKG_VERSION"),
            app.host.model().model.reference()
        )));
        for warning in binding_warnings {
            app.pending.push(transcript::error(&warning));
        }
        app.set_footer(messages.as_deref().ok());
        Ok(app)
    }

    /// Runs until the person exits or `stop` is cancelled.
    pub(crate) async fn run(
        &mut self,
        screen: &mut Screen,
        mut inbox: ApprovalInbox,
        stop: &CancellationToken,
    ) -> std::io::Result<()> {
        let mut keys = crate::keys::KeyReader::start()?;
        // Only while something on screen moves (a run's clock, a status line going away): an
        // idle view is drawn when an event comes, not on a timer.
        let mut tick = tokio::time::interval(Duration::from_millis(250));
        self.next_initial();
        loop {
            self.draw(screen)?;
            if self.quit {
                break;
            }
            tokio::select! {
                () = stop.cancelled() => break,
                key = keys.next() => match key {
                    Some(Ok(event)) => {
                        self.on_terminal(event, screen).await?;
                        if std::mem::take(&mut self.wants_editor) {
                            self.external_editor(screen, &keys).await?;
                        }
                    }
                    Some(Err(error)) => return Err(error),
                    None => break,
                },
                Some(event) = self.events.recv() => {
                    self.on_agent(event);
                    // A fast stream: take what is ready before drawing again.
                    for _ in 0..512 {
                        match self.events.try_recv() {
                            Ok(event) => self.on_agent(event),
                            Err(_) => break,
                        }
                    }
                }
                Some(ask) = inbox.0.recv() => self.on_ask(ask),
                done = finished(&mut self.task) => {
                    self.task = None;
                    while let Ok(event) = self.events.try_recv() {
                        self.on_agent(event);
                    }
                    match done {
                        Ok(done) => self.on_done(done),
                        Err(error) => self.pending.push(transcript::error(&format!("The run failed: {error}"))),
                    }
                    self.next_initial();
                }
                _ = tick.tick(), if self.animated() => {}
            }
        }
        self.shut_down().await;
        Ok(())
    }

    /// Ends what runs (every call answered, every message written) and closes the session.
    async fn shut_down(&mut self) {
        if let Ok(session) = self.host.session() {
            session.abort();
        }
        self.asks.clear();
        if let Some(task) = self.task.take()
            && let Ok(Done::Prompt(outcome)) = task.await
            && let Some(failure) = outcome.recording_failure
        {
            self.pending.push(transcript::error(&failure));
        }
        while let Ok(event) = self.events.try_recv() {
            self.on_agent(event);
        }
        self.pending.extend(self.stream.finish());
    }

    /// Whether the view changes by itself (a task's clock runs, a status line is shown until
    /// it expires), so it is drawn again on a timer.
    fn animated(&self) -> bool {
        self.task.is_some() || self.run_started.is_some() || self.status.is_some()
    }

    /// The host, to close it after the loop.
    pub(crate) fn into_host(self) -> SessionHost {
        self.host
    }

    /// Lines still to be written to the scrollback (on exit).
    pub(crate) fn flush(&mut self, screen: &mut Screen) -> std::io::Result<()> {
        self.insert_pending(screen)
    }
}

/// `path` with the home directory as `~`.
fn home_relative(path: &std::path::Path) -> String {
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from)
        && let Ok(rest) = path.strip_prefix(&home)
    {
        return if rest.as_os_str().is_empty() {
            "~".to_owned()
        } else {
            format!("~/{}", rest.display())
        };
    }
    path.display().to_string()
}
