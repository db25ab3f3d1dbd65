//! Keys: the editor's, the approval question's, the picker's, and the ones that abort, exit,
//! complete, change the model or open the external editor (Ctrl+G).

use super::*;

impl App {
    pub(super) async fn on_terminal(
        &mut self,
        event: Event,
        screen: &mut Screen,
    ) -> std::io::Result<()> {
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

    pub(super) async fn on_key(&mut self, key: KeyEvent) {
        let actions = self.bindings.actions(key).to_vec();
        if actions.contains(&Action::Clear) {
            self.on_ctrl_c();
            return;
        }
        self.ctrl_c = None;
        if self.labeling.is_some() && self.on_label_key(key) {
            return;
        }
        if self.renaming.is_some() && self.on_rename_key(key) {
            return;
        }
        if self.tree_view.is_some() && self.on_tree_key(&actions) {
            return;
        }
        if self.resume_view.is_some() && self.on_resume_key(&actions) {
            return;
        }
        if self.picker.is_some() {
            self.on_picker_key(key).await;
            return;
        }
        if !self.asks.is_empty() && self.on_ask_key(key) {
            return;
        }
        for action in actions {
            if self.act(action).await {
                return;
            }
        }
        // A key bound to nothing types itself.
        if let KeyCode::Char(character) = key.code
            && !key.modifiers.contains(KeyModifiers::CONTROL)
        {
            self.editor.insert_char(character);
            if character == '@' && self.files.is_none() {
                self.files = Some(file_complete::workspace_files(&self.cwd));
            }
        }
    }

    /// Does `action` (a key's, [`crate::keybindings`]); `false` when it does not apply now
    /// (exit with text in the editor), so the key's next action is tried.
    async fn act(&mut self, action: Action) -> bool {
        match action {
            // Handled before the picker and the question, which it also ends.
            Action::Clear => self.on_ctrl_c(),
            Action::Interrupt => self.abort(),
            Action::Exit if self.editor.is_empty() => self.quit = true,
            Action::Exit => return false,
            Action::ExternalEditor => self.wants_editor = true,
            Action::ModelSelect => self.command(Slash::Model(None)).await,
            Action::ModelCycleForward => self.cycle_model(CycleDirection::Forward).await,
            Action::ModelCycleBackward => self.cycle_model(CycleDirection::Backward).await,
            Action::ThinkingCycle => self.cycle_thinking().await,
            Action::ThinkingToggle => {
                self.hide_thinking = !self.hide_thinking;
                self.set_status(transcript::notice(if self.hide_thinking {
                    "Thinking is hidden from now on (ctrl+t shows it)"
                } else {
                    "Thinking is shown"
                }));
            }
            Action::ToolsExpand => self.show_last_result(),
            Action::FollowUp if self.task.is_some() => {
                let text = self.editor.take();
                self.submit(text, true).await;
            }
            Action::FollowUp | Action::NewLine => self.editor.new_line(),
            Action::Dequeue => self.dequeue(),
            Action::Submit => {
                let text = self.editor.take();
                self.submit(text, false).await;
            }
            Action::Tab => self.complete(),
            Action::CursorUp => self.editor.up(),
            Action::CursorDown => self.editor.down(),
            Action::CursorLeft => self.editor.left(),
            Action::CursorRight => self.editor.right(),
            Action::LineStart => self.editor.home(),
            Action::LineEnd => self.editor.end(),
            Action::DeleteCharBackward => self.editor.backspace(),
            Action::DeleteCharForward => self.editor.delete(),
            Action::DeleteWordBackward => self.editor.delete_word(),
            Action::DeleteToLineStart => self.editor.clear(),
            Action::SessionNew => self.command(Slash::New).await,
            Action::SessionTree => self.command(Slash::Tree).await,
            Action::SessionFork => self.command(Slash::Fork).await,
            Action::SessionResume => self.command(Slash::Resume).await,
            // Keys of the tree view only (handled there): elsewhere the key's next action.
            Action::TreeEditLabel
            | Action::TreeFilterDefault
            | Action::TreeFilterNoTools
            | Action::TreeFilterUserOnly
            | Action::TreeFilterLabeledOnly
            | Action::TreeFilterAll
            | Action::TreeFilterCycleForward
            | Action::TreeFilterCycleBackward
            | Action::SessionRename
            | Action::SessionDelete
            | Action::SessionToggleNamedFilter => return false,
        }
        true
    }

    pub(super) fn on_ctrl_c(&mut self) {
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
        self.tree_view = None;
        self.resume_view = None;
        self.deleting = None;
        if (self.labeling.take().is_some() || self.renaming.take().is_some())
            && let Some(draft) = self.stashed.take()
        {
            self.editor.set_text(&draft);
        }
        self.set_status(transcript::notice("Press Ctrl+C again to exit"));
    }

    /// A key while a call waits for approval; `false` when the key is not for the question
    /// (it then edits or aborts as usual).
    pub(super) fn on_ask_key(&mut self, key: KeyEvent) -> bool {
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
    pub(super) fn save_rule(&mut self, rule: String) {
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

    pub(super) fn abort(&mut self) {
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
    pub(super) async fn external_editor(
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
        // Private and new (not a name another user could have placed a link at): the draft
        // may hold anything the person typed.
        let draft = tempfile::Builder::new()
            .prefix("pi-tool-message-")
            .suffix(".md")
            .tempfile()?;
        std::fs::write(draft.path(), self.editor.text())?;
        let path = draft.path().to_path_buf();
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
        // Removed when dropped.
        drop(draft);
        Ok(())
    }

    pub(super) fn complete(&mut self) {
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

    pub(super) fn show_last_result(&mut self) {
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

    pub(super) fn set_status(&mut self, line: Line<'static>) {
        self.status = Some((line, Instant::now()));
    }
}
