//! `pi-tool mcp tools|call ... [--url URL | -- CMD ARGS...]`: any MCP server's tools, from the
//! command line, through the same validation and result shape as local tools.

use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};
use pi_mcp::McpClient;
use pi_tool::environment::ToolEnvironment;
use pi_tool::{CallContext, ToolCall, ToolRegistry, execute_tool_call};
use serde_json::Value;

use super::EXIT_TOOL_ERROR;

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    #[command(subcommand)]
    command: McpCommand,
}

#[derive(Debug, Subcommand)]
enum McpCommand {
    /// List the server's tools as definitions (name, description, parameters).
    Tools(Server),
    /// Call one of the server's tools and print its ToolResultMessage as one JSON line.
    Call {
        /// The tool.
        name: String,
        /// The arguments as one JSON value.
        arguments: String,
        /// The call id the result answers.
        #[arg(long, default_value = "call-1")]
        id: String,
        #[command(flatten)]
        server: Server,
    },
}

/// Which server: `--url http://HOST:PORT/mcp`, or a command after `--`.
#[derive(Debug, Args)]
pub(crate) struct Server {
    /// A streamable HTTP endpoint.
    #[arg(long)]
    url: Option<String>,
    /// The bearer token the HTTP endpoint wants (`pi-tool serve --http` wants one).
    #[arg(long, env = "PI_TOOL_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Seconds a call may take before it is answered with a time-out error.
    #[arg(long, default_value_t = 60.0)]
    timeout: f64,
    /// The server command and its arguments (after `--`).
    #[arg(last = true)]
    command: Vec<String>,
}

impl Server {
    /// Connects; a server started here gets `environment`.
    pub(crate) async fn connect(&self, environment: &ToolEnvironment) -> anyhow::Result<McpClient> {
        let client = match (&self.url, self.command.split_first()) {
            (Some(url), None) => match &self.token {
                Some(token) => McpClient::connect_http_with_token(url, token).await?,
                None => McpClient::connect_http(url).await?,
            },
            (None, Some((program, args))) => {
                McpClient::connect_stdio_in(program, args, environment).await?
            }
            _ => anyhow::bail!("give the server as --url URL or as a command after --"),
        };
        let limit = std::time::Duration::try_from_secs_f64(self.timeout)
            .context("--timeout must be a positive number of seconds")?;
        Ok(client.with_call_timeout(limit))
    }
}

pub(crate) async fn run(args: McpArgs, environment: &ToolEnvironment) -> anyhow::Result<ExitCode> {
    match args.command {
        McpCommand::Tools(server) => {
            let client = server.connect(environment).await?;
            let mut tools = ToolRegistry::default();
            client.register_into(&mut tools).await?;
            crate::output::print_line(&serde_json::to_string_pretty(&tools.definitions())?)?;
            Ok(ExitCode::SUCCESS)
        }
        McpCommand::Call {
            name,
            arguments,
            id,
            server,
        } => {
            let arguments: Value = serde_json::from_str(&arguments)
                .with_context(|| format!("the arguments are not valid JSON: {arguments}"))?;
            let client = server.connect(environment).await?;
            let mut tools = ToolRegistry::default();
            let imported = client.import_into(&mut tools, "").await?;
            // The person names the server's tool; one renamed on import (`bash`) is found too.
            let name = imported
                .into_iter()
                .find(|tool| tool.remote_name == name)
                .map_or(name, |tool| tool.name);
            let result = execute_tool_call(
                &ToolCall::new(id, name, arguments),
                &tools,
                CallContext::default(),
            )
            .await;
            crate::output::print_line(&serde_json::to_string(&result)?)?;
            Ok(if result.is_error {
                ExitCode::from(EXIT_TOOL_ERROR)
            } else {
                ExitCode::SUCCESS
            })
        }
    }
}
