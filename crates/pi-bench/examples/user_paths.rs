//! Runs the calls of one workload many times along a path users' calls take, for
//! `valgrind --tool=callgrind` (`scripts/instruction-counts.sh` prints the table): instruction
//! counts compare a path with its floor without timing noise.
//!
//! Usage: user_paths CONTENDER WORKLOAD.json [all|valid|invalid] [ROUNDS]
//!
//! The agent loop, per call, from the provider's streamed argument text (4-byte fragments, as
//! the faux provider streams) to the paired result:
//!   loop          typed tools: the text assembled (`pi_ai::ArgumentBuffer`), parsed once into
//!                 the call's `Value`, then the one call path (`prepare_tool_call` → `run_within`);
//!   loop-dynamic  the same with JSON-Schema (`DynamicSchema`) tools;
//!   loop-floor    the text assembled into a `String`, `serde_json::from_str` into plain serde
//!                 structs, bounds checked in code, the contract (call id, signal, boxed future,
//!                 panics contained) and the result message.
//! The MCP server, per call, from the object rmcp hands `tools/call` to the `CallToolResult`:
//!   mcp           typed tools: the object as the call's `Value`, the one call path, the result
//!                 converted for MCP;
//!   mcp-dynamic   the same with JSON-Schema tools;
//!   mcp-floor     `serde_json::from_value` into plain serde structs, bounds, contract, the
//!                 result converted for MCP.
//! Each round clones the object rmcp would have built, on every contender alike.
//!   jsonschema    the jsonschema crate as a peer of `loop-dynamic` (text in: parse into a
//!                 `Value`, validate, collect every violation).
#![allow(missing_docs)]

use std::hint::black_box;

use anyhow::{Context, bail};
use futures::executor::block_on;
use pi_ai::ArgumentBuffer;
use pi_bench::baseline::{Arguments, Baseline, Layer};
use pi_bench::jsonschema_peer::JsonschemaPeer;
use pi_bench::workload::{Workload, WorkloadCall, check, verify};
use pi_bench::{dynamic, typed};
use pi_tool::{CallContext, ToolCall, ToolRegistry, ToolResultMessage, prepare_tool_call};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

/// One call as it reaches a path: its streamed fragments and the object MCP would hand over.
struct Prepared<'a> {
    call: &'a WorkloadCall,
    fragments: Vec<&'a str>,
    /// `None` when the text is not a JSON object: such a call never reaches a tool over MCP
    /// (the protocol's `arguments` is an object), so the MCP contenders leave it out.
    object: Option<Map<String, Value>>,
}

fn fragments(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + 4).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        pieces.extend(text.get(start..end));
        start = end;
    }
    pieces
}

/// The loop's context for a call: its own cancellation signal.
fn context() -> CallContext {
    CallContext {
        signal: Some(CancellationToken::new()),
        report_progress: None,
    }
}

/// The one call path, as the loop and the MCP server take it.
fn one_call(call: &ToolCall, tools: &ToolRegistry) -> ToolResultMessage {
    block_on(async {
        match prepare_tool_call(call, tools) {
            Ok(prepared) => {
                let grace = pi_tool::CANCEL_GRACE;
                prepared.run_within(context(), None, grace).await.message
            }
            Err(failure) => failure.into_message(),
        }
    })
}

fn through_loop(call: &Prepared<'_>, tools: &ToolRegistry) -> ToolResultMessage {
    let mut buffer = ArgumentBuffer::default();
    for fragment in &call.fragments {
        buffer.push(fragment);
    }
    let call = ToolCall::new(
        call.call.id.as_str(),
        call.call.name.as_str(),
        buffer.finish(),
    );
    one_call(&call, tools)
}

fn loop_floor(call: &Prepared<'_>, baseline: &Baseline) -> ToolResultMessage {
    let mut text = String::new();
    for fragment in &call.fragments {
        text.push_str(fragment);
    }
    block_on(baseline.execute_arguments(
        Layer::Contract,
        &call.call.id,
        &call.call.name,
        Arguments::Text(&text),
    ))
}

fn through_mcp(call: &Prepared<'_>, tools: &ToolRegistry) -> impl Sized + use<> {
    let arguments = Value::Object(call.object.clone().unwrap_or_default());
    let call = ToolCall::new(call.call.id.as_str(), call.call.name.as_str(), arguments);
    pi_mcp::convert::to_call_tool_result(&one_call(&call, tools))
}

fn mcp_floor(call: &Prepared<'_>, baseline: &Baseline) -> impl Sized + use<> {
    let arguments = Value::Object(call.object.clone().unwrap_or_default());
    let result = block_on(baseline.execute_arguments(
        Layer::Contract,
        &call.call.id,
        &call.call.name,
        Arguments::Value(arguments),
    ));
    pi_mcp::convert::to_call_tool_result(&result)
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let contender = args.first().context("name a contender")?;
    let workload = Workload::load(std::path::Path::new(
        args.get(1).context("give a WORKLOAD.json")?,
    ))?;
    let subset = args.get(2).map_or("all", String::as_str);
    let rounds: usize = args.get(3).map_or(Ok(10_000), |n| n.parse())?;
    let calls: Vec<Prepared<'_>> = workload
        .calls
        .iter()
        .filter(|call| match subset {
            "valid" => call.expect.ok,
            "invalid" => !call.expect.ok,
            _ => true,
        })
        .map(|call| Prepared {
            call,
            fragments: fragments(&call.arguments),
            object: match serde_json::from_str(&call.arguments) {
                Ok(Value::Object(object)) => Some(object),
                _ => None,
            },
        })
        .filter(|call| !contender.starts_with("mcp") || call.object.is_some())
        .collect();
    let typed = typed::registry();
    let dynamic = dynamic::registry(&workload)?;
    let baseline = Baseline::default();
    // Every contender's results are checked once before counting.
    for call in &calls {
        match contender.as_str() {
            "loop" => check(call.call, &through_loop(call, &typed))?,
            "loop-dynamic" => check(call.call, &through_loop(call, &dynamic))?,
            "loop-floor" => check(call.call, &loop_floor(call, &baseline))?,
            _ => {}
        }
    }
    verify(&workload, &typed)?;
    match contender.as_str() {
        "loop" => repeat(rounds, &calls, |call| through_loop(call, &typed)),
        "loop-dynamic" => repeat(rounds, &calls, |call| through_loop(call, &dynamic)),
        "loop-floor" => repeat(rounds, &calls, |call| loop_floor(call, &baseline)),
        "mcp" => repeat(rounds, &calls, |call| through_mcp(call, &typed)),
        "mcp-dynamic" => repeat(rounds, &calls, |call| through_mcp(call, &dynamic)),
        "mcp-floor" => repeat(rounds, &calls, |call| mcp_floor(call, &baseline)),
        "jsonschema" => {
            let peer = JsonschemaPeer::new(&workload)?;
            repeat(rounds, &calls, |call| {
                // The same assembly as the loop's contenders.
                let mut text = String::new();
                for fragment in &call.fragments {
                    text.push_str(fragment);
                }
                peer.execute(&call.call.id, &call.call.name, &text)
            });
        }
        other => bail!("unknown contender {other}"),
    }
    println!("calls {}", calls.len() * rounds);
    Ok(())
}

fn repeat<T>(rounds: usize, calls: &[Prepared<'_>], mut one: impl FnMut(&Prepared<'_>) -> T) {
    for _ in 0..rounds {
        for call in calls {
            black_box(one(call));
        }
    }
}
