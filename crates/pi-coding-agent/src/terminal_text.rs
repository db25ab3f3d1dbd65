//! Text from a model, a tool, a file or a session shown on a person's terminal: control
//! characters are made visible instead of being sent to the terminal. A README the agent read,
//! a model's answer or a session file must not set the clipboard (OSC 52), the window title,
//! clear the screen, hide text, or move the cursor to repaint the approval prompt (a command
//! shown as `git status` that runs `rm`). Bidirectional overrides are shown too, since they
//! make a line read in another order than it runs ("Trojan Source").
//!
//! Hand-written: the crates that strip ANSI sequences (`strip-ansi-escapes`) remove them, and
//! a person approving a command must see that something was there, not a cleaned-up line.

use std::borrow::Cow;

/// `text` with every control character but newline and tab, and every bidirectional
/// control, written out visibly: ESC as `\e`, other C0/C1 controls and DEL as `\xNN`,
/// bidi controls as `<U+202E>`. Borrowed when there is nothing to show differently.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_showing) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    for character in text.chars() {
        if !needs_showing(character) {
            shown.push(character);
        } else if character == '\u{1b}' {
            shown.push_str("\\e");
        } else if is_bidi_control(character) || is_invisible_joiner(character) {
            shown.push_str(&format!("<U+{:04X}>", u32::from(character)));
        } else {
            shown.push_str(&format!("\\x{:02x}", u32::from(character)));
        }
    }
    Cow::Owned(shown)
}

fn needs_showing(character: char) -> bool {
    (character.is_control() && character != '\n' && character != '\t')
        || is_bidi_control(character)
        || is_invisible_joiner(character)
}

/// Characters that print nothing yet change how their neighbours are drawn or read: zero-width
/// spaces and joiners, variation selectors, tags, the byte-order mark, Hangul fillers. They can
/// hide text from a person reading a command, and terminals disagree on the width of the
/// clusters they form, which shifts every cell after them on the row.
fn is_invisible_joiner(character: char) -> bool {
    matches!(
        character,
        '\u{200b}'..='\u{200d}'
            | '\u{2060}'..='\u{2064}'
            | '\u{feff}'
            | '\u{fe00}'..='\u{fe0f}'
            | '\u{e0000}'..='\u{e007f}'
            | '\u{e0100}'..='\u{e01ef}'
            | '\u{115f}'
            | '\u{1160}'
            | '\u{3164}'
            | '\u{ffa0}'
            | '\u{034f}'
            | '\u{180b}'..='\u{180f}'
    )
}

/// The characters that reorder how a line reads (Unicode's explicit directional formatting
/// characters and marks).
fn is_bidi_control(character: char) -> bool {
    matches!(
        character,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed_as_it_is() {
        let text = "git status\n\tcafé — ✓";
        assert!(matches!(visible(text), Cow::Borrowed(_)));
    }

    #[test]
    fn escapes_and_controls_are_shown_not_sent() {
        // The attack round's spoofed approval: erase the line, go to its start, write a
        // harmless command, hide the rest.
        let spoof = "rm -f important.txt \"\u{1b}[2K\u{1b}[1G  $ git status\u{1b}[8m\" \u{1b}[28m";
        let shown = visible(spoof);
        assert!(!shown.contains('\u{1b}'));
        assert_eq!(
            shown,
            "rm -f important.txt \"\\e[2K\\e[1G  $ git status\\e[8m\" \\e[28m"
        );
        // OSC 52 (clipboard), a bell, a carriage return, DEL and a C1 CSI.
        assert_eq!(
            visible("\u{1b}]52;c;cm0gLXJmIH4K\u{7}a\rb\u{7f}\u{9b}2J"),
            "\\e]52;c;cm0gLXJmIH4K\\x07a\\x0db\\x7f\\x9b2J"
        );
    }

    #[test]
    fn bidi_overrides_are_named() {
        assert_eq!(visible("a\u{202e}b\u{2066}c"), "a<U+202E>b<U+2066>c");
    }

    #[test]
    fn invisible_joiners_are_named_and_accents_stay() {
        assert_eq!(visible("rm\u{200b} -rf"), "rm<U+200B> -rf");
        assert_eq!(visible("\u{2714}\u{fe0f}"), "\u{2714}<U+FE0F>");
        assert_eq!(visible("cafe\u{301}"), "cafe\u{301}");
    }
}
