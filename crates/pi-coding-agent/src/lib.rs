//! The coding agent's session runtime: what every front end (the print and JSON modes of
//! `pi-tool agent` today; interactive, RPC and ACP later) shares about a run, so that none of
//! it lives in the command-line crate.
//!
//! It exists because a coding agent is more than the loop in `pi-agent`: before the first
//! request the model must be told who it is, which tools it has and when to use them, what the
//! project asks of it (`AGENTS.md`, `CLAUDE.md`), the date and the working directory, as Pi's
//! `AgentSession` does for each of its modes. [`CodingSession`] is that runtime: the agent
//! with its prompt, tools and approval gate, the session it is recorded in ([`Recorder`],
//! crash-safe), compaction with the overflow retry ([`run_compacted`]), MCP servers, abort,
//! steering and follow-ups. A front end parses its flags into [`CodingSessionOptions`] and
//! renders the events; it holds no logic another front end would need.
//!
//! The prompt is built **once per run**, by [`RunPrompt::build`], before the agent starts: the
//! agent keeps the text and sends the same one with every turn (Pi rebuilds it only when the
//! tool set changes, which a `pi-tool` run never does).
//!
//! ```
//! use pi_coding_agent::{OfferedTool, PromptOptions, RunPrompt};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("AGENTS.md"), "Answer in French.").unwrap();
//! let mut options = PromptOptions::new(dir.path());
//! options.agent_dir = None;
//! options.today = "2026-12-07".to_owned();
//! options.tools = vec![OfferedTool::new("read", "Read the contents of a file. Output is cut.")];
//! let prompt = RunPrompt::build(&options);
//! assert!(prompt.text.contains("- read: Read the contents of a file\n"));
//! assert!(prompt.text.contains("Answer in French."));
//! assert!(prompt.text.ends_with(&format!("Working directory: {}", dir.path().display())));
//! ```

mod approvals;
mod coding_session;
mod compaction;
mod context_files;
mod guidelines;
mod initial_message;
mod mcp_servers;
mod prompt_files;
mod prompt_text;
mod recorder;
mod run_prompt;
mod runtime_error;
mod session_open;
mod system_prompt;
mod tool_selection;
mod tools;
mod warning;

pub use approvals::{
    ApprovalFlags, ApprovalSetup, NobodyToAsk, suggested_rules, unanswered_reason, what_would_allow,
};
pub use coding_session::{CodingSession, CodingSessionOptions, PromptOutcome, Started};
pub use compaction::{CompactedRun, Compactor, run_compacted};
pub use initial_message::{FileArguments, command_line_prompts, split_file_arguments};
pub use mcp_servers::McpServers;
pub use recorder::{DEFAULT_THINKING_LEVEL, History, Recorder, approval_records};
pub use runtime_error::RuntimeError;
pub use session_open::{
    FoundSession, OpenedSession, SessionTarget, find_session, open_session, session_dir,
};

pub use context_files::{CONTEXT_FILE_NAMES, ContextFile, MAX_CONTEXT_FILE_BYTES, discover};
pub use prompt_files::{APPEND_SYSTEM_FILE, PROJECT_DIR, SYSTEM_FILE};
pub use prompt_text::{PromptText, resolve_text};
pub use run_prompt::{PromptOptions, PromptSource, RunPrompt, today};
pub use system_prompt::{PromptParts, build_system_prompt};
pub use tool_selection::{DEFAULT_TOOLS, SelectedTools, ToolSelection, name_list};
pub use tools::OfferedTool;
pub use warning::PromptWarning;
