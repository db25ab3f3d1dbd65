//! OpenAI Chat Completions (`POST {base}/chat/completions`), which is also the wire of every
//! OpenAI-compatible server: llama.cpp's server, Ollama, vLLM, OpenRouter, DeepSeek, Groq.

use pi_ai::{AssistantContent, Fragment, Message, Request, StopReason, Usage, UserContent};
use pi_tool::dialect::Dialect;
use pi_tool::{Content, ToolDefinition};
use serde_json::{Map, Value, json};

use crate::driver::{Feed, Parser, Wire, event_json, render_each, wire_provider};
use crate::http::Post;
use crate::ids::wire_id;
use crate::{ProviderConfig, ToolChoice, transcript};

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
        let mut messages = Vec::new();
        if let Some(system) = &request.system_prompt {
            messages.push(json!({"role": "system", "content": system}));
        }
        let prepared = transcript::prepare(&request.messages, &info.api, &info.provider);
        let mut pending_images: Vec<Value> = Vec::new();
        for message in prepared.iter().map(|message| &**message) {
            if !matches!(message, Message::ToolResult(_)) {
                flush_images(&mut messages, &mut pending_images);
            }
            match message {
                Message::User(user) => {
                    messages.push(json!({"role": "user", "content": user_content(&user.content)}))
                }
                Message::Assistant(assistant) => {
                    let text: String = assistant.text();
                    let calls: Vec<Value> = assistant
                        .content
                        .iter()
                        .filter_map(|block| match block {
                            AssistantContent::ToolCall { id, name, arguments, .. } => Some(json!({
                                "id": wire_id(id, MAX_ID), "type": "function",
                                "function": {"name": name, "arguments": arguments_text(arguments)}})),
                            _ => None,
                        })
                        .collect();
                    if text.is_empty() && calls.is_empty() {
                        continue;
                    }
                    let mut turn = Map::new();
                    turn.insert("role".into(), json!("assistant"));
                    turn.insert(
                        "content".into(),
                        if text.is_empty() {
                            Value::Null
                        } else {
                            json!(text)
                        },
                    );
                    if !calls.is_empty() {
                        turn.insert("tool_calls".into(), Value::Array(calls));
                    }
                    messages.push(Value::Object(turn));
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
                    messages.push(json!({"role": "tool", "tool_call_id": wire_id(&result.tool_call_id, MAX_ID), "content": text}));
                }
            }
        }
        flush_images(&mut messages, &mut pending_images);

        let mut body = Map::new();
        body.insert("model".into(), json!(self.config.model));
        body.insert("messages".into(), Value::Array(messages));
        if tools.as_array().is_some_and(|tools| !tools.is_empty()) {
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
        }
        if let Some(max) = self.config.max_tokens {
            body.insert("max_tokens".into(), json!(max));
        }
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
        let url = format!(
            "{}/chat/completions",
            self.config.base("https://api.openai.com/v1")
        );
        Post::new(url, Value::Object(body))?.key_header(
            "authorization",
            self.config.api_key.as_deref(),
            |key| format!("Bearer {key}"),
        )
    }

    fn parser(&self) -> Box<dyn Parser> {
        Box::new(ChatParser::default())
    }
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
            for key in ["reasoning_content", "reasoning"] {
                if let Some(thinking) = delta.get(key).and_then(Value::as_str) {
                    pieces.push(Fragment::Thinking(thinking.to_owned()));
                }
            }
            if let Some(text) = delta.get("content").and_then(Value::as_str) {
                pieces.push(Fragment::Text(text.to_owned()));
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
