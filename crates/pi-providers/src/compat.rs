//! A model's `compat` block from Pi's `models.json`: how far an OpenAI- or Anthropic-compatible
//! server departs from the official API. Every field is optional; an unset one takes what Pi
//! detects from the provider's name and base URL ([`ChatCompat::resolve`]).
//!
//! Fields that change our requests are acted on; the few others (said on each) are accepted
//! and ignored, so a Pi `models.json` reads without error.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which field carries the output limit on OpenAI Chat Completions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MaxTokensField {
    /// `max_completion_tokens` (OpenAI's current name).
    #[serde(rename = "max_completion_tokens")]
    MaxCompletionTokens,
    /// `max_tokens` (older servers).
    #[serde(rename = "max_tokens")]
    MaxTokens,
}

/// How thinking is asked for on OpenAI Chat Completions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThinkingFormat {
    /// `reasoning_effort` (OpenAI).
    #[serde(alias = "reasoning_effort")]
    Openai,
    /// `reasoning: {effort}` (OpenRouter).
    Openrouter,
    /// `thinking: {type}` plus `reasoning_effort` (DeepSeek).
    Deepseek,
    /// `reasoning: {enabled}` plus `reasoning_effort` (Together).
    Together,
    /// `thinking: {type, clear_thinking}` (Z.ai).
    Zai,
    /// Top-level `enable_thinking` (Qwen).
    Qwen,
    /// `chat_template_kwargs: {enable_thinking, preserve_thinking}` (local Qwen servers).
    QwenChatTemplate,
    /// `chat_template_kwargs` from [`ModelCompat::chat_template_kwargs`] (vLLM, Hugging Face).
    ChatTemplate,
    /// `thinking: "<level>"` as a string.
    StringThinking,
    /// `reasoning: {effort}` only with a mapped level (Ant Ling).
    AntLing,
}

/// A model's `compat` options as Pi's `models.json` writes them (camelCase keys). Unknown keys
/// are ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ModelCompat {
    /// Chat: send `store: false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_store: Option<bool>,
    /// Chat: the system prompt of a reasoning model goes as a `developer` message.
    /// (Responses: accepted and ignored; we send the system prompt as `instructions`.)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_developer_role: Option<bool>,
    /// Chat: the server takes `reasoning_effort`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_reasoning_effort: Option<bool>,
    /// Chat: the server takes `stream_options: {include_usage: true}` (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_usage_in_streaming: Option<bool>,
    /// Chat: which field carries the output limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens_field: Option<MaxTokensField>,
    /// Chat: tool results carry the tool's `name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires_tool_result_name: Option<bool>,
    /// Chat: a user message right after tool results gets an assistant message before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires_assistant_after_tool_result: Option<bool>,
    /// Chat: earlier thinking is replayed as plain text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires_thinking_as_text: Option<bool>,
    /// Chat: every replayed assistant message of a reasoning model carries `reasoning_content`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires_reasoning_content_on_assistant_messages: Option<bool>,
    /// Chat: how thinking is asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_format: Option<ThinkingFormat>,
    /// Chat: `chat_template_kwargs` for [`ThinkingFormat::ChatTemplate`]; a value
    /// `{"$var": "thinking.enabled"}` or `{"$var": "thinking.effort"}` is filled in from the
    /// thinking level, and one with `"omitWhenOff": true` is left out when thinking is off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_template_kwargs: Option<serde_json::Map<String, Value>>,
    /// Chat: `tool_stream: true` on requests with tools (Z.ai).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zai_tool_stream: Option<bool>,
    /// Chat: OpenRouter routing preferences, sent as-is as `provider`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_router_routing: Option<Value>,
    /// Chat: Vercel AI Gateway routing (`only`, `order`), sent as `providerOptions.gateway`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vercel_gateway_routing: Option<Value>,
    /// Chat: whether tool definitions may carry `strict`. Accepted and ignored: we send
    /// `strict` only in strict mode, which the caller asks for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_strict_mode: Option<bool>,
    /// Chat: `"anthropic"` puts Anthropic's `cache_control` marks on the system prompt, the
    /// last tool and the last conversation message (servers in front of Claude, e.g.
    /// OpenRouter's `anthropic/` models). Another value marks nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_control_format: Option<String>,
    /// Whether the server keeps a prompt cache long when `PI_CACHE_RETENTION=long` (Chat:
    /// `prompt_cache_retention`, the hour on cache marks; Responses and Anthropic too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_long_cache_retention: Option<bool>,
    /// Chat: the session's id goes as `session_id`, `x-client-request-id` and
    /// `x-session-affinity` headers (default false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub send_session_affinity_headers: Option<bool>,
    /// Responses: the session's id goes as a `session_id` header (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub send_session_id_header: Option<bool>,
    /// Anthropic: adaptive thinking (`thinking: {type: adaptive}` and `output_config.effort`)
    /// instead of a token budget (the newest Claude models).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub force_adaptive_thinking: Option<bool>,
    /// Anthropic: thinking without a signature is replayed with `signature: ""` instead of
    /// as text (some compatible servers want that; Anthropic refuses it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_empty_signature: Option<bool>,
    /// Anthropic: accepted and ignored (we do not send `eager_input_streaming`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_eager_tool_input_streaming: Option<bool>,
    /// Anthropic: `false` leaves the cache mark off the last tool (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_cache_control_on_tools: Option<bool>,
    /// Anthropic: accepted and ignored (we send no temperature).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_temperature: Option<bool>,
}

/// The Chat Completions options in force for one model: [`ModelCompat`] over what Pi detects
/// from the provider's name and base URL.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ChatCompat {
    pub(crate) supports_store: bool,
    pub(crate) supports_developer_role: bool,
    pub(crate) supports_reasoning_effort: bool,
    pub(crate) supports_usage_in_streaming: bool,
    pub(crate) max_tokens_field: MaxTokensField,
    pub(crate) requires_tool_result_name: bool,
    pub(crate) requires_assistant_after_tool_result: bool,
    pub(crate) requires_thinking_as_text: bool,
    pub(crate) requires_reasoning_content_on_assistant_messages: bool,
    pub(crate) thinking_format: ThinkingFormat,
    pub(crate) zai_tool_stream: bool,
    pub(crate) supports_long_cache_retention: bool,
    /// Anthropic's cache marks on the messages and tools.
    pub(crate) anthropic_cache_marks: bool,
}

impl ChatCompat {
    /// What Pi detects for `provider`'s `model` at `base_url`, overridden by what `compat`
    /// sets.
    pub(crate) fn resolve(
        provider: &str,
        model: &str,
        base_url: &str,
        compat: &ModelCompat,
    ) -> Self {
        let detected = Self::detect(provider, model, base_url);
        Self {
            supports_store: compat.supports_store.unwrap_or(detected.supports_store),
            supports_developer_role: compat
                .supports_developer_role
                .unwrap_or(detected.supports_developer_role),
            supports_reasoning_effort: compat
                .supports_reasoning_effort
                .unwrap_or(detected.supports_reasoning_effort),
            supports_usage_in_streaming: compat
                .supports_usage_in_streaming
                .unwrap_or(detected.supports_usage_in_streaming),
            max_tokens_field: compat.max_tokens_field.unwrap_or(detected.max_tokens_field),
            requires_tool_result_name: compat
                .requires_tool_result_name
                .unwrap_or(detected.requires_tool_result_name),
            requires_assistant_after_tool_result: compat
                .requires_assistant_after_tool_result
                .unwrap_or(detected.requires_assistant_after_tool_result),
            requires_thinking_as_text: compat
                .requires_thinking_as_text
                .unwrap_or(detected.requires_thinking_as_text),
            requires_reasoning_content_on_assistant_messages: compat
                .requires_reasoning_content_on_assistant_messages
                .unwrap_or(detected.requires_reasoning_content_on_assistant_messages),
            thinking_format: compat.thinking_format.unwrap_or(detected.thinking_format),
            zai_tool_stream: compat.zai_tool_stream.unwrap_or(detected.zai_tool_stream),
            supports_long_cache_retention: compat
                .supports_long_cache_retention
                .unwrap_or(detected.supports_long_cache_retention),
            anthropic_cache_marks: compat
                .cache_control_format
                .as_deref()
                .map_or(detected.anthropic_cache_marks, |format| {
                    format == "anthropic"
                }),
        }
    }

    /// Pi's detection by provider name and base URL.
    fn detect(provider: &str, model: &str, base_url: &str) -> Self {
        let at = |host: &str| base_url.contains(host);
        let zai =
            matches!(provider, "zai" | "zai-coding-cn") || at("api.z.ai") || at("open.bigmodel.cn");
        let together = provider == "together" || at("api.together.ai") || at("api.together.xyz");
        let moonshot = matches!(provider, "moonshotai" | "moonshotai-cn") || at("api.moonshot.");
        let openrouter = provider == "openrouter" || at("openrouter.ai");
        let workers_ai = provider == "cloudflare-workers-ai" || at("api.cloudflare.com");
        let ai_gateway = provider == "cloudflare-ai-gateway" || at("gateway.ai.cloudflare.com");
        let nvidia = provider == "nvidia" || at("integrate.api.nvidia.com");
        let ant_ling = provider == "ant-ling" || at("api.ant-ling.com");
        let grok = provider == "xai" || at("api.x.ai");
        let deepseek = provider == "deepseek" || at("deepseek.com");
        let non_standard = nvidia
            || provider == "cerebras"
            || at("cerebras.ai")
            || grok
            || together
            || at("chutes.ai")
            || at("deepseek.com")
            || zai
            || moonshot
            || provider == "opencode"
            || at("opencode.ai")
            || workers_ai
            || ai_gateway
            || ant_ling;
        let max_tokens =
            at("chutes.ai") || moonshot || ai_gateway || together || nvidia || ant_ling;
        // OpenRouter's Claude and OpenAI models take what their makers' APIs take.
        let openrouter_anthropic = openrouter && model.starts_with("anthropic/");
        let openrouter_developer =
            openrouter_anthropic || (openrouter && model.starts_with("openai/"));
        Self {
            supports_store: !non_standard,
            supports_developer_role: openrouter_developer || (!non_standard && !openrouter),
            supports_reasoning_effort: !grok
                && !zai
                && !moonshot
                && !together
                && !ai_gateway
                && !nvidia
                && !ant_ling,
            supports_usage_in_streaming: true,
            max_tokens_field: if max_tokens {
                MaxTokensField::MaxTokens
            } else {
                MaxTokensField::MaxCompletionTokens
            },
            requires_tool_result_name: false,
            requires_assistant_after_tool_result: false,
            requires_thinking_as_text: false,
            requires_reasoning_content_on_assistant_messages: deepseek,
            thinking_format: if deepseek {
                ThinkingFormat::Deepseek
            } else if zai {
                ThinkingFormat::Zai
            } else if together {
                ThinkingFormat::Together
            } else if ant_ling {
                ThinkingFormat::AntLing
            } else if openrouter {
                ThinkingFormat::Openrouter
            } else {
                ThinkingFormat::Openai
            },
            zai_tool_stream: false,
            supports_long_cache_retention: !(together
                || workers_ai
                || ai_gateway
                || nvidia
                || ant_ling),
            // Pi detects it by the provider's name only, not its host.
            anthropic_cache_marks: provider == "openrouter" && model.starts_with("anthropic/"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pi_compat_json_reads_and_unknown_keys_are_ignored() {
        let compat: ModelCompat = serde_json::from_str(
            r#"{"supportsDeveloperRole": false, "maxTokensField": "max_tokens",
                "thinkingFormat": "qwen-chat-template", "someFutureFlag": 1}"#,
        )
        .unwrap_or_default();
        assert_eq!(compat.supports_developer_role, Some(false));
        assert_eq!(compat.max_tokens_field, Some(MaxTokensField::MaxTokens));
        assert_eq!(
            compat.thinking_format,
            Some(ThinkingFormat::QwenChatTemplate)
        );
    }

    #[test]
    fn detection_follows_provider_and_host_and_compat_wins() {
        let openai = ChatCompat::resolve(
            "openai",
            "gpt-4o",
            "https://api.openai.com/v1",
            &ModelCompat::default(),
        );
        assert!(openai.supports_store && openai.supports_developer_role);
        assert_eq!(openai.max_tokens_field, MaxTokensField::MaxCompletionTokens);
        let deepseek = ChatCompat::resolve(
            "x",
            "m",
            "https://api.deepseek.com",
            &ModelCompat::default(),
        );
        assert_eq!(deepseek.thinking_format, ThinkingFormat::Deepseek);
        assert!(deepseek.requires_reasoning_content_on_assistant_messages);
        assert!(!deepseek.supports_store);
        let grok = ChatCompat::resolve(
            "xai",
            "grok",
            "https://api.x.ai/v1",
            &ModelCompat::default(),
        );
        assert!(!grok.supports_reasoning_effort);
        let local = ChatCompat::resolve(
            "ollama",
            "m",
            "http://127.0.0.1:11434/v1",
            &ModelCompat {
                supports_developer_role: Some(false),
                max_tokens_field: Some(MaxTokensField::MaxTokens),
                ..ModelCompat::default()
            },
        );
        assert!(!local.supports_developer_role);
        assert_eq!(local.max_tokens_field, MaxTokensField::MaxTokens);
    }
}
