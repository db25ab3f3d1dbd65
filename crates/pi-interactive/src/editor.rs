//! The multi-line input a person types prompts in: a cursor moving over lines of text, new
//! lines, and a history of what was sent (Up on the first line goes back, Down on the last
//! goes forward), as Pi's editor keeps it. Pure state, no terminal: the view draws it.

/// The most entries of history kept.
const HISTORY_LIMIT: usize = 500;

/// Lines of text and a cursor (line, character) in them.
#[derive(Debug, Clone)]
pub struct Editor {
    lines: Vec<String>,
    row: usize,
    /// The cursor's position in characters (not bytes) within its line.
    column: usize,
    history: Vec<String>,
    /// Where Up/Down is in the history; `None` while editing a new text.
    browsing: Option<usize>,
    /// The text being written when the history was entered, given back past its end.
    draft: String,
}

impl Default for Editor {
    fn default() -> Self {
        Self::new()
    }
}

impl Editor {
    /// An empty editor with no history.
    pub fn new() -> Self {
        Self {
            lines: vec![String::new()],
            row: 0,
            column: 0,
            history: Vec::new(),
            browsing: None,
            draft: String::new(),
        }
    }

    /// The whole text, lines joined by `\n`.
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// Whether nothing is typed.
    pub fn is_empty(&self) -> bool {
        self.lines.len() == 1 && self.lines.first().is_some_and(String::is_empty)
    }

    /// The lines, for drawing.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// The cursor: line and character.
    pub fn cursor(&self) -> (usize, usize) {
        (self.row, self.column)
    }

    /// Replaces the text, the cursor at its end.
    pub fn set_text(&mut self, text: &str) {
        self.lines = text.split('\n').map(str::to_owned).collect();
        if self.lines.is_empty() {
            self.lines.push(String::new());
        }
        self.row = self.lines.len() - 1;
        self.column = self.current().chars().count();
    }

    /// Empties the editor (the history stays).
    pub fn clear(&mut self) {
        self.set_text("");
        self.browsing = None;
    }

    /// Takes the text out to send it, and remembers it in the history.
    pub fn take(&mut self) -> String {
        let text = self.text();
        if !text.trim().is_empty() && self.history.last() != Some(&text) {
            self.history.push(text.clone());
            if self.history.len() > HISTORY_LIMIT {
                self.history.remove(0);
            }
        }
        self.clear();
        text
    }

    /// Types `text` at the cursor (a paste may hold new lines; carriage returns are dropped).
    pub fn insert(&mut self, text: &str) {
        for character in text.chars() {
            match character {
                '\n' => self.new_line(),
                '\r' => {}
                character => self.insert_char(character),
            }
        }
    }

    /// Types one character at the cursor.
    pub fn insert_char(&mut self, character: char) {
        let at = self.byte_at(self.column);
        let row = self.row;
        if let Some(line) = self.lines.get_mut(row) {
            line.insert(at, character);
            self.column += 1;
        }
    }

    /// Splits the line at the cursor.
    pub fn new_line(&mut self) {
        let at = self.byte_at(self.column);
        let row = self.row;
        let rest = self
            .lines
            .get_mut(row)
            .map(|line| line.split_off(at))
            .unwrap_or_default();
        self.lines.insert(row + 1, rest);
        self.row += 1;
        self.column = 0;
    }

    /// Deletes the character before the cursor (joining lines at a line's start).
    pub fn backspace(&mut self) {
        if self.column > 0 {
            let start = self.byte_at(self.column - 1);
            let end = self.byte_at(self.column);
            let row = self.row;
            if let Some(line) = self.lines.get_mut(row) {
                line.replace_range(start..end, "");
            }
            self.column -= 1;
        } else if self.row > 0 {
            let line = self.lines.remove(self.row);
            self.row -= 1;
            self.column = self.current().chars().count();
            let row = self.row;
            if let Some(previous) = self.lines.get_mut(row) {
                previous.push_str(&line);
            }
        }
    }

    /// Deletes the character under the cursor (joining the next line at a line's end).
    pub fn delete(&mut self) {
        let length = self.current().chars().count();
        if self.column < length {
            self.column += 1;
            self.backspace();
        } else if self.row + 1 < self.lines.len() {
            let next = self.lines.remove(self.row + 1);
            let row = self.row;
            if let Some(line) = self.lines.get_mut(row) {
                line.push_str(&next);
            }
        }
    }

    /// Deletes the word before the cursor (Ctrl+W).
    pub fn delete_word(&mut self) {
        while self.column > 0 && self.char_before().is_some_and(char::is_whitespace) {
            self.backspace();
        }
        while self.column > 0 && self.char_before().is_some_and(|c| !c.is_whitespace()) {
            self.backspace();
        }
    }

    /// Moves the cursor one character left (to the previous line's end at a line's start).
    pub fn left(&mut self) {
        if self.column > 0 {
            self.column -= 1;
        } else if self.row > 0 {
            self.row -= 1;
            self.column = self.current().chars().count();
        }
    }

    /// Moves the cursor one character right (to the next line's start at a line's end).
    pub fn right(&mut self) {
        if self.column < self.current().chars().count() {
            self.column += 1;
        } else if self.row + 1 < self.lines.len() {
            self.row += 1;
            self.column = 0;
        }
    }

    /// To the line's start.
    pub fn home(&mut self) {
        self.column = 0;
    }

    /// To the line's end.
    pub fn end(&mut self) {
        self.column = self.current().chars().count();
    }

    /// Up a line, or back in the history from the first line.
    pub fn up(&mut self) {
        if self.row > 0 {
            self.row -= 1;
            self.column = self.column.min(self.current().chars().count());
            return;
        }
        let next = match self.browsing {
            None if self.history.is_empty() => return,
            None => {
                self.draft = self.text();
                self.history.len() - 1
            }
            Some(0) => return,
            Some(at) => at - 1,
        };
        self.browsing = Some(next);
        let text = self.history.get(next).cloned().unwrap_or_default();
        self.set_text(&text);
        // Up again goes on back: the cursor on the first line.
        self.row = 0;
        self.column = self.column.min(self.current().chars().count());
    }

    /// Down a line, or forward in the history from the last line (past its end: the draft).
    pub fn down(&mut self) {
        if self.row + 1 < self.lines.len() {
            self.row += 1;
            self.column = self.column.min(self.current().chars().count());
            return;
        }
        let Some(at) = self.browsing else {
            return;
        };
        if at + 1 < self.history.len() {
            self.browsing = Some(at + 1);
            let text = self.history.get(at + 1).cloned().unwrap_or_default();
            self.set_text(&text);
        } else {
            self.browsing = None;
            let draft = std::mem::take(&mut self.draft);
            self.set_text(&draft);
        }
    }

    /// The word before the cursor (since the last whitespace), for completion.
    pub fn word_before_cursor(&self) -> String {
        let before: Vec<char> = self.current().chars().take(self.column).collect();
        let start = before
            .iter()
            .rposition(|c| c.is_whitespace())
            .map_or(0, |at| at + 1);
        before.get(start..).unwrap_or_default().iter().collect()
    }

    /// Replaces the word before the cursor with `word`.
    pub fn replace_word_before_cursor(&mut self, word: &str) {
        let length = self.word_before_cursor().chars().count();
        for _ in 0..length {
            self.backspace();
        }
        self.insert(word);
    }

    fn current(&self) -> &str {
        self.lines.get(self.row).map_or("", String::as_str)
    }

    fn char_before(&self) -> Option<char> {
        self.current().chars().nth(self.column.checked_sub(1)?)
    }

    /// The byte offset of character `column` in the cursor's line.
    fn byte_at(&self, column: usize) -> usize {
        let line = self.current();
        line.char_indices()
            .nth(column)
            .map_or(line.len(), |(at, _)| at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_new_lines_and_deleting() {
        let mut editor = Editor::new();
        editor.insert("héllo");
        editor.new_line();
        editor.insert("wörld");
        assert_eq!(editor.text(), "héllo\nwörld");
        editor.home();
        editor.backspace();
        assert_eq!(editor.text(), "héllowörld");
        assert_eq!(editor.cursor(), (0, 5));
        editor.delete();
        assert_eq!(editor.text(), "hélloörld");
        editor.end();
        editor.delete_word();
        assert_eq!(editor.text(), "");
    }

    #[test]
    fn history_goes_back_and_forward_to_the_draft() {
        let mut editor = Editor::new();
        editor.insert("first");
        assert_eq!(editor.take(), "first");
        editor.insert("second\nline");
        editor.take();
        editor.insert("draft");
        editor.up();
        assert_eq!(editor.text(), "second\nline");
        editor.up();
        assert_eq!(editor.text(), "first");
        editor.up();
        assert_eq!(editor.text(), "first");
        editor.down();
        assert_eq!(editor.text(), "second\nline");
        editor.down();
        editor.down();
        assert_eq!(editor.text(), "draft");
    }

    #[test]
    fn the_word_before_the_cursor_is_replaced() {
        let mut editor = Editor::new();
        editor.insert("look at @src/ma");
        assert_eq!(editor.word_before_cursor(), "@src/ma");
        editor.replace_word_before_cursor("@src/main.rs ");
        assert_eq!(editor.text(), "look at @src/main.rs ");
        assert_eq!(editor.word_before_cursor(), "");
    }

    #[test]
    fn a_paste_keeps_its_lines() {
        let mut editor = Editor::new();
        editor.insert("a\r\nb\nc");
        assert_eq!(editor.lines(), ["a", "b", "c"]);
        assert!(!editor.is_empty());
        editor.clear();
        assert!(editor.is_empty());
    }
}
