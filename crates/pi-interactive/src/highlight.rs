//! Colours for the code in a fenced block that names its language (```` ```rust ````).
//!
//! syntect, with Sublime Text's grammars, rather than tree-sitter-highlight: one crate carries
//! the grammars of some seventy languages and a theme in a compact dump, where tree-sitter needs
//! a crate (and a C parser to build) per language. It is built with its pure-Rust regex engine
//! (no Oniguruma to compile) and without its HTML, plist and YAML parts.
//!
//! The grammars and the theme are loaded on the first code block that names a known language,
//! not at start: a session without one never pays for them. A block whose language is unknown
//! (or that names none) stays plain.

use std::sync::OnceLock;

use pi_coding_agent::visible;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;
use syntect::highlighting::{FontStyle, HighlightIterator, HighlightState, Highlighter, Theme};
use syntect::parsing::{ParseState, ScopeStack, SyntaxSet};

/// The theme used: dark, with the colours most terminals' palettes are near.
const THEME: &str = "base16-ocean.dark";

/// The grammars and the theme, once loaded.
struct Assets {
    syntaxes: SyntaxSet,
    theme: Theme,
}

/// The grammars and the theme, loaded on first use; `None` if the bundled theme is missing.
fn assets() -> Option<&'static Assets> {
    static ASSETS: OnceLock<Option<Assets>> = OnceLock::new();
    ASSETS
        .get_or_init(|| {
            let mut themes = syntect::highlighting::ThemeSet::load_defaults();
            let theme = themes.themes.remove(THEME)?;
            Some(Assets {
                syntaxes: SyntaxSet::load_defaults_newlines(),
                theme,
            })
        })
        .as_ref()
}

/// Where the highlighting of one code block is (the grammar's state after its last line).
#[derive(Debug, Clone)]
pub(crate) struct CodeHighlight {
    parse: ParseState,
    highlight: HighlightState,
}

impl CodeHighlight {
    /// The highlighting of a block opened by a fence with `info` (```` ```rust title ````:
    /// `rust title`); `None` when it names no language this knows.
    pub(crate) fn for_fence(info: &str) -> Option<Self> {
        let language = info
            .split(|c: char| c.is_whitespace() || c == ',' || c == '{' || c == '}')
            .find(|word| !word.is_empty())?
            .trim_start_matches('.');
        if language.is_empty() {
            return None;
        }
        let assets = assets()?;
        let syntax = assets.syntaxes.find_syntax_by_token(language)?;
        let highlighter = Highlighter::new(&assets.theme);
        Some(Self {
            parse: ParseState::new(syntax),
            highlight: HighlightState::new(&highlighter, ScopeStack::new()),
        })
    }

    /// One line of the block in its colours (everything through [`visible`]); `None` if the
    /// grammar failed on it (the line is then shown plain, and so are the lines after it).
    pub(crate) fn line(&mut self, text: &str) -> Option<Vec<Span<'static>>> {
        let assets = assets()?;
        // The grammars are those that read a line with its end.
        let with_end = format!("{text}\n");
        let operations = self.parse.parse_line(&with_end, &assets.syntaxes).ok()?;
        let highlighter = Highlighter::new(&assets.theme);
        let pieces =
            HighlightIterator::new(&mut self.highlight, &operations, &with_end, &highlighter);
        let spans = pieces
            .filter_map(|(style, piece)| {
                let piece = piece.trim_end_matches(['\n', '\r']);
                (!piece.is_empty())
                    .then(|| Span::styled(visible(piece).into_owned(), span_style(style)))
            })
            .collect();
        Some(spans)
    }
}

/// A theme's style as the terminal's: the foreground colour and the font style; the theme's
/// background is left to the terminal's.
fn span_style(style: syntect::highlighting::Style) -> Style {
    let colour = style.foreground;
    let mut shown = Style::default().fg(Color::Rgb(colour.r, colour.g, colour.b));
    if style.font_style.contains(FontStyle::BOLD) {
        shown = shown.add_modifier(Modifier::BOLD);
    }
    if style.font_style.contains(FontStyle::ITALIC) {
        shown = shown.add_modifier(Modifier::ITALIC);
    }
    if style.font_style.contains(FontStyle::UNDERLINE) {
        shown = shown.add_modifier(Modifier::UNDERLINED);
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(spans: &[Span<'_>]) -> String {
        spans.iter().map(|span| span.content.as_ref()).collect()
    }

    #[test]
    fn a_known_language_is_coloured_line_by_line() {
        let mut code = CodeHighlight::for_fence("rust").unwrap();
        let spans = code.line("fn main() { let x = \"text\"; }").unwrap();
        assert_eq!(text_of(&spans), "fn main() { let x = \"text\"; }");
        let colours: std::collections::HashSet<_> =
            spans.iter().filter_map(|span| span.style.fg).collect();
        assert!(colours.len() >= 3, "{spans:?}");
        // The state carries across lines: a string opened on one line goes on in the next.
        let mut open = CodeHighlight::for_fence("python").unwrap();
        let first = open.line("x = \"\"\"start").unwrap();
        let second = open.line("still inside").unwrap();
        assert_eq!(second.len(), 1);
        assert_eq!(second[0].style.fg, first.last().unwrap().style.fg);
    }

    #[test]
    fn fence_info_forms() {
        assert!(CodeHighlight::for_fence("py title=\"a.py\"").is_some());
        assert!(CodeHighlight::for_fence("{.rust}").is_some());
        assert!(CodeHighlight::for_fence("sh").is_some());
        assert!(CodeHighlight::for_fence("").is_none());
        assert!(CodeHighlight::for_fence("no-such-language").is_none());
    }

    #[test]
    fn escapes_in_code_are_shown_not_obeyed() {
        let mut code = CodeHighlight::for_fence("rust").unwrap();
        let spans = code.line("let s = \"\u{1b}[2J\";").unwrap();
        assert!(!text_of(&spans).contains('\u{1b}'));
    }

    #[test]
    fn highlighting_is_fast_enough_for_a_resumed_history() {
        // The history's budget of code lines, once the grammars are loaded: ~20 ms in a
        // release build; a debug build is some 50x slower, and the bound is for it.
        let mut code = CodeHighlight::for_fence("rust").unwrap();
        let started = std::time::Instant::now();
        for index in 0..400 {
            code.line(&format!(
                "let value_{index} = compute(input); // a line of code"
            ))
            .unwrap();
        }
        let spent = started.elapsed();
        eprintln!("400 lines highlighted in {spent:?}");
        assert!(spent < std::time::Duration::from_secs(6), "{spent:?}");
    }
}
