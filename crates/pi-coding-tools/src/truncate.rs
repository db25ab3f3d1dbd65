//! Pi's output limits: at most 2 000 lines and 50 KB of a tool's text reach the model, cut at
//! line boundaries, with the details of what was cut.

use serde::Serialize;

/// Lines a tool's text may have.
pub const DEFAULT_MAX_LINES: usize = 2000;
/// Bytes a tool's text may have.
pub const DEFAULT_MAX_BYTES: usize = 50 * 1024;
/// Characters a `grep` line may have.
pub const GREP_MAX_LINE_LENGTH: usize = 500;

/// What a cut kept and dropped; a result's `details.truncation`, in Pi's shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    /// The text kept.
    #[serde(skip)]
    pub content: String,
    /// Whether anything was cut.
    pub truncated: bool,
    /// Which limit cut it: `"lines"` or `"bytes"`.
    pub truncated_by: Option<&'static str>,
    /// Lines before the cut.
    pub total_lines: usize,
    /// Bytes before the cut.
    pub total_bytes: usize,
    /// Lines kept.
    pub output_lines: usize,
    /// Bytes kept.
    pub output_bytes: usize,
    /// Whether the one line kept is only the end of a longer line.
    pub last_line_partial: bool,
    /// Whether the first line alone is over the byte limit (nothing is kept).
    pub first_line_exceeds_limit: bool,
    /// The line limit applied.
    pub max_lines: usize,
    /// The byte limit applied.
    pub max_bytes: usize,
}

impl Truncation {
    fn whole(content: &str, max_lines: usize, max_bytes: usize) -> Self {
        let lines = content.split('\n').count();
        Self {
            content: content.to_owned(),
            truncated: false,
            truncated_by: None,
            total_lines: lines,
            total_bytes: content.len(),
            output_lines: lines,
            output_bytes: content.len(),
            last_line_partial: false,
            first_line_exceeds_limit: false,
            max_lines,
            max_bytes,
        }
    }
}

/// Keeps the start of `content`: whole lines only, within both limits. A first line over the
/// byte limit keeps nothing and says so.
pub fn truncate_head(content: &str, max_lines: usize, max_bytes: usize) -> Truncation {
    let lines: Vec<&str> = content.split('\n').collect();
    if lines.len() <= max_lines && content.len() <= max_bytes {
        return Truncation::whole(content, max_lines, max_bytes);
    }
    let mut cut = Truncation {
        content: String::new(),
        truncated: true,
        truncated_by: Some("bytes"),
        total_lines: lines.len(),
        total_bytes: content.len(),
        output_lines: 0,
        output_bytes: 0,
        last_line_partial: false,
        first_line_exceeds_limit: false,
        max_lines,
        max_bytes,
    };
    if lines.first().is_some_and(|first| first.len() > max_bytes) {
        cut.first_line_exceeds_limit = true;
        return cut;
    }
    let mut kept = 0;
    let mut bytes = 0;
    let mut by = "lines";
    for (index, line) in lines.iter().take(max_lines).enumerate() {
        let cost = line.len() + usize::from(index > 0);
        if bytes + cost > max_bytes {
            by = "bytes";
            break;
        }
        bytes += cost;
        kept += 1;
    }
    cut.content = lines.get(..kept).unwrap_or_default().join("\n");
    cut.truncated_by = Some(by);
    cut.output_lines = kept;
    cut.output_bytes = cut.content.len();
    cut
}

/// Keeps the end of `content`: whole lines, except that a last line alone over the byte limit
/// keeps its own end.
pub fn truncate_tail(content: &str, max_lines: usize, max_bytes: usize) -> Truncation {
    let lines: Vec<&str> = content.split('\n').collect();
    if lines.len() <= max_lines && content.len() <= max_bytes {
        return Truncation::whole(content, max_lines, max_bytes);
    }
    let mut kept: Vec<&str> = Vec::new();
    let mut bytes = 0;
    let mut by = "lines";
    let mut partial = false;
    for line in lines.iter().rev().take(max_lines) {
        let cost = line.len() + usize::from(!kept.is_empty());
        if bytes + cost > max_bytes {
            by = "bytes";
            if kept.is_empty() {
                kept.push(end_within(line, max_bytes));
                partial = true;
            }
            break;
        }
        bytes += cost;
        kept.push(line);
    }
    kept.reverse();
    let content_kept = kept.join("\n");
    Truncation {
        truncated: true,
        truncated_by: Some(by),
        total_lines: lines.len(),
        total_bytes: content.len(),
        output_lines: kept.len(),
        output_bytes: content_kept.len(),
        last_line_partial: partial,
        first_line_exceeds_limit: false,
        max_lines,
        max_bytes,
        content: content_kept,
    }
}

/// The longest end of `line` within `max_bytes`, on a character boundary.
fn end_within(line: &str, max_bytes: usize) -> &str {
    let mut start = line.len().saturating_sub(max_bytes);
    while !line.is_char_boundary(start) {
        start += 1;
    }
    line.get(start..).unwrap_or_default()
}

/// A byte count as Pi writes it: `512B`, `50.0KB`, `1.5MB`.
pub fn format_size(bytes: usize) -> String {
    #[allow(clippy::cast_precision_loss)] // Display only.
    let size = bytes as f64;
    if bytes < 1024 {
        format!("{bytes}B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1}KB", size / 1024.0)
    } else {
        format!("{:.1}MB", size / (1024.0 * 1024.0))
    }
}

/// A line cut to `max_chars` characters, marked when cut.
pub(crate) fn shorten_line(line: &str, max_chars: usize) -> (String, bool) {
    match line.char_indices().nth(max_chars) {
        Some((end, _)) => (
            format!("{}... [truncated]", line.get(..end).unwrap_or(line)),
            true,
        ),
        None => (line.to_owned(), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_keeps_whole_lines_within_both_limits() {
        let whole = truncate_head("a\nb", 10, 100);
        assert!(!whole.truncated);
        assert_eq!((whole.total_lines, whole.output_bytes), (2, 3));
        let by_lines = truncate_head("a\nb\nc", 2, 100);
        assert_eq!(
            (by_lines.content.as_str(), by_lines.truncated_by),
            ("a\nb", Some("lines"))
        );
        let by_bytes = truncate_head("aaaa\nbbbb\ncccc", 10, 10);
        assert_eq!(
            (by_bytes.content.as_str(), by_bytes.truncated_by),
            ("aaaa\nbbbb", Some("bytes"))
        );
        let huge_first = truncate_head("xxxxxxxxxxxx\ny", 10, 5);
        assert!(huge_first.first_line_exceeds_limit);
        assert_eq!(huge_first.content, "");
    }

    #[test]
    fn tail_keeps_the_end_and_a_partial_last_line() {
        let cut = truncate_tail("a\nb\nc", 2, 100);
        assert_eq!(cut.content, "b\nc");
        let partial = truncate_tail("short\nééééé", 10, 5);
        assert_eq!(
            (partial.content.as_str(), partial.last_line_partial),
            ("éé", true)
        );
    }

    proptest::proptest! {
        /// Whatever the text and limits: within both limits, whole lines from the right end
        /// (only the one partial tail line excepted), and the counts say what was kept.
        #[test]
        fn cuts_keep_whole_lines_within_the_limits(
            text in "([a-zé]{0,12}\n){0,30}[a-zé]{0,40}",
            max_lines in 1usize..12,
            max_bytes in 1usize..120,
        ) {
            let head = truncate_head(&text, max_lines, max_bytes);
            proptest::prop_assert!(text.starts_with(&head.content));
            proptest::prop_assert!(head.content.len() <= max_bytes);
            proptest::prop_assert!(head.output_lines <= max_lines);
            proptest::prop_assert_eq!(head.output_bytes, head.content.len());
            proptest::prop_assert_eq!(head.truncated, head.content != text || head.first_line_exceeds_limit);
            if head.truncated && !head.content.is_empty() {
                // The cut falls on a line boundary.
                proptest::prop_assert!(text[head.content.len()..].starts_with('\n'));
            }

            let tail = truncate_tail(&text, max_lines, max_bytes);
            proptest::prop_assert!(text.ends_with(&tail.content));
            proptest::prop_assert!(tail.content.len() <= max_bytes);
            proptest::prop_assert!(tail.output_lines <= max_lines);
            if tail.truncated && !tail.last_line_partial && !tail.content.is_empty() {
                let before = text.len() - tail.content.len();
                proptest::prop_assert!(before == 0 || text[..before].ends_with('\n'));
            }
        }
    }

    #[test]
    fn sizes_and_lines_read_as_pi_writes_them() {
        assert_eq!(format_size(512), "512B");
        assert_eq!(format_size(50 * 1024), "50.0KB");
        assert_eq!(format_size(3 * 1024 * 1024 / 2), "1.5MB");
        assert_eq!(
            shorten_line("abcdef", 3),
            ("abc... [truncated]".to_owned(), true)
        );
        assert_eq!(shorten_line("abc", 3), ("abc".to_owned(), false));
    }
}
