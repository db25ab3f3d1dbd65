//! Amazon Bedrock's Converse streaming API (`POST {endpoint}/model/{id}/converse-stream`),
//! as Pi 0.80.6 asks it through the AWS SDK: the request signed with SigV4 by the SDK's own
//! signer (or sent with a Bedrock bearer token), the answer read from its
//! `application/vnd.amazon.eventstream` frames. Text, tool calls, reasoning (with Claude's
//! signatures), usage and stop reasons are mapped as Pi maps them; Claude models get Pi's cache
//! points and its thinking fields (adaptive or a budget) in `additionalModelRequestFields`.

use std::time::SystemTime;

use aws_credential_types::Credentials;
use aws_sigv4::http_request::{
    PayloadChecksumKind, SignableBody, SignableRequest, SigningSettings, sign,
};
use aws_sigv4::sign::v4;
use pi_ai::{
    AssistantContent, EventStream, Fragment, Message, ModelInfo, Provider, Request, ServerAddress,
    StopReason, Usage, UserContent,
};
use pi_tool::dialect::Dialect;
use pi_tool::{Content, ToolDefinition};
use reqwest::header::{HeaderName, HeaderValue};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::aws_credentials::{BedrockAuth, BedrockSettings, standard_endpoint_region};
use crate::driver::{Feed, Framing, Model, Parser, Wire, event_json, render_each};
use crate::http::Post;
use crate::ids::wire_id;
use crate::thinking::{self, INTERLEAVED_THINKING_BETA};
use crate::{ProviderConfig, ProviderError, ToolChoice, transcript};

/// Bedrock's id rule for tool calls: `[A-Za-z0-9_-]`, at most 64.
const MAX_ID: usize = 64;
/// What Pi sends for an empty text Bedrock would refuse.
const EMPTY_TEXT: &str = "<empty>";
/// The longest reasoning signature kept.
const MAX_SIGNATURE: usize = 1 << 20;
/// The default Bedrock endpoint of the catalog's models.
const DEFAULT_ENDPOINT: &str = "https://bedrock-runtime.us-east-1.amazonaws.com";

/// A model on Amazon Bedrock.
///
/// ```
/// use pi_ai::Provider;
/// use pi_providers::{AwsKeys, Bedrock, BedrockAuth, BedrockSettings, ProviderConfig};
///
/// let settings = BedrockSettings::from_lookup(|_| None, Some("bedrock-api-key"));
/// assert_eq!(settings.auth, Ok(BedrockAuth::Bearer("bedrock-api-key".into())));
/// let model = Bedrock::new(ProviderConfig::new("amazon.nova-pro-v1:0"), settings).unwrap();
/// assert_eq!(model.model().api, "bedrock-converse-stream");
/// ```
#[derive(Debug)]
pub struct Bedrock(Model<ConverseWire>);

impl Bedrock {
    /// A model reached as `settings` say (region, credentials); the config's base URL is the
    /// endpoint when it is not Bedrock's own (a proxy, a VPC endpoint, a test), as in Pi.
    /// `Err` when there are no usable credentials, saying what to set.
    pub fn new(config: ProviderConfig, settings: BedrockSettings) -> Result<Self, ProviderError> {
        let auth = settings.auth.clone().map_err(ProviderError::Unsupported)?;
        let base = config.base(DEFAULT_ENDPOINT);
        let endpoint_region = standard_endpoint_region(&base);
        // Pi keeps a custom base URL; Bedrock's own is pinned only when neither a region nor
        // a profile is configured (then the SDK builds the region's endpoint).
        let explicit = endpoint_region.is_none()
            || (settings.configured_region.is_none() && !settings.profile_set);
        let region = settings.region_for(
            &config.model,
            endpoint_region.as_deref().filter(|_| explicit),
        );
        let endpoint = if explicit {
            base
        } else if let Some(endpoint) = &settings.endpoint_override {
            endpoint.trim_end_matches('/').to_owned()
        } else {
            format!("https://bedrock-runtime.{region}.amazonaws.com")
        };
        let wire = ConverseWire {
            config: ProviderConfig {
                base_url: Some(endpoint.clone()),
                ..config
            },
            process: std::sync::Mutex::new(match &auth {
                BedrockAuth::Process(process) => Some(process.clone()),
                _ => None,
            }),
            auth,
            region,
            force_cache: settings.force_cache,
        };
        Model::new(wire, &endpoint).map(Self)
    }
}

impl Provider for Bedrock {
    fn model(&self) -> ModelInfo {
        self.0.info()
    }

    fn server(&self) -> Option<&ServerAddress> {
        self.0.server()
    }

    fn stream(&self, request: Request, signal: CancellationToken) -> EventStream {
        self.0.stream(request, signal)
    }
}

struct ConverseWire {
    config: ProviderConfig,
    auth: BedrockAuth,
    /// A `credential_process`'s current keys, fetched again before they expire (the
    /// command runs on the request's thread: it is the user's own, and usually quick).
    process: std::sync::Mutex<Option<crate::ProcessCredentials>>,
    region: String,
    force_cache: bool,
}

impl ConverseWire {
    /// Pi's test for an Anthropic Claude model on Bedrock.
    fn is_claude(&self) -> bool {
        let id = self.config.model.to_ascii_lowercase();
        id.contains("anthropic.claude") || id.contains("anthropic/claude") || id.contains("claude")
    }

    /// The id in Pi's forms for matching (`.`, `_`, `:` and spaces as `-`).
    fn id_forms(&self) -> [String; 2] {
        let lower = self.config.model.to_ascii_lowercase();
        let dashed: String = lower
            .chars()
            .map(|c| {
                if matches!(c, ' ' | '_' | '.' | ':') {
                    '-'
                } else {
                    c
                }
            })
            .collect();
        [lower, dashed]
    }

    fn id_has(&self, needles: &[&str]) -> bool {
        self.id_forms()
            .iter()
            .any(|form| needles.iter().any(|needle| form.contains(needle)))
    }

    /// Claude models Bedrock caches prompts for (Pi's list); any model whose id names no
    /// Claude model when `AWS_BEDROCK_FORCE_CACHE=1`.
    fn caches_prompts(&self) -> bool {
        if self.config.cache_retention == crate::CacheRetention::None {
            return false;
        }
        if !self.id_has(&["claude"]) {
            return self.force_cache;
        }
        self.id_has(&[
            "fable-5",
            "sonnet-5",
            "-4-",
            "claude-3-7-sonnet",
            "claude-3-5-haiku",
        ])
    }

    fn adaptive_thinking(&self) -> bool {
        self.id_has(&[
            "opus-4-6",
            "opus-4-7",
            "opus-4-8",
            "sonnet-4-6",
            "sonnet-5",
            "fable-5",
        ])
    }

    fn native_xhigh(&self) -> bool {
        self.id_has(&["opus-4-7", "opus-4-8", "sonnet-5", "fable-5"])
    }

    /// `inferenceConfig.maxTokens` and `additionalModelRequestFields`, as Pi sets them.
    fn thinking(&self) -> (Option<u64>, Option<Value>) {
        let claude = self.is_claude();
        let plain_max = if claude {
            self.config.output_limit()
        } else {
            self.config.max_tokens
        };
        let level = thinking::requested(&self.config);
        let (Some(level), true) = (level, claude) else {
            return (plain_max, None);
        };
        let govcloud = self.region.starts_with("us-gov-")
            || self.config.model.starts_with("us-gov.")
            || self.config.model.starts_with("arn:aws-us-gov:");
        let display = (!govcloud).then_some("summarized");
        let mut thinking = Map::new();
        let mut fields = Map::new();
        if self.adaptive_thinking() {
            let effort = if level == pi_ai::ThinkingLevel::Xhigh && self.native_xhigh() {
                "xhigh".to_owned()
            } else {
                self.config.thinking_level_map.value(level).map_or_else(
                    || {
                        match level {
                            pi_ai::ThinkingLevel::Minimal | pi_ai::ThinkingLevel::Low => "low",
                            pi_ai::ThinkingLevel::Medium => "medium",
                            _ => "high",
                        }
                        .to_owned()
                    },
                    str::to_owned,
                )
            };
            thinking.insert("type".into(), json!("adaptive"));
            if let Some(display) = display {
                thinking.insert("display".into(), json!(display));
            }
            fields.insert("thinking".into(), Value::Object(thinking));
            fields.insert("output_config".into(), json!({"effort": effort}));
            return (plain_max, Some(Value::Object(fields)));
        }
        // The budget and the output limit as on Anthropic's own wire (Pi's shared rule).
        let anthropic = thinking::anthropic(&self.config, plain_max.unwrap_or(4096));
        let budget = anthropic
            .thinking
            .as_ref()
            .and_then(|thinking| thinking.get("budget_tokens"))
            .cloned()
            .unwrap_or(json!(1024));
        thinking.insert("type".into(), json!("enabled"));
        thinking.insert("budget_tokens".into(), budget);
        if let Some(display) = display {
            thinking.insert("display".into(), json!(display));
        }
        fields.insert("thinking".into(), Value::Object(thinking));
        fields.insert("anthropic_beta".into(), json!([INTERLEAVED_THINKING_BETA]));
        (Some(anthropic.max_tokens), Some(Value::Object(fields)))
    }

    /// The Converse request body.
    fn body(&self, request: &Request, tools: &Value) -> Value {
        let info = self.info();
        let claude = self.is_claude();
        let prepared = transcript::prepare(&request.messages, &info);
        let mut messages: Vec<Value> = Vec::new();
        let mut results: Vec<Value> = Vec::new();
        for message in prepared.iter().map(|message| &**message) {
            if !matches!(message, Message::ToolResult(_)) && !results.is_empty() {
                messages.push(json!({"role": "user", "content": std::mem::take(&mut results)}));
            }
            match message {
                Message::User(user) => {
                    let content = match &user.content {
                        UserContent::Text(text) => vec![required_text(text)],
                        UserContent::Blocks(blocks) => blocks_or_empty(blocks),
                    };
                    messages.push(json!({"role": "user", "content": content}));
                }
                Message::Assistant(assistant) => {
                    let content: Vec<Value> = assistant
                        .content
                        .iter()
                        .filter_map(|block| match block {
                            AssistantContent::Text { text, .. } => non_blank_text(text),
                            AssistantContent::ToolCall { id, name, arguments, .. } => {
                                Some(json!({"toolUse": {"toolUseId": wire_id(id, MAX_ID),
                                    "name": name, "input": arguments}}))
                            }
                            AssistantContent::Thinking { thinking, thinking_signature, .. } => {
                                if thinking.trim().is_empty() {
                                    return None;
                                }
                                let signature = thinking_signature
                                    .as_deref()
                                    .filter(|signature| !signature.trim().is_empty());
                                Some(match (claude, signature) {
                                    (true, Some(signature)) => json!({"reasoningContent":
                                        {"reasoningText": {"text": thinking, "signature": signature}}}),
                                    // Claude refuses unsigned reasoning: plain text, as Pi does.
                                    (true, None) => json!({"text": thinking}),
                                    (false, _) => json!({"reasoningContent":
                                        {"reasoningText": {"text": thinking}}}),
                                })
                            }
                        })
                        .collect();
                    if !content.is_empty() {
                        messages.push(json!({"role": "assistant", "content": content}));
                    }
                }
                Message::ToolResult(result) => {
                    results.push(json!({"toolResult": {
                        "toolUseId": wire_id(&result.tool_call_id, MAX_ID),
                        "content": blocks_or_empty(&result.content),
                        "status": if result.is_error { "error" } else { "success" }}}));
                }
            }
        }
        if !results.is_empty() {
            messages.push(json!({"role": "user", "content": results}));
        }
        let cache = self.caches_prompts();
        if cache
            && let Some(last) = messages.last_mut()
            && last["role"] == "user"
            && let Some(content) = last.get_mut("content").and_then(Value::as_array_mut)
        {
            content.push(self.config.cache_retention.bedrock_cache_point());
        }
        let mut body = Map::new();
        body.insert("messages".into(), Value::Array(messages));
        if let Some(system) = request.system_prompt.as_deref().filter(|s| !s.is_empty()) {
            let mut blocks = vec![json!({"text": system})];
            if cache {
                blocks.push(self.config.cache_retention.bedrock_cache_point());
            }
            body.insert("system".into(), Value::Array(blocks));
        }
        let (max_tokens, fields) = self.thinking();
        let mut inference = Map::new();
        if let Some(max_tokens) = max_tokens {
            inference.insert("maxTokens".into(), json!(max_tokens));
        }
        body.insert("inferenceConfig".into(), Value::Object(inference));
        let listed = tools.as_array().filter(|tools| !tools.is_empty());
        if let Some(tools) = listed.filter(|_| self.config.tool_choice != ToolChoice::None) {
            let mut config = Map::new();
            config.insert("tools".into(), Value::Array(tools.clone()));
            let choice = match &self.config.tool_choice {
                ToolChoice::Auto | ToolChoice::None => None,
                ToolChoice::Required => Some(json!({"any": {}})),
                ToolChoice::Tool(name) => Some(json!({"tool": {"name": name}})),
            };
            if let Some(choice) = choice {
                config.insert("toolChoice".into(), choice);
            }
            body.insert("toolConfig".into(), Value::Object(config));
        }
        if let Some(fields) = fields {
            body.insert("additionalModelRequestFields".into(), fields);
        }
        Value::Object(body)
    }

    /// The configured headers (models.json's), without those the signature or the token
    /// owns: `authorization`, `host` and `x-amz-*` are skipped, as Pi skips them.
    fn custom_headers(&self) -> Vec<(String, String)> {
        self.config
            .headers
            .iter()
            .filter(|(name, _)| {
                let name = name.trim().to_ascii_lowercase();
                !(name == "authorization" || name == "host" || name.starts_with("x-amz-"))
            })
            .cloned()
            .collect()
    }

    /// Signs `post` for Bedrock with SigV4 (or adds the bearer token).
    fn authenticate(&self, mut post: Post) -> Result<Post, String> {
        let keys = match &self.auth {
            BedrockAuth::None => return Ok(post),
            BedrockAuth::Bearer(token) => {
                return post.key_header("authorization", Some(token), |token| {
                    format!("Bearer {token}")
                });
            }
            BedrockAuth::Keys(keys) => keys.clone(),
            BedrockAuth::Process(_) => {
                let mut process = self
                    .process
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                match process.as_mut() {
                    Some(process) => process.fresh_keys()?,
                    None => return Err("the credential_process keys are missing".to_owned()),
                }
            }
        };
        let url = url::Url::parse(&post.url)
            .map_err(|_| "the Bedrock endpoint is not a URL".to_owned())?;
        let host = match (url.host_str(), url.port()) {
            (Some(host), Some(port)) => format!("{host}:{port}"),
            (Some(host), None) => host.to_owned(),
            (None, _) => return Err("the Bedrock endpoint names no host".to_owned()),
        };
        let identity = Credentials::new(
            &keys.access_key_id,
            &keys.secret_access_key,
            keys.session_token.clone(),
            None,
            "environment",
        )
        .into();
        let mut settings = SigningSettings::default();
        settings.payload_checksum_kind = PayloadChecksumKind::XAmzSha256;
        let params = v4::SigningParams::builder()
            .identity(&identity)
            .region(&self.region)
            .name("bedrock")
            .time(SystemTime::now())
            .settings(settings)
            .build()
            .map_err(|error| format!("the request could not be signed: {error}"))?
            .into();
        // `send` adds the content type; it is signed here as the SDK signs it, with every
        // header already on the request (the configured ones).
        let mut headers = vec![
            ("host", host.as_str()),
            ("content-type", "application/json"),
        ];
        for (name, value) in &post.headers {
            let value = value
                .to_str()
                .map_err(|_| format!("the value of the {name} header cannot be signed"))?;
            headers.push((name.as_str(), value));
        }
        let signable = SignableRequest::new(
            "POST",
            post.url.as_str(),
            headers.into_iter(),
            SignableBody::Bytes(&post.body),
        )
        .map_err(|error| format!("the request could not be signed: {error}"))?;
        let (instructions, _) = sign(signable, &params)
            .map_err(|error| format!("the request could not be signed: {error}"))?
            .into_parts();
        for (name, value) in instructions.headers() {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| format!("the signer made a header {name:?} that is not valid"))?;
            let mut value = HeaderValue::from_str(value)
                .map_err(|_| format!("the signer's {name} header is not valid"))?;
            value.set_sensitive(true);
            post.headers.insert(name, value);
        }
        Ok(post)
    }
}

/// `text` as a text block, or Pi's placeholder when it is blank.
fn required_text(text: &str) -> Value {
    non_blank_text(text).unwrap_or_else(|| json!({"text": EMPTY_TEXT}))
}

fn non_blank_text(text: &str) -> Option<Value> {
    (!text.trim().is_empty()).then(|| json!({"text": text}))
}

/// Text and image blocks; the placeholder when nothing is left.
fn blocks_or_empty(content: &[Content]) -> Vec<Value> {
    let mut blocks: Vec<Value> = content
        .iter()
        .filter_map(|block| match block {
            Content::Text { text } => non_blank_text(text),
            Content::Image { data, mime_type } => Some(image_block(data, mime_type)),
        })
        .collect();
    if blocks.is_empty() {
        blocks.push(json!({"text": EMPTY_TEXT}));
    }
    blocks
}

/// An image as Converse takes it (the SDK writes the bytes as base64 in JSON).
fn image_block(data: &str, mime_type: &str) -> Value {
    let format = match mime_type {
        "image/jpeg" | "image/jpg" => "jpeg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        _ => "png",
    };
    json!({"image": {"source": {"bytes": data}, "format": format}})
}

/// `id` percent-encoded as one path segment (`:` and `/` of ARNs and versions included).
fn path_segment(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for byte in id.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

impl Wire for ConverseWire {
    const API: &'static str = "bedrock-converse-stream";
    const PROVIDER: &'static str = "amazon-bedrock";
    const FRAMING: Framing = Framing::AwsEventStream;

    fn config(&self) -> &ProviderConfig {
        &self.config
    }

    fn dialect(&self) -> Dialect {
        Dialect::Anthropic
    }

    fn render_tools(&self, tools: &[ToolDefinition]) -> Result<Value, String> {
        render_each(tools, self.dialect(), |tool, schema| {
            json!({"toolSpec": {"name": tool.name, "description": tool.description,
                "inputSchema": {"json": schema}}})
        })
        .map(Value::Array)
    }

    fn post(&self, request: &Request, tools: &Value) -> Result<Post, String> {
        let url = format!(
            "{}/model/{}/converse-stream",
            self.config.base(DEFAULT_ENDPOINT),
            path_segment(&self.config.model)
        );
        // Added before signing, so the signature covers them (Pi adds them in the SDK's
        // build step, before its signer).
        let post =
            Post::new(url, self.body(request, tools))?.extra_headers(&self.custom_headers())?;
        self.authenticate(post)
    }

    fn adds_extra_headers(&self) -> bool {
        true
    }

    fn parser(&self, _request: &Request) -> Box<dyn Parser> {
        Box::new(ConverseParser::default())
    }
}

#[derive(Default)]
struct ConverseParser {
    usage: Usage,
    /// The signature of the reasoning block being streamed (it may come in pieces).
    signature: String,
}

/// Pi's prefixes for Bedrock's exceptions (its retry logic reads them).
fn exception_prefix(kind: &str) -> String {
    match kind {
        "internalServerException" => "Internal server error".to_owned(),
        "modelStreamErrorException" => "Model stream error".to_owned(),
        "validationException" => "Validation error".to_owned(),
        "throttlingException" => "Throttling error".to_owned(),
        "serviceUnavailableException" => "Service unavailable".to_owned(),
        other => other.to_owned(),
    }
}

impl Parser for ConverseParser {
    fn feed(&mut self, event: Option<&str>, data: &str) -> Result<Feed, String> {
        let mut feed = Feed::default();
        let name = event.unwrap_or_default();
        if let Some(kind) = name.strip_prefix("exception:") {
            let message = serde_json::from_str::<Value>(data)
                .ok()
                .and_then(|body| {
                    body.get("message")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .unwrap_or_else(|| "the provider reported an error".to_owned());
            return Err(format!("{}: {message}", exception_prefix(kind)));
        }
        let event = event_json(data)?;
        let index = event
            .get("contentBlockIndex")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let key = index.to_string();
        match name {
            "contentBlockStart" => {
                if let Some(tool) = event.pointer("/start/toolUse") {
                    let text = |key: &str| {
                        tool.get(key)
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned()
                    };
                    feed.pieces.push(Fragment::ToolStart {
                        key,
                        id: text("toolUseId"),
                        name: text("name"),
                    });
                }
            }
            "contentBlockDelta" => {
                let delta = event.get("delta").unwrap_or(&Value::Null);
                if let Some(text) = delta.get("text").and_then(Value::as_str) {
                    feed.pieces.push(Fragment::Text(text.to_owned()));
                } else if let Some(tool) = delta.get("toolUse") {
                    let input = tool
                        .get("input")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    feed.pieces.push(Fragment::ToolArguments {
                        key,
                        fragment: input.to_owned(),
                    });
                } else if let Some(reasoning) = delta.get("reasoningContent") {
                    if let Some(text) = reasoning.get("text").and_then(Value::as_str) {
                        feed.pieces.push(Fragment::Thinking(text.to_owned()));
                    }
                    if let Some(piece) = reasoning.get("signature").and_then(Value::as_str) {
                        self.signature.push_str(piece);
                        if self.signature.len() > MAX_SIGNATURE {
                            return Err(format!(
                                "the provider sent a reasoning signature over {} KiB",
                                MAX_SIGNATURE >> 10
                            ));
                        }
                    }
                }
            }
            "contentBlockStop" => {
                if !self.signature.is_empty() {
                    let signature = std::mem::take(&mut self.signature);
                    feed.pieces.push(Fragment::ThinkingSignature(signature));
                }
                feed.pieces.push(Fragment::EndBlock);
            }
            "messageStop" => match event.get("stopReason").and_then(Value::as_str) {
                Some("end_turn" | "stop_sequence") => {
                    feed.pieces.push(Fragment::Stop(StopReason::Stop));
                }
                Some("max_tokens" | "model_context_window_exceeded") => {
                    feed.pieces.push(Fragment::Stop(StopReason::Length));
                }
                Some("tool_use") => feed.pieces.push(Fragment::Stop(StopReason::ToolUse)),
                Some(other) => {
                    return Err(format!("the model stopped: {other}"));
                }
                None => return Err("the model stopped without a reason".to_owned()),
            },
            "metadata" => {
                if let Some(usage) = event.get("usage") {
                    let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
                    self.usage.input = count("inputTokens");
                    self.usage.output = count("outputTokens");
                    self.usage.cache_read = count("cacheReadInputTokens");
                    self.usage.cache_write = count("cacheWriteInputTokens");
                    self.usage.total_tokens = usage
                        .get("totalTokens")
                        .and_then(Value::as_u64)
                        .unwrap_or(self.usage.input + self.usage.output);
                    feed.pieces.push(Fragment::Usage(self.usage));
                }
            }
            _ => {}
        }
        Ok(feed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_ids_are_one_encoded_path_segment() {
        assert_eq!(
            path_segment("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
            "us.anthropic.claude-sonnet-4-5-20250929-v1%3A0"
        );
        assert_eq!(
            path_segment("arn:aws:bedrock:eu-west-1:1:x/y"),
            "arn%3Aaws%3Abedrock%3Aeu-west-1%3A1%3Ax%2Fy"
        );
    }

    #[test]
    fn cache_points_go_to_claude_models_or_where_forced() {
        let wire = |model: &str, force_cache| ConverseWire {
            config: ProviderConfig::new(model),
            auth: BedrockAuth::None,
            process: std::sync::Mutex::new(None),
            region: "us-east-1".to_owned(),
            force_cache,
        };
        let profile = "arn:aws:bedrock:us-east-1:123:application-inference-profile/abc";
        assert!(!wire(profile, false).caches_prompts());
        assert!(wire(profile, true).caches_prompts());
        assert!(wire("us.anthropic.claude-sonnet-4-5-20250929-v1:0", false).caches_prompts());
        assert!(!wire("anthropic.claude-3-haiku-20240307-v1:0", false).caches_prompts());
        assert!(!wire("amazon.nova-pro-v1:0", false).caches_prompts());
    }

    #[test]
    fn exceptions_read_as_pi_says_them() {
        let mut parser = ConverseParser::default();
        let error = parser
            .feed(
                Some("exception:throttlingException"),
                r#"{"message":"Too many requests"}"#,
            )
            .unwrap_err();
        assert_eq!(error, "Throttling error: Too many requests");
    }
}
