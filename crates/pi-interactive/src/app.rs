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
    BashExecution, HostError, PromptOutcome, SessionHost, suggested_rules, visible,
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
use crate::picker::{Pick, Picker};
use crate::slash::{self, Slash};
use crate::terminal::Screen;
use crate::tool_view;
use crate::transcript::{self, BlockKind, Stream};
use crate::wrap::wrap_lines;

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
        };
        app.show_history();
        app.pending.push(transcript::notice(&format!(
            "pi-tool {} — {}. /hotkeys for the keys; Ctrl+D exits.",
            env!("CARGO_PKG_VERSION"),
            app.host.model().model.reference()
        )));
        app.refresh_footer();
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
                _ = tick.tick() => {}
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

    /// The host, to close it after the loop.
    pub(crate) fn into_host(self) -> SessionHost {
        self.host
    }

    /// Lines still to be written to the scrollback (on exit).
    pub(crate) fn flush(&mut self, screen: &mut Screen) -> std::io::Result<()> {
        self.insert_pending(screen)
    }

    // ----- drawing -----

    fn draw(&mut self, screen: &mut Screen) -> std::io::Result<()> {
        if let Some(sequence) = self.clipboard.take() {
            use std::io::Write as _;
            let backend = screen.backend_mut();
            backend.write_all(sequence.as_bytes())?;
            backend.flush()?;
        }
        screen.autoresize()?;
        self.insert_pending(screen)?;
        screen.draw(|frame| {
            let area = frame.area();
            let cursor = self.render(area, frame.buffer_mut());
            if let Some(cursor) = cursor {
                frame.set_cursor_position(cursor);
            }
        })?;
        Ok(())
    }

    fn insert_pending(&mut self, screen: &mut Screen) -> std::io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let width = screen.size()?.width;
        let rows = wrap_lines(&self.pending, width);
        self.pending.clear();
        for chunk in rows.chunks(256) {
            let height = u16::try_from(chunk.len()).unwrap_or(u16::MAX);
            screen.insert_before(height, |buffer| {
                Paragraph::new(chunk.to_vec()).render(buffer.area, buffer);
            })?;
        }
        Ok(())
    }

    /// Draws the viewport; gives where the cursor goes.
    fn render(&self, area: Rect, buffer: &mut ratatui::buffer::Buffer) -> Option<(u16, u16)> {
        let editor_rows = self.editor.lines().len().clamp(1, EDITOR_ROWS);
        let queue_rows = self.queued.len().min(3);
        let [live, queue, top_rule, editor, bottom_rule, footer] = Layout::vertical([
            Constraint::Min(0),
            Constraint::Length(u16::try_from(queue_rows).unwrap_or(3)),
            Constraint::Length(1),
            Constraint::Length(u16::try_from(editor_rows).unwrap_or(1)),
            Constraint::Length(1),
            Constraint::Length(2),
        ])
        .areas(area);
        let live_lines = self.live_lines();
        // The live lines sit at the bottom of their area, just over the editor.
        let skip = live_lines.len().saturating_sub(usize::from(live.height));
        let shown: Vec<Line<'static>> = live_lines.into_iter().skip(skip).collect();
        let top = live
            .bottom()
            .saturating_sub(u16::try_from(shown.len()).unwrap_or(0));
        Paragraph::new(shown).render(
            Rect::new(
                live.x,
                top.max(live.y),
                live.width,
                live.bottom().saturating_sub(top.max(live.y)),
            ),
            buffer,
        );
        let queue_lines: Vec<Line<'static>> = self
            .queued
            .iter()
            .take(3)
            .map(|queued| {
                let kind = if queued.follow_up {
                    "Follow-up"
                } else {
                    "Steering"
                };
                Line::from(Span::styled(
                    format!(
                        "{kind}: {}",
                        tool_view::one_line(&visible(&queued.text), 200)
                    ),
                    Style::default().fg(Color::Magenta),
                ))
            })
            .collect();
        Paragraph::new(queue_lines).render(queue, buffer);
        let rule_style = Style::default().fg(match self.ask_input {
            _ if !self.asks.is_empty() => Color::Magenta,
            _ if self.task.is_some() => Color::Yellow,
            _ => Color::DarkGray,
        });
        let rule = "─".repeat(usize::from(area.width));
        Paragraph::new(Span::styled(rule.clone(), rule_style)).render(top_rule, buffer);
        Paragraph::new(Span::styled(rule, rule_style)).render(bottom_rule, buffer);
        let cursor = self.render_editor(editor, buffer);
        Paragraph::new(self.footer.lines()).render(footer, buffer);
        cursor
    }

    fn render_editor(
        &self,
        area: Rect,
        buffer: &mut ratatui::buffer::Buffer,
    ) -> Option<(u16, u16)> {
        let (row, column) = self.editor.cursor();
        let first = row.saturating_sub(EDITOR_ROWS - 1);
        let width = usize::from(area.width.saturating_sub(2)).max(1);
        let mut cursor = None;
        let mut lines = Vec::new();
        for (index, line) in self
            .editor
            .lines()
            .iter()
            .enumerate()
            .skip(first)
            .take(EDITOR_ROWS)
        {
            let lead = if index == 0 { "› " } else { "  " };
            let shown = visible(line).into_owned();
            let mut text: String = shown.clone();
            if index == row {
                let before: String = line.chars().take(column).collect();
                let mut before_width = visible(&before).width();
                // Long lines scroll sideways to keep the cursor in sight.
                let mut start = 0;
                while before_width >= width {
                    let Some(character) = shown.chars().nth(start) else {
                        break;
                    };
                    before_width = before_width.saturating_sub(
                        unicode_width::UnicodeWidthChar::width(character).unwrap_or(0),
                    );
                    start += 1;
                }
                text = shown.chars().skip(start).collect();
                let y = area.y + u16::try_from(index - first).unwrap_or(0);
                let x = area.x + 2 + u16::try_from(before_width).unwrap_or(0);
                cursor = Some((x, y));
            }
            lines.push(Line::from(vec![
                Span::styled(lead, Style::default().fg(Color::Cyan)),
                Span::raw(text),
            ]));
        }
        Paragraph::new(lines).render(area, buffer);
        if self.picker.is_some() {
            return None;
        }
        cursor
    }

    /// What the viewport shows over the editor: the picker, the approval question, the
    /// completions, or the line being streamed, the running tools and the status.
    fn live_lines(&self) -> Vec<Line<'static>> {
        if let Some(picker) = &self.picker {
            return picker.lines(8);
        }
        if let Some(ask) = self.asks.front() {
            return vec![match self.ask_input {
                AskInput::Choosing => approval_view::choices(ask.request.outside_sandbox.is_some()),
                AskInput::Reason => Line::from(Span::styled(
                    "Your reason, for the model (Enter sends, Esc goes back):",
                    Style::default().fg(Color::Magenta),
                )),
                AskInput::Rule => Line::from(Span::styled(
                    "The rule to save to your settings (Enter saves, Esc goes back):",
                    Style::default().fg(Color::Magenta),
                )),
            }];
        }
        let word = self.editor.word_before_cursor();
        if let Some(typed) = word.strip_prefix('@')
            && let Some(files) = &self.files
        {
            return file_complete::matches(files, typed, 8)
                .into_iter()
                .map(|file| {
                    Line::from(Span::styled(
                        format!("@{}", visible(file)),
                        Style::default().fg(Color::Cyan),
                    ))
                })
                .collect();
        }
        let completions = slash::completions(
            &self.editor.text(),
            self.host
                .session()
                .map(|session| session.commands())
                .unwrap_or(&pi_coding_agent::PromptCommands::default()),
        );
        if !completions.is_empty() && self.editor.lines().len() == 1 {
            return completions
                .into_iter()
                .take(8)
                .map(|(name, about)| {
                    Line::from(vec![
                        Span::styled(format!("/{name:<16}"), Style::default().fg(Color::Cyan)),
                        Span::styled(
                            tool_view::one_line(&visible(&about), 80),
                            Style::default().add_modifier(Modifier::DIM),
                        ),
                    ])
                })
                .collect();
        }
        let mut lines = Vec::new();
        if let Some(partial) = self.stream.partial() {
            lines.push(partial);
        }
        for tool in &self.tools {
            let mut line = tool.line.clone();
            line.spans.push(Span::styled(
                format!(" ({}s)", tool.started.elapsed().as_secs()),
                Style::default().add_modifier(Modifier::DIM),
            ));
            lines.push(line);
            if let Some(progress) = &tool.progress {
                lines.push(Line::from(Span::styled(
                    format!("    {}", tool_view::one_line(progress, 200)),
                    Style::default().add_modifier(Modifier::DIM),
                )));
            }
        }
        if let Some(started) = self.run_started {
            lines.push(Line::from(Span::styled(
                format!(
                    "Working… {}s (esc to interrupt)",
                    started.elapsed().as_secs()
                ),
                Style::default().fg(Color::Yellow),
            )));
        }
        if let Some((status, at)) = &self.status
            && at.elapsed() < STATUS_SHOWN
        {
            lines.push(status.clone());
        }
        lines
    }

    // ----- the session's events -----

    fn on_agent(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::MessageStart { message } => match message {
                Message::User(user) => {
                    self.pending.extend(self.stream.finish());
                    let text = user_text(&user);
                    if let Some(at) = self.queued.iter().position(|queued| queued.text == text) {
                        self.queued.remove(at);
                    }
                    self.pending.extend(transcript::user_lines(&text));
                }
                Message::Assistant(_) => self.pending.push(Line::default()),
                Message::ToolResult(_) => {}
            },
            AgentEvent::MessageUpdate {
                assistant_message_event,
            } => match assistant_message_event {
                AssistantMessageEvent::TextDelta { delta, .. } => {
                    let lines = self.stream.push(BlockKind::Text, &delta);
                    self.pending.extend(lines);
                }
                AssistantMessageEvent::ThinkingDelta { delta, .. } if self.hide_thinking => {
                    self.hidden_thinking += delta.matches('\n').count().max(1);
                }
                AssistantMessageEvent::ThinkingDelta { delta, .. } => {
                    let lines = self.stream.push(BlockKind::Thinking, &delta);
                    self.pending.extend(lines);
                }
                AssistantMessageEvent::ThinkingEnd { .. } if self.hidden_thinking > 0 => {
                    self.hidden_thinking = 0;
                    self.pending.push(transcript::thinking_line(
                        "Thinking… (hidden; ctrl+t shows it)",
                    ));
                }
                AssistantMessageEvent::TextEnd { .. }
                | AssistantMessageEvent::ThinkingEnd { .. } => {
                    self.pending.extend(self.stream.finish());
                }
                _ => {}
            },
            AgentEvent::MessageEnd { message } => {
                self.pending.extend(self.stream.finish());
                if let Message::Assistant(answer) = &message {
                    self.pending.extend(transcript::answer_end(answer));
                    self.refresh_footer();
                }
            }
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
            } => {
                self.pending.extend(self.stream.finish());
                let line = tool_view::start_line(&tool_name, &args);
                self.pending.push(line.clone());
                self.pending
                    .extend(tool_view::preview_lines(&tool_name, &args));
                self.last_call = Some(tool_call_id.to_string());
                self.tools.push(RunningTool {
                    id: tool_call_id.to_string(),
                    line,
                    started: Instant::now(),
                    progress: None,
                });
            }
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                partial_result,
                ..
            } => {
                let text: String = partial_result
                    .content
                    .iter()
                    .filter_map(pi_tool::Content::as_text)
                    .collect();
                if let Some(tool) = self.tools.iter_mut().find(|tool| *tool.id == *tool_call_id) {
                    tool.progress = text
                        .lines()
                        .rev()
                        .find(|line| !line.trim().is_empty())
                        .map(|line| visible(line).into_owned());
                }
            }
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                result,
                is_error,
                ..
            } => {
                let position = self.tools.iter().position(|tool| *tool.id == *tool_call_id);
                let tool = position.map(|at| self.tools.remove(at));
                if self.last_call.as_deref() != Some(&*tool_call_id)
                    && let Some(tool) = &tool
                {
                    self.pending.push(tool.line.clone());
                }
                let text = result.text();
                self.pending
                    .extend(tool_view::result_lines(&text, is_error));
                self.last_result = Some(text);
                self.last_call = Some(tool_call_id.to_string());
            }
            AgentEvent::CompactionStart { .. } => {
                self.set_status(transcript::notice("Compacting the conversation…"));
            }
            AgentEvent::CompactionEnd { result, error, .. } => {
                self.compaction_shown = true;
                match (result, error) {
                    (_, Some(error)) => self
                        .pending
                        .push(transcript::error(&format!("Compaction failed: {error}"))),
                    (Some(compacted), None) => self.pending.push(transcript::notice(&format!(
                        "Compacted: {} tokens of context before, about {} after.",
                        compacted.tokens_before, compacted.tokens_after
                    ))),
                    (None, None) => {}
                }
            }
            AgentEvent::AutoRetryStart {
                attempt,
                max_attempts,
                delay_ms,
                error_message,
            } => self.pending.push(Line::from(Span::styled(
                visible(&format!(
                    "Retrying ({attempt}/{max_attempts}) in {:.1}s: {error_message}",
                    Duration::from_millis(delay_ms).as_secs_f64()
                ))
                .into_owned(),
                Style::default().fg(Color::Yellow),
            ))),
            _ => {}
        }
    }

    fn on_ask(&mut self, ask: ApprovalAsk) {
        let first = self.asks.is_empty();
        self.asks.push_back(ask);
        if first {
            self.show_ask();
        }
    }

    /// Writes the call at the queue's front to the scrollback and readies the choices.
    fn show_ask(&mut self) {
        self.ask_input = AskInput::Choosing;
        if let Some(ask) = self.asks.front() {
            self.pending.extend(self.stream.finish());
            self.pending
                .extend(approval_view::details(&ask.request, &self.cwd));
        }
    }

    fn answer(&mut self, answer: Answer) {
        let said = match &answer {
            Answer::Once => "allowed once".to_owned(),
            Answer::ForSession { rule } => format!("allowed for this session: {rule}"),
            Answer::Always { rule } => format!("allowed always: {rule}"),
            Answer::Deny { reason: None } => "refused".to_owned(),
            Answer::Deny {
                reason: Some(reason),
            } => format!("refused: {reason}"),
            Answer::Unanswered { reason } => format!("not answered: {reason}"),
        };
        self.pending
            .push(transcript::notice(&format!("  → {said}")));
        if let Some(ask) = self.asks.pop_front() {
            let _ = ask.answer.send(answer);
        }
        if let Some(draft) = self.stashed.take() {
            self.editor.set_text(&draft);
        }
        self.show_ask();
    }

    fn on_done(&mut self, done: Done) {
        self.run_started = None;
        self.status = None;
        self.tools.clear();
        self.pending.extend(self.stream.finish());
        match done {
            Done::Prompt(outcome) => {
                if let Some(failure) = &outcome.recording_failure {
                    self.pending.push(transcript::error(failure));
                }
                let answered_error = matches!(
                    outcome.run.messages.last(),
                    Some(Message::Assistant(answer)) if answer.error_message.is_some()
                );
                let answer_said_so = matches!(
                    outcome.run.messages.last(),
                    Some(Message::Assistant(answer))
                        if answer.stop_reason == pi_ai::StopReason::Aborted
                );
                if outcome.run.end == pi_agent::EndReason::Aborted {
                    if !answer_said_so {
                        self.pending.push(transcript::aborted());
                    }
                    self.restore_queue();
                } else if let Some(error) = &outcome.run.error
                    && !answered_error
                {
                    self.pending
                        .push(transcript::error(&format!("Error: {error}")));
                }
                self.queued.clear();
            }
            Done::Compact(result) => {
                if !std::mem::take(&mut self.compaction_shown) {
                    match result {
                        Ok(summary) => self.pending.push(transcript::notice(&summary)),
                        Err(error) => self.pending.push(transcript::error(&error)),
                    }
                }
            }
            Done::Shell { command, output } => {
                self.shell_stop = None;
                match output {
                    Ok(execution) => self.show_shell(&command, &execution),
                    Err(error) => self.pending.push(transcript::error(&error)),
                }
            }
        }
        self.refresh_footer();
    }

    /// A `!cmd`'s output, and the command recorded for the model (unless `!!`).
    fn show_shell(&mut self, command: &str, execution: &BashExecution) {
        self.pending.push(tool_view::start_line(
            "bash",
            &serde_json::json!({"command": command}),
        ));
        let failed = execution.cancelled || execution.exit_code != Some(0);
        let mut shown = execution.output.clone();
        if execution.cancelled {
            shown.push_str("\n(stopped)");
        } else if failed {
            shown.push_str(&format!(
                "\n(exit {})",
                execution
                    .exit_code
                    .map_or_else(|| "by a signal".to_owned(), |code| code.to_string())
            ));
        }
        self.pending.extend(tool_view::result_lines(&shown, failed));
        self.last_result = Some(execution.output.clone());
        let recorded = self
            .host
            .session()
            .map_err(|error| error.to_string())
            .and_then(|session| {
                session
                    .record_bash_execution(execution)
                    .map_err(|error| pi_tool::error_text(&error))
            });
        match recorded {
            Err(error) => self.pending.push(transcript::error(&error)),
            Ok(()) if execution.exclude_from_context => self.pending.push(transcript::notice(
                "  (kept out of the model's context: !!)",
            )),
            Ok(()) => {}
        }
    }

    /// Alt+Up: the queued messages back into the editor, out of the queue.
    fn dequeue(&mut self) {
        self.restore_queue();
        self.queued.clear();
    }

    /// After an abort, the messages still queued go back to the editor, as Pi does.
    fn restore_queue(&mut self) {
        let Ok(session) = self.host.session() else {
            return;
        };
        let mut texts: Vec<String> = session
            .steering()
            .drain()
            .into_iter()
            .chain(session.follow_ups().drain())
            .filter_map(|message| match message {
                Message::User(user) => Some(user_text(&user)),
                _ => None,
            })
            .collect();
        if texts.is_empty() {
            return;
        }
        if !self.editor.is_empty() {
            texts.push(self.editor.text());
        }
        self.editor.set_text(&texts.join("\n"));
    }

    // ----- keys -----

    async fn on_terminal(&mut self, event: Event, screen: &mut Screen) -> std::io::Result<()> {
        match event {
            Event::Key(key) if key.kind != KeyEventKind::Release => self.on_key(key).await,
            Event::Paste(text) => {
                self.editor.insert(&text);
            }
            Event::Resize(_, _) => {
                screen.autoresize()?;
            }
            _ => {}
        }
        Ok(())
    }

    async fn on_key(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        if ctrl && key.code == KeyCode::Char('c') {
            self.on_ctrl_c();
            return;
        }
        self.ctrl_c = None;
        if self.picker.is_some() {
            self.on_picker_key(key).await;
            return;
        }
        if !self.asks.is_empty() && self.on_ask_key(key) {
            return;
        }
        match key.code {
            KeyCode::Enter if shift || (ctrl && !alt) => self.editor.new_line(),
            KeyCode::Enter if alt => {
                if self.task.is_some() {
                    let text = self.editor.take();
                    self.submit(text, true).await;
                } else {
                    self.editor.new_line();
                }
            }
            KeyCode::Enter => {
                let text = self.editor.take();
                self.submit(text, false).await;
            }
            KeyCode::Char('j') if ctrl => self.editor.new_line(),
            KeyCode::Char('d') if ctrl => {
                if self.editor.is_empty() {
                    self.quit = true;
                } else {
                    self.editor.delete();
                }
            }
            KeyCode::Char('p') if ctrl => self.cycle_model().await,
            KeyCode::Char('l') if ctrl => self.command(Slash::Model(None)).await,
            KeyCode::Char('g') if ctrl => self.wants_editor = true,
            KeyCode::Char('t') if ctrl => {
                self.hide_thinking = !self.hide_thinking;
                self.set_status(transcript::notice(if self.hide_thinking {
                    "Thinking is hidden from now on (ctrl+t shows it)"
                } else {
                    "Thinking is shown"
                }));
            }
            KeyCode::Up if alt => self.dequeue(),
            KeyCode::Char('o') if ctrl => self.show_last_result(),
            KeyCode::Char('a') if ctrl => self.editor.home(),
            KeyCode::Char('e') if ctrl => self.editor.end(),
            KeyCode::Char('u') if ctrl => self.editor.clear(),
            KeyCode::Char('w') if ctrl => self.editor.delete_word(),
            KeyCode::BackTab => self.cycle_thinking().await,
            KeyCode::Esc => self.abort(),
            KeyCode::Tab => self.complete(),
            KeyCode::Char(character) if !ctrl => {
                self.editor.insert_char(character);
                if character == '@' && self.files.is_none() {
                    self.files = Some(file_complete::workspace_files(&self.cwd));
                }
            }
            KeyCode::Backspace => self.editor.backspace(),
            KeyCode::Delete => self.editor.delete(),
            KeyCode::Left => self.editor.left(),
            KeyCode::Right => self.editor.right(),
            KeyCode::Up => self.editor.up(),
            KeyCode::Down => self.editor.down(),
            KeyCode::Home => self.editor.home(),
            KeyCode::End => self.editor.end(),
            _ => {}
        }
    }

    fn on_ctrl_c(&mut self) {
        let again = self
            .ctrl_c
            .is_some_and(|first| first.elapsed() < DOUBLE_CTRL_C);
        if again {
            self.quit = true;
            return;
        }
        self.ctrl_c = Some(Instant::now());
        self.editor.clear();
        self.picker = None;
        self.set_status(transcript::notice("Press Ctrl+C again to exit"));
    }

    /// A key while a call waits for approval; `false` when the key is not for the question
    /// (it then edits or aborts as usual).
    fn on_ask_key(&mut self, key: KeyEvent) -> bool {
        let Some(ask) = self.asks.front() else {
            return false;
        };
        match self.ask_input {
            AskInput::Choosing => {
                let outside = ask.request.outside_sandbox.is_some();
                let rule = suggested_rules(&ask.request, &self.cwd)
                    .into_iter()
                    .next()
                    .unwrap_or_else(|| ask.request.tool.clone());
                match key.code {
                    KeyCode::Char('y') => self.answer(Answer::Once),
                    KeyCode::Char('s') if !outside => self.answer(Answer::ForSession { rule }),
                    KeyCode::Char('a') if !outside => {
                        self.stashed = Some(self.editor.take());
                        self.editor.set_text(&rule);
                        self.ask_input = AskInput::Rule;
                    }
                    KeyCode::Char('n') => self.answer(Answer::Deny { reason: None }),
                    KeyCode::Char('r') => {
                        self.stashed = Some(self.editor.take());
                        self.ask_input = AskInput::Reason;
                    }
                    KeyCode::Esc => return false,
                    _ => {}
                }
                true
            }
            AskInput::Reason | AskInput::Rule => match key.code {
                KeyCode::Esc => {
                    self.editor.clear();
                    if let Some(draft) = self.stashed.take() {
                        self.editor.set_text(&draft);
                    }
                    self.ask_input = AskInput::Choosing;
                    true
                }
                KeyCode::Enter if key.modifiers.is_empty() => {
                    let text = self.editor.take().trim().to_owned();
                    if self.ask_input == AskInput::Reason {
                        self.answer(Answer::Deny {
                            reason: (!text.is_empty()).then_some(text),
                        });
                    } else {
                        self.save_rule(text);
                    }
                    true
                }
                _ => false,
            },
        }
    }

    /// "Always": the rule checked, saved to the person's settings, and the call allowed.
    fn save_rule(&mut self, rule: String) {
        if let Err(error) = rule.parse::<Rule>() {
            self.pending.push(transcript::error(&format!(
                "That rule cannot be read: {error}"
            )));
            self.editor.set_text(&rule);
            return;
        }
        match &self.user_settings {
            Some(path) => match pi_approval::settings::save_rule(path, RuleKind::Allow, &rule) {
                Ok(()) => self.pending.push(transcript::notice(&format!(
                    "Saved {rule} to {}",
                    path.display()
                ))),
                Err(error) => self.pending.push(transcript::error(&format!(
                    "Could not save the rule ({}); it holds for this session only.",
                    pi_tool::error_text(&error)
                ))),
            },
            None => self.pending.push(transcript::error(
                "No settings directory (set PI_CODING_AGENT_DIR or HOME); the rule holds for this session only.",
            )),
        }
        self.answer(Answer::Always { rule });
    }

    fn abort(&mut self) {
        if self.task.is_none() {
            return;
        }
        // Calls waiting for an answer are refused: the run stops.
        while let Some(ask) = self.asks.pop_front() {
            drop(ask);
        }
        self.ask_input = AskInput::Choosing;
        if let Ok(session) = self.host.session() {
            session.abort();
        }
        if let Some(stop) = &self.shell_stop {
            stop.cancel();
        } else if let Some(task) = &self.task
            && self.run_started.is_none()
        {
            // A compaction: stopped by dropping it.
            task.abort();
        }
        self.set_status(transcript::error("Aborting…"));
    }

    /// Ctrl+G: the editor's text in `$VISUAL` (or `$EDITOR`), back when it exits. The key
    /// reader pauses meanwhile, so the two programs do not share the keyboard.
    async fn external_editor(
        &mut self,
        screen: &mut Screen,
        keys: &crate::keys::KeyReader,
    ) -> std::io::Result<()> {
        let program = ["VISUAL", "EDITOR"].iter().find_map(|name| {
            std::env::var(name)
                .ok()
                .filter(|value| !value.trim().is_empty())
        });
        let Some(program) = program else {
            self.set_status(transcript::error(
                "Set $VISUAL or $EDITOR to edit in an editor",
            ));
            return Ok(());
        };
        let path = std::env::temp_dir().join(format!(
            "pi-tool-message-{}-{}.md",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| since.as_nanos())
        ));
        std::fs::write(&path, self.editor.text())?;
        keys.pause().await;
        crate::terminal::restore();
        let file = path.clone();
        let ran = tokio::task::spawn_blocking(move || {
            // Through the shell, as `$EDITOR` may hold arguments (`code --wait`).
            std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("{program} \"$1\""))
                .arg("sh")
                .arg(&file)
                .status()
        })
        .await;
        let entered = crate::terminal::enter();
        // The editor drew on the screen: the viewport is drawn whole again.
        let cleared = screen.clear();
        keys.resume();
        entered?;
        cleared?;
        match ran {
            Ok(Ok(status)) if status.success() => match std::fs::read_to_string(&path) {
                Ok(text) => self.editor.set_text(text.trim_end_matches('\n')),
                Err(error) => self.pending.push(transcript::error(&format!(
                    "Could not read the edited text: {error}"
                ))),
            },
            Ok(Ok(status)) => self.pending.push(transcript::error(&format!(
                "The editor ended with {status}; the text is as it was"
            ))),
            Ok(Err(error)) => self.pending.push(transcript::error(&format!(
                "Could not start the editor: {error}"
            ))),
            Err(error) => self
                .pending
                .push(transcript::error(&format!("The editor failed: {error}"))),
        }
        let _ = std::fs::remove_file(&path);
        Ok(())
    }

    fn complete(&mut self) {
        let word = self.editor.word_before_cursor();
        if let Some(typed) = word.strip_prefix('@') {
            let files = self
                .files
                .get_or_insert_with(|| file_complete::workspace_files(&self.cwd));
            if let Some(file) = file_complete::matches(files, typed, 1).first() {
                let replacement = format!("@{file} ");
                self.editor.replace_word_before_cursor(&replacement);
            }
            return;
        }
        let text = self.editor.text();
        let commands = match self.host.session() {
            Ok(session) => slash::completions(&text, session.commands()),
            Err(_) => return,
        };
        if let Some((name, _)) = commands.first() {
            self.editor.set_text(&format!("/{name} "));
        }
    }

    fn show_last_result(&mut self) {
        match &self.last_result {
            Some(text) => {
                let lines: Vec<Line<'static>> = visible(text)
                    .lines()
                    .take(2_000)
                    .map(|line| Line::from(format!("    {line}")))
                    .collect();
                self.pending.extend(lines);
            }
            None => self.set_status(transcript::notice("No tool result yet")),
        }
    }

    fn set_status(&mut self, line: Line<'static>) {
        self.status = Some((line, Instant::now()));
    }

    // ----- sending -----

    async fn submit(&mut self, text: String, follow_up: bool) {
        self.status = None;
        if text.trim().is_empty() {
            return;
        }
        if let Some(command) = text.strip_prefix('!') {
            let (command, excluded) = match command.strip_prefix('!') {
                Some(command) => (command, true),
                None => (command, false),
            };
            self.run_shell(command.trim().to_owned(), excluded);
            return;
        }
        match slash::parse(&text) {
            Err(error) => {
                self.pending.push(transcript::error(&error));
                return;
            }
            Ok(Some(command)) => {
                self.command(command).await;
                return;
            }
            Ok(None) => {}
        }
        let Ok(session) = self.host.session() else {
            return;
        };
        let message = session.expand_commands(UserMessage::text(text.clone()));
        if self.task.is_some() {
            if self.run_started.is_none() {
                self.pending.push(transcript::error(
                    "Wait for the command to finish, or press Esc, before sending a message.",
                ));
                self.editor.set_text(&text);
                return;
            }
            if follow_up {
                session.follow_ups().push(message);
            } else {
                session.steering().push(message);
            }
            self.queued.push(Queued { follow_up, text });
            return;
        }
        self.start_prompt(message);
    }

    fn start_prompt(&mut self, message: UserMessage) {
        let Ok(session) = self.host.session() else {
            return;
        };
        let session = Arc::clone(session);
        self.run_started = Some(Instant::now());
        self.task = Some(tokio::spawn(async move {
            Done::Prompt(Box::new(session.prompt(vec![message.into()]).await))
        }));
    }

    /// The command line's messages, one prompt after another.
    fn next_initial(&mut self) {
        if self.task.is_some() {
            return;
        }
        if let Some(message) = self.initial.pop_front() {
            let message = match self.host.session() {
                Ok(session) => session.expand_commands(message),
                Err(_) => return,
            };
            self.start_prompt(message);
        }
    }

    /// `!cmd` (the model reads it with the next prompt) or `!!cmd` (it does not).
    fn run_shell(&mut self, command: String, exclude_from_context: bool) {
        if self.task.is_some() {
            self.pending.push(transcript::error(
                "The agent is working: wait for it, or press Esc, before running a command.",
            ));
            return;
        }
        let cwd = self.cwd.clone();
        let stop = CancellationToken::new();
        self.shell_stop = Some(stop.clone());
        self.set_status(transcript::notice(&format!(
            "Running {command}… (esc stops it)"
        )));
        self.task = Some(tokio::spawn(async move {
            let output = BashExecution::run(&command, &cwd, exclude_from_context, &stop)
                .await
                .map_err(|error| format!("Could not run {command}: {error}"));
            Done::Shell { command, output }
        }));
    }

    // ----- commands -----

    async fn command(&mut self, command: Slash) {
        let changes_session = !matches!(
            command,
            Slash::Hotkeys | Slash::Quit | Slash::Session | Slash::Copy | Slash::Export(_)
        );
        if changes_session && self.task.is_some() {
            self.pending.push(transcript::error(
                "Agent is already processing; wait for it to finish, or press Esc first.",
            ));
            return;
        }
        match command {
            Slash::Quit => self.quit = true,
            Slash::Hotkeys => {
                self.pending
                    .extend(slash::HOTKEYS.lines().map(transcript::notice));
            }
            Slash::Session => self.show_session(),
            Slash::Name(name) => match self.host.session().map(|session| session.set_name(&name)) {
                Ok(Ok(())) => {
                    self.pending
                        .push(transcript::notice(&format!("Session named {name}")));
                    self.refresh_footer();
                }
                Ok(Err(error)) => self
                    .pending
                    .push(transcript::error(&pi_tool::error_text(&error))),
                Err(error) => self.pending.push(transcript::error(&error.to_string())),
            },
            Slash::New => {
                let result = self.host.new_session().await;
                self.after_change(
                    result.map(|changed| changed.warnings),
                    "New session started",
                );
            }
            Slash::Clone => {
                let result = self.host.clone_session().await;
                self.after_change(
                    result.map(|changed| changed.warnings),
                    "Continuing in a copy of the session",
                );
            }
            Slash::Compact(focus) => {
                let Ok(session) = self.host.session() else {
                    return;
                };
                let session = Arc::clone(session);
                self.set_status(transcript::notice("Compacting… (esc stops it)"));
                self.compaction_shown = false;
                self.task = Some(tokio::spawn(async move {
                    let result = session
                        .compact(focus.as_deref())
                        .await
                        .map(|compacted| {
                            format!(
                                "Compacted: {} tokens of context before, about {} after.",
                                compacted.tokens_before, compacted.tokens_after
                            )
                        })
                        .map_err(|error| {
                            format!("Compaction failed: {}", pi_tool::error_text(&error))
                        });
                    Done::Compact(result)
                }));
            }
            Slash::Model(Some(pattern)) => self.switch_model(&pattern).await,
            Slash::Model(None) => {
                let current = self.host.model().model.reference();
                let items = self
                    .host
                    .registry()
                    .available()
                    .into_iter()
                    .map(|model| {
                        let reference = model.reference();
                        let mark = if reference == current {
                            " (current)"
                        } else {
                            ""
                        };
                        (
                            format!("{reference}{mark}"),
                            Pick::Model(model.provider.clone(), model.id.clone()),
                        )
                    })
                    .collect();
                self.picker = Some(Picker::new("Choose a model", items));
            }
            Slash::Fork => {
                let items: Vec<(String, Pick)> = self
                    .host
                    .fork_points()
                    .into_iter()
                    .rev()
                    .map(|point| {
                        (
                            tool_view::one_line(&point.text, 100),
                            Pick::Fork(point.entry_id),
                        )
                    })
                    .collect();
                if items.is_empty() {
                    self.pending
                        .push(transcript::error("No message to fork from yet."));
                } else {
                    self.picker = Some(Picker::new("Fork from which message?", items));
                }
            }
            Slash::Resume => self.open_resume_picker(),
            Slash::Tree => self.open_tree_picker(),
            Slash::Copy => self.copy_last_answer(),
            Slash::Export(target) => self.export(target.as_deref()),
        }
    }

    fn copy_last_answer(&mut self) {
        let text = self
            .host
            .session()
            .map_err(|error| error.to_string())
            .and_then(|session| {
                session
                    .last_assistant_text()
                    .map_err(|error| pi_tool::error_text(&error))
            });
        match text {
            Ok(Some(text)) if !text.is_empty() => {
                self.clipboard = Some(crate::clipboard::osc52(&text));
                self.pending.push(transcript::notice(
                    "Copied the last answer to the clipboard (through the terminal: OSC 52)",
                ));
            }
            Ok(_) => self
                .pending
                .push(transcript::error("No answer to copy yet.")),
            Err(error) => self.pending.push(transcript::error(&error)),
        }
    }

    /// `/export FILE`: the session file copied (JSONL; the HTML export is not built).
    fn export(&mut self, target: Option<&str>) {
        let Some(target) = target else {
            self.pending.push(transcript::error(
                "/export needs a file: /export session.jsonl",
            ));
            return;
        };
        if !target.ends_with(".jsonl") {
            self.pending.push(transcript::error(
                "Only a JSONL copy is built yet: /export FILE.jsonl (the HTML export is not)",
            ));
            return;
        }
        let source = self
            .host
            .session()
            .ok()
            .and_then(|session| session.session_file());
        let Some(source) = source else {
            self.pending.push(transcript::error(
                "This session is not kept in a file (--no-session).",
            ));
            return;
        };
        let destination = self.cwd.join(target);
        match std::fs::copy(&source, &destination) {
            Ok(_) => self.pending.push(transcript::notice(&format!(
                "Exported the session to {}",
                destination.display()
            ))),
            Err(error) => self.pending.push(transcript::error(&format!(
                "Could not write {}: {error}",
                destination.display()
            ))),
        }
    }

    fn open_tree_picker(&mut self) {
        let Ok(session) = self.host.session() else {
            return;
        };
        let points = session.tree_points();
        if points.is_empty() {
            self.pending
                .push(transcript::error("The session has no message yet."));
            return;
        }
        let here = points
            .iter()
            .rposition(|point| point.on_branch)
            .unwrap_or(0);
        let items = points
            .into_iter()
            .map(|point| {
                let mark = if point.on_branch { "•" } else { " " };
                (
                    format!(
                        "{}{mark} {}: {}",
                        "  ".repeat(point.depth.min(8)),
                        point.role,
                        tool_view::one_line(&point.text, 80)
                    ),
                    Pick::Tree(point.entry_id),
                )
            })
            .collect();
        self.picker =
            Some(Picker::new("Go to which message? (• the current branch)", items).selecting(here));
    }

    fn open_resume_picker(&mut self) {
        let listing = self
            .host
            .session_directory()
            .map_err(|error| error.to_string())
            .and_then(|dir| {
                pi_session::list_sessions(&dir).map_err(|error| pi_tool::error_text(&error))
            });
        let current = self
            .host
            .session()
            .ok()
            .and_then(|session| session.session_file());
        match listing {
            Ok(listing) => {
                let items: Vec<(String, Pick)> = listing
                    .sessions
                    .into_iter()
                    .filter(|summary| Some(&summary.path) != current.as_ref())
                    .map(|summary| {
                        let title = summary
                            .name
                            .clone()
                            .or_else(|| summary.first_message.clone())
                            .unwrap_or_else(|| "(no messages)".to_owned());
                        (
                            format!(
                                "{}  ({} messages)",
                                tool_view::one_line(&title, 70),
                                summary.message_count
                            ),
                            Pick::Resume(summary.path),
                        )
                    })
                    .collect();
                if items.is_empty() {
                    self.pending
                        .push(transcript::notice("No other session in this project."));
                } else {
                    self.picker = Some(Picker::new("Resume which session?", items));
                }
            }
            Err(error) => self.pending.push(transcript::error(&error)),
        }
    }

    async fn on_picker_key(&mut self, key: KeyEvent) {
        let Some(picker) = &mut self.picker else {
            return;
        };
        match key.code {
            KeyCode::Esc => self.picker = None,
            KeyCode::Up => picker.up(),
            KeyCode::Down => picker.down(),
            KeyCode::Backspace => picker.pop_filter(),
            KeyCode::Char(character) => picker.push_filter(character),
            KeyCode::Enter => {
                let chosen = picker.chosen();
                self.picker = None;
                if let Some(chosen) = chosen {
                    self.pick(chosen).await;
                }
            }
            _ => {}
        }
    }

    async fn pick(&mut self, pick: Pick) {
        match pick {
            Pick::Model(provider, id) => {
                let result = self.host.set_model(&provider, &id).await;
                let said = format!("Model: {provider}/{id}");
                self.after_change(result.map(|changed| changed.warnings), &said);
            }
            Pick::Fork(entry) => {
                let result = self.host.fork(&entry).await;
                let text = result.as_ref().ok().map(|(_, text)| text.clone());
                self.after_change(
                    result.map(|(changed, _)| changed.warnings),
                    "Forked into a new session: edit the message and send it",
                );
                if let Some(text) = text {
                    self.editor.set_text(&text);
                }
            }
            Pick::Tree(entry) => {
                let moved = self
                    .host
                    .session()
                    .map_err(|error| error.to_string())
                    .and_then(|session| {
                        session
                            .navigate(&entry)
                            .map_err(|error| pi_tool::error_text(&error))
                    });
                match moved {
                    Ok(text) => {
                        self.pending.push(transcript::notice(
                            "Moved in the session tree; the branch from here:",
                        ));
                        self.show_history();
                        if let Some(text) = text {
                            self.editor.set_text(&text);
                        }
                        self.refresh_footer();
                    }
                    Err(error) => self.pending.push(transcript::error(&error)),
                }
            }
            Pick::Resume(path) => {
                let result = self.host.switch_session(&path).await;
                let ok = result.is_ok();
                self.after_change(
                    result.map(|changed| changed.warnings),
                    &format!("Resumed {}", path.display()),
                );
                if ok {
                    self.show_history();
                }
            }
        }
    }

    async fn switch_model(&mut self, pattern: &str) {
        let wanted = pattern.to_lowercase();
        let found = {
            let available = self.host.registry().available();
            let exact = pattern
                .split_once('/')
                .and_then(|(provider, id)| self.host.registry().find(provider, id));
            exact
                .or_else(|| available.iter().copied().find(|model| model.id == pattern))
                .or_else(|| {
                    available
                        .iter()
                        .copied()
                        .find(|model| model.reference().to_lowercase().contains(&wanted))
                })
                .map(|model| (model.provider.clone(), model.id.clone()))
        };
        match found {
            Some((provider, id)) => self.pick(Pick::Model(provider, id)).await,
            None => self.pending.push(transcript::error(&format!(
                "No model with a key matches {pattern:?} (/model lists them)"
            ))),
        }
    }

    async fn cycle_model(&mut self) {
        if self.task.is_some() {
            self.set_status(transcript::error("The model changes between runs."));
            return;
        }
        match self.host.cycle_model().await {
            Ok(None) => self.set_status(transcript::notice("Only one model has a key")),
            result => {
                let said = format!("Model: {}", self.host.model().model.reference());
                self.after_change(
                    result
                        .map(|changed| changed.map(|changed| changed.warnings).unwrap_or_default()),
                    &said,
                );
                let said = format!("Model: {}", self.host.model().model.reference());
                self.set_status(transcript::notice(&said));
            }
        }
    }

    async fn cycle_thinking(&mut self) {
        if self.task.is_some() {
            self.set_status(transcript::error(
                "The thinking level changes between runs.",
            ));
            return;
        }
        match self.host.cycle_thinking_level().await {
            Ok(None) => {
                self.set_status(transcript::notice("This model has one thinking level only"))
            }
            result => {
                self.after_change(
                    result
                        .map(|changed| changed.map(|changed| changed.warnings).unwrap_or_default()),
                    "",
                );
                let said = format!("Thinking: {}", self.host.model().thinking_level);
                self.set_status(transcript::notice(&said));
            }
        }
    }

    /// After the host started a session again: its events, the footer, what to say.
    fn after_change(&mut self, result: Result<Vec<String>, HostError>, said: &str) {
        match result {
            Ok(warnings) => {
                if !said.is_empty() {
                    self.pending.push(transcript::notice(said));
                }
                for warning in warnings {
                    self.pending
                        .push(transcript::error(&format!("Warning: {warning}")));
                }
            }
            Err(error) => self.pending.push(transcript::error(&error.to_string())),
        }
        match self.host.session() {
            Ok(session) => self.events = session.subscribe(),
            Err(error) => {
                self.pending.push(transcript::error(&error.to_string()));
                self.quit = true;
            }
        }
        self.refresh_footer();
    }

    fn show_session(&mut self) {
        let Ok(session) = self.host.session() else {
            return;
        };
        let file = session.session_file().map_or_else(
            || "(not saved)".to_owned(),
            |path| path.display().to_string(),
        );
        let mut lines = vec![
            format!("Session file: {file}"),
            format!("Session id:   {}", session.session_id()),
        ];
        if let Some(name) = session.name() {
            lines.push(format!("Name:         {name}"));
        }
        match session.stats() {
            Ok(stats) => lines.push(format!(
                "Messages:     {} ({} user, {} assistant, {} tool calls)",
                stats.total_messages,
                stats.user_messages,
                stats.assistant_messages,
                stats.tool_calls
            )),
            Err(error) => lines.push(pi_tool::error_text(&error)),
        }
        lines.push(format!(
            "Tokens:       {} in, {} out; cost ${:.4}",
            self.footer.input_tokens, self.footer.output_tokens, self.footer.cost
        ));
        self.pending
            .extend(lines.iter().map(|line| transcript::notice(line)));
    }

    fn show_history(&mut self) {
        let Ok(session) = self.host.session() else {
            return;
        };
        match session.messages() {
            Ok(messages) if !messages.is_empty() => {
                self.pending
                    .extend(transcript::history_lines(&messages, HISTORY_SHOWN));
            }
            Ok(_) => {}
            Err(error) => self
                .pending
                .push(transcript::error(&pi_tool::error_text(&error))),
        }
    }

    /// The footer from the session: tokens and cost summed, the last answer's context.
    fn refresh_footer(&mut self) {
        let model = self.host.model();
        let mut footer = FooterInfo {
            cwd: home_relative(&self.cwd),
            model: model.model.reference(),
            thinking: model.thinking_level.to_string(),
            context_window: model.model.context_window,
            ..FooterInfo::default()
        };
        if let Ok(session) = self.host.session() {
            footer.session_name = session.name();
            if let Ok(messages) = session.messages() {
                for message in &messages {
                    if let Message::Assistant(answer) = message {
                        let usage = &answer.usage;
                        footer.input_tokens += usage.input;
                        footer.output_tokens += usage.output;
                        footer.cost += usage.cost.total;
                    }
                }
                footer.context_tokens = messages
                    .iter()
                    .rev()
                    .find_map(|message| match message {
                        Message::Assistant(answer) if answer.usage.total_tokens > 0 => {
                            Some(answer.usage.total_tokens)
                        }
                        Message::Assistant(answer) => {
                            let usage = &answer.usage;
                            let sum =
                                usage.input + usage.output + usage.cache_read + usage.cache_write;
                            (sum > 0).then_some(sum)
                        }
                        _ => None,
                    })
                    .unwrap_or(0);
            }
        }
        self.footer = footer;
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
