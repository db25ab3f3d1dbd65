//! Text into HTML. Everything a session holds was written by a model, a tool or a file an
//! attacker may control, so every string goes through [`text`] or [`attribute`] before it
//! reaches the page: nothing in a session becomes markup.

use std::fmt::Write;

/// Appends `raw` to `out` as HTML text: `&`, `<`, `>` escaped, and the control characters a
/// terminal would obey (escape sequences and the like) shown as `\u{..}`-style escapes
/// rather than dropped, so the page shows what the session holds.
pub(crate) fn text(out: &mut String, raw: &str) {
    for character in raw.chars() {
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\t' => out.push(character),
            '\r' => {}
            control if control.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(control));
            }
            other => out.push(other),
        }
    }
}

/// Appends `raw` to `out` as the value of a double-quoted attribute.
pub(crate) fn attribute(out: &mut String, raw: &str) {
    for character in raw.chars() {
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            control if control.is_control() => out.push(' '),
            other => out.push(other),
        }
    }
}

/// `raw` as HTML text, in a new string.
pub(crate) fn to_text(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    text(&mut out, raw);
    out
}

/// The first `max` characters of `raw` on one line (newlines as spaces), with `…` when cut.
pub(crate) fn one_line(raw: &str, max: usize) -> String {
    let mut line: String = raw
        .split_whitespace()
        .flat_map(|word| [word, " "])
        .collect::<String>()
        .trim_end()
        .chars()
        .take(max + 1)
        .collect();
    if line.chars().count() > max {
        line = line.chars().take(max).collect();
        line.push('…');
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_terminal_escapes_are_shown_not_obeyed() {
        let shown = to_text("<script>alert(1)</script> & \u{1b}]52;c;cm0gLXJmIH4=\u{7}");
        assert_eq!(
            shown,
            "&lt;script&gt;alert(1)&lt;/script&gt; &amp; \\u{1b}]52;c;cm0gLXJmIH4=\\u{7}"
        );
        let mut value = String::new();
        attribute(&mut value, "x\" onerror='y'");
        assert_eq!(value, "x&quot; onerror=&#39;y&#39;");
    }

    #[test]
    fn one_line_cuts_on_characters_not_bytes() {
        assert_eq!(one_line("héllo\n  wörld", 7), "héllo w…");
        assert_eq!(one_line("short", 7), "short");
    }
}
