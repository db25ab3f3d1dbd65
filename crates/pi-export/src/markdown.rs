//! A message's markdown as HTML, with nothing from the message able to run or fetch: raw
//! HTML is shown as text, links keep only web, mail and in-page targets, and images become
//! links (the page loads nothing from the network).

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

/// Appends `markdown` rendered as HTML to `out`.
pub(crate) fn render(out: &mut String, markdown: &str) {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut dropped_links = 0usize;
    let events = Parser::new_ext(markdown, options).filter_map(|event| match event {
        // Raw HTML: shown as the text it is.
        Event::Html(text) | Event::InlineHtml(text) | Event::Text(text) => {
            Some(Event::Text(visible_controls(text)))
        }
        Event::Code(code) => Some(Event::Code(visible_controls(code))),
        // An image would be fetched when the page opens: shown as a link to click instead.
        Event::Start(Tag::Image {
            dest_url, title, ..
        }) => {
            let start = Tag::Link {
                link_type: LinkType::Inline,
                dest_url: safe_url(dest_url),
                title,
                id: CowStr::Borrowed(""),
            };
            Some(Event::Start(start))
        }
        Event::End(TagEnd::Image) => Some(Event::End(TagEnd::Link)),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => {
            if is_safe(&dest_url) {
                Some(Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                }))
            } else {
                dropped_links += 1;
                None
            }
        }
        // Links do not nest, so a dropped link's end is the next link end.
        Event::End(TagEnd::Link) if dropped_links > 0 => {
            dropped_links -= 1;
            None
        }
        other => Some(other),
    });
    pulldown_cmark::html::push_html(out, events);
}

/// `text` with the control characters a terminal would obey written out (`\u{1b}`), as
/// [`crate::escape::text`] shows them outside markdown.
fn visible_controls(text: CowStr<'_>) -> CowStr<'_> {
    if !text
        .chars()
        .any(|character| character.is_control() && !matches!(character, '\n' | '\t'))
    {
        return text;
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for character in text.chars() {
        match character {
            '\n' | '\t' => shown.push(character),
            control if control.is_control() => {
                shown.push_str(&format!("\\u{{{:x}}}", u32::from(control)));
            }
            other => shown.push(other),
        }
    }
    CowStr::from(shown)
}

/// Whether a link may stay a link: web and mail addresses and anchors in this page
/// (`javascript:`, `data:`, `file:` and the rest do not).
fn is_safe(url: &str) -> bool {
    let lower = url.trim_start().to_ascii_lowercase();
    ["https://", "http://", "mailto:", "#"]
        .iter()
        .any(|prefix| lower.starts_with(prefix))
}

fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    if is_safe(&url) {
        url
    } else {
        CowStr::Borrowed("#")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html(markdown: &str) -> String {
        let mut out = String::new();
        render(&mut out, markdown);
        out
    }

    #[test]
    fn markdown_becomes_html() {
        let out = html("# Title\n\n**bold** and `code`\n\n```rust\nfn main() {}\n```\n");
        assert!(out.contains("<h1>Title</h1>"), "{out}");
        assert!(out.contains("<strong>bold</strong>"), "{out}");
        assert!(
            out.contains("<code class=\"language-rust\">fn main() {}"),
            "{out}"
        );
    }

    #[test]
    fn raw_html_is_text() {
        let out = html("hi <img src=x onerror=alert(1)>\n\n<script>alert(2)</script>\n");
        assert!(!out.contains("<img"), "{out}");
        assert!(!out.contains("<script"), "{out}");
        assert!(out.contains("&lt;script&gt;"), "{out}");
    }

    #[test]
    fn unsafe_links_and_images_fetch_and_run_nothing() {
        let out =
            html("[x](javascript:alert(1)) ![pic](https://example.com/a.png) [ok](https://a.b)");
        assert!(!out.contains("javascript:"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(
            out.contains("<a href=\"https://example.com/a.png\">pic</a>"),
            "{out}"
        );
        assert!(out.contains("<a href=\"https://a.b\">ok</a>"), "{out}");
        assert!(out.contains("x"), "{out}");
    }
}
