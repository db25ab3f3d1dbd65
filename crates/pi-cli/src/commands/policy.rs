//! `pi-tool policy check TOOL 'JSON_ARGS'`: what the approval policy says about a call, before
//! any run, with the same flags and settings as `agent`:
//! `{"decision":"allow|ask|deny","rule":...,"source":"cli|user|project|mode|builtin","commands":[...]}`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};
use pi_tool::{ToolAnnotations, ToolRegistry};
use serde_json::{Value, json};

use super::approval::ApprovalArgs;

/// `pi-tool policy ...`.
#[derive(Debug, Args)]
pub(crate) struct PolicyArgs {
    #[command(subcommand)]
    command: PolicyCommand,
}

#[derive(Debug, Subcommand)]
enum PolicyCommand {
    /// Print the decision on one call as JSON (exit 0 whatever it is).
    Check(CheckArgs),
}

#[derive(Debug, Args)]
struct CheckArgs {
    /// The tool's name (`bash`, `edit`, `mcp_github_create_issue`, ...).
    tool: String,
    /// Its arguments, as one JSON object.
    arguments: String,
    #[command(flatten)]
    approval: ApprovalArgs,
}

/// Runs `policy`; `cwd` is the workspace paths resolve against.
pub(crate) fn run(args: PolicyArgs, tools: &ToolRegistry, cwd: &Path) -> anyhow::Result<ExitCode> {
    let PolicyCommand::Check(check) = args.command;
    let arguments: Value = serde_json::from_str(&check.arguments)
        .with_context(|| format!("the arguments are not valid JSON: {}", check.arguments))?;
    let setup = check.approval.load(cwd)?;
    // A registered tool's own hints; an unknown one is judged by its name alone; an imported
    // one (an MCP server's) by neither, as the agent judges it.
    let policy = setup.policy();
    let decision = match tools.get(&check.tool) {
        Some(tool) if tool.is_imported() => policy.decide_imported(&check.tool, &arguments),
        found => {
            let annotations =
                found.map_or_else(ToolAnnotations::default, |tool| tool.annotations());
            policy.decide(&check.tool, annotations, &arguments)
        }
    };
    let shown = json!({
        "decision": decision.decision,
        "rule": decision.rule,
        "source": decision.source,
        "commands": decision.commands,
    });
    crate::output::print_line(&shown.to_string())?;
    Ok(ExitCode::SUCCESS)
}
