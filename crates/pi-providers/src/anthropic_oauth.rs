//! A Claude subscription token (`sk-ant-oat…`, Pi's `ANTHROPIC_OAUTH_TOKEN` or its `/login`)
//! on the Messages wire, sent as Pi 0.80.6 sends it: as a bearer token with Claude Code's
//! identity (its beta flags, user agent and `x-app`), the Claude Code system line first, and
//! the tools Claude Code also has under Claude Code's spelling (`read` → `Read`), mapped back
//! to ours in the answer. The subscription API accepts a token only in this shape.

use pi_tool::ToolDefinition;

/// What marks a subscription token (Pi's test: the key contains it).
const OAUTH_TOKEN_MARK: &str = "sk-ant-oat";

/// The Claude Code version Pi presents itself as.
const CLAUDE_CODE_VERSION: &str = "2.1.75";

/// The beta flags every subscription request carries, before the wire's own.
pub(crate) const OAUTH_BETAS: [&str; 2] = ["claude-code-20250219", "oauth-2025-04-20"];

/// The system line a subscription request starts with.
pub(crate) const CLAUDE_CODE_IDENTITY: &str =
    "You are Claude Code, Anthropic's official CLI for Claude.";

/// Claude Code's tool names, in its casing.
const CLAUDE_CODE_TOOLS: [&str; 17] = [
    "Read",
    "Write",
    "Edit",
    "Bash",
    "Grep",
    "Glob",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "KillShell",
    "NotebookEdit",
    "Skill",
    "Task",
    "TaskOutput",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
];

/// Whether `key` is a subscription token rather than an API key.
pub(crate) fn is_oauth_token(key: &str) -> bool {
    key.contains(OAUTH_TOKEN_MARK)
}

/// The user agent of a subscription request.
pub(crate) fn user_agent() -> String {
    format!("claude-cli/{CLAUDE_CODE_VERSION}")
}

/// `name` as Claude Code spells it when Claude Code has such a tool (any casing), else as is.
pub(crate) fn to_claude_code_name(name: &str) -> String {
    CLAUDE_CODE_TOOLS
        .iter()
        .find(|known| known.eq_ignore_ascii_case(name))
        .map_or_else(|| name.to_owned(), |known| (*known).to_owned())
}

/// A tool name from the answer as the request's tool of that name (any casing) spells it.
pub(crate) fn from_claude_code_name(name: &str, tools: &[ToolDefinition]) -> String {
    tools
        .iter()
        .find(|tool| tool.name.eq_ignore_ascii_case(name))
        .map_or_else(|| name.to_owned(), |tool| tool.name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscription_tokens_are_told_from_api_keys() {
        assert!(is_oauth_token("sk-ant-oat01-abc"));
        assert!(!is_oauth_token("sk-ant-api03-abc"));
    }

    #[test]
    fn claude_code_tools_take_its_casing_and_come_back_as_ours() {
        assert_eq!(to_claude_code_name("read"), "Read");
        assert_eq!(to_claude_code_name("todowrite"), "TodoWrite");
        assert_eq!(to_claude_code_name("find"), "find");
        let tools = vec![ToolDefinition {
            name: "read".to_owned(),
            description: "Read a file".to_owned(),
            parameters: serde_json::json!({"type": "object"}),
        }];
        assert_eq!(from_claude_code_name("Read", &tools), "read");
        assert_eq!(from_claude_code_name("Grep", &tools), "Grep");
    }
}
