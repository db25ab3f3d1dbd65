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

/// An image file's bytes as the model is sent them, with `read`'s recognition, limits and
/// resizing: a note and the image, or a note saying why there is none. `None` when the bytes
/// are not an image this program recognises. Used for files attached to a user's message
/// (`@photo.png`), so they reach the model as `read` would hand them over.
pub fn image_attachment(bytes: &[u8]) -> Option<ToolOutput> {
    sniff(bytes).map(|format| read_image(bytes, format))
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
    // Decoded even when it will be sent as it is: a file cut short keeps a header that reads
    // well, and a provider given an image it cannot decode refuses the whole request.
    let decoded = match reader().decode() {
        Ok(decoded) => decoded,
        Err(error) => return unreadable(original, &error),
    };
    // The JPEG decoder fills in what a file cut short lacks instead of failing: its segments
    // are walked to the end-of-image marker, which a whole file has.
    if format == ImageFormat::Jpeg && !jpeg_is_whole(bytes) {
        return ToolOutput::text(format!(
            "Read image file [{original}]\n[The image could not be decoded (the file ends \
             before the image does), so it is not attached]"
        ));
    }
    let (width, height) = (decoded.width(), decoded.height());
    if sendable(format) && width <= MAX_SIDE && height <= MAX_SIDE && bytes.len() <= MAX_IMAGE_BYTES
    {
        let data = base64::engine::general_purpose::STANDARD.encode(bytes);
        return ToolOutput::new(vec![
            text(format!("Read image file [{original}]")),
            image(data, original),
        ]);
    }
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

/// Whether a JPEG file reaches its end-of-image marker: its segments are walked by their
/// lengths (an embedded thumbnail's own marker is inside one), and its entropy-coded data up to
/// the next marker. Whatever follows the marker (some cameras append data) is left alone.
fn jpeg_is_whole(bytes: &[u8]) -> bool {
    let byte = |at: usize| bytes.get(at).copied();
    let mut at = 2; // After the start-of-image marker.
    loop {
        // Markers may be preceded by any number of fill bytes.
        while byte(at) == Some(0xFF) && byte(at + 1) == Some(0xFF) {
            at += 1;
        }
        let (Some(0xFF), Some(marker)) = (byte(at), byte(at + 1)) else {
            return false;
        };
        at += 2;
        match marker {
            0xD9 => return true,
            // Markers without a length.
            0x01 | 0xD0..=0xD7 => continue,
            _ => {}
        }
        let (Some(high), Some(low)) = (byte(at), byte(at + 1)) else {
            return false;
        };
        at += usize::from(u16::from_be_bytes([high, low]));
        if marker == 0xDA {
            // Entropy-coded data runs to the next marker that is not a stuffed byte or a
            // restart.
            loop {
                let Some(found) = bytes.get(at..).and_then(|rest| memchr::memchr(0xFF, rest))
                else {
                    return false;
                };
                at += found;
                match byte(at + 1) {
                    Some(0x00 | 0xD0..=0xD7) => at += 2,
                    Some(_) => break,
                    None => return false,
                }
            }
        }
    }
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
    fn a_jpeg_is_whole_only_up_to_its_end_marker() {
        let mut jpeg = Cursor::new(Vec::new());
        DynamicImage::new_rgb8(16, 16)
            .write_to(&mut jpeg, ImageFormat::Jpeg)
            .unwrap();
        let mut jpeg = jpeg.into_inner();
        assert!(jpeg_is_whole(&jpeg));
        assert!(!jpeg_is_whole(&jpeg[..jpeg.len() - 2]));
        assert!(!jpeg_is_whole(&jpeg[..4]));
        jpeg.extend_from_slice(b"appended by a camera");
        assert!(jpeg_is_whole(&jpeg));
    }

    #[test]
    fn text_that_starts_like_a_bmp_stays_text() {
        assert_eq!(sniff(b"BMW drivers love this file, honestly."), None);
        assert_eq!(sniff(b"GIF89a"), Some(ImageFormat::Gif));
    }
}
