//! `pi-tool tools`: what a provider would be shown.

use std::process::ExitCode;

use pi_tool::ToolRegistry;

pub(crate) fn run(tools: &ToolRegistry) -> anyhow::Result<ExitCode> {
    println!("{}", serde_json::to_string_pretty(&tools.definitions())?);
    Ok(ExitCode::SUCCESS)
}
