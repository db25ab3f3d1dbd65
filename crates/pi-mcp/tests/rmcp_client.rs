//! rmcp's own client against our server, in process: the same ground as the Python peers,
//! fast enough for every run.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pi_mcp::McpToolServer;
use pi_tool::{FnTool, RegisteredTool, ToolContext, ToolOutput, ToolRegistry, builtin};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientRequest, ContentBlock, ProgressNotificationParam,
    Request, ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Map, Value, json};

#[derive(Clone, Default)]
struct Client {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Client {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }
}

async fn connect(tools: ToolRegistry) -> (RunningService<RoleClient, Client>, Client) {
    let (server_side, client_side) = tokio::io::duplex(1 << 16);
    let server = McpToolServer::new(Arc::new(tools)).unwrap();
    tokio::spawn(async move {
        let running = server.serve(server_side).await.unwrap();
        let _ = running.waiting().await;
    });
    let client = Client::default();
    (client.clone().serve(client_side).await.unwrap(), client)
}

fn arguments(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn lists_and_calls_with_the_specs_results() {
    let (client, _) = connect(pi_test_tools::registry()).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(
        names,
        ["echo", "uppercase", "slow", "explode", "pixel", "hang"]
    );
    assert_eq!(
        Value::Object(tools[0].input_schema.as_ref().clone()),
        json!({"type": "object", "properties": {"value": {"type": "string"}},
               "required": ["value"], "additionalProperties": false})
    );
    // What each tool may change is advertised: the demo tools only read; one that says
    // nothing is listed without hints (MCP's defaults).
    assert_eq!(
        serde_json::to_value(&tools[0].annotations).unwrap(),
        json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
    );
    assert_eq!(
        serde_json::to_value(&tools[0].annotations).unwrap(),
        serde_json::to_value(&tools[1].annotations).unwrap()
    );

    let ok = client
        .call_tool(
            CallToolRequestParams::new("echo")
                .with_arguments(arguments(json!({"value": "Pi", "ignored": 1}))),
        )
        .await
        .unwrap();
    assert_eq!(text_of(&ok), "Pi");
    assert_eq!(ok.is_error, Some(false));
    assert_eq!(ok.structured_content, Some(json!({"source": "echo"})));

    let bad = client
        .call_tool(
            CallToolRequestParams::new("echo").with_arguments(arguments(json!({"value": 1}))),
        )
        .await
        .unwrap();
    assert_eq!(bad.is_error, Some(true));
    assert_eq!(text_of(&bad), "Tool echo failed: 必须是 string");

    let unknown = client
        .call_tool(CallToolRequestParams::new("missing"))
        .await;
    assert!(
        format!("{unknown:?}").contains("Unknown tool: missing"),
        "{unknown:?}"
    );

    let boom = client
        .call_tool(
            CallToolRequestParams::new("explode")
                .with_arguments(arguments(json!({"value": "exploded"}))),
        )
        .await
        .unwrap();
    assert_eq!(text_of(&boom), "Tool explode failed: exploded");

    let picture = client
        .call_tool(
            CallToolRequestParams::new("pixel")
                .with_arguments(arguments(json!({"value": "a pixel"}))),
        )
        .await
        .unwrap();
    assert_eq!(text_of(&picture), "a pixel");
    match &picture.content[1] {
        ContentBlock::Image(image) => {
            assert_eq!(image.mime_type, "image/png");
            assert_eq!(image.data, pi_test_tools::PIXEL_PNG_BASE64);
        }
        other => panic!("{other:?}"),
    }

    let calls = (0..100).map(|index| {
        let client = client.peer().clone();
        async move {
            let reply = client
                .call_tool(
                    CallToolRequestParams::new("echo")
                        .with_arguments(arguments(json!({"value": format!("v{index}")}))),
                )
                .await
                .unwrap();
            (index, text_of(&reply))
        }
    });
    for (index, text) in futures::future::join_all(calls).await {
        assert_eq!(text, format!("v{index}"));
    }
}

#[tokio::test]
async fn progress_reaches_the_client() {
    let (client, handler) = connect(pi_test_tools::registry()).await;
    let handle = client
        .send_cancellable_request(
            ClientRequest::CallToolRequest(Request::new(
                CallToolRequestParams::new("slow").with_arguments(arguments(json!({"steps": 5}))),
            )),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    let response = handle.await_response().await.unwrap();
    assert!(
        matches!(response, ServerResult::CallToolResult(ref result) if text_of(result) == "done after 5 steps")
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    let seen = handler.progress.lock().unwrap().clone();
    assert!(seen.len() >= 3, "{seen:?}");
    assert_eq!(seen[0].message.as_deref(), Some("step 1/5"));
}

#[tokio::test]
async fn cancellation_reaches_the_tool_and_other_calls_keep_flowing() {
    let saw_cancel = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&saw_cancel);
    let waiting = FnTool::new(
        "wait",
        "Waits until cancelled",
        <builtin::ValueParams as pi_tool::schema::ObjectParams>::object_schema(),
        move |_params: builtin::ValueParams, context: ToolContext| {
            let flag = Arc::clone(&flag);
            async move {
                context.signal().cancelled().await;
                flag.store(true, Ordering::SeqCst);
                Ok(ToolOutput::text("cancelled"))
            }
        },
    );
    let mut tools = builtin::registry();
    tools.register(RegisteredTool::new(waiting)).unwrap();
    let (client, _) = connect(tools).await;

    let handle = client
        .send_cancellable_request(
            ClientRequest::CallToolRequest(Request::new(
                CallToolRequestParams::new("wait").with_arguments(arguments(json!({"value": "x"}))),
            )),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    // While it hangs, other calls are answered.
    let other = client
        .call_tool(
            CallToolRequestParams::new("uppercase")
                .with_arguments(arguments(json!({"value": "up"}))),
        )
        .await
        .unwrap();
    assert_eq!(text_of(&other), "UP");
    handle.cancel(Some("enough".into())).await.unwrap();
    for _ in 0..100 {
        if saw_cancel.load(Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the tool never saw its token cancelled");
}
