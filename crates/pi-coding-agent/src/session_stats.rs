//! A session's counts, tokens and cost, in the shape of Pi's `get_session_stats` (RPC) data:
//! messages by role, tool calls, and the assistant answers' usage summed over the
//! conversation the session holds now (its context at the leaf).

use pi_ai::Message;
use pi_session::Session;
use serde::Serialize;

/// Summed token counts of a session's answers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenTotals {
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Tokens read from the prompt cache.
    pub cache_read: u64,
    /// Tokens written to the prompt cache.
    pub cache_write: u64,
    /// All of them.
    pub total: u64,
}

/// Pi's session statistics.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionStats {
    /// The session file, when it is kept in one.
    pub session_file: Option<String>,
    /// The session's id.
    pub session_id: String,
    /// User messages.
    pub user_messages: usize,
    /// Assistant messages.
    pub assistant_messages: usize,
    /// Tool calls the answers made.
    pub tool_calls: usize,
    /// Tool results.
    pub tool_results: usize,
    /// Every message.
    pub total_messages: usize,
    /// The answers' tokens.
    pub tokens: TokenTotals,
    /// What the answers cost, in dollars (from the catalog's prices when they were recorded).
    pub cost: f64,
    /// How full the model's context window is now; left out when the window is unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_usage: Option<ContextUsage>,
}

/// How full the context window is, as Pi's `contextUsage` says it: the context size the
/// compaction checks (the last fresh answer's usage plus an estimate of what followed).
///
/// Pi gives `null` tokens and percent right after a compaction, until an answer gives fresh
/// usage; here the estimate stands in then (never `null`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextUsage {
    /// Tokens of the context now.
    pub tokens: u64,
    /// The model's context window.
    pub context_window: u64,
    /// `tokens` as a percentage of the window.
    pub percent: f64,
}

impl ContextUsage {
    /// The usage of `session`'s context in a window of `context_window` tokens.
    pub fn of(session: &Session, context_window: u64) -> Result<Self, pi_session::SessionError> {
        let tokens = pi_agent::compaction::session_context_tokens(session)?;
        // Display only: token counts fit an f64's mantissa.
        #[allow(clippy::cast_precision_loss)]
        let percent = tokens as f64 * 100.0 / context_window as f64;
        Ok(Self {
            tokens,
            context_window,
            percent,
        })
    }
}

impl SessionStats {
    /// The statistics of `session`'s conversation at its leaf.
    pub fn of(session: &Session) -> Result<Self, pi_session::SessionError> {
        let messages = session.context()?.messages;
        let mut stats = Self {
            session_file: session.file_path().map(|path| path.display().to_string()),
            session_id: session.id().to_owned(),
            user_messages: 0,
            assistant_messages: 0,
            tool_calls: 0,
            tool_results: 0,
            total_messages: messages.len(),
            tokens: TokenTotals::default(),
            cost: 0.0,
            context_usage: None,
        };
        for message in &messages {
            match message {
                Message::User(_) => stats.user_messages += 1,
                Message::ToolResult(_) => stats.tool_results += 1,
                Message::Assistant(answer) => {
                    stats.assistant_messages += 1;
                    stats.tool_calls += answer
                        .content
                        .iter()
                        .filter(|block| matches!(block, pi_ai::AssistantContent::ToolCall { .. }))
                        .count();
                    let usage = &answer.usage;
                    stats.tokens.input += usage.input;
                    stats.tokens.output += usage.output;
                    stats.tokens.cache_read += usage.cache_read;
                    stats.tokens.cache_write += usage.cache_write;
                    stats.tokens.total += usage.total_tokens;
                    stats.cost += usage.cost.total;
                }
            }
        }
        Ok(stats)
    }

    /// One line for a person: `tokens: 1,234 in, 56 out (cache 0 read, 0 written); cost
    /// $0.0123`.
    pub fn summary(&self) -> String {
        format!(
            "{} messages; tokens: {} in, {} out (cache {} read, {} written); cost ${:.4}",
            self.total_messages,
            self.tokens.input,
            self.tokens.output,
            self.tokens.cache_read,
            self.tokens.cache_write,
            self.cost
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_tokens_and_cost_are_summed() {
        let dir = tempfile::tempdir().unwrap();
        let mut session = Session::in_memory(dir.path());
        let user: Message =
            serde_json::from_value(json!({"role": "user", "content": "hi", "timestamp": 1}))
                .unwrap();
        let answer = |cost: f64| -> Message {
            serde_json::from_value(json!({"role": "assistant", "content": [
                {"type": "text", "text": "ok"},
                {"type": "toolCall", "id": "c", "name": "read", "arguments": {}}
            ], "api": "x", "provider": "p", "model": "m", "usage": {
                "input": 10, "output": 5, "cacheRead": 2, "cacheWrite": 1, "totalTokens": 18,
                "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": cost}
            }, "stopReason": "toolUse", "timestamp": 2})).unwrap()
        };
        session.append_message(&user).unwrap();
        session.append_message(&answer(0.25)).unwrap();
        session.append_message(&answer(0.5)).unwrap();
        let stats = SessionStats::of(&session).unwrap();
        assert_eq!(stats.user_messages, 1);
        assert_eq!(stats.assistant_messages, 2);
        assert_eq!(stats.tool_calls, 2);
        assert_eq!(stats.tokens.total, 36);
        assert!((stats.cost - 0.75).abs() < 1e-9);
        let shown = serde_json::to_value(&stats).unwrap();
        assert_eq!(shown["tokens"]["cacheRead"], 4);
        assert!(stats.summary().ends_with("cost $0.7500"));
    }
}
