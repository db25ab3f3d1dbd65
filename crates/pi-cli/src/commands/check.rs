//! `pi-tool check`: why would this schema accept or refuse these arguments?
//!
//! Tool authors use it to see exactly what a model's call becomes: the parsed arguments
//! (undeclared fields dropped, defaults filled in), or the error text the model would read.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use pi_tool::schema::{DynamicSchema, Schema};
use serde_json::{Value, json};
use tokio::io::{AsyncWriteExt, BufReader};

use super::EXIT_TOOL_ERROR;
use super::lines::{BoundedLines, Line, MAX_LINE_BYTES};
use crate::output::stdout_written;

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// A JSON Schema file; a tool definition (`parameters`) or an MCP tool (`inputSchema`) works too.
    #[arg(required_unless_present = "jsonl")]
    schema: Option<PathBuf>,
    /// The arguments as one JSON value.
    #[arg(required_unless_present = "jsonl")]
    arguments: Option<String>,
    /// Read lines `{"schema": ..., "arguments": ...}` from stdin; write one
    /// `{"ok":true,"value":...}` or `{"ok":false,"error":"..."}` line per input line.
    #[arg(long, conflicts_with_all = ["schema", "arguments"])]
    jsonl: bool,
}

pub(crate) async fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    if args.jsonl {
        return run_lines().await;
    }
    let (Some(path), Some(arguments)) = (args.schema, args.arguments) else {
        anyhow::bail!("give SCHEMA.json and 'JSON-ARGS', or --jsonl");
    };
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let schema: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not valid JSON", path.display()))?;
    let schema = DynamicSchema::new(parameters_of(schema))
        .with_context(|| format!("{} is not a usable JSON Schema", path.display()))?;
    let arguments: Value = serde_json::from_str(&arguments)
        .with_context(|| format!("the arguments are not valid JSON: {arguments}"))?;
    match schema.parse(&arguments) {
        Ok(value) => {
            crate::output::print_line(&serde_json::to_string(&value)?)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            crate::output::print_line(&error.to_string())?;
            Ok(ExitCode::from(EXIT_TOOL_ERROR))
        }
    }
}

/// The parameters schema inside a tool definition or MCP tool, or the value itself.
fn parameters_of(schema: Value) -> Value {
    match schema {
        Value::Object(mut map) if map.contains_key("name") => {
            match map
                .remove("parameters")
                .or_else(|| map.remove("inputSchema"))
            {
                Some(parameters) => parameters,
                None => Value::Object(map),
            }
        }
        other => other,
    }
}

/// The verdict for one `--jsonl` line.
fn check_line(line: &[u8]) -> Value {
    let failure = |error: String| json!({"ok": false, "error": error});
    let request: Value = match serde_json::from_slice(line) {
        Ok(request) => request,
        Err(error) => return failure(format!("line is not valid JSON: {error}")),
    };
    let (Some(schema), Some(arguments)) = (request.get("schema"), request.get("arguments")) else {
        return failure("line must be an object with \"schema\" and \"arguments\"".into());
    };
    let schema = match DynamicSchema::new(parameters_of(schema.clone())) {
        Ok(schema) => schema,
        Err(error) => {
            return failure(format!(
                "schema is not usable: {}",
                pi_tool::error_text(&error)
            ));
        }
    };
    match schema.parse(arguments) {
        Ok(value) => json!({"ok": true, "value": value}),
        Err(error) => failure(error.to_string()),
    }
}

async fn run_lines() -> anyhow::Result<ExitCode> {
    let mut lines = BoundedLines::new(BufReader::new(tokio::io::stdin()), MAX_LINE_BYTES);
    let mut stdout = tokio::io::stdout();
    while let Some(line) = lines.next_line().await.context("reading stdin")? {
        let verdict = match line {
            Line::Whole(line) => check_line(&line),
            Line::TooLong(bytes) => json!({"ok": false, "error": format!(
                "line is {bytes} bytes, over the {MAX_LINE_BYTES}-byte limit"
            )}),
        };
        let mut out = serde_json::to_vec(&verdict)?;
        out.push(b'\n');
        stdout_written(stdout.write_all(&out).await)?;
    }
    stdout_written(stdout.flush().await)?;
    Ok(ExitCode::SUCCESS)
}
