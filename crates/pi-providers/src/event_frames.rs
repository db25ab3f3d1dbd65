//! The body of an AWS event stream (`application/vnd.amazon.eventstream`, Bedrock's
//! `ConverseStream` answer) read with the AWS SDK's frame codec: each frame becomes the
//! `(event name, JSON payload)` pair a wire's parser reads, as an SSE event does. An
//! exception frame is named `exception:<type>` so the parser can say what failed.

use aws_smithy_eventstream::frame::{DecodedFrame, MessageFrameDecoder};
use aws_smithy_types::event_stream::{HeaderValue, Message};
use futures::{Stream, StreamExt};
use tokio_util::bytes::{Buf, BytesMut};

/// The name a frame's `:event-type` (or, for an exception, `exception:` and its
/// `:exception-type`) gives it; `None` when it names neither.
fn frame_name(message: &Message) -> Option<String> {
    let header = |name: &str| {
        message
            .headers()
            .iter()
            .find(|header| header.name().as_str() == name)
            .and_then(|header| match header.value() {
                HeaderValue::String(value) => Some(value.as_str().to_owned()),
                _ => None,
            })
    };
    match header(":message-type").as_deref() {
        Some("exception") => header(":exception-type").map(|kind| format!("exception:{kind}")),
        Some("error") => Some(format!(
            "exception:{}",
            header(":error-code").unwrap_or_else(|| "error".to_owned())
        )),
        _ => header(":event-type"),
    }
}

/// The frames of `response`'s body, each `(name, payload)`; ends with the body or the first
/// failure. No frame may hold more than `max_frame_bytes` (the codec itself refuses frames
/// over 16 MiB and checks both CRCs).
pub(crate) fn frames(
    response: reqwest::Response,
    max_frame_bytes: usize,
) -> impl Stream<Item = Result<(Option<String>, String), String>> {
    async_stream::stream! {
        let mut decoder = MessageFrameDecoder::new();
        let mut buffer = BytesMut::new();
        let body = response.bytes_stream();
        futures::pin_mut!(body);
        while let Some(chunk) = body.next().await {
            match chunk {
                Ok(bytes) => buffer.extend_from_slice(&bytes),
                Err(error) => {
                    yield Err(format!("the connection failed mid-stream: {}", error.without_url()));
                    return;
                }
            }
            loop {
                match decoder.decode_frame(&mut buffer) {
                    Ok(DecodedFrame::Complete(message)) => {
                        let payload = String::from_utf8_lossy(message.payload()).into_owned();
                        yield Ok((frame_name(&message), payload));
                    }
                    Ok(DecodedFrame::Incomplete) => break,
                    Err(error) => {
                        yield Err(format!("the provider sent an unreadable event frame: {error}"));
                        return;
                    }
                }
            }
            if buffer.remaining() > max_frame_bytes {
                yield Err(format!(
                    "the provider sent an event frame over {} KiB",
                    max_frame_bytes >> 10
                ));
                return;
            }
        }
        if buffer.has_remaining() {
            yield Err("the provider's event stream ended inside a frame".to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use aws_smithy_types::event_stream::Header;

    use super::*;

    #[test]
    fn frames_are_named_by_event_or_exception_type() {
        let event = Message::new(&b"{}"[..])
            .add_header(Header::new(
                ":message-type",
                HeaderValue::String("event".into()),
            ))
            .add_header(Header::new(
                ":event-type",
                HeaderValue::String("contentBlockDelta".into()),
            ));
        assert_eq!(frame_name(&event).as_deref(), Some("contentBlockDelta"));
        let exception = Message::new(&b"{}"[..])
            .add_header(Header::new(
                ":message-type",
                HeaderValue::String("exception".into()),
            ))
            .add_header(Header::new(
                ":exception-type",
                HeaderValue::String("throttlingException".into()),
            ));
        assert_eq!(
            frame_name(&exception).as_deref(),
            Some("exception:throttlingException")
        );
    }
}
