//! A short text typed in the editor for a picker (a session's new name, an entry's label):
//! Enter gives it, Esc gives it up; either way the draft the editor held before comes back.

use super::*;

/// What a key did to a text being entered.
pub(super) enum TextEntry {
    /// Not Enter or Esc: the editor's key.
    Editing,
    /// Esc: nothing is saved.
    Cancelled,
    /// Enter, with the text typed.
    Entered(String),
}

impl App {
    /// Reads `key` for the text in the editor; on Enter or Esc the editor gets back the
    /// draft it held before the entry began.
    pub(super) fn text_entry_key(&mut self, key: KeyEvent) -> TextEntry {
        let entry = match key.code {
            KeyCode::Esc => {
                self.editor.clear();
                TextEntry::Cancelled
            }
            KeyCode::Enter if key.modifiers.is_empty() => TextEntry::Entered(self.editor.take()),
            _ => return TextEntry::Editing,
        };
        if let Some(draft) = self.stashed.take() {
            self.editor.set_text(&draft);
        }
        entry
    }
}
