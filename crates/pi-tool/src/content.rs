//! Content blocks: what a tool says to the model.
//!
//! Pi writes content as a list of tagged blocks. A tool result carries text and images; the
//! assistant side (thinking, tool calls) lives in `pi-ai`.

use serde::{Deserialize, Serialize};

/// One block of tool-result content, tagged by `type` exactly as Pi writes it.
///
/// ```
/// use pi_tool::{Content, text};
///
/// let block = text("Pi");
/// assert_eq!(serde_json::to_string(&block).unwrap(), r#"{"type":"text","text":"Pi"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Content {
    /// Plain text for the model: `{"type":"text","text":...}`.
    Text {
        /// The text itself.
        text: String,
    },
    /// An image: `{"type":"image","data":<base64>,"mimeType":...}`.
    #[serde(rename_all = "camelCase")]
    Image {
        /// Base64-encoded image bytes.
        data: String,
        /// The image's media type, e.g. `image/png`.
        mime_type: String,
    },
}

impl Content {
    /// The text of a text block, `None` for an image.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text { text } => Some(text),
            Content::Image { .. } => None,
        }
    }
}

/// A text block, the course's `text()` helper.
pub fn text(value: impl Into<String>) -> Content {
    Content::Text { text: value.into() }
}

/// An image block from base64 data and a media type.
///
/// ```
/// let block = pi_tool::image("iVBORw0KGgo=", "image/png");
/// assert_eq!(
///     serde_json::to_value(&block).unwrap(),
///     serde_json::json!({"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"})
/// );
/// ```
pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Content {
    Content::Image {
        data: data.into(),
        mime_type: mime_type.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_and_image_round_trip_in_pi_shape() {
        let blocks = vec![text("a"), image("AAAA", "image/jpeg")];
        let wire = serde_json::to_value(&blocks).unwrap();
        assert_eq!(
            wire,
            json!([
                {"type": "text", "text": "a"},
                {"type": "image", "data": "AAAA", "mimeType": "image/jpeg"}
            ])
        );
        let back: Vec<Content> = serde_json::from_value(wire).unwrap();
        assert_eq!(back, blocks);
    }

    #[test]
    fn unknown_block_type_is_rejected() {
        let err = serde_json::from_value::<Content>(json!({"type": "video", "url": "x"}));
        assert!(err.is_err());
    }
}
