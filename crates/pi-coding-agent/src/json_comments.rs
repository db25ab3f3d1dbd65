//! Pi reads models.json leniently: `//` comments to the end of a line and trailing commas
//! before `}` or `]` are dropped, outside string literals.

/// `text` without `//` line comments and trailing commas, strings untouched.
pub(crate) fn strip_comments_and_trailing_commas(text: &str) -> String {
    let without_comments = strip_line_comments(text);
    strip_trailing_commas(&without_comments)
}

fn strip_line_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => copy_string(&mut out, &mut chars),
            '/' if chars.peek() == Some(&'/') => {
                // Up to the newline, which stays.
                while chars.peek().is_some_and(|next| *next != '\n') {
                    chars.next();
                }
            }
            _ => out.push(c),
        }
    }
    out
}

fn strip_trailing_commas(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => copy_string(&mut out, &mut chars),
            ',' => {
                let mut blank = String::new();
                while let Some(next) = chars.peek().copied().filter(|next| next.is_whitespace()) {
                    blank.push(next);
                    chars.next();
                }
                if !matches!(chars.peek(), Some('}' | ']')) {
                    out.push(',');
                }
                out.push_str(&blank);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Copies a string literal whose opening quote was just read, escapes included.
fn copy_string(out: &mut String, chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    out.push('"');
    while let Some(c) = chars.next() {
        out.push(c);
        match c {
            '\\' => {
                if let Some(escaped) = chars.next() {
                    out.push(escaped);
                }
            }
            '"' => return,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_go_and_strings_stay() {
        let text = "{\n  // local server\n  \"url\": \"http://x//y\", // why\n  \"list\": [1, 2,],\n  \"q\": \"a\\\"//b,}\",\n}";
        let stripped = strip_comments_and_trailing_commas(text);
        let value: serde_json::Value = serde_json::from_str(&stripped).unwrap();
        assert_eq!(value["url"], "http://x//y");
        assert_eq!(value["list"], serde_json::json!([1, 2]));
        assert_eq!(value["q"], "a\"//b,}");
    }
}
