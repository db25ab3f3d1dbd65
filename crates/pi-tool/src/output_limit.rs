//! The most a tool's result may carry to the model, whatever the tool: a guard against a tool
//! (or a remote MCP server behind one) answering with more than any context window or memory
//! budget can take.

use crate::Content;

/// The most bytes of content (text, plus images' base64 data) a result keeps: 16 MiB. Beyond,
/// text is cut at a character boundary, images that do not fit are left out, and a note says
/// how much the tool returned.
pub const MAX_TOOL_OUTPUT_BYTES: usize = 16 << 20;

/// `content` within [`MAX_TOOL_OUTPUT_BYTES`]. Inlined: every result passes here, and nearly
/// all are far below the limit.
#[inline]
pub(crate) fn bounded(content: Vec<Content>) -> Vec<Content> {
    bounded_to(content, MAX_TOOL_OUTPUT_BYTES)
}

fn size(block: &Content) -> usize {
    match block {
        Content::Text { text } => text.len(),
        Content::Image { data, mime_type } => data.len() + mime_type.len(),
    }
}

#[inline]
fn bounded_to(content: Vec<Content>, limit: usize) -> Vec<Content> {
    let total: usize = content.iter().map(size).sum();
    if total <= limit {
        content
    } else {
        cut(content, total, limit)
    }
}

/// `content`, `total` bytes of it, cut to `limit`.
#[cold]
fn cut(content: Vec<Content>, total: usize, limit: usize) -> Vec<Content> {
    let mut left = limit;
    let mut kept = Vec::with_capacity(content.len() + 1);
    for block in content {
        let needed = size(&block);
        if needed <= left {
            left -= needed;
            kept.push(block);
            continue;
        }
        if let Content::Text { mut text } = block
            && left > 0
        {
            let mut end = left;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
            left -= end;
            kept.push(Content::Text { text });
        }
    }
    kept.push(Content::Text {
        text: format!(
            "\n[output truncated: the tool returned {total} bytes; at most {limit} reach the model]"
        ),
    });
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{image, text};

    #[test]
    fn content_within_the_limit_is_kept_as_is() {
        let content = vec![text("abc"), image("AAAA", "image/png")];
        assert_eq!(bounded_to(content.clone(), 100), content);
    }

    #[test]
    fn text_is_cut_at_a_character_boundary_and_images_that_do_not_fit_are_left_out() {
        let content = vec![text("héllo"), image("AAAAAAAA", "image/png"), text("world")];
        let kept = bounded_to(content, 8);
        assert_eq!(kept[0], text("héllo"));
        // 6 bytes used, 2 left: the image does not fit, the text is cut to 2 bytes.
        assert_eq!(kept[1], text("wo"));
        assert_eq!(
            kept[2],
            text("\n[output truncated: the tool returned 28 bytes; at most 8 reach the model]")
        );
        assert_eq!(kept.len(), 3);
    }
}
