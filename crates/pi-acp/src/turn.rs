//! The two ends of a prompt turn: the editor's prompt (ACP content blocks) as our user
//! message, and how our run ended as ACP's `stopReason`.

use agent_client_protocol::v1::schema::{ContentBlock, EmbeddedResourceResource, StopReason};
use pi_agent::EndReason;
use pi_ai::{Message, UserContent, UserMessage};
use pi_coding_agent::PromptOutcome;
use pi_tool::Content;

/// The user message a prompt's blocks make: text as text, images as images, a resource link
/// as a mention of its URI, an embedded text resource as its text under its URI (the model
/// reads it; the agent's tools can open the file again).
pub fn user_message(blocks: &[ContentBlock]) -> UserMessage {
    let mut content = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Text(text) => content.push(pi_tool::text(text.text.clone())),
            ContentBlock::Image(image) => {
                content.push(pi_tool::image(image.data.clone(), image.mime_type.clone()));
            }
            ContentBlock::ResourceLink(link) => {
                content.push(pi_tool::text(format!("@{}", link.uri)));
            }
            ContentBlock::Resource(embedded) => match &embedded.resource {
                EmbeddedResourceResource::TextResourceContents(resource) => {
                    content.push(pi_tool::text(format!(
                        "<context uri=\"{}\">\n{}\n</context>",
                        resource.uri, resource.text
                    )));
                }
                EmbeddedResourceResource::BlobResourceContents(resource) => {
                    content.push(pi_tool::text(format!("@{}", resource.uri)));
                }
                _ => {}
            },
            // Audio is not advertised: a client that sends it anyway is not read.
            _ => {}
        }
    }
    let mut message = UserMessage::text(String::new());
    message.content = match content.as_slice() {
        [Content::Text { text }] => UserContent::Text(text.clone()),
        _ => UserContent::Blocks(content),
    };
    message
}

/// ACP's stop reason for a finished prompt; `Err` with the reason when the run failed (ACP
/// has no stop reason for a failure: the prompt request is answered with an error).
pub fn stop_reason(outcome: &PromptOutcome) -> Result<StopReason, String> {
    if let Some(failure) = &outcome.recording_failure {
        return Err(format!(
            "the session file stopped taking entries: {failure}"
        ));
    }
    let cut_off = matches!(
        outcome.run.messages.last(),
        Some(Message::Assistant(answer)) if answer.stop_reason == pi_ai::StopReason::Length
    );
    match outcome.run.end {
        EndReason::Completed | EndReason::Terminated if cut_off => Ok(StopReason::MaxTokens),
        EndReason::Completed | EndReason::Terminated => Ok(StopReason::EndTurn),
        EndReason::MaxTurns => Ok(StopReason::MaxTurnRequests),
        EndReason::Aborted => Ok(StopReason::Cancelled),
        EndReason::Error => Err(outcome
            .run
            .error
            .clone()
            .unwrap_or_else(|| "the model's request failed".to_owned())),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use agent_client_protocol::v1::schema::{ResourceLink, TextContent};
    use pi_agent::AgentRun;

    #[test]
    fn a_prompt_of_text_is_a_text_message_and_links_are_mentions() {
        let message = user_message(&[ContentBlock::Text(TextContent::new("hello"))]);
        assert_eq!(message.content, UserContent::Text("hello".to_owned()));
        let message = user_message(&[
            ContentBlock::Text(TextContent::new("look at")),
            ContentBlock::ResourceLink(ResourceLink::new("main.rs", "file:///w/main.rs")),
        ]);
        let UserContent::Blocks(blocks) = message.content else {
            panic!()
        };
        assert_eq!(blocks[1], pi_tool::text("@file:///w/main.rs"));
    }

    fn outcome(end: EndReason, error: Option<&str>) -> PromptOutcome {
        PromptOutcome {
            run: AgentRun {
                messages: Vec::new(),
                end,
                error: error.map(str::to_owned),
            },
            recording_failure: None,
        }
    }

    #[test]
    fn end_reasons_map_to_stop_reasons() {
        let reason = |end| stop_reason(&outcome(end, None)).unwrap();
        assert_eq!(reason(EndReason::Completed), StopReason::EndTurn);
        assert_eq!(reason(EndReason::Terminated), StopReason::EndTurn);
        assert_eq!(reason(EndReason::MaxTurns), StopReason::MaxTurnRequests);
        assert_eq!(reason(EndReason::Aborted), StopReason::Cancelled);
        assert_eq!(
            stop_reason(&outcome(EndReason::Error, Some("503"))).unwrap_err(),
            "503"
        );
    }
}
