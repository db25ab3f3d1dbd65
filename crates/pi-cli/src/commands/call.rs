//! `pi-tool call NAME 'JSON-ARGS' [--id ID]`: one call, one result line.
//!
//! The arguments take the one call path, as a model's would (lookup → parse → execute →
//! result); text that is not JSON is the person's usage error, not a result.
//!
//! A stop signal cancels the call (a `bash` command's process group is ended) and its result,
//! `Command aborted` for `bash`, is still printed; a call that does not answer within
//! [`pi_tool::CANCEL_GRACE`] is printed as aborted.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use pi_tool::{CANCEL_GRACE, CallContext, ToolCall, ToolRegistry, prepare_tool_call};
use serde_json::Value;

use super::EXIT_TOOL_ERROR;
use crate::shutdown::Shutdown;

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

pub(crate) async fn run(
    args: CallArgs,
    tools: &ToolRegistry,
    shutdown: &Shutdown,
) -> anyhow::Result<ExitCode> {
    // Empty text (what a provider streams for a call without arguments) means `{}`.
    let arguments = match args.arguments.trim() {
        "" => Value::Object(serde_json::Map::new()),
        text => serde_json::from_str(text)
            .with_context(|| format!("the arguments are not valid JSON: {}", args.arguments))?,
    };
    let call = ToolCall::new(args.id, args.name, arguments);
    let result = match prepare_tool_call(&call, tools) {
        Ok(prepared) => {
            let context = CallContext {
                signal: Some(shutdown.token().clone()),
                report_progress: None,
            };
            prepared
                .run_within(context, None, CANCEL_GRACE)
                .await
                .message
        }
        Err(failure) => failure.into_message(),
    };
    crate::output::print_line(&serde_json::to_string(&result)?)?;
    Ok(if result.is_error {
        ExitCode::from(EXIT_TOOL_ERROR)
    } else {
        ExitCode::SUCCESS
    })
}
