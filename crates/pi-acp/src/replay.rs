//! A stored conversation as the updates that show it again (`session/load`): the user's
//! messages as `user_message_chunk`, answers and thinking as agent chunks, each call as a
//! `tool_call` followed by the `tool_call_update` of its result.

use std::collections::HashMap;
use std::path::Path;

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, ImageContent, SessionUpdate, ToolCall as AcpToolCall,
    ToolCallContent, ToolCallStatus,
};
use pi_ai::{AssistantContent, Message, UserContent};
use pi_tool::Content;

use crate::tool_calls::{diffs_of, kind_of, locations_of, title_of};
use crate::updates::{chunk, result_update};

/// The updates that replay `messages` (a session's context, oldest first) in `cwd`.
pub fn replay(messages: &[Message], cwd: &Path) -> Vec<SessionUpdate> {
    let mut updates = Vec::new();
    // Each call's diffs, shown again beside its result.
    let mut diffs: HashMap<String, Vec<ToolCallContent>> = HashMap::new();
    for message in messages {
        match message {
            Message::User(user) => match &user.content {
                UserContent::Text(text) => {
                    updates.push(SessionUpdate::UserMessageChunk(chunk(text)));
                }
                UserContent::Blocks(blocks) => {
                    updates.extend(blocks.iter().filter_map(|block| {
                        user_block(block)
                            .map(|block| SessionUpdate::UserMessageChunk(ContentChunk::new(block)))
                    }));
                }
            },
            Message::Assistant(answer) => {
                for block in &answer.content {
                    match block {
                        AssistantContent::Text { text, .. } if !text.is_empty() => {
                            updates.push(SessionUpdate::AgentMessageChunk(chunk(text)));
                        }
                        AssistantContent::Thinking { thinking, .. } if !thinking.is_empty() => {
                            updates.push(SessionUpdate::AgentThoughtChunk(chunk(thinking)));
                        }
                        AssistantContent::ToolCall {
                            id,
                            name,
                            arguments,
                            ..
                        } => {
                            let shown = diffs_of(name, arguments, cwd, false);
                            diffs.insert(id.to_string(), shown.clone());
                            updates.push(SessionUpdate::ToolCall(
                                AcpToolCall::new(id.to_string(), title_of(name, arguments))
                                    .kind(kind_of(name))
                                    .status(ToolCallStatus::Pending)
                                    .locations(locations_of(name, arguments, cwd))
                                    .raw_input(arguments.clone())
                                    .content(shown),
                            ));
                        }
                        _ => {}
                    }
                }
            }
            Message::ToolResult(result) => {
                let shown = diffs
                    .remove(result.tool_call_id.as_str())
                    .unwrap_or_default();
                updates.push(SessionUpdate::ToolCallUpdate(result_update(result, shown)));
            }
        }
    }
    updates
}

fn user_block(block: &Content) -> Option<ContentBlock> {
    match block {
        Content::Text { text } => Some(ContentBlock::from(text.clone())),
        Content::Image { data, mime_type } => Some(ContentBlock::Image(ImageContent::new(
            data.clone(),
            mime_type.clone(),
        ))),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use pi_ai::{AssistantMessage, ModelInfo, UserMessage};
    use pi_tool::ToolResultMessage;
    use serde_json::json;

    #[test]
    fn a_conversation_replays_as_chunks_calls_and_results() {
        let model = ModelInfo {
            api: "openai-completions".into(),
            provider: "local".into(),
            model: "m".into(),
        };
        let messages = vec![
            Message::from(UserMessage::text("read a.txt")),
            Message::from(AssistantMessage::new(
                &model,
                vec![
                    AssistantContent::text("Reading."),
                    AssistantContent::tool_call("c1", "read", json!({"path": "a.txt"})),
                ],
            )),
            Message::ToolResult(ToolResultMessage {
                tool_call_id: "c1".into(),
                tool_name: "read".into(),
                content: vec![pi_tool::text("contents")],
                details: None,
                is_error: false,
                timestamp: 0,
            }),
            Message::from(AssistantMessage::new(
                &model,
                vec![AssistantContent::text("Done.")],
            )),
        ];
        let updates: Vec<_> = replay(&messages, Path::new("/w"))
            .iter()
            .map(|update| serde_json::to_value(update).unwrap())
            .collect();
        let kinds: Vec<_> = updates
            .iter()
            .map(|update| update["sessionUpdate"].as_str().unwrap())
            .collect();
        assert_eq!(
            kinds,
            [
                "user_message_chunk",
                "agent_message_chunk",
                "tool_call",
                "tool_call_update",
                "agent_message_chunk"
            ]
        );
        assert_eq!(updates[0]["content"]["text"], "read a.txt");
        assert_eq!(updates[2]["kind"], "read");
        assert_eq!(updates[3]["status"], "completed");
        assert_eq!(updates[4]["content"]["text"], "Done.");
    }
}
