//! Every attribute, metric and value name we emit, as the OpenTelemetry GenAI semantic
//! conventions spell them.
//!
//! Pinned to the registry of `open-telemetry/semantic-conventions` v1.41.1, the last release
//! that holds the GenAI conventions before they moved to `semantic-conventions-genai` (v0.1.0
//! there). The test `tests/names_in_registry.rs` checks each name against a fixture copied from
//! that registry. Two kinds of names have no entry in it, and say so where they are defined:
//! [`GEN_AI_EXECUTE_TOOL_DURATION`] (new in the GenAI repository) and the `pi_tool.` spans
//! (no convention covers compaction yet).

/// The version of the conventions these names follow.
pub const SEMCONV_VERSION: &str = "1.41.1";

/// `gen_ai.operation.name`: `chat`, `invoke_agent`, `execute_tool`.
pub const GEN_AI_OPERATION_NAME: &str = "gen_ai.operation.name";
/// `gen_ai.provider.name`: who serves the model (`openai`, `anthropic`, ...).
pub const GEN_AI_PROVIDER_NAME: &str = "gen_ai.provider.name";
/// `gen_ai.request.model`: the model asked for.
pub const GEN_AI_REQUEST_MODEL: &str = "gen_ai.request.model";
/// `gen_ai.response.model`: the model that answered.
pub const GEN_AI_RESPONSE_MODEL: &str = "gen_ai.response.model";
/// `gen_ai.response.id`: the provider's id of the response.
pub const GEN_AI_RESPONSE_ID: &str = "gen_ai.response.id";
/// `gen_ai.response.finish_reasons`: why the model stopped.
pub const GEN_AI_RESPONSE_FINISH_REASONS: &str = "gen_ai.response.finish_reasons";
/// `gen_ai.usage.input_tokens` (cache reads and writes included).
pub const GEN_AI_USAGE_INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
/// `gen_ai.usage.output_tokens`.
pub const GEN_AI_USAGE_OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
/// `gen_ai.usage.cache_read.input_tokens`.
pub const GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS: &str = "gen_ai.usage.cache_read.input_tokens";
/// `gen_ai.usage.cache_creation.input_tokens`.
pub const GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS: &str =
    "gen_ai.usage.cache_creation.input_tokens";
/// `gen_ai.token.type`: `input` or `output`, on the token usage metric.
pub const GEN_AI_TOKEN_TYPE: &str = "gen_ai.token.type";
/// `gen_ai.conversation.id`: our session id.
pub const GEN_AI_CONVERSATION_ID: &str = "gen_ai.conversation.id";
/// `gen_ai.agent.name`.
pub const GEN_AI_AGENT_NAME: &str = "gen_ai.agent.name";
/// `gen_ai.tool.name`.
pub const GEN_AI_TOOL_NAME: &str = "gen_ai.tool.name";
/// `gen_ai.tool.call.id`: our paired call id.
pub const GEN_AI_TOOL_CALL_ID: &str = "gen_ai.tool.call.id";
/// `gen_ai.tool.type`: `function` for ours, `extension` for a tool behind MCP.
pub const GEN_AI_TOOL_TYPE: &str = "gen_ai.tool.type";
/// `gen_ai.tool.call.arguments` (opt-in content).
pub const GEN_AI_TOOL_CALL_ARGUMENTS: &str = "gen_ai.tool.call.arguments";
/// `gen_ai.tool.call.result` (opt-in content).
pub const GEN_AI_TOOL_CALL_RESULT: &str = "gen_ai.tool.call.result";
/// `gen_ai.output.messages` (opt-in content).
pub const GEN_AI_OUTPUT_MESSAGES: &str = "gen_ai.output.messages";
/// `error.type`: the class of a failure (see [`crate::ErrorType`]).
pub const ERROR_TYPE: &str = "error.type";
/// `server.address`.
pub const SERVER_ADDRESS: &str = "server.address";
/// `server.port`.
pub const SERVER_PORT: &str = "server.port";
/// `mcp.method.name`: `tools/call`.
pub const MCP_METHOD_NAME: &str = "mcp.method.name";
/// `mcp.session.id`.
pub const MCP_SESSION_ID: &str = "mcp.session.id";
/// `jsonrpc.request.id`.
pub const JSONRPC_REQUEST_ID: &str = "jsonrpc.request.id";

/// Every attribute name above, for the registry test.
pub const ATTRIBUTES: &[&str] = &[
    GEN_AI_OPERATION_NAME,
    GEN_AI_PROVIDER_NAME,
    GEN_AI_REQUEST_MODEL,
    GEN_AI_RESPONSE_MODEL,
    GEN_AI_RESPONSE_ID,
    GEN_AI_RESPONSE_FINISH_REASONS,
    GEN_AI_USAGE_INPUT_TOKENS,
    GEN_AI_USAGE_OUTPUT_TOKENS,
    GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
    GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
    GEN_AI_TOKEN_TYPE,
    GEN_AI_CONVERSATION_ID,
    GEN_AI_AGENT_NAME,
    GEN_AI_TOOL_NAME,
    GEN_AI_TOOL_CALL_ID,
    GEN_AI_TOOL_TYPE,
    GEN_AI_TOOL_CALL_ARGUMENTS,
    GEN_AI_TOOL_CALL_RESULT,
    GEN_AI_OUTPUT_MESSAGES,
    ERROR_TYPE,
    SERVER_ADDRESS,
    SERVER_PORT,
    MCP_METHOD_NAME,
    MCP_SESSION_ID,
    JSONRPC_REQUEST_ID,
];

/// `gen_ai.client.token.usage` (histogram, `{token}`).
pub const GEN_AI_CLIENT_TOKEN_USAGE: &str = "gen_ai.client.token.usage";
/// `gen_ai.client.operation.duration` (histogram, seconds).
pub const GEN_AI_CLIENT_OPERATION_DURATION: &str = "gen_ai.client.operation.duration";
/// `gen_ai.execute_tool.duration` (histogram, seconds). Defined by `semantic-conventions-genai`
/// (`docs/gen-ai/execute-tool.md`), not in the v1.41.1 registry the other names are checked
/// against.
pub const GEN_AI_EXECUTE_TOOL_DURATION: &str = "gen_ai.execute_tool.duration";

/// The metric names of the v1.41.1 registry, for the registry test.
pub const METRICS: &[&str] = &[GEN_AI_CLIENT_TOKEN_USAGE, GEN_AI_CLIENT_OPERATION_DURATION];

/// The conventions' bucket boundaries for `gen_ai.client.token.usage`.
pub const TOKEN_USAGE_BUCKETS: &[f64] = &[
    1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0,
    16777216.0, 67108864.0,
];

/// The conventions' bucket boundaries for durations, in seconds.
pub const DURATION_BUCKETS: &[f64] = &[
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/// The opt-in switch for message contents, tool arguments and results, named as the
/// conventions' other instrumentations name it.
pub const CAPTURE_CONTENT_ENV: &str = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";
