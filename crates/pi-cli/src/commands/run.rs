//! `pi-tool run`: JSONL tool calls on stdin, one JSONL result per input line on stdout.
//!
//! Calls run concurrently (up to `--concurrency` at once) but results are written in input
//! order, each as soon as it and every result before it are ready. A line that is not a tool
//! call still gets its one result line, with `isError: true`. Each call's `arguments` are kept
//! as raw text and take the raw-text path: parsed once, straight into the tool's typed
//! parameters.
//!
//! A stop signal ends the reading of stdin and cancels every call started (a `bash` command's
//! process group is ended); each still gets its result line, in order, aborted if it does not
//! answer within the grace.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use futures::{StreamExt, stream};
use pi_tool::{
    CallContext, ToolCall, ToolRegistry, ToolResultMessage, execute_raw_tool_call, failed_result,
    model_text,
};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
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
    let results = inputs
        .map(|(number, line)| {
            let tools = Arc::clone(&tools);
            let shutdown = shutdown.clone();
            async move { run_line(number, line, tools, shutdown).await }
        })
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

/// Runs one input line to its one result. Each call gets its own task so that calls run in
/// parallel on the runtime's threads, not just concurrently on this one.
async fn run_line(
    number: usize,
    line: Line,
    tools: Arc<ToolRegistry>,
    shutdown: Shutdown,
) -> ToolResultMessage {
    let line = match line {
        Line::Whole(line) => line,
        Line::TooLong(bytes) => {
            return failed_result(
                &ToolCall::new(format!("line-{number}"), "", Value::Null),
                &format!("line {number} is {bytes} bytes, over the {MAX_LINE_BYTES}-byte limit"),
            );
        }
    };
    let (id, name, arguments) = match parse_line(number, &line) {
        Ok(call) => call,
        Err(result) => return *result,
    };
    let aborted = || {
        failed_result(
            &ToolCall::new(id.as_str(), name.as_str(), Value::Null),
            model_text::ABORTED,
        )
    };
    if shutdown.token().is_cancelled() {
        return aborted();
    }
    let (task_id, task_name) = (id.clone(), name.clone());
    let context = CallContext {
        signal: Some(shutdown.token().clone()),
        report_progress: None,
    };
    let task = OwnedTask(tokio::spawn(async move {
        execute_raw_tool_call(&task_id, &task_name, &arguments, &tools, context).await
    }));
    let joined = shutdown.within_grace(task.join(), || Ok(aborted())).await;
    match joined {
        Ok(result) => result,
        // The executor contains panics, so this is the runtime shutting down.
        Err(error) => failed_result(
            &ToolCall::new(id, name, Value::Null),
            &format!("the call did not finish: {error}"),
        ),
    }
}

/// A call's task, aborted when dropped: a call given up on (its grace passed, or the program
/// is leaving) is dropped at once, which ends what it started, instead of running detached
/// until the runtime shuts down.
struct OwnedTask<T>(tokio::task::JoinHandle<T>);

impl<T> OwnedTask<T> {
    async fn join(mut self) -> Result<T, tokio::task::JoinError> {
        (&mut self.0).await
    }
}

impl<T> Drop for OwnedTask<T> {
    fn drop(&mut self) {
        // Aborting a finished task does nothing.
        self.0.abort();
    }
}

/// One line as a tool call whose arguments stay text: `{"type":"toolCall","id","name",
/// "arguments"}` (`type` optional, missing `arguments` meaning `{}`).
#[derive(Deserialize)]
struct RawCall<'a> {
    #[serde(rename = "type")]
    tag: Option<String>,
    id: String,
    name: String,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
}

/// A tool call from one line (id, name, argument text), or the error result that line
/// deserves.
fn parse_line(
    number: usize,
    line: &[u8],
) -> Result<(String, String, String), Box<ToolResultMessage>> {
    let generated_id = || format!("line-{number}");
    let refuse = |id: String, name: String, why: String| {
        Box::new(failed_result(&ToolCall::new(id, name, Value::Null), &why))
    };
    match serde_json::from_slice::<RawCall<'_>>(line) {
        Ok(call) if call.tag.as_deref().is_none_or(|tag| tag == "toolCall") => Ok((
            call.id,
            call.name,
            call.arguments
                .map_or_else(|| "{}".to_owned(), |raw| raw.get().to_owned()),
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
