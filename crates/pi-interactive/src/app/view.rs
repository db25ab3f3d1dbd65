//! Drawing the viewport: the scrollback's new lines inserted above it, then the live lines,
//! the queue, the editor and the footer.

use super::*;

impl App {
    pub(super) fn draw(&mut self, screen: &mut Screen) -> std::io::Result<()> {
        if let Some(sequence) = self.clipboard.take() {
            use std::io::Write as _;
            let backend = screen.backend_mut();
            backend.write_all(sequence.as_bytes())?;
            backend.flush()?;
        }
        // An expired status line is dropped here, so the timer that waited for it stops.
        if self
            .status
            .as_ref()
            .is_some_and(|(_, at)| at.elapsed() >= STATUS_SHOWN)
        {
            self.status = None;
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

    /// The lines waiting for the scrollback, printed at the cursor before the viewport
    /// exists (see [`crate::scrollback`]).
    pub(crate) fn print_pending(&mut self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let (width, _) = crossterm::terminal::size()?;
        let lines = std::mem::take(&mut self.pending);
        crate::scrollback::print_lines(out, &lines, width)
    }

    pub(super) fn insert_pending(&mut self, screen: &mut Screen) -> std::io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let width = screen.size()?.width;
        let rows = wrap_lines(&self.pending, width);
        self.pending.clear();
        for chunk in rows.chunks(256) {
            let height = u16::try_from(chunk.len()).unwrap_or(u16::MAX);
            screen.insert_before(height, |buffer| {
                crate::inserted_rows::render_rows(chunk, buffer);
            })?;
        }
        Ok(())
    }

    /// Draws the viewport; gives where the cursor goes.
    pub(super) fn render(
        &self,
        area: Rect,
        buffer: &mut ratatui::buffer::Buffer,
    ) -> Option<(u16, u16)> {
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

    pub(super) fn render_editor(
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
    pub(super) fn live_lines(&self) -> Vec<Line<'static>> {
        if let Some(picker) = &self.picker {
            if self.deleting.is_some() {
                let mut lines = vec![Line::from(Span::styled(
                    "Delete this session? Ctrl+D again deletes its file; any other key keeps it.",
                    Style::default().fg(Color::Red),
                ))];
                lines.extend(picker.lines(7));
                return lines;
            }
            return picker.lines(8);
        }
        if self.renaming.is_some() {
            return vec![Line::from(Span::styled(
                "The session's new name (Enter saves; Esc goes back to the list):",
                Style::default().fg(Color::Magenta),
            ))];
        }
        if self.labeling.is_some() {
            return vec![Line::from(Span::styled(
                "The entry's label (Enter saves, empty clears it; Esc goes back to the tree):",
                Style::default().fg(Color::Magenta),
            ))];
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
}
