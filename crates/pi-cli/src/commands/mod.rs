//! One module per subcommand.

pub(crate) mod acp;
pub(crate) mod agent;
mod agent_compaction;
mod agent_prompt;
mod agent_session;
mod agent_view;
pub(crate) mod approval;
mod approval_prompt;
pub(crate) mod call;
pub(crate) mod check;
mod event_lines;
mod lines;
pub(crate) mod mcp;
pub(crate) mod pi_mode;
pub(crate) mod policy;
mod rpc_framing;
mod rpc_mode;
pub(crate) mod run;
pub(crate) mod serve;
pub(crate) mod session;
pub(crate) mod tools;

pub(crate) use agent_prompt::spell_out_short_flags;

/// Exit code for a result with `isError: true`.
pub(crate) const EXIT_TOOL_ERROR: u8 = 1;
/// Exit code for input the program could not use (bad JSON, I/O failure).
pub(crate) const EXIT_USAGE: u8 = 2;
