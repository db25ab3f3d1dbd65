//! `pi-tool acp`: an [Agent Client Protocol](https://agentclientprotocol.com) server, so an
//! editor (Zed, JetBrains IDEs, Neovim's CodeCompanion, Emacs) drives the coding agent over
//! stdio. The protocol is the official `agent-client-protocol` crate's; the agent is the
//! session runtime every front end shares ([`pi_coding_agent::SessionHost`]). This crate only
//! translates between them:
//!
//! - `session/new` starts one of our Pi-format sessions in the editor's `cwd`, with the
//!   coding tools confined to it and the editor's MCP servers' tools (stdio and HTTP);
//!   `session/load` opens a stored one again and replays it as updates.
//! - `session/prompt` runs the loop: text and thinking stream as `agent_message_chunk` /
//!   `agent_thought_chunk`, each tool call as a `tool_call` then `tool_call_update`s with its
//!   kind, title, locations, raw input and content (a diff for `edit` and `write`); the stop
//!   reason comes from how the run ended. `session/cancel` ends the turn `cancelled`, every
//!   call answered.
//! - A call the approval policy asks about becomes a `session/request_permission` (allow or
//!   reject, once or for the session), recorded in the session like a terminal's answer.
//! - The skills and prompt templates are the editor's slash commands.
//! - The approval modes are ACP session modes; the model and the thinking level are
//!   session config options.
//! - When the client advertises them at `initialize`, the editor's files and terminals serve
//!   the tools: `read`, `write` and `edit` go through `fs/read_text_file` /
//!   `fs/write_text_file` (unsaved buffers seen, changes recorded by the editor; still
//!   confined to the session's directory), and `bash` runs in a `terminal/create` terminal
//!   shown in the call's updates, in the approval modes where each command asks first
//!   (`ask`, `auto-edit`) or nothing is sandboxed (`yolo`); in `full-auto` the sandbox is
//!   what lets commands run unasked, so they stay in it.

mod approver;
mod commands;
mod editor_access;
mod editor_files;
mod editor_terminal;
mod error;
mod replay;
mod server;
mod sessions;
mod tool_calls;
mod turn;
mod updates;

pub use approver::EditorApprover;
pub use commands::available_commands;
pub use editor_access::EditorAccess;
pub use editor_files::{BufferChange, EditorFiles};
pub use editor_terminal::{EditorTerminal, TERMINAL_ID};
pub use error::AcpError;
pub use replay::replay;
pub use server::serve;
pub use sessions::{
    EditorSession, MODEL_OPTION, SessionTools, Sessions, THINKING_OPTION, ToolsFor, config_options,
    modes, set_config_option, set_mode,
};
pub use tool_calls::{content_of, diffs_of, kind_of, locations_of, title_of};
pub use turn::{stop_reason, user_message};
pub use updates::{TurnUpdates, result_update};

/// Serves ACP on this process's stdin and stdout (how an editor starts an agent) until the
/// editor closes them. `report` writes a warning for the person (stderr: editors show it in
/// their logs, never in the protocol).
pub async fn serve_stdio(
    sessions: std::sync::Arc<Sessions>,
    report: fn(&str),
) -> Result<(), agent_client_protocol::Error> {
    serve(sessions, agent_client_protocol::Stdio::new(), report).await
}
