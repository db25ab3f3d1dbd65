//! A list to choose from in the viewport (`/model`, `/resume`, `/fork`, `/scoped-models`): Up and Down move,
//! typing filters, Enter chooses, Esc closes.

use pi_coding_agent::visible;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::path::PathBuf;

/// What choosing an item does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Pick {
    /// Switch to this provider's model.
    Model(String, String),
    /// Go on in this session file.
    Resume(PathBuf),
    /// Fork at this user message's entry.
    Fork(String),
    /// Go to this message of the session's tree.
    Tree(String),
    /// Change this setting (`/settings`).
    Setting(Setting),
    /// Turn this provider's model on or off in Ctrl+P's scope (`/scoped-models`).
    Scope(String, String),
    /// Save the scope to the settings' `enabledModels`.
    SaveScope,
}

/// A setting `/settings` changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Setting {
    /// The model's thinking level (`defaultThinkingLevel`).
    Thinking,
    /// Automatic compaction (`compaction.enabled`).
    AutoCompaction,
    /// Steering messages delivered one at a time or all at once (`steeringMode`).
    SteeringMode,
    /// Follow-ups delivered one at a time or all at once (`followUpMode`).
    FollowUpMode,
}

/// The list, its filter and the selected item.
#[derive(Debug, Clone)]
pub(crate) struct Picker {
    title: String,
    items: Vec<(String, Pick)>,
    filter: String,
    selected: usize,
}

impl Picker {
    /// A picker over `items` (label, action), the first selected.
    pub(crate) fn new(title: &str, items: Vec<(String, Pick)>) -> Self {
        Self {
            title: title.to_owned(),
            items,
            filter: String::new(),
            selected: 0,
        }
    }

    fn matching(&self) -> Vec<&(String, Pick)> {
        let filter = self.filter.to_lowercase();
        self.items
            .iter()
            .filter(|(label, _)| label.to_lowercase().contains(&filter))
            .collect()
    }

    /// The same picker with item `index` selected.
    pub(crate) fn selecting(mut self, index: usize) -> Self {
        self.selected = index.min(self.items.len().saturating_sub(1));
        self
    }

    /// The selection one up.
    pub(crate) fn up(&mut self) {
        self.selected = self.selected.saturating_sub(1);
    }

    /// The selection one down.
    pub(crate) fn down(&mut self) {
        let count = self.matching().len();
        if self.selected + 1 < count {
            self.selected += 1;
        }
    }

    /// Types into the filter.
    pub(crate) fn push_filter(&mut self, character: char) {
        self.filter.push(character);
        self.selected = 0;
    }

    /// Deletes from the filter.
    pub(crate) fn pop_filter(&mut self) {
        self.filter.pop();
        self.selected = 0;
    }

    /// The selected item's action.
    pub(crate) fn chosen(&self) -> Option<Pick> {
        self.matching()
            .get(self.selected)
            .map(|(_, pick)| pick.clone())
    }

    /// The title and at most `rows` items around the selection.
    pub(crate) fn lines(&self, rows: usize) -> Vec<Line<'static>> {
        let matching = self.matching();
        let first = self.selected.saturating_sub(rows.saturating_sub(1));
        let mut lines = vec![Line::from(vec![
            Span::styled(
                visible(&self.title).into_owned(),
                Style::default().add_modifier(Modifier::BOLD),
            ),
            Span::styled(
                format!(
                    "  (↑↓ move, Enter chooses, Esc closes; filter: {})",
                    visible(&self.filter)
                ),
                Style::default().add_modifier(Modifier::DIM),
            ),
        ])];
        for (index, (label, _)) in matching.iter().enumerate().skip(first).take(rows) {
            let (lead, style) = if index == self.selected {
                (
                    "› ",
                    Style::default()
                        .fg(Color::Cyan)
                        .add_modifier(Modifier::BOLD),
                )
            } else {
                ("  ", Style::default())
            };
            lines.push(Line::from(Span::styled(
                format!("{lead}{}", visible(label)),
                style,
            )));
        }
        if matching.is_empty() {
            lines.push(Line::from(Span::styled(
                "  (nothing matches)",
                Style::default().add_modifier(Modifier::DIM),
            )));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_screen::render;

    #[test]
    fn filtering_and_choosing() {
        let mut picker = Picker::new(
            "Choose a model",
            vec![
                (
                    "local/a".to_owned(),
                    Pick::Model("local".into(), "a".into()),
                ),
                (
                    "local/b".to_owned(),
                    Pick::Model("local".into(), "b".into()),
                ),
                (
                    "other/c".to_owned(),
                    Pick::Model("other".into(), "c".into()),
                ),
            ],
        );
        picker.down();
        assert_eq!(
            picker.chosen(),
            Some(Pick::Model("local".into(), "b".into()))
        );
        picker.push_filter('o');
        picker.push_filter('t');
        assert_eq!(
            picker.chosen(),
            Some(Pick::Model("other".into(), "c".into()))
        );
        let shown = render(picker.lines(5), 70, 2);
        assert_eq!(
            shown,
            "Choose a model  (↑↓ move, Enter chooses, Esc closes; filter: ot)\n› other/c"
        );
    }
}
