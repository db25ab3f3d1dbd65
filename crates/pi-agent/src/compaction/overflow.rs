//! Recognising a provider's "the context is too long" error, on every wire we speak: the
//! message our providers put in `errorMessage` carries the server's own text.

use pi_ai::{AssistantMessage, StopReason};

/// Phrases servers use for a context overflow (compared in lower case).
const PHRASES: &[&str] = &[
    // Anthropic: "prompt is too long: 213462 tokens > 200000 maximum"
    "prompt is too long",
    // Amazon Bedrock
    "input is too long for requested model",
    // OpenAI Chat Completions and Responses: "... exceeds the context window of this model"
    "exceeds the context window",
    // llama.cpp server: "the request exceeds the available context size, try increasing it"
    "exceeds the available context size",
    // LM Studio
    "greater than the context length",
    // Groq
    "reduce the length of the messages",
    // MiniMax
    "context window exceeds limit",
    // Kimi
    "exceeded model token limit",
    // z.ai's finish reason surfaced as an error, and OpenAI's error code
    "model_context_window_exceeded",
    "context_length_exceeded",
    "context length exceeded",
    "too many tokens",
    "token limit exceeded",
];

/// Phrases followed by a number: "maximum context length is 8192 tokens" (OpenAI-compatible
/// servers such as vLLM and OpenRouter), xAI's "maximum prompt length is 131072", Copilot's
/// "exceeds the limit of 128000".
const PHRASES_WITH_NUMBER: &[&str] = &[
    "maximum context length is ",
    "maximum prompt length is ",
    "exceeds the limit of ",
];

/// Whether a failed response says the request did not fit the model's context.
///
/// ```
/// use pi_agent::compaction::is_context_overflow;
/// use pi_ai::{AssistantMessage, ModelInfo, StopReason};
///
/// let model = ModelInfo { api: "anthropic-messages".into(), provider: "anthropic".into(), model: "m".into() };
/// let failed = AssistantMessage::new(&model, Vec::new())
///     .with_error(StopReason::Error, "400: prompt is too long: 213462 tokens > 200000 maximum");
/// assert!(is_context_overflow(&failed));
/// ```
pub fn is_context_overflow(message: &AssistantMessage) -> bool {
    if message.stop_reason != StopReason::Error {
        return false;
    }
    message
        .error_message
        .as_deref()
        .is_some_and(is_overflow_text)
}

/// The same test on an error text alone.
pub fn is_overflow_text(text: &str) -> bool {
    let text = text.to_lowercase();
    if PHRASES.iter().any(|phrase| text.contains(phrase)) {
        return true;
    }
    // Gemini: "The input token count (1196265) exceeds the maximum number of tokens allowed".
    if let Some(at) = text.find("input token count")
        && text
            .get(at..)
            .is_some_and(|rest| rest.contains("exceeds the maximum"))
    {
        return true;
    }
    // Mistral: "... too large for model with 32768 maximum context length".
    if text.contains("too large for model with") && text.contains("maximum context length") {
        return true;
    }
    PHRASES_WITH_NUMBER.iter().any(|phrase| {
        text.match_indices(phrase).any(|(at, _)| {
            text.get(at + phrase.len()..)
                .and_then(|rest| rest.chars().next())
                .is_some_and(|first| first.is_ascii_digit())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_wire_s_overflow_is_recognised() {
        for text in [
            // OpenAI Chat Completions / Responses (code context_length_exceeded)
            "HTTP 400: Your input exceeds the context window of this model. Please adjust your input and try again.",
            "400 Bad Request: {\"error\":{\"code\":\"context_length_exceeded\"}}",
            // Anthropic
            "HTTP 400: invalid_request_error: prompt is too long: 213462 tokens > 200000 maximum",
            // Gemini
            "HTTP 400: The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",
            // llama.cpp
            "HTTP 400: the request exceeds the available context size, try increasing it",
            // vLLM / OpenRouter and other OpenAI-compatible servers
            "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens",
            "Prompt contains 40000 tokens, too large for model with 32768 maximum context length",
        ] {
            assert!(is_overflow_text(text), "{text}");
        }
    }

    #[test]
    fn other_errors_are_not_overflows() {
        for text in [
            "HTTP 429: rate limit reached, retry in 20s",
            "HTTP 401: invalid api key",
            "the response stopped: idle for 300 s",
            "maximum context length is unknown",
            "HTTP 500: internal error",
        ] {
            assert!(!is_overflow_text(text), "{text}");
        }
        let model = pi_ai::ModelInfo {
            api: "a".into(),
            provider: "p".into(),
            model: "m".into(),
        };
        // A successful answer that merely talks about overflows is not one.
        let answer = AssistantMessage::new(
            &model,
            vec![pi_ai::AssistantContent::text("prompt is too long")],
        );
        assert!(!is_context_overflow(&answer));
    }
}
