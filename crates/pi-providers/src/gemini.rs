//! Google Gemini (`POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`).

use pi_ai::{
    AssistantContent, Fragment, Message, ModelInfo, Request, StopReason, Usage, UserContent,
};
use pi_tool::dialect::Dialect;
use pi_tool::{Content, ToolDefinition};
use serde_json::{Map, Value, json};

use crate::driver::{Feed, Parser, Wire, event_json, render_each, wire_provider};
use crate::http::Post;
use crate::turns::push_turn;
use crate::{ProviderConfig, ToolChoice, thinking, transcript};

/// Ids we made for calls the model sent without one (Gemini 2.x): never sent back.
const MADE_ID: &str = "pi-gemini-";

wire_provider! {
    /// A Gemini model.
    ///
    /// ```
    /// use pi_ai::Provider;
    /// use pi_providers::{Gemini, ProviderConfig};
    ///
    /// let gemini = Gemini::new(ProviderConfig::new("gemini-2.5-flash")).unwrap();
    /// assert_eq!(gemini.model().api, "google-generative-ai");
    /// ```
    Gemini over GeminiWire, default "https://generativelanguage.googleapis.com"
}

/// `part` with its `thoughtSignature`, when it has one that is base64 (Gemini refuses others).
fn signed(mut part: Value, signature: Option<&str>) -> Value {
    let valid = |signature: &&str| {
        !signature.is_empty()
            && signature.len().is_multiple_of(4)
            && signature
                .trim_end_matches('=')
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || byte == b'+' || byte == b'/')
            && signature.len() - signature.trim_end_matches('=').len() <= 2
    };
    if let (Some(signature), Some(fields)) = (signature.filter(valid), part.as_object_mut()) {
        fields.insert("thoughtSignature".into(), json!(signature));
    }
    part
}

fn inline(data: &str, mime_type: &str) -> Value {
    json!({"inlineData": {"mimeType": mime_type, "data": data}})
}

impl Wire for GeminiWire {
    const API: &'static str = "google-generative-ai";
    const PROVIDER: &'static str = "google";

    fn config(&self) -> &ProviderConfig {
        &self.config
    }

    fn dialect(&self) -> Dialect {
        Dialect::Gemini
    }

    fn render_tools(&self, tools: &[ToolDefinition]) -> Result<Value, String> {
        render_tools(tools)
    }

    fn post(&self, request: &Request, tools: &Value) -> Result<Post, String> {
        let body = request_body(&self.config, &self.info(), request, tools);
        let url = format!(
            "{}/v1beta/models/{}:streamGenerateContent?alt=sse",
            self.config
                .base("https://generativelanguage.googleapis.com"),
            self.config.model
        );
        Post::new(url, body)?.key_header(
            "x-goog-api-key",
            self.config.api_key.as_deref(),
            str::to_owned,
        )
    }

    fn parser(&self, _request: &Request) -> Box<dyn Parser> {
        Box::new(GeminiParser::default())
    }
}

/// The tools as Gemini (and Vertex) take them: one `functionDeclarations` list.
pub(crate) fn render_tools(tools: &[ToolDefinition]) -> Result<Value, String> {
    let declarations = render_each(
        tools,
        Dialect::Gemini,
        |tool, parameters| json!({"name": tool.name, "description": tool.description, "parameters": parameters}),
    )?;
    Ok(if declarations.is_empty() {
        json!([])
    } else {
        json!([{"functionDeclarations": declarations}])
    })
}

/// The `generateContent` body for `request` (Gemini's and Vertex's alike), the transcript
/// prepared for the model `info` names.
pub(crate) fn request_body(
    config: &ProviderConfig,
    info: &ModelInfo,
    request: &Request,
    tools: &Value,
) -> Value {
    {
        let prepared = transcript::prepare(&request.messages, info);
        let mut contents: Vec<Value> = Vec::new();
        // Consecutive results share one user turn of `functionResponse` parts.
        let mut results: Vec<Value> = Vec::new();
        for message in prepared.iter().map(|message| &**message) {
            if !matches!(message, Message::ToolResult(_)) && !results.is_empty() {
                push_turn(
                    &mut contents,
                    "user",
                    "parts",
                    Value::Array(std::mem::take(&mut results)),
                );
            }
            match message {
                Message::User(user) => {
                    let parts = match &user.content {
                        UserContent::Text(text) => vec![json!({"text": text})],
                        UserContent::Blocks(blocks) => blocks
                            .iter()
                            .map(|block| match block {
                                Content::Text { text } => json!({"text": text}),
                                Content::Image { data, mime_type } => inline(data, mime_type),
                            })
                            .collect(),
                    };
                    push_turn(&mut contents, "user", "parts", Value::Array(parts));
                }
                Message::Assistant(assistant) => {
                    let parts: Vec<Value> = assistant
                        .content
                        .iter()
                        .filter_map(|block| match block {
                            AssistantContent::Text {
                                text,
                                text_signature,
                            } if !text.trim().is_empty() => {
                                Some(signed(json!({"text": text}), text_signature.as_deref()))
                            }
                            // Thinking goes back only to the model that wrote it (`prepare`
                            // made any other's plain text), with its signature, as Pi sends it.
                            AssistantContent::Thinking {
                                thinking,
                                thinking_signature,
                                ..
                            } if !thinking.trim().is_empty() => Some(signed(
                                json!({"thought": true, "text": thinking}),
                                thinking_signature.as_deref(),
                            )),
                            AssistantContent::Text { .. } | AssistantContent::Thinking { .. } => {
                                None
                            }
                            AssistantContent::ToolCall {
                                id,
                                name,
                                arguments,
                                thought_signature,
                            } => {
                                let mut call = Map::new();
                                if !id.starts_with(MADE_ID) {
                                    call.insert("id".into(), json!(id));
                                }
                                call.insert("name".into(), json!(name));
                                call.insert(
                                    "args".into(),
                                    if arguments.is_object() {
                                        arguments.clone()
                                    } else {
                                        json!({})
                                    },
                                );
                                let mut part = Map::new();
                                part.insert("functionCall".into(), Value::Object(call));
                                if let Some(signature) = thought_signature {
                                    part.insert("thoughtSignature".into(), json!(signature));
                                }
                                Some(Value::Object(part))
                            }
                        })
                        .collect();
                    if !parts.is_empty() {
                        push_turn(&mut contents, "model", "parts", Value::Array(parts));
                    }
                }
                Message::ToolResult(result) => {
                    let text: String = result.content.iter().filter_map(Content::as_text).collect();
                    let key = if result.is_error { "error" } else { "output" };
                    let mut response = Map::new();
                    if !result.tool_call_id.starts_with(MADE_ID) {
                        response.insert("id".into(), json!(result.tool_call_id));
                    }
                    response.insert("name".into(), json!(result.tool_name));
                    response.insert("response".into(), json!({ key: text }));
                    results.push(json!({"functionResponse": response}));
                    for block in &result.content {
                        if let Content::Image { data, mime_type } = block {
                            results.push(inline(data, mime_type));
                        }
                    }
                }
            }
        }
        if !results.is_empty() {
            push_turn(&mut contents, "user", "parts", Value::Array(results));
        }
        let mut body = Map::new();
        if let Some(system) = &request.system_prompt {
            body.insert(
                "systemInstruction".into(),
                json!({"parts": [{"text": system}]}),
            );
        }
        body.insert("contents".into(), Value::Array(contents));
        if tools.as_array().is_some_and(|tools| !tools.is_empty()) {
            body.insert("tools".into(), tools.clone());
            let config = match &config.tool_choice {
                ToolChoice::Auto => json!({"mode": "AUTO"}),
                ToolChoice::None => json!({"mode": "NONE"}),
                ToolChoice::Required => json!({"mode": "ANY"}),
                ToolChoice::Tool(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
            };
            body.insert(
                "toolConfig".into(),
                json!({"functionCallingConfig": config}),
            );
        }
        let mut generation = Map::new();
        if let Some(max) = config.output_limit() {
            generation.insert("maxOutputTokens".into(), json!(max));
        }
        if let Some(thinking) = thinking::gemini(config) {
            generation.insert("thinkingConfig".into(), thinking);
        }
        if !generation.is_empty() {
            body.insert("generationConfig".into(), Value::Object(generation));
        }
        Value::Object(body)
    }
}

/// Reads Gemini's (and Vertex's) streamed `GenerateContentResponse` chunks.
#[derive(Default)]
pub(crate) struct GeminiParser {
    calls: usize,
    /// The `responseId` was passed on (every chunk repeats it).
    id_sent: bool,
}

impl Parser for GeminiParser {
    fn feed(&mut self, _event: Option<&str>, data: &str) -> Result<Feed, String> {
        let chunk = event_json(data)?;
        let mut feed = Feed::default();
        if !self.id_sent
            && let Some(id) = chunk.get("responseId").and_then(Value::as_str)
        {
            self.id_sent = true;
            feed.pieces.push(Fragment::ResponseId(id.to_owned()));
        }
        let candidate = chunk
            .get("candidates")
            .and_then(Value::as_array)
            .and_then(|candidates| candidates.first());
        if let Some(candidate) = candidate {
            let parts = candidate
                .pointer("/content/parts")
                .and_then(Value::as_array);
            for part in parts.into_iter().flatten() {
                if let Some(call) = part.get("functionCall") {
                    self.calls += 1;
                    let id = call
                        .get("id")
                        .and_then(Value::as_str)
                        .filter(|id| !id.is_empty())
                        .map_or_else(
                            || format!("{MADE_ID}{}-{}", pi_tool::now_millis(), self.calls),
                            str::to_owned,
                        );
                    feed.pieces.push(Fragment::ToolWhole {
                        id,
                        name: call
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                        arguments: call.get("args").cloned().unwrap_or_else(|| json!({})),
                        signature: part
                            .get("thoughtSignature")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                    });
                } else if let Some(text) = part.get("text").and_then(Value::as_str) {
                    let signature = part
                        .get("thoughtSignature")
                        .and_then(Value::as_str)
                        .filter(|signature| !signature.is_empty())
                        .map(str::to_owned);
                    if part.get("thought").and_then(Value::as_bool) == Some(true) {
                        feed.pieces.push(Fragment::Thinking(text.to_owned()));
                        feed.pieces
                            .extend(signature.map(Fragment::ThinkingSignature));
                    } else {
                        feed.pieces.push(Fragment::Text(text.to_owned()));
                        feed.pieces.extend(signature.map(Fragment::TextSignature));
                    }
                }
            }
            match candidate.get("finishReason").and_then(Value::as_str) {
                None => {}
                Some("STOP") => feed.pieces.push(Fragment::Stop(StopReason::Stop)),
                Some("MAX_TOKENS") => feed.pieces.push(Fragment::Stop(StopReason::Length)),
                Some(other) => return Err(format!("the model stopped with {other}")),
            }
        }
        if let Some(usage) = chunk.get("usageMetadata") {
            let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
            let cached = count("cachedContentTokenCount");
            feed.pieces.push(Fragment::Usage(Usage {
                input: count("promptTokenCount").saturating_sub(cached),
                output: count("candidatesTokenCount") + count("thoughtsTokenCount"),
                cache_read: cached,
                cache_write: 0,
                total_tokens: count("totalTokenCount"),
                cost: pi_ai::Cost::default(),
            }));
        }
        Ok(feed)
    }
}
