//! `agent`'s system prompt flags (`--system-prompt`, `--append-system-prompt`,
//! `--no-context-files`/`-nc`), handed to `pi-coding-agent`, which builds the prompt; this file
//! only reads the flags and shows what the build reports.

use std::ffi::OsString;
use std::path::Path;

use clap::Args;
use pi_coding_agent::{OfferedTool, PromptOptions, RunPrompt};
use pi_tool::ToolRegistry;

/// What the model is told besides the default prompt.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct SystemPromptArgs {
    /// Replace the default system prompt (who the assistant is, its tools, the guidelines) with
    /// TEXT, or with the contents of the file TEXT names; context files, the date and the
    /// directory are still added. Wins over `.pi/SYSTEM.md` and `<agent dir>/SYSTEM.md`.
    #[arg(
        long = "system-prompt",
        visible_alias = "system",
        value_name = "TEXT|FILE"
    )]
    system_prompt: Option<String>,
    /// Add TEXT (or the contents of the file it names) after the default or replaced prompt;
    /// repeatable. When given, no `APPEND_SYSTEM.md` is read.
    #[arg(long = "append-system-prompt", value_name = "TEXT|FILE")]
    append_system_prompt: Vec<String>,
    /// Read no `AGENTS.md` or `CLAUDE.md` (`-nc`, as Pi spells it).
    #[arg(long)]
    no_context_files: bool,
}

/// The run's system prompt, built once before the agent starts (every turn sends this same
/// text). Warnings (a context file cut or unreadable, an untrusted `.pi/SYSTEM.md`) go to
/// stderr; with `--json`, one JSON line on stderr lists the files that went into the prompt.
pub(crate) fn build(
    args: &SystemPromptArgs,
    tools: &ToolRegistry,
    cwd: &Path,
    project_trusted: bool,
    json: bool,
) -> String {
    let mut options = PromptOptions::new(cwd);
    options.project_trusted = project_trusted;
    options.system_prompt = args.system_prompt.clone();
    options.append_system_prompt = args.append_system_prompt.clone();
    options.context_files = !args.no_context_files;
    options.tools = OfferedTool::all(tools);
    let prompt = RunPrompt::build(&options);
    for warning in &prompt.warnings {
        report!("pi-tool: warning: {}", pi_tool::error_text(warning));
    }
    if json {
        let line = serde_json::json!({"type": "system_prompt", "sources": prompt.sources});
        report!("{line}");
    }
    prompt.text
}

/// The command line with Pi's two-letter short flag `-nc` spelled `--no-context-files`, which
/// clap can parse (its short flags are one letter). Only before a `--`: after it every word is
/// an operand. `-nc` was refused before, so no working command line changes meaning.
pub(crate) fn spell_out_short_flags(
    args: impl IntoIterator<Item = OsString>,
) -> impl Iterator<Item = OsString> {
    let mut operands = false;
    args.into_iter().map(move |arg| {
        if arg == "--" {
            operands = true;
        }
        if !operands && arg == "-nc" {
            OsString::from("--no-context-files")
        } else {
            arg
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dash_nc_is_spelled_out_before_operands_only() {
        let args = ["pi-tool", "agent", "-nc", "hi", "--", "-nc"].map(OsString::from);
        let spelled: Vec<OsString> = spell_out_short_flags(args).collect();
        assert_eq!(
            spelled,
            ["pi-tool", "agent", "--no-context-files", "hi", "--", "-nc"].map(OsString::from)
        );
    }
}
