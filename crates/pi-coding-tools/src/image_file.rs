//! Images for `read`: recognised by their bytes, attached as they are when a provider can take
//! them, otherwise decoded, converted and resized within Pi's limits (at most 2000×2000 pixels
//! and 4.5 MB), as upstream does.

use std::io::Cursor;

use base64::Engine;
use image::{DynamicImage, ImageFormat, ImageReader, Limits};
use pi_tool::{ToolOutput, image, text};
use serde_json::json;

use crate::truncate::format_size;

/// The largest side an attached image may have (Pi's limit).
const MAX_SIDE: u32 = 2000;
/// The largest attached image, in bytes (Pi's limit).
const MAX_IMAGE_BYTES: usize = 4_500_000;
/// Images larger than this are refused before decoding: a decompression bomb stays a note.
const MAX_DECODED_SIDE: u32 = 20_000;
const MAX_DECODE_BYTES: u64 = 512 * 1024 * 1024;

/// The image format of `bytes`, by their magic numbers (not the file name); `None` for
/// anything else, which `read` then shows as text.
pub(crate) fn sniff(bytes: &[u8]) -> Option<ImageFormat> {
    match bytes {
        [0xFF, 0xD8, 0xFF, ..] => Some(ImageFormat::Jpeg),
        [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, ..] => Some(ImageFormat::Png),
        [b'G', b'I', b'F', b'8', b'7' | b'9', b'a', ..] => Some(ImageFormat::Gif),
        [
            b'R',
            b'I',
            b'F',
            b'F',
            _,
            _,
            _,
            _,
            b'W',
            b'E',
            b'B',
            b'P',
            ..,
        ] => Some(ImageFormat::WebP),
        // "BM" alone starts plenty of text files: a BMP also names a known DIB header size.
        [
            b'B',
            b'M',
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            size,
            0,
            0,
            0,
            ..,
        ] if [12, 40, 52, 56, 64, 108, 124].contains(size) => Some(ImageFormat::Bmp),
        _ => None,
    }
}

/// The MIME type a provider is sent for `format`.
fn mime(format: ImageFormat) -> &'static str {
    match format {
        ImageFormat::Jpeg => "image/jpeg",
        ImageFormat::Png => "image/png",
        ImageFormat::Gif => "image/gif",
        ImageFormat::WebP => "image/webp",
        ImageFormat::Bmp => "image/bmp",
        _ => "application/octet-stream",
    }
}

/// Whether providers take `format` as it is (OpenAI, Anthropic and Gemini all take these four).
fn sendable(format: ImageFormat) -> bool {
    matches!(
        format,
        ImageFormat::Jpeg | ImageFormat::Png | ImageFormat::Gif | ImageFormat::WebP
    )
}

/// `read`'s answer for an image file: a note and the image, or a note saying why there is none.
pub(crate) fn read_image(bytes: &[u8], format: ImageFormat) -> ToolOutput {
    let original = mime(format);
    let reader = || {
        let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
        let mut limits = Limits::default();
        limits.max_image_width = Some(MAX_DECODED_SIDE);
        limits.max_image_height = Some(MAX_DECODED_SIDE);
        limits.max_alloc = Some(MAX_DECODE_BYTES);
        reader.limits(limits);
        reader
    };
    let (width, height) = match reader().into_dimensions() {
        Ok(dimensions) => dimensions,
        Err(error) => return unreadable(original, &error),
    };
    if sendable(format) && width <= MAX_SIDE && height <= MAX_SIDE && bytes.len() <= MAX_IMAGE_BYTES
    {
        let data = base64::engine::general_purpose::STANDARD.encode(bytes);
        return ToolOutput::new(vec![
            text(format!("Read image file [{original}]")),
            image(data, original),
        ]);
    }
    let decoded = match reader().decode() {
        Ok(decoded) => decoded,
        Err(error) => return unreadable(original, &error),
    };
    let Some((encoded, sent, shown)) = fit(&decoded) else {
        return ToolOutput::text(format!(
            "Read image file [{original}]\n[Image is {width}x{height}: it could not be made \
             smaller than {}, so it is not attached]",
            format_size(MAX_IMAGE_BYTES)
        ));
    };
    let (shown_width, shown_height) = shown;
    let scale = f64::from(width) / f64::from(shown_width.max(1));
    let mut note = format!("Read image file [{sent}]");
    if shown != (width, height) {
        note.push_str(&format!(
            "\n[Image: original {width}x{height} ({original}), displayed at \
             {shown_width}x{shown_height}. Multiply coordinates by {scale:.2} to map to the \
             original image.]"
        ));
    } else if sent != original {
        note.push_str(&format!("\n[Converted from {original}]"));
    }
    ToolOutput::new(vec![
        text(note),
        image(
            base64::engine::general_purpose::STANDARD.encode(&encoded),
            sent,
        ),
    ])
    .with_details(json!({
        "image": {
            "originalWidth": width,
            "originalHeight": height,
            "originalMimeType": original,
            "width": shown_width,
            "height": shown_height,
            "mimeType": sent,
        }
    }))
}

/// `image` within both limits: PNG when that fits, else JPEG, else smaller and smaller.
/// Returns the bytes, their MIME type and the dimensions sent.
fn fit(image: &DynamicImage) -> Option<(Vec<u8>, &'static str, (u32, u32))> {
    let mut side = MAX_SIDE;
    for _ in 0..8 {
        let resized = if image.width() > side || image.height() > side {
            image.resize(side, side, image::imageops::FilterType::Triangle)
        } else {
            image.clone()
        };
        let dimensions = (resized.width(), resized.height());
        if let Some(png) = encode(&resized, ImageFormat::Png)
            && png.len() <= MAX_IMAGE_BYTES
        {
            return Some((png, "image/png", dimensions));
        }
        let rgb = DynamicImage::ImageRgb8(resized.to_rgb8());
        if let Some(jpeg) = encode(&rgb, ImageFormat::Jpeg)
            && jpeg.len() <= MAX_IMAGE_BYTES
        {
            return Some((jpeg, "image/jpeg", dimensions));
        }
        side = side * 3 / 4;
    }
    None
}

fn encode(image: &DynamicImage, format: ImageFormat) -> Option<Vec<u8>> {
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, format).ok()?;
    Some(out.into_inner())
}

fn unreadable(mime: &str, error: &image::ImageError) -> ToolOutput {
    ToolOutput::text(format!(
        "Read image file [{mime}]\n[The image could not be decoded ({error}), so it is not attached]"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_starts_like_a_bmp_stays_text() {
        assert_eq!(sniff(b"BMW drivers love this file, honestly."), None);
        assert_eq!(sniff(b"GIF89a"), Some(ImageFormat::Gif));
    }
}
