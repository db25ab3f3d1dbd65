//! `pi-tool call NAME 'JSON-ARGS' [--id ID]`: one call, one result line.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use pi_tool::{CallContext, ToolCall, ToolRegistry, execute_tool_call};
use serde_json::Value;

use super::EXIT_TOOL_ERROR;

#[derive(Debug, Args)]
pub(crate) struct CallArgs {
    /// The tool to call, e.g. `echo`.
    name: String,
    /// The arguments as one JSON value, e.g. '{"value":"Pi"}'.
    arguments: String,
    /// The call id the result answers.
    #[arg(long, default_value = "call-1")]
    id: String,
}

pub(crate) async fn run(args: CallArgs, tools: &ToolRegistry) -> anyhow::Result<ExitCode> {
    let arguments: Value = serde_json::from_str(&args.arguments)
        .with_context(|| format!("the arguments are not valid JSON: {}", args.arguments))?;
    let call = ToolCall::new(args.id, args.name, arguments);
    let result = execute_tool_call(&call, tools, CallContext::default()).await;
    println!("{}", serde_json::to_string(&result)?);
    Ok(if result.is_error {
        ExitCode::from(EXIT_TOOL_ERROR)
    } else {
        ExitCode::SUCCESS
    })
}
