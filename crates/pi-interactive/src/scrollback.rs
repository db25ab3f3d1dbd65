//! Lines written straight into the terminal's scrollback before the viewport exists: a resumed
//! session's history at start. `Terminal::insert_before` would draw them a screen at a time,
//! redrawing the viewport and scrolling line by line after each screen (~300 ms for the 4,000
//! rows of 200 messages); printed as styled text in one write, they take a few milliseconds,
//! and the terminal scrolls them into its scrollback by itself.

use std::io::Write;

use crossterm::style::{ContentStyle, PrintStyledContent, StyledContent};
use crossterm::{QueueableCommand, cursor, terminal};
use ratatui::backend::IntoCrossterm;
use ratatui::text::Line;

use crate::wrap::wrap_lines;

/// Writes `lines`, cut to `width` columns, at the cursor and flushes once; the cursor ends at
/// the start of the row after them. Control characters are left out, as ratatui leaves them
/// out of its cells (the lines' text was made visible before; this keeps a stray one from
/// moving the cursor).
pub(crate) fn print_lines(
    out: &mut impl Write,
    lines: &[Line<'static>],
    width: u16,
) -> std::io::Result<()> {
    let mut bytes: Vec<u8> = Vec::new();
    for row in wrap_lines(lines, width) {
        // The row cleared first, so nothing older shows through after the text (cleared
        // after the text, a row of the full width would lose its last cell).
        bytes.queue(terminal::Clear(terminal::ClearType::UntilNewLine))?;
        for span in &row.spans {
            let text: String = span
                .content
                .chars()
                .filter(|character| !character.is_control())
                .collect();
            if text.is_empty() {
                continue;
            }
            let style: ContentStyle = row.style.patch(span.style).into_crossterm();
            bytes.queue(PrintStyledContent(StyledContent::new(style, text)))?;
        }
        // Raw mode is on: a line feed alone would keep the column.
        bytes.write_all(b"\r\n")?;
    }
    bytes.queue(cursor::MoveToColumn(0))?;
    out.write_all(&bytes)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use ratatui::style::{Color, Style};
    use ratatui::text::Span;

    use super::*;

    #[test]
    fn each_row_ends_in_a_carriage_return_and_line_feed_with_its_style() {
        let lines = vec![
            Line::from(vec![
                Span::raw("plain "),
                Span::styled("red", Style::default().fg(Color::Red)),
            ]),
            Line::from("a\u{1b}]52;c;x\u{7}b"),
            Line::default(),
        ];
        let mut out = Vec::new();
        print_lines(&mut out, &lines, 80).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.matches("\r\n").count(), 3, "{text:?}");
        assert!(text.contains("plain "), "{text:?}");
        // Red is SGR 31 (crossterm writes it as 38;5;9 for the bright one, 31 for dark red).
        assert!(
            text.contains("\u{1b}[38;5;1mred") || text.contains("31mred"),
            "{text:?}"
        );
        // The escape and the bell are gone: the terminal is not told anything by the text.
        assert!(!text.contains('\u{7}'), "{text:?}");
        assert!(text.contains("a]52;c;xb"), "{text:?}");
    }

    #[test]
    fn a_long_line_is_cut_into_rows_of_the_width() {
        let lines = vec![Line::from("x".repeat(25))];
        let mut out = Vec::new();
        print_lines(&mut out, &lines, 10).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.matches("\r\n").count(), 3, "{text:?}");
        assert!(
            text.contains(&format!("\u{1b}[K{}\r\n", "x".repeat(10))),
            "{text:?}"
        );
    }
}
