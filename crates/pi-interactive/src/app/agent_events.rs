//! The session's events, the calls asked about, and the end of a task, turned into the
//! transcript's lines.

use super::*;

impl App {
    pub(super) fn on_agent(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::MessageStart { message } => match &*message {
                Message::User(user) => {
                    self.pending.extend(self.stream.finish());
                    let text = user_text(user);
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
                if let Message::Assistant(answer) = &*message {
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
                let Some(result) = result.as_tool_result() else {
                    return;
                };
                let text = result.text();
                self.pending
                    .extend(tool_view::result_lines(&text, is_error));
                self.pending.extend(tool_view::image_lines(&result.content));
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

    pub(super) fn on_ask(&mut self, ask: ApprovalAsk) {
        let first = self.asks.is_empty();
        self.asks.push_back(ask);
        if first {
            self.show_ask();
        }
    }

    /// Writes the call at the queue's front to the scrollback and readies the choices.
    pub(super) fn show_ask(&mut self) {
        self.ask_input = AskInput::Choosing;
        if let Some(ask) = self.asks.front() {
            self.pending.extend(self.stream.finish());
            self.pending
                .extend(approval_view::details(&ask.request, &self.cwd));
        }
    }

    pub(super) fn answer(&mut self, answer: Answer) {
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

    pub(super) fn on_done(&mut self, done: Done) {
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
    pub(super) fn show_shell(&mut self, command: &str, execution: &BashExecution) {
        self.pending.push(tool_view::start_line(
            "bash",
            &serde_json::json!({"command": command}),
        ));
        let failed = execution.cancelled || execution.exit_code != Some(0);
        // The output keeps its last line end (Pi's record); the transcript needs none.
        let mut shown = execution.output.trim_end().to_owned();
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
    pub(super) fn dequeue(&mut self) {
        self.restore_queue();
        self.queued.clear();
    }

    /// After an abort, the messages still queued go back to the editor, as Pi does.
    pub(super) fn restore_queue(&mut self) {
        let Ok(session) = self.host.session() else {
            return;
        };
        let mut texts: Vec<String> = session
            .clear_queues()
            .into_iter()
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
}
