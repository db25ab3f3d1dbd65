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

/// An MCP server a front end names by its parts (an editor's `session/new` does), rather
/// than by a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpServerSpec {
    /// A program speaking MCP on its stdin and stdout.
    Stdio {
        /// The server's name, for messages.
        name: String,
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables set for it (besides the environment the tools pass on).
        env: Vec<(String, String)>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The server's name, for messages.
        name: String,
        /// Its URL.
        url: String,
        /// A bearer token sent as `Authorization`.
        bearer: Option<String>,
    },
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
        let mut specs = Vec::new();
        for command in commands {
            let words: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
            let Some((program, rest)) = words.split_first() else {
                return Err(RuntimeError::EmptyMcpCommand);
            };
            specs.push(McpServerSpec::Stdio {
                name: command.clone(),
                program: program.clone(),
                args: rest.to_vec(),
                env: Vec::new(),
            });
        }
        Self::connect_servers(&specs, prefix, environment, tools).await
    }

    /// Connects each server of `servers` and imports its tools into `tools` under `prefix`,
    /// as [`McpServers::connect`] does.
    pub async fn connect_servers(
        servers: &[McpServerSpec],
        prefix: &str,
        environment: &ToolEnvironment,
        tools: &mut ToolRegistry,
    ) -> Result<(Self, Vec<String>), RuntimeError> {
        let mut clients = Vec::new();
        let mut renamed = Vec::new();
        for server in servers {
            let (name, connected) = match server {
                McpServerSpec::Stdio {
                    name,
                    program,
                    args,
                    env,
                } => (
                    name,
                    McpClient::connect_stdio_with(program, args, env, environment).await,
                ),
                McpServerSpec::Http { name, url, bearer } => (
                    name,
                    match bearer {
                        Some(token) => McpClient::connect_http_with_token(url, token).await,
                        None => McpClient::connect_http(url).await,
                    },
                ),
            };
            let failed = |source: pi_mcp::ClientError| RuntimeError::McpServer {
                command: name.clone(),
                source: Box::new(source),
            };
            let client = connected.map_err(failed)?;
            let imported = client.import_into(tools, prefix).await.map_err(failed)?;
            renamed.extend(imported.iter().filter(|tool| tool.renamed).map(|tool| {
                format!(
                    "MCP server {name:?}: its tool {:?} is imported as {:?}, so as not to take the name of a tool of ours",
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
