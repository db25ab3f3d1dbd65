//! Between our results and MCP's.

use pi_tool::{Content, ToolResultMessage};
use rmcp::model::{CallToolResult, ContentBlock};

/// Our content blocks as MCP content: text stays text, images stay images.
pub fn to_mcp_content(content: &[Content]) -> Vec<ContentBlock> {
    content
        .iter()
        .map(|block| match block {
            Content::Text { text } => ContentBlock::text(text.clone()),
            Content::Image { data, mime_type } => {
                ContentBlock::image(data.clone(), mime_type.clone())
            }
        })
        .collect()
}

/// A result message as an MCP `CallToolResult`: the same content, `isError` kept, details as
/// `structuredContent`.
pub fn to_call_tool_result(result: &ToolResultMessage) -> CallToolResult {
    let content = to_mcp_content(&result.content);
    let mut mcp = if result.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    mcp.structured_content = result.details.clone();
    mcp
}
