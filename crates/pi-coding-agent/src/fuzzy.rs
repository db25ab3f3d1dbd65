//! The fuzzy search of `--list-models [search]`, by the rule of Pi's terminal library: every
//! token of the query (split at spaces and `/`) must appear in the text as a subsequence,
//! case-insensitively; a token of letters then digits (or digits then letters) also matches
//! with its two halves swapped (`4o` finds `o4`).

/// Whether `text` matches the search `query` (an empty query matches everything).
pub(crate) fn matches(query: &str, text: &str) -> bool {
    let text = text.to_lowercase();
    query
        .split(|c: char| c.is_whitespace() || c == '/')
        .filter(|token| !token.is_empty())
        .all(|token| token_matches(&token.to_lowercase(), &text))
}

fn token_matches(token: &str, text: &str) -> bool {
    is_subsequence(token, text)
        || swapped(token).is_some_and(|swapped| is_subsequence(&swapped, text))
}

fn is_subsequence(needle: &str, haystack: &str) -> bool {
    let mut haystack = haystack.chars();
    needle.chars().all(|wanted| haystack.any(|c| c == wanted))
}

/// `abc123` as `123abc` and back; `None` for other tokens.
fn swapped(token: &str) -> Option<String> {
    let split = token
        .find(|c: char| c.is_ascii_digit() != token.starts_with(|d: char| d.is_ascii_digit()))?;
    let (head, tail) = token.split_at(split);
    let letters_then_digits =
        head.chars().all(|c| c.is_ascii_lowercase()) && tail.chars().all(|c| c.is_ascii_digit());
    let digits_then_letters =
        head.chars().all(|c| c.is_ascii_digit()) && tail.chars().all(|c| c.is_ascii_lowercase());
    (letters_then_digits || digits_then_letters).then(|| format!("{tail}{head}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_match_as_subsequences_in_any_case() {
        assert!(matches("sonnet", "anthropic claude-sonnet-4-5"));
        assert!(matches("ANT snt45", "anthropic claude-sonnet-4-5"));
        assert!(matches("anthropic/haiku", "anthropic claude-haiku-4-5"));
        assert!(!matches("sonnet gemini", "anthropic claude-sonnet-4-5"));
        assert!(matches("  ", "anything"));
    }

    #[test]
    fn letters_and_digits_may_be_swapped() {
        assert!(matches("o4", "openai gpt-4o"));
        assert!(matches("4o", "openai o4-mini"));
        assert!(!matches("o4x", "openai gpt-4o"));
        assert_eq!(swapped("abc12").as_deref(), Some("12abc"));
        assert_eq!(swapped("12abc").as_deref(), Some("abc12"));
        assert_eq!(swapped("a1b"), None);
        assert_eq!(swapped("abc"), None);
    }
}
