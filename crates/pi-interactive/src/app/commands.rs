//! The slash commands and the pickers they open; the session changes they make through the
//! host; the footer read from the session.

use super::*;

impl App {
    pub(super) async fn command(&mut self, command: Slash) {
        let changes_session = !matches!(
            command,
            Slash::Hotkeys
                | Slash::Quit
                | Slash::Session
                | Slash::Copy
                | Slash::Export(_)
                | Slash::ScopedModels
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
                let keys = self.bindings.key_list();
                self.pending.extend(
                    keys.iter()
                        .map(String::as_str)
                        .chain(slash::TYPED_KEYS.lines())
                        .map(transcript::notice),
                );
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
            Slash::Reload => {
                let (bindings, warnings) =
                    KeyBindings::load(self.host.setup().agent_dir.as_deref());
                self.bindings = bindings;
                let result = self
                    .host
                    .reload()
                    .await
                    .map(|changed| warnings.into_iter().chain(changed.warnings).collect());
                self.after_change(
                    result,
                    "Reloaded keybindings, settings, skills, prompt templates and context files",
                );
            }
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
            Slash::Resume => self.open_resume(false, None),
            Slash::ScopedModels => self.open_scope(0),
            Slash::Import(file) => {
                let path = match file.strip_prefix("~/") {
                    Some(rest) => std::env::var_os("HOME").map_or_else(
                        || PathBuf::from(&file),
                        |home| PathBuf::from(home).join(rest),
                    ),
                    None => self.cwd.join(&file),
                };
                let result = self.host.import_session(&path).await;
                let said = match &result {
                    Ok((copy, _)) => format!(
                        "Session imported from {} (now {})",
                        path.display(),
                        copy.display()
                    ),
                    Err(_) => String::new(),
                };
                let ok = result.is_ok();
                self.after_change(result.map(|(_, changed)| changed.warnings), &said);
                if ok {
                    self.show_history();
                }
            }
            Slash::Settings => self.open_settings(0),
            Slash::Tree => {
                let filter = self.settings_tree_filter();
                self.open_tree(filter, None);
            }
            Slash::Copy => self.copy_last_answer(),
            Slash::Export(target) => self.export(target.as_deref()),
        }
    }

    pub(super) fn copy_last_answer(&mut self) {
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

    /// `/export [FILE]`, as Pi's: a `.jsonl` name gets a copy of the session file; any other
    /// name, or none (`pi-session-<file name>.html`), one self-contained HTML page.
    pub(super) fn export(&mut self, target: Option<&str>) {
        let Ok(session) = self.host.session() else {
            return;
        };
        let Some(source) = session.session_file() else {
            self.pending.push(transcript::error(
                "This session is not kept in a file (--no-session).",
            ));
            return;
        };
        let written = match target {
            Some(target) if target.ends_with(".jsonl") => {
                let destination = self.cwd.join(target);
                std::fs::copy(&source, &destination)
                    .map(|_| destination.clone())
                    .map_err(|error| format!("Could not write {}: {error}", destination.display()))
            }
            _ => {
                let destination = self.cwd.join(target.map_or_else(
                    || pi_coding_agent::default_export_path(&source),
                    std::path::PathBuf::from,
                ));
                session
                    .export_html(Some(&destination))
                    .map_err(|error| pi_tool::error_text(&error))
            }
        };
        match written {
            Ok(path) => self.pending.push(transcript::notice(&format!(
                "Session exported to: {}",
                path.display()
            ))),
            Err(error) => self.pending.push(transcript::error(&error)),
        }
    }

    pub(super) async fn on_picker_key(&mut self, key: KeyEvent) {
        let Some(picker) = &mut self.picker else {
            return;
        };
        match key.code {
            KeyCode::Esc => {
                self.picker = None;
                self.tree_view = None;
                self.resume_view = None;
            }
            KeyCode::Up => picker.up(),
            KeyCode::Down => picker.down(),
            KeyCode::Backspace => picker.pop_filter(),
            KeyCode::Char(character) => picker.push_filter(character),
            KeyCode::Enter => {
                let chosen = picker.chosen();
                self.picker = None;
                self.tree_view = None;
                self.resume_view = None;
                if let Some(chosen) = chosen {
                    self.pick(chosen).await;
                }
            }
            _ => {}
        }
    }

    pub(super) async fn pick(&mut self, pick: Pick) {
        match pick {
            Pick::Scope(provider, id) => self.toggle_scoped(&provider, &id),
            Pick::SaveScope => self.save_scope(),
            Pick::Setting(setting) => self.change_setting(setting).await,
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

    pub(super) async fn switch_model(&mut self, pattern: &str) {
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

    pub(super) async fn cycle_model(&mut self, direction: CycleDirection) {
        if self.task.is_some() {
            self.set_status(transcript::error("The model changes between runs."));
            return;
        }
        match self.host.cycle_model_toward(direction).await {
            Ok(None) if self.host.scope().is_empty() => {
                self.set_status(transcript::notice("Only one model has a key"));
            }
            Ok(None) => self.set_status(transcript::notice(
                "Only one model of the scope has a key (/scoped-models changes it)",
            )),
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

    pub(super) async fn cycle_thinking(&mut self) {
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
    pub(super) fn after_change(&mut self, result: Result<Vec<String>, HostError>, said: &str) {
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

    pub(super) fn show_session(&mut self) {
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

    pub(super) fn show_history(&mut self) {
        let Ok(session) = self.host.session() else {
            return;
        };
        let messages = session.messages();
        self.show_messages(messages.as_deref());
    }

    /// The session's messages (as [`App::show_history`] reads them) into the scrollback.
    pub(super) fn show_messages(&mut self, messages: Result<&[Message], &RuntimeError>) {
        match messages {
            Ok(messages) if !messages.is_empty() => {
                self.pending
                    .extend(transcript::history_lines(messages, HISTORY_SHOWN));
            }
            Ok(_) => {}
            Err(error) => self
                .pending
                .push(transcript::error(&pi_tool::error_text(error))),
        }
    }

    /// The footer from the session: tokens and cost summed, the last answer's context.
    pub(super) fn refresh_footer(&mut self) {
        let messages = self.host.session().ok().map(|session| session.messages());
        self.set_footer(messages.as_ref().and_then(|read| read.as_deref().ok()));
    }

    /// The footer from the session's `messages` (when they could be read).
    pub(super) fn set_footer(&mut self, messages: Option<&[Message]>) {
        let model = self.host.model();
        let mut footer = FooterInfo {
            cwd: home_relative(&self.cwd),
            model: model.model.reference(),
            thinking: model.thinking_level.to_string(),
            context_window: model.model.context_window,
            ..FooterInfo::default()
        };
        let scope = self.host.scope();
        if !scope.is_empty() {
            let place = scope.entries().iter().position(|entry| {
                entry.provider == model.model.provider && entry.id == model.model.id
            });
            footer.scope = Some((place, scope.entries().len()));
        }
        if let Ok(session) = self.host.session() {
            footer.session_name = session.name();
            if let Some(messages) = messages {
                for message in messages {
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
