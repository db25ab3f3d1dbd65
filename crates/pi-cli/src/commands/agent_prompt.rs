//! `agent`'s system prompt flags (`--system-prompt`, `--append-system-prompt`,
//! `--no-context-files`/`-nc`), handed to `pi-coding-agent`, which builds the prompt; this file
//! only reads the flags.

use std::ffi::OsString;
use std::path::Path;

use clap::Args;
use pi_coding_agent::PromptOptions;

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

impl SystemPromptArgs {
    /// What the runtime builds the system prompt from, for a run in `cwd` (its tools and the
    /// project's trust are the runtime's to fill in).
    pub(crate) fn prompt_options(&self, cwd: &Path) -> PromptOptions {
        let mut options = PromptOptions::new(cwd);
        options.system_prompt = self.system_prompt.clone();
        options.append_system_prompt = self.append_system_prompt.clone();
        options.context_files = !self.no_context_files;
        options
    }
}

/// Pi's short flags of two or three letters, and the long flags clap reads them as (its short
/// flags are one letter).
const MULTI_LETTER_SHORT_FLAGS: [(&str, &str); 8] = [
    ("-nc", "--no-context-files"),
    ("-nt", "--no-tools"),
    ("-nbt", "--no-builtin-tools"),
    ("-xt", "--exclude-tools"),
    ("-na", "--no-approve"),
    ("-ne", "--no-extensions"),
    ("-ns", "--no-skills"),
    ("-np", "--no-prompt-templates"),
];

/// The command line with Pi's multi-letter short flags (`-nc`, `-nt`, `-xt`...) spelled out,
/// which clap can parse. Only before a `--`: after it every word is an operand. These were
/// refused before, so no working command line changes meaning.
pub(crate) fn spell_out_short_flags(
    args: impl IntoIterator<Item = OsString>,
) -> impl Iterator<Item = OsString> {
    let mut operands = false;
    args.into_iter().map(move |arg| {
        if arg == "--" {
            operands = true;
        }
        let long = MULTI_LETTER_SHORT_FLAGS
            .iter()
            .find(|(short, _)| !operands && arg == *short)
            .map(|(_, long)| OsString::from(long));
        long.unwrap_or(arg)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dash_nc_is_spelled_out_before_operands_only() {
        let args = ["pi-tool", "-nc", "-xt", "bash", "hi", "--", "-nc"].map(OsString::from);
        let spelled: Vec<OsString> = spell_out_short_flags(args).collect();
        assert_eq!(
            spelled,
            [
                "pi-tool",
                "--no-context-files",
                "--exclude-tools",
                "bash",
                "hi",
                "--",
                "-nc"
            ]
            .map(OsString::from)
        );
    }
}
