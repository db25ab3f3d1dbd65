//! Message content: text, images and thinking blocks, from the JSON a session holds (any
//! role Pi writes, read leniently: a field of the wrong type is shown as missing, never an
//! error that loses the page).

use serde_json::Value;

use crate::escape;
use crate::markdown;

/// The image types a page may show inline, as `data:` URLs.
const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Appends a message's `content` (a string, or text and image blocks) as markdown and images.
pub(crate) fn blocks(out: &mut String, content: Option<&Value>) {
    match content {
        Some(Value::String(text)) => markdown_block(out, text),
        Some(Value::Array(blocks)) => {
            for block in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => markdown_block(out, str_field(block, "text")),
                    Some("image") => image(out, block),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// Appends `content`'s text (text blocks joined) as preformatted text, and its images.
pub(crate) fn plain_blocks(out: &mut String, content: Option<&Value>) {
    let text = joined_text(content);
    if !text.is_empty() {
        preformatted(out, &text);
    }
    if let Some(Value::Array(blocks)) = content {
        for block in blocks {
            if block.get("type").and_then(Value::as_str) == Some("image") {
                image(out, block);
            }
        }
    }
}

/// The text blocks of `content` joined by newlines (a string content as it is).
pub(crate) fn joined_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .map(|block| str_field(block, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Appends `markdown` in a `markdown` block.
pub(crate) fn markdown_block(out: &mut String, markdown: &str) {
    if markdown.trim().is_empty() {
        return;
    }
    out.push_str("<div class=\"markdown\">");
    markdown::render(out, markdown);
    out.push_str("</div>\n");
}

/// Appends `text` as a `<pre>`; past [`PREVIEW_LINES`] lines the rest folds under a
/// `<details>` the reader opens.
pub(crate) fn preformatted(out: &mut String, text: &str) {
    let lines = text.lines().count();
    if lines <= PREVIEW_LINES {
        out.push_str("<pre class=\"output\">");
        escape::text(out, text);
        out.push_str("</pre>\n");
        return;
    }
    let cut = text
        .match_indices('\n')
        .nth(PREVIEW_LINES - 1)
        .map_or(text.len(), |(at, _)| at);
    let (head, rest) = text.split_at(cut);
    out.push_str("<pre class=\"output\">");
    escape::text(out, head);
    out.push_str("</pre>\n<details class=\"more\"><summary>");
    out.push_str(&format!("{} more lines", lines - PREVIEW_LINES));
    out.push_str("</summary><pre class=\"output\">");
    escape::text(out, rest.strip_prefix('\n').unwrap_or(rest));
    out.push_str("</pre></details>\n");
}

/// How many lines of a long output show before the rest folds.
pub(crate) const PREVIEW_LINES: usize = 12;

/// Appends an image block as an inline `data:` image, or a note when its type or data is not
/// one a page should show.
fn image(out: &mut String, block: &Value) {
    let mime = str_field(block, "mimeType");
    let data = str_field(block, "data");
    let is_base64 = data
        .bytes()
        .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'='));
    if IMAGE_TYPES.contains(&mime) && is_base64 && !data.is_empty() {
        out.push_str("<img class=\"image\" alt=\"image\" src=\"data:");
        out.push_str(mime);
        out.push_str(";base64,");
        out.push_str(data);
        out.push_str("\">\n");
    } else {
        out.push_str("<p class=\"note\">[an image that cannot be shown: ");
        escape::text(out, &escape::one_line(mime, 40));
        out.push_str("]</p>\n");
    }
}

/// A message's content blocks (none when its content is a string or missing).
pub(crate) fn content_blocks(message: &Value) -> &[Value] {
    message
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// A string field of `value`, or `""`.
pub(crate) fn str_field<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn images_show_inline_only_with_a_known_type_and_clean_data() {
        let mut out = String::new();
        blocks(
            &mut out,
            Some(&json!([
                {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
                {"type": "image", "mimeType": "image/svg+xml", "data": "PHN2Zz4="},
                {"type": "image", "mimeType": "image/png", "data": "x\" onload=\"alert(1)"},
            ])),
        );
        assert_eq!(out.matches("<img").count(), 1, "{out}");
        assert!(
            out.contains("src=\"data:image/png;base64,iVBORw0KGgo=\""),
            "{out}"
        );
        assert_eq!(out.matches("cannot be shown").count(), 2, "{out}");
    }

    #[test]
    fn long_output_folds_after_the_preview() {
        let text: String = (1..=30).map(|n| format!("line {n}\n")).collect();
        let mut out = String::new();
        preformatted(&mut out, &text);
        let (shown, folded) = out.split_once("<details").unwrap();
        assert!(
            shown.contains("line 12") && !shown.contains("line 13"),
            "{out}"
        );
        assert!(
            folded.contains("18 more lines") && folded.contains("line 30"),
            "{out}"
        );
    }
}
