//! `pi-tool call NAME 'JSON-ARGS' [--id ID]`: one call, one result line.
//!
//! The argument text takes the raw-text path (`execute_raw_tool_call`): it is parsed once,
//! straight into the tool's typed parameters, as a provider's argument text would be.
//!
//! A stop signal cancels the call (a `bash` command's process group is ended) and its result,
//! `Command aborted` for `bash`, is still printed; a call that does not answer within the grace
//! is printed as aborted.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use pi_tool::{
    CallContext, ToolCall, ToolRegistry, execute_raw_tool_call, failed_result, model_text,
};
use serde::de::IgnoredAny;
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
    let context = CallContext {
        signal: Some(shutdown.token().clone()),
        report_progress: None,
    };
    let running = execute_raw_tool_call(&args.id, &args.name, &args.arguments, tools, context);
    let result = shutdown
        .within_grace(running, || {
            failed_result(
                &ToolCall::new(args.id.as_str(), args.name.as_str(), Value::Null),
                model_text::ABORTED,
            )
        })
        .await;
    // A person's typo is a usage error, not a model's bad call: checked only when the call
    // failed, so valid text is read once.
    if result.is_error {
        serde_json::from_str::<IgnoredAny>(&args.arguments)
            .with_context(|| format!("the arguments are not valid JSON: {}", args.arguments))?;
    }
    crate::output::print_line(&serde_json::to_string(&result)?)?;
    Ok(if result.is_error {
        ExitCode::from(EXIT_TOOL_ERROR)
    } else {
        ExitCode::SUCCESS
    })
}
