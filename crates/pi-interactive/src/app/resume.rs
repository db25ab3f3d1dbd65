//! `/resume`: the other sessions of this project, newest first, to continue one; as Pi's
//! picker, typing searches, Ctrl+N shows named sessions only, Ctrl+R renames the selected
//! session (its new name typed in the editor), Ctrl+D deletes it (Ctrl+D again confirms).

use super::text_entry::TextEntry;
use super::*;

impl App {
    /// Opens the list (`named_only`: sessions with a name), `select` selected when listed.
    pub(super) fn open_resume(&mut self, named_only: bool, select: Option<&std::path::Path>) {
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
        let listing = match listing {
            Ok(listing) => listing,
            Err(error) => {
                self.pending.push(transcript::error(&error));
                return;
            }
        };
        let sessions: Vec<_> = listing
            .sessions
            .into_iter()
            .filter(|summary| Some(&summary.path) != current.as_ref())
            .filter(|summary| !named_only || summary.name.is_some())
            .collect();
        if sessions.is_empty() && !named_only {
            self.pending
                .push(transcript::notice("No other session in this project."));
            return;
        }
        let selected = select
            .and_then(|path| sessions.iter().position(|summary| summary.path == path))
            .unwrap_or(0);
        let items = sessions
            .into_iter()
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
        let title = if named_only {
            "Resume which named session? (Ctrl+N: all; Ctrl+R renames, Ctrl+D deletes)"
        } else {
            "Resume which session? (Ctrl+N: named only; Ctrl+R renames, Ctrl+D deletes)"
        };
        self.picker = Some(Picker::new(title, items).selecting(selected));
        self.resume_view = Some(named_only);
    }

    /// A key of the open list: Ctrl+N, Ctrl+R or Ctrl+D; `false` for the picker's keys.
    pub(super) fn on_resume_key(&mut self, actions: &[Action]) -> bool {
        let Some(named_only) = self.resume_view else {
            return false;
        };
        if self.picker.is_none() || self.renaming.is_some() {
            return false;
        }
        let selected = match self.picker.as_ref().and_then(Picker::chosen) {
            Some(Pick::Resume(path)) => Some(path),
            _ => None,
        };
        let Some(action) = actions.iter().find(|action| {
            matches!(
                action,
                Action::SessionToggleNamedFilter | Action::SessionRename | Action::SessionDelete
            )
        }) else {
            // Any other key gives up a delete asked for.
            self.deleting = None;
            return false;
        };
        match action {
            Action::SessionToggleNamedFilter => {
                self.deleting = None;
                self.open_resume(!named_only, selected.as_deref());
            }
            Action::SessionRename => {
                let Some(path) = selected else {
                    return true;
                };
                self.stashed = Some(self.editor.take());
                self.renaming = Some(path);
                self.picker = None;
            }
            _ => {
                let Some(path) = selected else {
                    return true;
                };
                if self.deleting.as_ref() == Some(&path) {
                    self.deleting = None;
                    match pi_coding_agent::delete_session_file(&path) {
                        Ok(()) => self
                            .pending
                            .push(transcript::notice(&format!("Deleted {}", path.display()))),

                        Err(error) => self
                            .pending
                            .push(transcript::error(&pi_tool::error_text(&error))),
                    }
                    self.open_resume(named_only, None);
                } else {
                    // The question is shown over the list (crate::app::view).
                    self.deleting = Some(path);
                }
            }
        }
        true
    }

    /// A key while the editor holds a session's new name: Enter saves it, Esc goes back to
    /// the list; `false` for the editor's keys.
    pub(super) fn on_rename_key(&mut self, key: KeyEvent) -> bool {
        let Some(path) = self.renaming.clone() else {
            return false;
        };
        match self.text_entry_key(key) {
            TextEntry::Editing => return false,
            TextEntry::Cancelled => {}
            TextEntry::Entered(name) => {
                let name = name.trim();
                if !name.is_empty()
                    && let Err(error) = pi_coding_agent::rename_session_file(&path, name)
                {
                    self.pending
                        .push(transcript::error(&pi_tool::error_text(&error)));
                }
            }
        }
        self.renaming = None;
        let named_only = self.resume_view.unwrap_or(false);
        self.open_resume(named_only, Some(&path));
        true
    }
}
