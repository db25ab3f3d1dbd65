//! The model's markdown, one line at a time: an answer streams, and each line goes to the
//! scrollback when it is complete, so the blocks a line can open (code fences) are tracked
//! across lines and the rest is read line by line. Headings are bold, list markers become
//! bullets, quotes get a bar, fenced code is coloured by its language ([`crate::highlight`];
//! cyan when it names none this knows), inline code is cyan, `**strong**`, `*emphasis*`,
//! `~~struck~~` and links are styled (pulldown-cmark reads the inline part). Every piece of
//! text passes through [`pi_coding_agent::visible`].

use pi_coding_agent::visible;
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::highlight::CodeHighlight;

/// Whether an answer is inside a fenced code block, and how its code is coloured.
#[derive(Debug, Clone)]
pub(crate) struct Fence {
    /// Inside a code block: its highlighting when the fence named a known language and
    /// highlighting is on, else `None` (plain).
    open: Option<Option<Box<CodeHighlight>>>,
    /// Whether code blocks opened from here on are highlighted.
    highlight: bool,
}

impl Default for Fence {
    fn default() -> Self {
        Self::new()
    }
}

impl Fence {
    /// Outside any code block; code blocks are highlighted.
    pub(crate) fn new() -> Self {
        Self {
            open: None,
            highlight: true,
        }
    }

    /// Outside any code block; code blocks stay plain (a history too long to highlight).
    pub(crate) fn plain() -> Self {
        Self {
            open: None,
            highlight: false,
        }
    }

    /// Whether a code block is open.
    pub(crate) fn in_code(&self) -> bool {
        self.open.is_some()
    }
}

/// Lines longer than this are not highlighted (the grammars' regexes are slow on them).
const LONGEST_HIGHLIGHTED: usize = 500;

/// One line of an answer; `fence` says whether a code fence is open, and is updated.
pub(crate) fn line(text: &str, fence: &mut Fence) -> Line<'static> {
    let trimmed = text.trim_start();
    let marker = ["```", "~~~"]
        .into_iter()
        .find(|marker| trimmed.starts_with(marker));
    if let Some(marker) = marker {
        fence.open = match fence.open {
            None => {
                let info = trimmed.trim_start_matches(marker.chars().next().unwrap_or('`'));
                let highlight = fence.highlight.then(|| CodeHighlight::for_fence(info));
                Some(highlight.flatten().map(Box::new))
            }
            Some(_) => None,
        };
        return Line::from(Span::styled(
            visible(text).into_owned(),
            Style::default().fg(Color::DarkGray),
        ));
    }
    if let Some(highlight) = &mut fence.open {
        let coloured = highlight
            .as_mut()
            .filter(|_| text.len() <= LONGEST_HIGHLIGHTED)
            .and_then(|code| code.line(text));
        if coloured.is_none() {
            // The grammar's state does not follow a line it did not read: the rest of the
            // block is plain.
            *highlight = None;
        }
        return Line::from(coloured.unwrap_or_else(|| plain_code(text)));
    }
    let indent = &text[..text.len() - trimmed.len()];
    let hashes = trimmed.chars().take_while(|c| *c == '#').count();
    if (1..=6).contains(&hashes) && trimmed[hashes..].starts_with(' ') {
        let mut style = Style::default()
            .fg(Color::Yellow)
            .add_modifier(Modifier::BOLD);
        if hashes == 1 {
            style = style.add_modifier(Modifier::UNDERLINED);
        }
        return Line::from(inline(trimmed[hashes..].trim_start(), style));
    }
    if is_rule(trimmed) {
        return Line::from(Span::styled(
            "─".repeat(40),
            Style::default().fg(Color::DarkGray),
        ));
    }
    let mut spans = vec![Span::raw(visible(indent).into_owned())];
    let rest = if let Some(item) = ["- ", "* ", "+ "]
        .iter()
        .find_map(|marker| trimmed.strip_prefix(marker))
    {
        spans.push(Span::styled("• ", Style::default().fg(Color::Yellow)));
        item
    } else if let Some(quoted) = trimmed.strip_prefix('>') {
        spans.push(Span::styled("│ ", Style::default().fg(Color::DarkGray)));
        spans.extend(inline(
            quoted.trim_start(),
            Style::default().add_modifier(Modifier::ITALIC),
        ));
        return Line::from(spans);
    } else if let Some((number, item)) = ordered_item(trimmed) {
        spans.push(Span::styled(
            format!("{number} "),
            Style::default().fg(Color::Yellow),
        ));
        item
    } else {
        trimmed
    };
    spans.extend(inline(rest, Style::default()));
    Line::from(spans)
}

/// A line of code without its language's colours.
pub(crate) fn plain_code(text: &str) -> Vec<Span<'static>> {
    vec![Span::styled(
        visible(text).into_owned(),
        Style::default().fg(Color::Cyan),
    )]
}

/// `---`, `***` or `___` (three or more, spaces allowed).
fn is_rule(text: &str) -> bool {
    let marks: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    marks.len() >= 3
        && ["-", "*", "_"]
            .iter()
            .any(|mark| marks.chars().all(|c| c.to_string() == *mark))
}

/// `12. rest` or `12) rest` as (`12.`, `rest`).
fn ordered_item(text: &str) -> Option<(&str, &str)> {
    let digits = text.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let after = text.get(digits..)?;
    let rest = after
        .strip_prefix(". ")
        .or_else(|| after.strip_prefix(") "))?;
    Some((text.get(..=digits)?, rest))
}

/// The inline part of a line (emphasis, code, links) as styled spans over `base`. Block
/// syntax pulldown-cmark would see in a line alone (a `1)` list, an indented code block) is
/// shown as written.
fn inline(text: &str, base: Style) -> Vec<Span<'static>> {
    if text.is_empty() {
        return Vec::new();
    }
    let mut spans = Vec::new();
    let mut styles = vec![base];
    let mut written = String::new();
    let parser = Parser::new_ext(text, Options::ENABLE_STRIKETHROUGH);
    for event in parser {
        let style = styles.last().copied().unwrap_or(base);
        match event {
            Event::Start(tag) => {
                let next = match tag {
                    Tag::Emphasis => style.add_modifier(Modifier::ITALIC),
                    Tag::Strong => style.add_modifier(Modifier::BOLD),
                    Tag::Strikethrough => style.add_modifier(Modifier::CROSSED_OUT),
                    Tag::Link { .. } => style.fg(Color::Blue).add_modifier(Modifier::UNDERLINED),
                    _ => style,
                };
                styles.push(next);
            }
            Event::End(
                TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Link,
            ) => {
                styles.pop();
            }
            Event::End(_) => {
                styles.pop();
            }
            Event::Text(piece) | Event::Html(piece) | Event::InlineHtml(piece) => {
                written.push_str(&piece);
                spans.push(Span::styled(visible(&piece).into_owned(), style));
            }
            Event::Code(piece) => {
                written.push_str(&piece);
                spans.push(Span::styled(
                    visible(&piece).into_owned(),
                    style.fg(Color::Cyan),
                ));
            }
            Event::SoftBreak | Event::HardBreak => spans.push(Span::styled(" ", style)),
            _ => {}
        }
    }
    // Nothing of the text came back (a line pulldown-cmark reads as block syntax only):
    // shown as written.
    if written.trim().is_empty() && !text.trim().is_empty() {
        return vec![Span::styled(visible(text).into_owned(), base)];
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wrap::plain;

    fn render(text: &str) -> Line<'static> {
        line(text, &mut Fence::new())
    }

    #[test]
    fn inline_styles() {
        let shown = render("Use **cargo** and `fmt`, *then* see [docs](http://x).");
        assert_eq!(plain(&shown), "Use cargo and fmt, then see docs.");
        let style_of = |text: &str| {
            shown
                .spans
                .iter()
                .find(|span| span.content == text)
                .map(|span| span.style)
                .unwrap()
        };
        assert!(style_of("cargo").add_modifier.contains(Modifier::BOLD));
        assert_eq!(style_of("fmt").fg, Some(Color::Cyan));
        assert!(style_of("then").add_modifier.contains(Modifier::ITALIC));
        assert_eq!(style_of("docs").fg, Some(Color::Blue));
    }

    #[test]
    fn blocks_line_by_line() {
        assert_eq!(plain(&render("## Plan")), "Plan");
        assert_eq!(plain(&render("  - first item")), "  • first item");
        assert_eq!(plain(&render("3. third")), "3. third");
        assert_eq!(plain(&render("> quoted")), "│ quoted");
        assert_eq!(plain(&render("---")), "─".repeat(40));
        let mut fence = Fence::new();
        assert_eq!(plain(&line("```", &mut fence)), "```");
        let code = line("let **x** = 1;", &mut fence);
        assert_eq!(plain(&code), "let **x** = 1;");
        assert_eq!(code.spans[0].style.fg, Some(Color::Cyan));
        line("```", &mut fence);
        assert!(!fence.in_code());
    }

    #[test]
    fn code_in_a_named_language_is_highlighted_and_unknown_stays_plain() {
        let mut fence = Fence::new();
        line("```rust", &mut fence);
        let code = line("fn main() { let x = 1; }", &mut fence);
        assert_eq!(plain(&code), "fn main() { let x = 1; }");
        assert!(code.spans.len() > 3, "{code:?}");
        assert!(
            code.spans
                .iter()
                .all(|span| matches!(span.style.fg, Some(Color::Rgb(..))))
        );
        line("```", &mut fence);
        // Markdown again after the block.
        assert_eq!(plain(&line("**bold**", &mut fence)), "bold");
        line("~~~klingon", &mut fence);
        let unknown = line("fn main() {}", &mut fence);
        assert_eq!(unknown.spans.len(), 1);
        assert_eq!(unknown.spans[0].style.fg, Some(Color::Cyan));
        line("~~~", &mut fence);
        // Highlighting off: plain code even in a known language.
        let mut plain_fence = Fence::plain();
        line("```rust", &mut plain_fence);
        assert_eq!(line("fn main() {}", &mut plain_fence).spans.len(), 1);
    }

    #[test]
    fn plain_text_and_escapes_are_kept() {
        assert_eq!(
            plain(&render("Hello from the model.")),
            "Hello from the model."
        );
        assert_eq!(plain(&render("a < b > c & d")), "a < b > c & d");
        assert_eq!(
            plain(&render("x \u{1b}]52;c;eA==\u{7}\u{1b}[2J y")),
            "x \\e]52;c;eA==\\x07\\e[2J y"
        );
        assert_eq!(plain(&render("1) a list too")), "1) a list too");
    }
}
