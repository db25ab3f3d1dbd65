//! MCP servers whose tools join a run (`--mcp CMD ARGS`): each started as a child process with
//! the tools' filtered environment, its tools imported under a prefix (renamed
//! `mcp__<server>__<name>` when the name is one of ours). The connections must live as long as
//! the run: the imported tools talk through them.

use pi_mcp::McpClient;
use pi_tool::ToolRegistry;
use pi_tool::environment::ToolEnvironment;

use crate::runtime_error::RuntimeError;

/// The MCP servers of a run, kept connected while it lasts (and while any clone of it
/// lives: a front end that starts another session over the same tools keeps them).
#[derive(Default, Clone)]
pub struct McpServers {
    clients: std::sync::Arc<Vec<McpClient>>,
}

impl std::fmt::Debug for McpServers {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("McpServers")
            .field("connected", &self.clients.len())
            .finish()
    }
}

impl McpServers {
    /// Starts each server of `commands` (a command line split on whitespace) and imports its
    /// tools into `tools` under `prefix`. The second value says, in words, which tools were
    /// imported under another name than the server gave them.
    pub async fn connect(
        commands: &[String],
        prefix: &str,
        environment: &ToolEnvironment,
        tools: &mut ToolRegistry,
    ) -> Result<(Self, Vec<String>), RuntimeError> {
        let mut clients = Vec::new();
        let mut renamed = Vec::new();
        for command in commands {
            let words: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
            let Some((program, rest)) = words.split_first() else {
                return Err(RuntimeError::EmptyMcpCommand);
            };
            let failed = |source: pi_mcp::ClientError| RuntimeError::McpServer {
                command: command.clone(),
                source: Box::new(source),
            };
            let client = McpClient::connect_stdio_in(program, rest, environment)
                .await
                .map_err(failed)?;
            let imported = client.import_into(tools, prefix).await.map_err(failed)?;
            renamed.extend(imported.iter().filter(|tool| tool.renamed).map(|tool| {
                format!(
                    "MCP server {command:?}: its tool {:?} is imported as {:?}, so as not to take the name of a tool of ours",
                    tool.remote_name, tool.name
                )
            }));
            clients.push(client);
        }
        Ok((
            Self {
                clients: std::sync::Arc::new(clients),
            },
            renamed,
        ))
    }
}
