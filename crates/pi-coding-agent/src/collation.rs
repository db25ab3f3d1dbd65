//! The order Pi sorts model ids and provider names in (JavaScript's `localeCompare`, ICU's
//! root collation), for the ASCII these names are made of: spaces, then punctuation and
//! symbols in ICU's order, then digits, then letters without regard to case; only between
//! otherwise equal names does case count, lowercase first.

use std::cmp::Ordering;

/// ASCII punctuation and symbols in ICU's root order.
const PUNCTUATION_ORDER: &str = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

/// Compares two names as Pi's `localeCompare` does.
pub(crate) fn compare(a: &str, b: &str) -> Ordering {
    let primary = a
        .chars()
        .map(primary_weight)
        .cmp(b.chars().map(primary_weight));
    primary.then_with(|| a.chars().map(case_weight).cmp(b.chars().map(case_weight)))
}

fn primary_weight(c: char) -> (u8, u32) {
    if c.is_whitespace() {
        (0, 0)
    } else if let Some(index) = PUNCTUATION_ORDER.find(c) {
        (1, u32::try_from(index).unwrap_or(u32::MAX))
    } else if c.is_ascii_digit() {
        (2, u32::from(c))
    } else if c.is_alphabetic() {
        (3, c.to_lowercase().next().map_or(u32::from(c), u32::from))
    } else {
        (4, u32::from(c))
    }
}

fn case_weight(c: char) -> u8 {
    u8::from(c.is_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(names: &[&str]) -> Vec<String> {
        let mut names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
        names.sort_by(|a, b| compare(a, b));
        names
    }

    #[test]
    fn names_sort_as_node_sorts_them() {
        // Each expectation is what Node 22's localeCompare gives.
        assert_eq!(
            sorted(&[
                "a-b", "a_b", "a.b", "a/b", "aB", "ab", "Ab", "a1", "a:b", "a b"
            ]),
            [
                "a b", "a_b", "a-b", "a:b", "a.b", "a/b", "a1", "ab", "aB", "Ab"
            ]
        );
        assert_eq!(
            sorted(&["gpt-4o", "gpt-4.1", "GPT-4", "gpt-4", "gpt-4-turbo"]),
            ["gpt-4", "GPT-4", "gpt-4-turbo", "gpt-4.1", "gpt-4o"]
        );
    }
}
