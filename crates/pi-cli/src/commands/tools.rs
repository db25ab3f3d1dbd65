//! `pi-tool tools [--dialect D]`: what a provider would be shown.

use std::process::ExitCode;

use clap::Args;
use pi_tool::ToolRegistry;
use pi_tool::dialect::Dialect;

#[derive(Debug, Args)]
pub(crate) struct ToolsArgs {
    /// Render the parameters for a provider: openai, openai-strict, anthropic, gemini, mcp.
    #[arg(long)]
    dialect: Option<Dialect>,
}

pub(crate) fn run(args: &ToolsArgs, tools: &ToolRegistry) -> anyhow::Result<ExitCode> {
    let definitions = match args.dialect {
        Some(dialect) => tools.definitions_for(dialect)?,
        None => tools.definitions(),
    };
    crate::output::print_line(&serde_json::to_string_pretty(&definitions)?)?;
    Ok(ExitCode::SUCCESS)
}
