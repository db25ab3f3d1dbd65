//! Anthropic Messages (`POST {base}/v1/messages`).

use std::sync::Arc;

use pi_ai::{AssistantContent, Fragment, Message, Request, StopReason, Usage, UserContent};
use pi_tool::dialect::Dialect;
use pi_tool::{Content, ToolDefinition};
use serde_json::{Map, Value, json};

use crate::anthropic_oauth::{
    CLAUDE_CODE_IDENTITY, OAUTH_BETAS, from_claude_code_name, is_oauth_token, to_claude_code_name,
    user_agent,
};
use crate::driver::{Feed, Parser, Wire, event_json, render_each, wire_provider};
use crate::http::Post;
use crate::ids::wire_id;
use crate::thinking::{self, INTERLEAVED_THINKING_BETA};
use crate::turns::push_turn;
use crate::{ProviderConfig, ToolChoice, transcript};

/// Anthropic's id rule: `[A-Za-z0-9_-]`, and we keep them within 64.
const MAX_ID: usize = 64;
/// The longest thinking signature kept (real ones are a few KiB).
const MAX_SIGNATURE: usize = 1 << 20;
/// Anthropic requires an output limit.
const DEFAULT_MAX_TOKENS: u64 = 4096;

wire_provider! {
    /// An Anthropic Messages model.
    ///
    /// ```
    /// use pi_ai::Provider;
    /// use pi_providers::{Anthropic, ProviderConfig};
    ///
    /// let claude = Anthropic::new(ProviderConfig::new("claude-sonnet-4-5")).unwrap();
    /// assert_eq!(claude.model().api, "anthropic-messages");
    /// ```
    Anthropic over MessagesWire, default "https://api.anthropic.com"
}

fn image_block(data: &str, mime_type: &str) -> Value {
    json!({"type": "image", "source": {"type": "base64", "media_type": mime_type, "data": data}})
}

fn blocks(content: &[Content]) -> Vec<Value> {
    content
        .iter()
        .map(|block| match block {
            Content::Text { text } => json!({"type": "text", "text": text}),
            Content::Image { data, mime_type } => image_block(data, mime_type),
        })
        .collect()
}

/// An earlier thinking block as Anthropic takes it back, as Pi sends it: redacted thinking as
/// its opaque payload, signed thinking as it came, unsigned thinking (a cut-off stream) as
/// plain text, or with an empty signature where the server accepts that (`allow_empty`).
/// Marks the last block of the last message, when that message is the user's and the block
/// is text, an image or a tool result (a plain-text message becomes one text block), so the
/// conversation so far is cached (Pi's breakpoint).
fn mark_last_user_block(messages: &mut [Value], cache_control: &Value) {
    let Some(last) = messages
        .last_mut()
        .and_then(Value::as_object_mut)
        .filter(|last| last.get("role").and_then(Value::as_str) == Some("user"))
    else {
        return;
    };
    match last.get_mut("content") {
        Some(content @ Value::String(_)) => {
            let text = content.take();
            *content = json!([{"type": "text", "text": text, "cache_control": cache_control}]);
        }
        Some(Value::Array(blocks)) => {
            if let Some(block) = blocks
                .last_mut()
                .and_then(Value::as_object_mut)
                .filter(|block| {
                    matches!(
                        block.get("type").and_then(Value::as_str),
                        Some("text" | "image" | "tool_result")
                    )
                })
            {
                block.insert("cache_control".into(), cache_control.clone());
            }
        }
        _ => {}
    }
}

fn thinking_block(
    thinking: &str,
    signature: Option<&str>,
    redacted: Option<bool>,
    allow_empty: bool,
) -> Option<Value> {
    let signature = signature.filter(|signature| !signature.trim().is_empty());
    if redacted == Some(true) {
        return signature.map(|data| json!({"type": "redacted_thinking", "data": data}));
    }
    match signature {
        Some(signature) => {
            Some(json!({"type": "thinking", "thinking": thinking, "signature": signature}))
        }
        None if thinking.trim().is_empty() => None,
        None if allow_empty => {
            Some(json!({"type": "thinking", "thinking": thinking, "signature": ""}))
        }
        None => Some(json!({"type": "text", "text": thinking})),
    }
}

impl Wire for MessagesWire {
    const API: &'static str = "anthropic-messages";
    const PROVIDER: &'static str = "anthropic";

    fn config(&self) -> &ProviderConfig {
        &self.config
    }

    fn dialect(&self) -> Dialect {
        Dialect::Anthropic
    }

    fn render_tools(&self, tools: &[ToolDefinition]) -> Result<Value, String> {
        render_each(tools, self.dialect(), |tool, schema| {
            json!({"name": tool.name, "description": tool.description, "input_schema": schema})
        })
        .map(Value::Array)
    }

    fn post(&self, request: &Request, tools: &Value) -> Result<Post, String> {
        let info = self.info();
        let prepared = transcript::prepare(&request.messages, &info);
        let allow_empty = self.config.compat.allow_empty_signature == Some(true);
        let oauth = self.oauth();
        let tool_name = |name: &str| {
            if oauth {
                to_claude_code_name(name)
            } else {
                name.to_owned()
            }
        };
        let mut messages: Vec<Value> = Vec::new();
        // Consecutive results share one user message of `tool_result` blocks.
        let mut results: Vec<Value> = Vec::new();
        for message in prepared.iter().map(|message| &**message) {
            if !matches!(message, Message::ToolResult(_)) && !results.is_empty() {
                push_turn(
                    &mut messages,
                    "user",
                    "content",
                    Value::Array(std::mem::take(&mut results)),
                );
            }
            match message {
                Message::User(user) => {
                    let content = match &user.content {
                        UserContent::Text(text) => json!(text),
                        UserContent::Blocks(content) => Value::Array(blocks(content)),
                    };
                    push_turn(&mut messages, "user", "content", content);
                }
                Message::Assistant(assistant) => {
                    let content: Vec<Value> = assistant
                        .content
                        .iter()
                        .filter_map(|block| match block {
                            AssistantContent::Text { text, .. } if !text.is_empty() => {
                                Some(json!({"type": "text", "text": text}))
                            }
                            AssistantContent::Text { .. } => None,
                            AssistantContent::Thinking { thinking, thinking_signature, redacted } => {
                                thinking_block(thinking, thinking_signature.as_deref(), *redacted, allow_empty)
                            }
                            AssistantContent::ToolCall { id, name, arguments, .. } => Some(json!({
                                "type": "tool_use", "id": wire_id(id, MAX_ID), "name": tool_name(name),
                                "input": if arguments.is_object() { arguments.clone() } else { json!({}) }})),
                        })
                        .collect();
                    if !content.is_empty() {
                        push_turn(&mut messages, "assistant", "content", Value::Array(content));
                    }
                }
                Message::ToolResult(result) => {
                    let content = if result.content.is_empty() {
                        json!("(no tool output)")
                    } else {
                        Value::Array(blocks(&result.content))
                    };
                    results.push(json!({"type": "tool_result",
                        "tool_use_id": wire_id(&result.tool_call_id, MAX_ID),
                        "content": content, "is_error": result.is_error}));
                }
            }
        }
        if !results.is_empty() {
            push_turn(&mut messages, "user", "content", Value::Array(results));
        }
        let cache_control = self
            .config
            .cache_retention
            .anthropic_cache_control(self.config.compat.supports_long_cache_retention);
        if let Some(cache_control) = &cache_control {
            mark_last_user_block(&mut messages, cache_control);
        }
        let text_block = |text: &str| {
            let mut block = Map::new();
            block.insert("type".into(), json!("text"));
            block.insert("text".into(), json!(text));
            if let Some(cache_control) = &cache_control {
                block.insert("cache_control".into(), cache_control.clone());
            }
            Value::Object(block)
        };
        let thinking = thinking::anthropic(&self.config, DEFAULT_MAX_TOKENS);
        let mut body = Map::new();
        body.insert("model".into(), json!(self.config.model));
        body.insert("max_tokens".into(), json!(thinking.max_tokens));
        if oauth {
            // The subscription API serves only requests that open with Claude Code's line.
            let mut system = vec![text_block(CLAUDE_CODE_IDENTITY)];
            if let Some(prompt) = &request.system_prompt {
                system.push(text_block(prompt));
            }
            body.insert("system".into(), Value::Array(system));
        } else if let Some(system) = &request.system_prompt {
            body.insert("system".into(), json!([text_block(system)]));
        }
        body.insert("messages".into(), Value::Array(messages));
        if let Some(list) = tools.as_array().filter(|tools| !tools.is_empty()) {
            let mut list = list.clone();
            if oauth {
                for tool in &mut list {
                    if let Some(name) = tool.get("name").and_then(Value::as_str) {
                        tool["name"] = json!(to_claude_code_name(name));
                    }
                }
            }
            // Compatible servers that refuse a mark on a tool say so in compat.
            let on_tools = self.config.compat.supports_cache_control_on_tools != Some(false);
            if let (true, Some(cache_control), Some(last)) = (
                on_tools,
                &cache_control,
                list.last_mut().and_then(Value::as_object_mut),
            ) {
                last.insert("cache_control".into(), cache_control.clone());
            }
            body.insert("tools".into(), Value::Array(list));
            body.insert(
                "tool_choice".into(),
                match &self.config.tool_choice {
                    ToolChoice::Auto => json!({"type": "auto"}),
                    ToolChoice::None => json!({"type": "none"}),
                    ToolChoice::Required => json!({"type": "any"}),
                    ToolChoice::Tool(name) => json!({"type": "tool", "name": tool_name(name)}),
                },
            );
        }
        if let Some(config) = thinking.thinking {
            body.insert("thinking".into(), config);
        }
        if let Some(output) = thinking.output_config {
            body.insert("output_config".into(), output);
        }
        body.insert("stream".into(), json!(true));
        let url = format!(
            "{}/v1/messages",
            self.config.base("https://api.anthropic.com")
        );
        let post =
            Post::new(url, Value::Object(body))?.header("anthropic-version", "2023-06-01")?;
        let mut betas: Vec<&str> = Vec::new();
        if oauth {
            betas.extend(OAUTH_BETAS);
        }
        if thinking.interleaved_beta {
            betas.push(INTERLEAVED_THINKING_BETA);
        }
        let post = if betas.is_empty() {
            post
        } else {
            post.header("anthropic-beta", &betas.join(","))?
        };
        if oauth {
            post.header("accept", "application/json")?
                .header("anthropic-dangerous-direct-browser-access", "true")?
                .header("user-agent", &user_agent())?
                .header("x-app", "cli")?
                .key_header("authorization", self.config.api_key.as_deref(), |key| {
                    format!("Bearer {key}")
                })
        } else {
            post.key_header("x-api-key", self.config.api_key.as_deref(), str::to_owned)
        }
    }

    fn parser(&self, request: &Request) -> Box<dyn Parser> {
        Box::new(MessagesParser {
            oauth_tools: self.oauth().then(|| Arc::clone(&request.tools)),
            ..MessagesParser::default()
        })
    }
}

impl MessagesWire {
    /// Whether the key is a Claude subscription token (see [`crate::anthropic_oauth`]).
    fn oauth(&self) -> bool {
        self.config.api_key.as_deref().is_some_and(is_oauth_token)
    }
}

#[derive(Default)]
struct MessagesParser {
    /// The request's tools when the request went with a subscription token: the answer's
    /// tool names are Claude Code's spelling of them.
    oauth_tools: Option<Arc<[ToolDefinition]>>,
    usage: Usage,
    /// The signature of the thinking block being streamed (it may come in pieces).
    signature: String,
}

impl MessagesParser {
    fn read_usage(&mut self, usage: &Value) -> Fragment {
        let count = |key: &str| usage.get(key).and_then(Value::as_u64);
        if let Some(input) = count("input_tokens") {
            self.usage.input = input;
        }
        if let Some(read) = count("cache_read_input_tokens") {
            self.usage.cache_read = read;
        }
        if let Some(written) = count("cache_creation_input_tokens") {
            self.usage.cache_write = written;
        }
        if let Some(output) = count("output_tokens") {
            self.usage.output = output;
        }
        self.usage.total_tokens =
            self.usage.input + self.usage.output + self.usage.cache_read + self.usage.cache_write;
        Fragment::Usage(self.usage)
    }
}

impl Parser for MessagesParser {
    fn feed(&mut self, _event: Option<&str>, data: &str) -> Result<Feed, String> {
        // `event: error` (`{"type":"error","error":{...}}`) ends here.
        let event = event_json(data)?;
        let mut feed = Feed::default();
        let index = || {
            event
                .get("index")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                .to_string()
        };
        match event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "message_start" => {
                if let Some(id) = event.pointer("/message/id").and_then(Value::as_str) {
                    feed.pieces.push(Fragment::ResponseId(id.to_owned()));
                }
                if let Some(usage) = event.pointer("/message/usage") {
                    feed.pieces.push(self.read_usage(usage));
                }
            }
            "content_block_start" => {
                let block = event.get("content_block").unwrap_or(&Value::Null);
                match block.get("type").and_then(Value::as_str) {
                    Some("tool_use") => {
                        let name = block
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        let name = match &self.oauth_tools {
                            Some(tools) => from_claude_code_name(name, tools),
                            None => name.to_owned(),
                        };
                        feed.pieces.push(Fragment::ToolStart {
                            key: index(),
                            id: block
                                .get("id")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_owned(),
                            name,
                        });
                    }
                    Some("text") => {
                        let text = block
                            .get("text")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        feed.pieces.push(Fragment::Text(text.to_owned()));
                    }
                    Some("redacted_thinking") => {
                        let data = block
                            .get("data")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        feed.pieces
                            .push(Fragment::RedactedThinking(data.to_owned()));
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                if !self.signature.is_empty() {
                    let signature = std::mem::take(&mut self.signature);
                    feed.pieces.push(Fragment::ThinkingSignature(signature));
                }
                feed.pieces.push(Fragment::EndBlock);
            }
            "content_block_delta" => {
                let delta = event.get("delta").unwrap_or(&Value::Null);
                let text = |key: &str| {
                    delta
                        .get(key)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned()
                };
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => feed.pieces.push(Fragment::Text(text("text"))),
                    Some("thinking_delta") => {
                        feed.pieces.push(Fragment::Thinking(text("thinking")))
                    }
                    Some("signature_delta") => {
                        let piece = delta.get("signature").and_then(Value::as_str);
                        self.signature.push_str(piece.unwrap_or_default());
                        if self.signature.len() > MAX_SIGNATURE {
                            return Err(format!(
                                "the provider sent a thinking signature over {} KiB",
                                MAX_SIGNATURE >> 10
                            ));
                        }
                    }
                    Some("input_json_delta") => feed.pieces.push(Fragment::ToolArguments {
                        key: index(),
                        fragment: text("partial_json"),
                    }),
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(usage) = event.get("usage") {
                    feed.pieces.push(self.read_usage(usage));
                }
                match event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    Some("tool_use") => feed.pieces.push(Fragment::Stop(StopReason::ToolUse)),
                    Some("max_tokens" | "model_context_window_exceeded") => {
                        feed.pieces.push(Fragment::Stop(StopReason::Length));
                    }
                    Some("refusal") => return Err("the model refused to answer".to_owned()),
                    Some(_) => feed.pieces.push(Fragment::Stop(StopReason::Stop)),
                    None => {}
                }
            }
            "message_stop" => feed.done = true,
            _ => {}
        }
        Ok(feed)
    }
}
