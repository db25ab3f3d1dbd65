//! `*` as "any characters", nothing else special: the one wildcard of tool-name patterns and
//! `bash` globs. Greedy with one backtrack point, so it is linear in practice and never
//! exponential, whatever a settings file holds.

/// Whether `text` matches `pattern`, where `*` stands for any characters (none included).
pub(crate) fn matches(pattern: &str, text: &str) -> bool {
    let (pattern, text) = (pattern.as_bytes(), text.as_bytes());
    let (mut p, mut t) = (0, 0);
    // Where the last `*` was, and where in the text it started matching.
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(byte) if Some(byte) == text.get(t) => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((star_p, star_t)) => {
                    p = star_p + 1;
                    t = star_t + 1;
                    star = Some((star_p, star_t + 1));
                }
                None => return false,
            },
        }
    }
    pattern
        .get(p..)
        .is_some_and(|rest| rest.iter().all(|byte| *byte == b'*'))
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_match_any_characters_and_nothing_else_is_special() {
        assert!(matches("mcp_github_*", "mcp_github_create_issue"));
        assert!(matches("*", ""));
        assert!(matches("a*b*c", "axxbyyc"));
        assert!(!matches("a*b*c", "axxbyy"));
        assert!(!matches("mcp_github_*", "mcp_gitlab_x"));
        assert!(matches("a?b", "a?b") && !matches("a?b", "axb"));
    }
}
