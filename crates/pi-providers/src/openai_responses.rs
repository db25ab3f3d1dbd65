//! OpenAI Responses (`POST {base}/responses`).
//!
//! A call has two ids on this wire: `call_id` pairs it with its output, the item id (`fc_…`)
//! names the item in the stream. Our call id keeps both, `call_id|fc_item`, as upstream Pi
//! does. Both go back with a call the same model made, as Pi sends them; nothing is stored on
//! the server (`store: false`), so reasoning comes back encrypted (`include`) and is replayed
//! whole, with the message and call items that follow it.

use pi_ai::{
    AssistantContent, Fragment, Message, ModelInfo, Request, StopReason, Usage, UserContent,
};
use pi_tool::dialect::Dialect;
use pi_tool::{Content, ToolDefinition};
use serde_json::{Map, Value, json};

use crate::cache_retention::prompt_cache_key;
use crate::driver::{Feed, Parser, Wire, error_message, event_json, render_each, wire_provider};
use crate::http::Post;
use crate::ids::wire_id;
use crate::openai_chat::{ERROR_MARK, arguments_text, openai_dialect};
use crate::{CacheRetention, ProviderConfig, ToolChoice, thinking, transcript};

/// A replayed `call_id` is kept within this.
const MAX_ID: usize = 64;

wire_provider! {
    /// An OpenAI Responses model.
    ///
    /// ```
    /// use pi_ai::Provider;
    /// use pi_providers::{OpenAiResponses, ProviderConfig};
    ///
    /// let model = OpenAiResponses::new(ProviderConfig::new("gpt-5.1")).unwrap();
    /// assert_eq!(model.model().api, "openai-responses");
    /// ```
    OpenAiResponses over ResponsesWire, default "https://api.openai.com/v1"
}

/// The `call_id` part of our id (`call_id|fc_item`), valid for the wire.
fn call_id(id: &str) -> String {
    let call = id.split_once('|').map_or(id, |(call, _)| call);
    wire_id(call, MAX_ID)
}

fn image(data: &str, mime_type: &str) -> Value {
    json!({"type": "input_image", "detail": "auto", "image_url": format!("data:{mime_type};base64,{data}")})
}

impl Wire for ResponsesWire {
    const API: &'static str = "openai-responses";
    const PROVIDER: &'static str = "openai";

    fn config(&self) -> &ProviderConfig {
        &self.config
    }

    fn dialect(&self) -> Dialect {
        openai_dialect(&self.config)
    }

    fn render_tools(&self, tools: &[ToolDefinition]) -> Result<Value, String> {
        render_tools(&self.config, tools)
    }

    fn post(&self, request: &Request, tools: &Value) -> Result<Post, String> {
        let info = self.info();
        let body = body(&self.config, &info, &self.config.model, request, tools);
        let url = format!(
            "{}/responses",
            self.config.base("https://api.openai.com/v1")
        );
        let mut post = Post::new(url, body)?.key_header(
            "authorization",
            self.config.api_key.as_deref(),
            |key| format!("Bearer {key}"),
        )?;
        // Pi names the session to OpenAI: always as the request id, and as `session_id`
        // unless the model's compat says the server does not take it.
        if let Some(id) = &self.config.session_id {
            post = post.header("x-client-request-id", id)?;
            if self.config.compat.send_session_id_header != Some(false) {
                post = post.header("session_id", id)?;
            }
        }
        Ok(post)
    }

    fn parser(&self, _request: &Request) -> Box<dyn Parser> {
        Box::new(ResponsesParser::default())
    }
}

/// The tools as the Responses wire (OpenAI's and Azure's) takes them.
pub(crate) fn render_tools(
    config: &ProviderConfig,
    tools: &[ToolDefinition],
) -> Result<Value, String> {
    let strict = config.strict_tools;
    render_each(tools, openai_dialect(config), |tool, parameters| {
        // `strict` omitted means strict here: always say which.
        json!({"type": "function", "name": tool.name, "description": tool.description,
               "parameters": parameters, "strict": strict})
    })
    .map(Value::Array)
}

/// The request body of the Responses wire (OpenAI's and Azure's): `model` is what the server
/// calls the model (Azure's deployment name).
pub(crate) fn body(
    config: &ProviderConfig,
    info: &ModelInfo,
    model: &str,
    request: &Request,
    tools: &Value,
) -> Value {
    let prepared = transcript::prepare(&request.messages, info);
    let mut input: Vec<Value> = Vec::new();
    for (index, message) in prepared.iter().map(|message| &**message).enumerate() {
        match message {
            Message::User(user) => {
                let content = match &user.content {
                    UserContent::Text(text) => json!(text),
                    UserContent::Blocks(blocks) => Value::Array(
                        blocks
                            .iter()
                            .map(|block| match block {
                                Content::Text { text } => {
                                    json!({"type": "input_text", "text": text})
                                }
                                Content::Image { data, mime_type } => image(data, mime_type),
                            })
                            .collect(),
                    ),
                };
                input.push(json!({"type": "message", "role": "user", "content": content}));
            }
            Message::Assistant(assistant) => {
                let native = assistant.model == info.model;
                replay_assistant(&mut input, &assistant.content, native, index);
            }
            Message::ToolResult(result) => {
                let has_image = result
                    .content
                    .iter()
                    .any(|block| matches!(block, Content::Image { .. }));
                let mark = if result.is_error { ERROR_MARK } else { "" };
                let output = if has_image {
                    let mut parts = Vec::new();
                    if !mark.is_empty() {
                        parts.push(json!({"type": "input_text", "text": mark.trim_end()}));
                    }
                    parts.extend(result.content.iter().map(|block| match block {
                        Content::Text { text } => json!({"type": "input_text", "text": text}),
                        Content::Image { data, mime_type } => image(data, mime_type),
                    }));
                    Value::Array(parts)
                } else {
                    let text: String = result.content.iter().filter_map(Content::as_text).collect();
                    json!(format!("{mark}{text}"))
                };
                input.push(json!({"type": "function_call_output",
                    "call_id": call_id(&result.tool_call_id), "output": output}));
            }
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    if let Some(system) = &request.system_prompt {
        body.insert("instructions".into(), json!(system));
    }
    body.insert("input".into(), Value::Array(input));
    if tools.as_array().is_some_and(|tools| !tools.is_empty()) {
        body.insert("tools".into(), tools.clone());
        body.insert(
            "tool_choice".into(),
            match &config.tool_choice {
                ToolChoice::Auto => json!("auto"),
                ToolChoice::None => json!("none"),
                ToolChoice::Required => json!("required"),
                ToolChoice::Tool(name) => json!({"type": "function", "name": name}),
            },
        );
    }
    if let Some(max) = thinking::responses_output_limit(config) {
        body.insert("max_output_tokens".into(), json!(max));
    }
    // As Pi: OpenAI gets the session's cache key unless caching is off, and the day-long
    // retention when asked; Azure always gets the key and never the retention.
    let azure = info.api == crate::azure::AZURE_API;
    let cache_key = azure || config.cache_retention != CacheRetention::None;
    if let (true, Some(id)) = (cache_key, &config.session_id) {
        body.insert("prompt_cache_key".into(), json!(prompt_cache_key(id)));
    }
    if !azure
        && config
            .cache_retention
            .long_for(config.compat.supports_long_cache_retention)
    {
        body.insert("prompt_cache_retention".into(), json!("24h"));
    }
    // Nothing is kept on the server: reasoning travels back encrypted, as Pi does it.
    body.insert("store".into(), json!(false));
    thinking::responses(config, &info.provider, &mut body);
    body.insert("stream".into(), json!(true));
    Value::Object(body)
}

/// One earlier assistant message as Responses input items, as Pi replays them: reasoning items
/// as they came (encrypted), text as output messages with their item ids, calls with their
/// item ids when the same model made them (`native`).
fn replay_assistant(
    input: &mut Vec<Value>,
    content: &[AssistantContent],
    native: bool,
    index: usize,
) {
    let mut texts = 0;
    for block in content {
        match block {
            AssistantContent::Thinking {
                thinking_signature: Some(signature),
                ..
            } => {
                // The signature is the reasoning item itself; one that is not JSON is dropped.
                if let Ok(item @ Value::Object(_)) = serde_json::from_str::<Value>(signature) {
                    input.push(item);
                }
            }
            AssistantContent::Thinking { .. } => {}
            AssistantContent::Text {
                text,
                text_signature,
            } if !text.is_empty() => {
                let (id, phase) = text_item(text_signature.as_deref());
                let id = id.filter(|id| id.len() <= MAX_ID).unwrap_or_else(|| {
                    if texts == 0 {
                        format!("msg_pi_{index}")
                    } else {
                        format!("msg_pi_{index}_{texts}")
                    }
                });
                texts += 1;
                let mut item = json!({"type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                    "status": "completed", "id": id});
                if let (Some(phase), Some(fields)) = (phase, item.as_object_mut()) {
                    fields.insert("phase".into(), json!(phase));
                }
                input.push(item);
            }
            AssistantContent::Text { .. } => {}
            AssistantContent::ToolCall {
                id,
                name,
                arguments,
                ..
            } => {
                let mut call = json!({"type": "function_call", "call_id": call_id(id),
                    "name": name, "arguments": arguments_text(arguments)});
                let item = id.split_once('|').map(|(_, item)| item);
                if let (true, Some(item), Some(fields)) = (native, item, call.as_object_mut())
                    && item.starts_with("fc")
                {
                    fields.insert("id".into(), json!(wire_id(item, MAX_ID)));
                }
                input.push(call);
            }
        }
    }
}

/// A text block's signature as this wire writes it: `{"v":1,"id":...,"phase":...}`, or a bare
/// item id (older transcripts).
fn text_item(signature: Option<&str>) -> (Option<String>, Option<String>) {
    let Some(signature) = signature else {
        return (None, None);
    };
    match serde_json::from_str::<Value>(signature) {
        Ok(parsed) if parsed.get("v") == Some(&json!(1)) => (
            parsed.get("id").and_then(Value::as_str).map(str::to_owned),
            parsed
                .get("phase")
                .and_then(Value::as_str)
                .filter(|phase| matches!(*phase, "commentary" | "final_answer"))
                .map(str::to_owned),
        ),
        _ => (Some(signature.to_owned()), None),
    }
}

/// Reads one Responses stream (OpenAI's and Azure's).
#[derive(Default)]
pub(crate) struct ResponsesParser {
    calls: usize,
    /// The response's id was passed on (`response.created` names it, later events repeat it).
    id_sent: bool,
}

impl Parser for ResponsesParser {
    fn feed(&mut self, _event: Option<&str>, data: &str) -> Result<Feed, String> {
        // The nested in-stream error (`{"type":"error","error":{...}}`) ends here.
        let event = event_json(data)?;
        let text = |key: &str| {
            event
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let mut feed = Feed::default();
        if !self.id_sent
            && let Some(id) = event.pointer("/response/id").and_then(Value::as_str)
        {
            self.id_sent = true;
            feed.pieces.push(Fragment::ResponseId(id.to_owned()));
        }
        match event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "response.output_item.added" => {
                let item = event.get("item").unwrap_or(&Value::Null);
                if item.get("type").and_then(Value::as_str) == Some("function_call") {
                    self.calls += 1;
                    let field =
                        |key: &str| item.get(key).and_then(Value::as_str).unwrap_or_default();
                    let item_id = field("id");
                    feed.pieces.push(Fragment::ToolStart {
                        key: item_id.to_owned(),
                        id: format!("{}|{item_id}", field("call_id")),
                        name: field("name").to_owned(),
                    });
                }
            }
            "response.output_item.done" => {
                let item = event.get("item").unwrap_or(&Value::Null);
                match item.get("type").and_then(Value::as_str) {
                    // The whole item is what goes back next turn (with its encrypted content).
                    Some("reasoning") => {
                        feed.pieces
                            .push(Fragment::ThinkingSignature(item.to_string()));
                        feed.pieces.push(Fragment::EndBlock);
                    }
                    Some("message") => {
                        if let Some(id) = item.get("id").and_then(Value::as_str) {
                            let mut signature = json!({"v": 1, "id": id});
                            if let (Some(phase), Some(fields)) = (
                                item.get("phase").and_then(Value::as_str),
                                signature.as_object_mut(),
                            ) {
                                fields.insert("phase".into(), json!(phase));
                            }
                            feed.pieces
                                .push(Fragment::TextSignature(signature.to_string()));
                        }
                        feed.pieces.push(Fragment::EndBlock);
                    }
                    _ => {}
                }
            }
            "response.reasoning_summary_part.done" => {
                // Summary parts read as paragraphs.
                feed.pieces.push(Fragment::Thinking("\n\n".to_owned()));
            }
            "response.output_text.delta" => feed.pieces.push(Fragment::Text(text("delta"))),
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                feed.pieces.push(Fragment::Thinking(text("delta")));
            }
            "response.function_call_arguments.delta" => feed.pieces.push(Fragment::ToolArguments {
                key: text("item_id"),
                fragment: text("delta"),
            }),
            "response.completed" | "response.incomplete" => {
                let response = event.get("response").unwrap_or(&Value::Null);
                if let Some(usage) = response.get("usage").filter(|usage| usage.is_object()) {
                    let count =
                        |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
                    let cached = count("/input_tokens_details/cached_tokens");
                    feed.pieces.push(Fragment::Usage(Usage {
                        input: count("/input_tokens").saturating_sub(cached),
                        output: count("/output_tokens"),
                        cache_read: cached,
                        cache_write: 0,
                        total_tokens: count("/total_tokens"),
                        cost: pi_ai::Cost::default(),
                    }));
                }
                let reason =
                    if event.get("type").and_then(Value::as_str) == Some("response.incomplete") {
                        StopReason::Length
                    } else if self.calls > 0 {
                        StopReason::ToolUse
                    } else {
                        StopReason::Stop
                    };
                feed.pieces.push(Fragment::Stop(reason));
                feed.done = true;
            }
            "response.failed" => return Err(error_message(event.pointer("/response/error"))),
            // The flat form: `{"type":"error","message":...}`.
            "error" => return Err(error_message(Some(&event))),
            _ => {}
        }
        Ok(feed)
    }
}
