//! Why an editor's request was refused, in words it shows its user.

use pi_coding_agent::RuntimeError;

/// A refused request of the editor.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AcpError {
    /// No open session has this id (or, for `session/load`, no stored session).
    #[error("no session {0:?}")]
    UnknownSession(String),
    /// `session/load` of a session already open on this connection.
    #[error("the session {0:?} is already open")]
    AlreadyOpen(String),
    /// The editor's `cwd` cannot be a workspace.
    #[error("the session's cwd: {0}")]
    BadCwd(String),
    /// The tools of the session's directory could not be made.
    #[error("the tools of the session's directory: {0}")]
    Tools(String),
    /// An MCP server the editor named that cannot be connected this way.
    #[error("MCP server {0}")]
    McpTransport(String),
    /// A config option or mode value that does not exist.
    #[error("{0}")]
    BadValue(String),
    /// The session could not be started, opened or changed.
    #[error("{0}")]
    Session(String),
    /// A prompt while another runs on the same session.
    #[error("a prompt is already running in this session; cancel it first")]
    Busy,
}

impl AcpError {
    /// A failure of the session runtime, in its words (with its causes).
    pub fn runtime(error: RuntimeError) -> Self {
        Self::Session(pi_tool::error_text(&error))
    }

    /// The JSON-RPC error the editor receives.
    pub fn to_rpc(&self) -> agent_client_protocol::Error {
        let mut error = match self {
            Self::UnknownSession(_)
            | Self::BadCwd(_)
            | Self::BadValue(_)
            | Self::McpTransport(_) => agent_client_protocol::Error::invalid_params(),
            _ => agent_client_protocol::Error::internal_error(),
        };
        error.message = self.to_string();
        error
    }
}
