//! OpenAI Chat Completions (`POST {base}/chat/completions`), which is also the wire of every
//! OpenAI-compatible server: llama.cpp's server, Ollama, vLLM, OpenRouter, DeepSeek, Groq.

use pi_ai::{AssistantContent, Fragment, Message, Request, StopReason, Usage, UserContent};
use pi_tool::dialect::Dialect;
use pi_tool::{Content, ToolDefinition};
use serde_json::{Map, Value, json};

use crate::cache_retention::prompt_cache_key;
use crate::compat::{ChatCompat, MaxTokensField};
use crate::driver::{Feed, Parser, Wire, event_json, render_each, wire_provider};
use crate::http::Post;
use crate::ids::wire_id;
use crate::{CacheRetention, ProviderConfig, ToolChoice, thinking, transcript};

/// OpenAI's limit on a replayed tool-call id.
const MAX_ID: usize = 40;
/// Plain or strict function calling, as configured.
pub(crate) fn openai_dialect(config: &ProviderConfig) -> Dialect {
    if config.strict_tools {
        Dialect::OpenAiStrict
    } else {
        Dialect::OpenAi
    }
}

/// How a failed result is marked: the wire has no error flag.
pub(crate) const ERROR_MARK: &str = "[tool error] ";

wire_provider! {
    /// An OpenAI Chat Completions model.
    ///
    /// ```
    /// use pi_ai::Provider;
    /// use pi_providers::{OpenAiChat, ProviderConfig};
    ///
    /// let local = OpenAiChat::new(ProviderConfig::new("smollm2").with_base_url("http://127.0.0.1:8080/v1")).unwrap();
    /// assert_eq!(local.model().api, "openai-completions");
    /// ```
    OpenAiChat over ChatWire, default "https://api.openai.com/v1"
}

impl Wire for ChatWire {
    const API: &'static str = "openai-completions";
    const PROVIDER: &'static str = "openai";

    fn config(&self) -> &ProviderConfig {
        &self.config
    }

    fn dialect(&self) -> Dialect {
        openai_dialect(&self.config)
    }

    fn render_tools(&self, tools: &[ToolDefinition]) -> Result<Value, String> {
        let strict = self.config.strict_tools;
        render_each(tools, self.dialect(), |tool, parameters| {
            let mut function = Map::new();
            function.insert("name".into(), json!(tool.name));
            function.insert("description".into(), json!(tool.description));
            function.insert("parameters".into(), parameters);
            if strict {
                function.insert("strict".into(), json!(true));
            }
            json!({"type": "function", "function": function})
        })
        .map(Value::Array)
    }

    fn post(&self, request: &Request, tools: &Value) -> Result<Post, String> {
        let info = self.info();
        let base = self.config.base("https://api.openai.com/v1");
        let compat = ChatCompat::resolve(
            &info.provider,
            &self.config.model,
            &base,
            &self.config.compat,
        );
        let mut messages = Vec::new();
        if let Some(system) = &request.system_prompt {
            let role = if self.config.reasoning && compat.supports_developer_role {
                "developer"
            } else {
                "system"
            };
            messages.push(json!({"role": role, "content": system}));
        }
        let prepared = transcript::prepare(&request.messages, &info);
        let mut pending_images: Vec<Value> = Vec::new();
        // Whether the last message sent was a tool result (some servers want an assistant
        // message between that and a user message).
        let mut after_results = false;
        for message in prepared.iter().map(|message| &**message) {
            if !matches!(message, Message::ToolResult(_)) {
                if !pending_images.is_empty() || matches!(message, Message::User(_)) {
                    bridge(&mut messages, &mut after_results, &compat);
                }
                if !pending_images.is_empty() {
                    flush_images(&mut messages, &mut pending_images);
                    after_results = false;
                }
            }
            match message {
                Message::User(user) => {
                    messages.push(json!({"role": "user", "content": user_content(&user.content)}));
                    after_results = false;
                }
                Message::Assistant(assistant) => {
                    if let Some(turn) =
                        assistant_turn(&assistant.content, &compat, self.config.reasoning)
                    {
                        messages.push(turn);
                        after_results = false;
                    }
                }
                Message::ToolResult(result) => {
                    let mut text = String::new();
                    if result.is_error {
                        text.push_str(ERROR_MARK);
                    }
                    for block in &result.content {
                        match block {
                            Content::Text { text: part } => text.push_str(part),
                            Content::Image { data, mime_type } => {
                                pending_images.push(image_url(data, mime_type))
                            }
                        }
                    }
                    if text.is_empty() || text == ERROR_MARK {
                        text.push_str(if result.content.is_empty() {
                            "(no tool output)"
                        } else {
                            "(see attached image)"
                        });
                    }
                    let mut turn = json!({"role": "tool", "tool_call_id": wire_id(&result.tool_call_id, MAX_ID), "content": text});
                    if let (true, Some(fields)) =
                        (compat.requires_tool_result_name, turn.as_object_mut())
                    {
                        fields.insert("name".into(), json!(result.tool_name));
                    }
                    messages.push(turn);
                    after_results = true;
                }
            }
        }
        if !pending_images.is_empty() {
            bridge(&mut messages, &mut after_results, &compat);
            flush_images(&mut messages, &mut pending_images);
        }

        let mut body = Map::new();
        body.insert("model".into(), json!(self.config.model));
        body.insert("messages".into(), Value::Array(messages));
        let has_tools = tools.as_array().is_some_and(|tools| !tools.is_empty());
        if has_tools {
            body.insert("tools".into(), tools.clone());
            body.insert(
                "tool_choice".into(),
                match &self.config.tool_choice {
                    ToolChoice::Auto => json!("auto"),
                    ToolChoice::None => json!("none"),
                    ToolChoice::Required => json!("required"),
                    ToolChoice::Tool(name) => {
                        json!({"type": "function", "function": {"name": name}})
                    }
                },
            );
            if compat.zai_tool_stream {
                body.insert("tool_stream".into(), json!(true));
            }
        }
        if let Some(max) = self.config.output_limit() {
            let field = match compat.max_tokens_field {
                MaxTokensField::MaxTokens => "max_tokens",
                MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
            };
            body.insert(field.into(), json!(max));
        }
        if compat.supports_store {
            body.insert("store".into(), json!(false));
        }
        thinking::chat(&self.config, &compat, &mut body);
        if let Some(routing) = &self.config.compat.open_router_routing {
            body.insert("provider".into(), routing.clone());
        }
        if let Some(gateway) = vercel_gateway(self.config.compat.vercel_gateway_routing.as_ref()) {
            body.insert("providerOptions".into(), json!({"gateway": gateway}));
        }
        body.insert("stream".into(), json!(true));
        let long = self.config.cache_retention == crate::CacheRetention::Long
            && compat.supports_long_cache_retention;
        // Pi sends the session's cache key to OpenAI's own host (unless caching is off) and
        // to any server that keeps the cache long.
        let openai_host =
            base.contains("api.openai.com") && self.config.cache_retention != CacheRetention::None;
        if let (true, Some(id)) = (openai_host || long, &self.config.session_id) {
            body.insert("prompt_cache_key".into(), json!(prompt_cache_key(id)));
        }
        if long {
            body.insert("prompt_cache_retention".into(), json!("24h"));
        }
        if compat.anthropic_cache_marks
            && let Some(mark) = crate::chat_cache_marks::mark(
                self.config.cache_retention,
                compat.supports_long_cache_retention,
            )
        {
            crate::chat_cache_marks::apply(&mut body, &mark);
        }
        if compat.supports_usage_in_streaming {
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
        let url = format!("{base}/chat/completions");
        let mut post = Post::new(url, Value::Object(body))?.key_header(
            "authorization",
            self.config.api_key.as_deref(),
            |key| format!("Bearer {key}"),
        )?;
        // Servers that route a session to one machine by its id ask for these (compat).
        if let (true, Some(id)) = (
            self.config.compat.send_session_affinity_headers == Some(true),
            &self.config.session_id,
        ) {
            for name in ["session_id", "x-client-request-id", "x-session-affinity"] {
                post = post.header(name, id)?;
            }
        }
        Ok(post)
    }

    fn parser(&self, _request: &Request) -> Box<dyn Parser> {
        Box::new(ChatParser::default())
    }
}

/// The fields a reasoning text may come in, as compatible servers name them.
const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "reasoning", "reasoning_text"];

/// The assistant message some servers want between tool results and a user message.
fn bridge(messages: &mut Vec<Value>, after_results: &mut bool, compat: &ChatCompat) {
    if *after_results && compat.requires_assistant_after_tool_result {
        messages
            .push(json!({"role": "assistant", "content": "I have processed the tool results."}));
    }
    *after_results = false;
}

/// An earlier assistant message as this wire replays it, as Pi does: text as one string,
/// thinking back in the field it came in (or as text where the server wants that), calls;
/// `None` for a message with nothing to send.
fn assistant_turn(
    content: &[AssistantContent],
    compat: &ChatCompat,
    reasoning: bool,
) -> Option<Value> {
    let text: String = content
        .iter()
        .filter_map(|block| match block {
            AssistantContent::Text { text, .. } if !text.trim().is_empty() => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let thinking: Vec<(&str, Option<&str>)> = content
        .iter()
        .filter_map(|block| match block {
            AssistantContent::Thinking {
                thinking,
                thinking_signature,
                ..
            } if !thinking.trim().is_empty() => {
                Some((thinking.as_str(), thinking_signature.as_deref()))
            }
            _ => None,
        })
        .collect();
    let calls: Vec<Value> = content
        .iter()
        .filter_map(|block| match block {
            AssistantContent::ToolCall {
                id,
                name,
                arguments,
                ..
            } => Some(json!({
                "id": wire_id(id, MAX_ID), "type": "function",
                "function": {"name": name, "arguments": arguments_text(arguments)}})),
            _ => None,
        })
        .collect();
    let mut turn = Map::new();
    turn.insert("role".into(), json!("assistant"));
    let empty = if compat.requires_assistant_after_tool_result {
        json!("")
    } else {
        Value::Null
    };
    let text_value = if text.is_empty() { empty } else { json!(text) };
    if !thinking.is_empty() && compat.requires_thinking_as_text {
        let joined: Vec<&str> = thinking.iter().map(|(text, _)| *text).collect();
        let mut parts = vec![json!({"type": "text", "text": joined.join("\n\n")})];
        if !text.is_empty() {
            parts.push(json!({"type": "text", "text": text}));
        }
        turn.insert("content".into(), Value::Array(parts));
    } else {
        turn.insert("content".into(), text_value);
        // The first block's signature names the field its server sent it in.
        let field = thinking
            .first()
            .and_then(|(_, signature)| *signature)
            .and_then(|signature| {
                REASONING_FIELDS
                    .into_iter()
                    .find(|field| *field == signature)
            });
        if let Some(field) = field {
            let joined: Vec<&str> = thinking.iter().map(|(text, _)| *text).collect();
            turn.insert(field.into(), json!(joined.join("\n")));
        }
    }
    let has_calls = !calls.is_empty();
    if has_calls {
        turn.insert("tool_calls".into(), Value::Array(calls));
    }
    if compat.requires_reasoning_content_on_assistant_messages
        && reasoning
        && !turn.contains_key("reasoning_content")
    {
        turn.insert("reasoning_content".into(), json!(""));
    }
    let has_content = match turn.get("content") {
        Some(Value::String(text)) => !text.is_empty(),
        Some(Value::Array(parts)) => !parts.is_empty(),
        _ => false,
    };
    (has_content || has_calls).then_some(Value::Object(turn))
}

/// Vercel AI Gateway's `gateway` options: `only` and `order`, when either is set.
fn vercel_gateway(routing: Option<&Value>) -> Option<Value> {
    let routing = routing?;
    let mut gateway = Map::new();
    for key in ["only", "order"] {
        if let Some(value) = routing.get(key).filter(|value| !value.is_null()) {
            gateway.insert(key.into(), value.clone());
        }
    }
    (!gateway.is_empty()).then_some(Value::Object(gateway))
}

/// Images of tool results go in one user message after the tool messages (the wire allows
/// only text in a `tool` message).
fn flush_images(messages: &mut Vec<Value>, images: &mut Vec<Value>) {
    if images.is_empty() {
        return;
    }
    let mut content = vec![json!({"type": "text", "text": "Attached image(s) from tool result:"})];
    content.append(images);
    messages.push(json!({"role": "user", "content": content}));
}

fn image_url(data: &str, mime_type: &str) -> Value {
    json!({"type": "image_url", "image_url": {"url": format!("data:{mime_type};base64,{data}")}})
}

fn user_content(content: &UserContent) -> Value {
    match content {
        UserContent::Text(text) => json!(text),
        UserContent::Blocks(blocks) => Value::Array(
            blocks
                .iter()
                .map(|block| match block {
                    Content::Text { text } => json!({"type": "text", "text": text}),
                    Content::Image { data, mime_type } => image_url(data, mime_type),
                })
                .collect(),
        ),
    }
}

/// Arguments as the wire replays them: a JSON string (text a model sent broken stays as it was).
pub(crate) fn arguments_text(arguments: &Value) -> String {
    match arguments {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[derive(Default)]
struct ChatParser {
    /// Tool-call indexes already started.
    started: Vec<u64>,
    /// The completion's `id` was passed on (every chunk repeats it).
    id_sent: bool,
    /// A thinking block is being written (its field's name was passed on).
    thinking: bool,
}

impl Parser for ChatParser {
    fn feed(&mut self, _event: Option<&str>, data: &str) -> Result<Feed, String> {
        if data.trim() == "[DONE]" {
            return Ok(Feed {
                pieces: Vec::new(),
                done: true,
            });
        }
        let chunk = event_json(data)?;
        let mut pieces = Vec::new();
        if !self.id_sent
            && let Some(id) = chunk.get("id").and_then(Value::as_str)
        {
            self.id_sent = true;
            pieces.push(Fragment::ResponseId(id.to_owned()));
        }
        // With `include_usage`, one last chunk has `choices: []` and the usage.
        if let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        {
            let delta = choice.get("delta").unwrap_or(&Value::Null);
            // The first field that has text: some servers send the same text in two.
            let reasoning = REASONING_FIELDS.into_iter().find_map(|field| {
                let text = delta.get(field).and_then(Value::as_str)?;
                (!text.is_empty()).then_some((field, text))
            });
            if let Some((field, thinking)) = reasoning {
                pieces.push(Fragment::Thinking(thinking.to_owned()));
                if !self.thinking {
                    // The field's name goes back with the thinking, as Pi replays it.
                    pieces.push(Fragment::ThinkingSignature(field.to_owned()));
                    self.thinking = true;
                }
            }
            if let Some(text) = delta.get("content").and_then(Value::as_str)
                && !text.is_empty()
            {
                pieces.push(Fragment::Text(text.to_owned()));
                self.thinking = false;
            }
            for call in delta
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let index = call.get("index").and_then(Value::as_u64).unwrap_or(0);
                let key = index.to_string();
                let function = call.get("function").unwrap_or(&Value::Null);
                self.thinking = false;
                if !self.started.contains(&index) {
                    self.started.push(index);
                    let id = call
                        .get("id")
                        .and_then(Value::as_str)
                        .filter(|id| !id.is_empty())
                        .map_or_else(|| format!("call_{index}"), str::to_owned);
                    let name = function
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    pieces.push(Fragment::ToolStart {
                        key: key.clone(),
                        id,
                        name: name.to_owned(),
                    });
                }
                if let Some(fragment) = function.get("arguments").and_then(Value::as_str) {
                    pieces.push(Fragment::ToolArguments {
                        key,
                        fragment: fragment.to_owned(),
                    });
                }
            }
            match choice.get("finish_reason").and_then(Value::as_str) {
                Some("tool_calls" | "function_call") => {
                    pieces.push(Fragment::Stop(StopReason::ToolUse))
                }
                Some("length") => pieces.push(Fragment::Stop(StopReason::Length)),
                Some(_) => pieces.push(Fragment::Stop(StopReason::Stop)),
                None => {}
            }
        }
        if let Some(usage) = chunk.get("usage").filter(|usage| usage.is_object()) {
            let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
            let cached = usage
                .pointer("/prompt_tokens_details/cached_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            pieces.push(Fragment::Usage(Usage {
                input: count("prompt_tokens").saturating_sub(cached),
                output: count("completion_tokens"),
                cache_read: cached,
                cache_write: 0,
                total_tokens: count("total_tokens"),
                cost: pi_ai::Cost::default(),
            }));
        }
        Ok(Feed {
            pieces,
            done: false,
        })
    }
}
