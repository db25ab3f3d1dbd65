//! `/tree`: every entry of the session's tree that the filter lets through (Pi's modes:
//! default, no-tools, user-only, labeled-only, all; Ctrl+O cycles them, Ctrl+D/T/U/L/A pick
//! one; the settings' `treeFilterMode` the first), with its label; Shift+L sets or clears the selected entry's label in the editor (a
//! `label` entry, as Pi records it); Enter goes there.

use super::text_entry::TextEntry;
use super::*;

impl App {
    /// The filter the settings' `treeFilterMode` names (read when `/tree` opens, as Pi reads
    /// it), else the default one; a settings file that cannot be read is the default too.
    pub(super) fn settings_tree_filter(&self) -> TreeFilter {
        let setup = self.host.setup();
        pi_coding_agent::load_settings(
            setup.agent_dir.as_deref(),
            &setup.cwd,
            setup.approvals.project_trusted,
        )
        .ok()
        .and_then(|settings| settings.tree_filter_mode)
        .and_then(|mode| TreeFilter::from_setting(&mode))
        .unwrap_or_default()
    }

    /// Opens the tree through `filter`, `select` (else where the session is) selected.
    pub(super) fn open_tree(&mut self, filter: TreeFilter, select: Option<&str>) {
        let Ok(session) = self.host.session() else {
            return;
        };
        let points = session.tree_points();
        if points.is_empty() {
            self.pending
                .push(transcript::error("The session has no message yet."));
            return;
        }
        let shown: Vec<_> = points
            .into_iter()
            .filter(|point| filter.shows(point))
            .collect();
        let selected = select
            .and_then(|id| shown.iter().position(|point| point.entry_id == id))
            .or_else(|| shown.iter().rposition(|point| point.on_branch))
            .unwrap_or(0);
        let items = shown
            .into_iter()
            .map(|point| {
                let mark = if point.on_branch { "•" } else { " " };
                let label = point
                    .label
                    .as_deref()
                    .map(|label| format!("[{}] ", tool_view::one_line(label, 30)))
                    .unwrap_or_default();
                (
                    format!(
                        "{}{mark} {label}{}: {}",
                        "  ".repeat(point.depth.min(8)),
                        point.role,
                        tool_view::one_line(&point.text, 80)
                    ),
                    Pick::Tree(point.entry_id),
                )
            })
            .collect();
        let title = format!(
            "Go to which entry? (• the current branch; filter {}: Ctrl+O; Shift+L labels)",
            filter.name()
        );
        self.picker = Some(Picker::new(&title, items).selecting(selected));
        self.tree_view = Some(filter);
    }

    /// A key of the open tree: a filter key or Shift+L; `false` for the picker's keys.
    pub(super) fn on_tree_key(&mut self, actions: &[Action]) -> bool {
        let Some(filter) = self.tree_view else {
            return false;
        };
        if self.picker.is_none() || self.labeling.is_some() {
            return false;
        }
        let selected = match self.picker.as_ref().and_then(Picker::chosen) {
            Some(Pick::Tree(entry)) => Some(entry),
            _ => None,
        };
        for action in actions {
            let next = match action {
                Action::TreeFilterDefault => TreeFilter::Default,
                Action::TreeFilterNoTools => filter.toggled(TreeFilter::NoTools),
                Action::TreeFilterUserOnly => filter.toggled(TreeFilter::UserOnly),
                Action::TreeFilterLabeledOnly => filter.toggled(TreeFilter::LabeledOnly),
                Action::TreeFilterAll => filter.toggled(TreeFilter::All),
                Action::TreeFilterCycleForward => filter.cycled(true),
                Action::TreeFilterCycleBackward => filter.cycled(false),
                Action::TreeEditLabel => {
                    let Some(entry) = selected else {
                        return true;
                    };
                    let current = self.host.session().ok().and_then(|session| {
                        session.with_entries(|s| s.label_of(&entry).map(str::to_owned))
                    });
                    self.stashed = Some(self.editor.take());
                    self.editor.set_text(current.as_deref().unwrap_or(""));
                    self.labeling = Some(entry);
                    self.picker = None;
                    return true;
                }
                _ => continue,
            };
            self.open_tree(next, selected.as_deref());
            return true;
        }
        false
    }

    /// A key while the editor holds a label: Enter saves it (empty: cleared), Esc goes back
    /// to the tree; `false` for the editor's keys.
    pub(super) fn on_label_key(&mut self, key: KeyEvent) -> bool {
        let Some(entry) = self.labeling.clone() else {
            return false;
        };
        match self.text_entry_key(key) {
            TextEntry::Editing => return false,
            TextEntry::Cancelled => {}
            TextEntry::Entered(text) => {
                let result = self
                    .host
                    .session()
                    .map_err(|error| error.to_string())
                    .and_then(|session| {
                        session
                            .set_label(&entry, Some(&text))
                            .map_err(|error| pi_tool::error_text(&error))
                    });
                if let Err(error) = result {
                    self.pending.push(transcript::error(&error));
                }
            }
        }
        self.labeling = None;
        let filter = self.tree_view.unwrap_or_default();
        self.open_tree(filter, Some(&entry));
        true
    }
}
