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

/// A tool's hints as MCP lists them; `None` when it gives none (MCP's defaults then apply).
/// Both sides name the hints as MCP does (`readOnlyHint`, ...), so the JSON is the bridge.
pub fn to_mcp_annotations(hints: pi_tool::ToolAnnotations) -> Option<rmcp::model::ToolAnnotations> {
    if hints == pi_tool::ToolAnnotations::default() {
        return None;
    }
    serde_json::to_value(hints)
        .ok()
        .and_then(|value| serde_json::from_value(value).ok())
}

/// The hints an MCP server gave a tool, as ours (none given: MCP's defaults, the riskiest).
pub fn from_mcp_annotations(
    hints: Option<&rmcp::model::ToolAnnotations>,
) -> pi_tool::ToolAnnotations {
    hints
        .and_then(|hints| serde_json::to_value(hints).ok())
        .and_then(|value| serde_json::from_value(value).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_cross_the_bridge_both_ways_unchanged() {
        for hints in [
            pi_tool::ToolAnnotations::read_only(),
            pi_tool::ToolAnnotations::destructive(),
            pi_tool::ToolAnnotations::open(),
        ] {
            let mcp = to_mcp_annotations(hints);
            assert!(mcp.is_some());
            assert_eq!(from_mcp_annotations(mcp.as_ref()), hints);
        }
        assert!(to_mcp_annotations(pi_tool::ToolAnnotations::default()).is_none());
        assert_eq!(
            from_mcp_annotations(None),
            pi_tool::ToolAnnotations::default()
        );
    }
}
