//! A Claude subscription token on the Messages wire: sent as Pi sends it (bearer, Claude
//! Code's betas, user agent and system line, its tool spelling) and the answer's tool names
//! mapped back to ours.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::sync::Arc;

use pi_agent::{Agent, AgentConfig, EndReason};
use pi_ai::{Message, UserMessage};
use pi_providers::{Anthropic, ProviderConfig};
use pi_tool::schema::DynamicSchema;
use pi_tool::{FnTool, ToolOutput, ToolRegistry};
use serde_json::{Value, json};
use support::{Fake, Reply, sse};
use tokio_util::sync::CancellationToken;

const TOKEN: &str = "sk-ant-oat01-subscription-token";

fn bash_tool() -> ToolRegistry {
    let bash = FnTool::new(
        "bash",
        "Run a command",
        DynamicSchema::new(json!({"type": "object", "properties": {
            "command": {"type": "string"}}, "required": ["command"]}))
        .unwrap(),
        |_arguments: Value, _cx| async move { Ok(ToolOutput::text("done")) },
    );
    ToolRegistry::new([pi_tool::RegisteredTool::new(bash)]).unwrap()
}

const CALL: &str = r#"
event: message_start
data: {"type":"message_start","message":{"model":"m","id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}
event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}}
event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"ls\"}"}}
event: content_block_stop
data: {"type":"content_block_stop","index":0}
event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}
event: message_stop
data: {"type":"message_stop"}
"#;

const FINAL: &str = r#"
event: message_start
data: {"type":"message_start","message":{"model":"m","id":"msg_2","type":"message","role":"assistant","content":[],"usage":{"input_tokens":20,"output_tokens":1}}}
event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}
event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Listed."}}
event: content_block_stop
data: {"type":"content_block_stop","index":0}
event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}
event: message_stop
data: {"type":"message_stop"}
"#;

#[tokio::test]
async fn a_subscription_token_is_sent_as_claude_code_sends_it() {
    let fake = Fake::start(vec![Reply::sse(sse(CALL)), Reply::sse(sse(FINAL))]).await;
    let provider = Anthropic::new(
        ProviderConfig::new("claude-sonnet-4-5")
            .with_base_url(fake.url(""))
            .with_api_key(TOKEN),
    )
    .unwrap();
    let config =
        AgentConfig::new(Arc::new(provider), Arc::new(bash_tool())).with_system_prompt("Be brief.");
    let run = Agent::new(config)
        .run(
            Vec::new(),
            vec![UserMessage::text("list").into()],
            CancellationToken::new(),
        )
        .await;
    assert_eq!(run.end, EndReason::Completed, "{:?}", run.error);
    let Message::Assistant(call) = &run.messages[1] else {
        panic!()
    };
    // Claude Code's `Bash` is our `bash` again: the call ran (a result, not an unknown tool).
    assert_eq!(call.tool_calls()[0].name, "bash");
    let Message::ToolResult(result) = &run.messages[2] else {
        panic!()
    };
    assert!(!result.is_error, "{result:?}");

    let requests = fake.requests();
    let header = |name: &str| requests[0].headers[name].to_str().unwrap().to_owned();
    assert_eq!(header("authorization"), format!("Bearer {TOKEN}"));
    assert!(!requests[0].headers.contains_key("x-api-key"));
    assert!(
        header("anthropic-beta").starts_with("claude-code-20250219,oauth-2025-04-20"),
        "{}",
        header("anthropic-beta")
    );
    assert_eq!(header("user-agent"), "claude-cli/2.1.75");
    assert_eq!(header("x-app"), "cli");
    assert_eq!(header("anthropic-dangerous-direct-browser-access"), "true");
    let first = &requests[0].body;
    assert_eq!(
        first["system"],
        json!([
            {"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude.",
             "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}
        ])
    );
    assert_eq!(first["tools"][0]["name"], "Bash");
    // The call goes back in Claude Code's spelling too.
    let history = &requests[1].body["messages"];
    assert_eq!(history[1]["content"][0]["name"], "Bash");
}

#[tokio::test]
async fn an_api_key_is_still_sent_as_x_api_key() {
    let fake = Fake::start(vec![Reply::sse(sse(FINAL))]).await;
    let provider = Anthropic::new(
        ProviderConfig::new("m")
            .with_base_url(fake.url(""))
            .with_api_key("sk-ant-api03-key"),
    )
    .unwrap();
    let config = AgentConfig::new(Arc::new(provider), Arc::new(bash_tool()));
    let run = Agent::new(config)
        .run(
            Vec::new(),
            vec![UserMessage::text("hi").into()],
            CancellationToken::new(),
        )
        .await;
    assert_eq!(run.end, EndReason::Completed, "{:?}", run.error);
    let requests = fake.requests();
    assert_eq!(requests[0].headers["x-api-key"], "sk-ant-api03-key");
    assert!(!requests[0].headers.contains_key("authorization"));
    assert!(!requests[0].headers.contains_key("x-app"));
    assert_eq!(requests[0].body["tools"][0]["name"], "bash");
}
