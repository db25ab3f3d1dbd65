//! The transcript's rows as drawn into the buffer `Terminal::insert_before` hands over.
//!
//! Ratatui 0.30's `insert_before` (without its `scrolling-regions` feature) prints every cell
//! of that buffer in order, the hidden cell after a wide character (CJK, most emoji) too: as
//! a space, written where the terminal's cursor already is, one column past the wide
//! character. Each wide character then pushes the rest of its row one column right, cells
//! fall off the row's end, and a row that overflows on the screen's last line scrolls the
//! terminal under ratatui, leaving pieces of the old viewport among the transcript
//! (ratatui issue 1332, unfixed in the release we use). The hidden cells are given an empty
//! symbol here: nothing is printed for them and the next cell lands where it belongs.

use ratatui::buffer::{Buffer, CellWidth};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

/// Renders `rows` (already cut to the buffer's width) into `buffer` so that the cells a wide
/// character covers print nothing.
pub(crate) fn render_rows(rows: &[Line<'static>], buffer: &mut Buffer) {
    Paragraph::new(rows.to_vec()).render(buffer.area, buffer);
    let area = buffer.area;
    for y in area.top()..area.bottom() {
        let mut x = area.left();
        while x < area.right() {
            let width = buffer
                .cell((x, y))
                .map_or(1, |cell| cell.cell_width().max(1));
            for covered in x.saturating_add(1)..x.saturating_add(width).min(area.right()) {
                if let Some(cell) = buffer.cell_mut((covered, y)) {
                    cell.set_symbol("");
                }
            }
            x = x.saturating_add(width);
        }
    }
}

#[cfg(test)]
mod tests {
    use ratatui::backend::{Backend, CrosstermBackend};
    use ratatui::layout::Rect;

    use super::*;

    /// What a terminal shows after the cells are drawn the way `insert_before` draws them:
    /// each cell in order, a cursor move only where a cell does not follow the one before.
    fn shown(rows: &[Line<'static>], width: u16) -> Vec<String> {
        let height = u16::try_from(rows.len()).unwrap();
        let mut buffer = Buffer::empty(Rect::new(0, 0, width, height));
        render_rows(rows, &mut buffer);
        let mut bytes = Vec::new();
        let mut backend = CrosstermBackend::new(&mut bytes);
        let cells = buffer.content.iter().enumerate().map(|(index, cell)| {
            let index = u16::try_from(index).unwrap();
            (index % width, index / width, cell)
        });
        backend.draw(cells).unwrap();
        let mut terminal = vt100::Parser::new(height + 1, width, 0);
        terminal.process(&bytes);
        terminal
            .screen()
            .rows(0, width)
            .take(rows.len())
            .map(|row| row.trim_end().to_owned())
            .collect()
    }

    #[test]
    fn wide_characters_keep_the_rest_of_their_row_in_place() {
        let rows = vec![Line::from("仏a仰b介cdefgh|"), Line::from("📂 folder 📂 x|")];
        let shown = shown(&rows, 16);
        assert_eq!(shown, ["仏a仰b介cdefgh|", "📂 folder 📂 x|"]);
    }

    #[test]
    fn a_row_ending_one_column_short_of_a_wide_character_leaves_nothing_on_the_next() {
        // 9 columns of text and a wide character that did not fit: the row's last cell is
        // blank, and the row below is untouched by any overflow.
        let rows = vec![Line::from("仏仏仏仏a"), Line::from("next")];
        let shown = shown(&rows, 10);
        assert_eq!(shown, ["仏仏仏仏a", "next"]);
    }

    #[test]
    fn combining_marks_stay_with_their_character() {
        let rows = vec![Line::from("仏\u{485} x\u{489}y|")];
        let shown = shown(&rows, 8);
        assert_eq!(shown, ["仏\u{485} x\u{489}y|"]);
    }
}
