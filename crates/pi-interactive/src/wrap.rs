//! Styled lines cut to the terminal's width, so that the rows inserted into the scrollback are
//! exactly the rows the terminal shows (a row the terminal wrapped by itself would push the
//! viewport out of place).

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// Columns between tab stops.
const TAB_STOP: usize = 4;

/// `line` as rows of at most `width` columns, its spans' styles kept; a line with no text is
/// one empty row. Characters wider than `width` still get a row of their own.
pub(crate) fn wrap_line(line: &Line<'static>, width: u16) -> Vec<Line<'static>> {
    let width = usize::from(width.max(1));
    let mut rows = Vec::new();
    let mut row: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for span in &line.spans {
        let style = span.style.patch(line.style);
        let mut piece = String::new();
        for character in span.content.chars() {
            // A tab is spaces to the next stop: ratatui drops control characters, and the
            // terminal would move the cursor by itself.
            let (character, wide) = match character {
                '\t' => (' ', TAB_STOP - used % TAB_STOP),
                other => (other, other.width().unwrap_or(0)),
            };
            let count = if character == ' ' { wide.max(1) } else { 1 };
            if used + wide > width && used > 0 {
                if !piece.is_empty() {
                    row.push(Span::styled(std::mem::take(&mut piece), style));
                }
                rows.push(Line::from(std::mem::take(&mut row)));
                used = 0;
            }
            for _ in 0..count {
                piece.push(character);
            }
            used += wide.max(usize::from(character == ' '));
        }
        if !piece.is_empty() {
            row.push(Span::styled(piece, style));
        }
    }
    rows.push(Line::from(row));
    rows
}

/// Every line of `lines` wrapped, in order.
pub(crate) fn wrap_lines(lines: &[Line<'static>], width: u16) -> Vec<Line<'static>> {
    lines
        .iter()
        .flat_map(|line| wrap_line(line, width))
        .collect()
}

/// The text of `line` without styles (for tests and for measuring).
#[cfg(test)]
pub(crate) fn plain(line: &Line<'_>) -> String {
    line.spans
        .iter()
        .map(|span| span.content.as_ref())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::{Color, Style};

    #[test]
    fn long_lines_are_cut_at_the_width_keeping_styles() {
        let line = Line::from(vec![
            Span::styled("abcd", Style::default().fg(Color::Red)),
            Span::raw("efg"),
        ]);
        let rows = wrap_line(&line, 3);
        let texts: Vec<String> = rows.iter().map(plain).collect();
        assert_eq!(texts, ["abc", "def", "g"]);
        assert_eq!(rows[1].spans[0].style.fg, Some(Color::Red));
        assert_eq!(rows[1].spans[1].style.fg, None);
    }

    #[test]
    fn tabs_become_spaces_to_the_next_stop() {
        let rows = wrap_line(&Line::from("a\tb\t\tc"), 40);
        assert_eq!(plain(&rows[0]), "a   b       c");
    }

    #[test]
    fn wide_characters_are_not_split_and_empty_lines_stay() {
        let rows = wrap_line(&Line::from("日本語"), 5);
        let texts: Vec<String> = rows.iter().map(plain).collect();
        assert_eq!(texts, ["日本", "語"]);
        assert_eq!(wrap_line(&Line::from(""), 10).len(), 1);
    }
}
