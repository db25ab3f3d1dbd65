//! `pi-tool run`: JSONL tool calls on stdin, one JSONL result per input line on stdout.
//!
//! Calls run concurrently (up to `--concurrency` at once) but results are written in input
//! order, each as soon as it and every result before it are ready. A line that is not a tool
//! call still gets its one result line, with `isError: true`. Calls start as the agent loop's
//! do ([`pi_agent::CallOrder`]): in input order, each behind the earlier calls on the same file
//! (its ordering key), so one file's edits apply in the order given.
//!
//! A stop signal ends the reading of stdin and cancels every call started (a `bash` command's
//! process group is ended); each still gets its result line, in order, aborted if it does not
//! answer within [`pi_tool::CANCEL_GRACE`].

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use futures::future::BoxFuture;
use futures::{StreamExt, stream};
use pi_agent::CallOrder;
use pi_tool::{
    CANCEL_GRACE, CallContext, ToolCall, ToolRegistry, ToolResultMessage, failed_result,
    prepare_tool_call,
};
use serde::Deserialize;
use serde_json::Value;
use tokio::io::{AsyncWriteExt, BufReader};

use super::lines::{BoundedLines, Line, MAX_LINE_BYTES};
use crate::output::stdout_written;
use crate::shutdown::Shutdown;

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// How many calls may run at the same time.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u16).range(1..))]
    concurrency: u16,
}

pub(crate) async fn run(
    args: RunArgs,
    tools: ToolRegistry,
    shutdown: &Shutdown,
) -> anyhow::Result<ExitCode> {
    let tools = Arc::new(tools);
    let lines = BoundedLines::new(BufReader::new(tokio::io::stdin()), MAX_LINE_BYTES);
    // Stdin ends the stream on EOF; a read error ends it too, and is reported after the
    // results of every line read so far have been written.
    let read_error = Arc::new(std::sync::Mutex::new(None));
    let read_error_slot = Arc::clone(&read_error);
    let unread = stream::unfold((lines, 0_usize), move |(mut lines, number)| {
        let read_error_slot = Arc::clone(&read_error_slot);
        async move {
            match lines.next_line().await {
                Ok(Some(line)) => Some(((number + 1, line), (lines, number + 1))),
                Ok(None) => None,
                Err(error) => {
                    if let Ok(mut slot) = read_error_slot.lock() {
                        *slot = Some(error);
                    }
                    None
                }
            }
        }
    });
    // After a stop signal no line is read: only the calls already started are owed a result.
    let inputs = unread.take_until(shutdown.token().clone().cancelled_owned());
    // Lines are read, prepared and started one at a time, in input order: that is what keeps
    // one file's calls in order.
    let mut order = CallOrder::new();
    let results = inputs
        .map(|(number, line)| start_line(number, line, &tools, shutdown, &mut order))
        .buffered(usize::from(args.concurrency));
    let mut results = std::pin::pin!(results);

    let mut stdout = tokio::io::stdout();
    while let Some(result) = results.next().await {
        let mut line = serde_json::to_vec(&result)?;
        line.push(b'\n');
        stdout_written(stdout.write_all(&line).await)?;
        stdout_written(stdout.flush().await)?;
    }
    let pending = read_error.lock().ok().and_then(|mut slot| slot.take());
    match pending {
        Some(error) => Err(error).context("reading stdin"),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// Starts one input line's call (lookup and parse now, the run on its own task behind the
/// earlier calls on the same thing) and resolves to its one result.
fn start_line(
    number: usize,
    line: Line,
    tools: &ToolRegistry,
    shutdown: &Shutdown,
    order: &mut CallOrder,
) -> BoxFuture<'static, ToolResultMessage> {
    let answered =
        |result| -> BoxFuture<'static, ToolResultMessage> { Box::pin(std::future::ready(result)) };
    let line = match line {
        Line::Whole(line) => line,
        Line::TooLong(bytes) => {
            return answered(failed_result(
                &ToolCall::new(format!("line-{number}"), "", Value::Null),
                &format!("line {number} is {bytes} bytes, over the {MAX_LINE_BYTES}-byte limit"),
            ));
        }
    };
    let call = match parse_line(number, &line) {
        Ok(call) => call,
        Err(result) => return answered(*result),
    };
    let prepared = match prepare_tool_call(&call, tools) {
        Ok(prepared) => prepared,
        Err(failure) => return answered(failure.into_message()),
    };
    let key = prepared.tool().ordering_key(&call.arguments);
    let context = CallContext {
        signal: Some(shutdown.token().clone()),
        report_progress: None,
    };
    let task = order.spawn(key, prepared.run_within(context, None, CANCEL_GRACE));
    Box::pin(async move {
        match task.await {
            Ok(executed) => executed.message,
            // `run_within` contains panics, so this is the runtime shutting down.
            Err(error) => failed_result(&call, &format!("the call did not finish: {error}")),
        }
    })
}

/// One line as a tool call: `{"type":"toolCall","id","name","arguments"}` (`type` optional,
/// missing `arguments` meaning `{}`).
#[derive(Deserialize)]
struct LineCall {
    #[serde(rename = "type")]
    tag: Option<String>,
    id: String,
    name: String,
    arguments: Option<Value>,
}

/// A tool call from one line, or the error result that line deserves.
fn parse_line(number: usize, line: &[u8]) -> Result<ToolCall, Box<ToolResultMessage>> {
    let generated_id = || format!("line-{number}");
    let refuse = |id: String, name: String, why: String| {
        Box::new(failed_result(&ToolCall::new(id, name, Value::Null), &why))
    };
    match serde_json::from_slice::<LineCall>(line) {
        Ok(call) if call.tag.as_deref().is_none_or(|tag| tag == "toolCall") => Ok(ToolCall::new(
            call.id,
            call.name,
            call.arguments
                .unwrap_or_else(|| Value::Object(serde_json::Map::new())),
        )),
        Ok(call) => Err(refuse(
            call.id,
            call.name,
            format!(
                "line {number} is not a tool call: \"type\" must be \"toolCall\", not {:?}",
                call.tag.unwrap_or_default()
            ),
        )),
        // Only a refused line is read a second time, to name its id and tool if it has them.
        Err(error) => match serde_json::from_slice::<Value>(line) {
            Err(error) => Err(refuse(
                generated_id(),
                String::new(),
                format!("line {number} is not valid JSON: {error}"),
            )),
            Ok(value) => {
                let text_field =
                    |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
                Err(refuse(
                    text_field("id").unwrap_or_else(generated_id),
                    text_field("name").unwrap_or_default(),
                    format!("line {number} is not a tool call: {error}"),
                ))
            }
        },
    }
}
