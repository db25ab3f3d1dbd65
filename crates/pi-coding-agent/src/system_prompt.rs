//! The system prompt's text from its parts, in Pi's order: the default part (who the assistant
//! is, its tools, the guidelines) or the replacement for it, the appended text, the project's
//! context files, the skills, then the date and the working directory last.

use std::fmt::Write as _;
use std::path::Path;

use crate::context_files::ContextFile;
use crate::guidelines::guidelines;
use crate::skill::Skill;
use crate::skills::skills_section;
use crate::tools::OfferedTool;

/// Everything the system prompt is made of, already read.
#[derive(Debug, Clone, Copy)]
pub struct PromptParts<'a> {
    /// Text replacing the default part (`--system-prompt`, `SYSTEM.md`), if any.
    pub replacement: Option<&'a str>,
    /// Texts added after the default or replaced part, in order.
    pub appended: &'a [String],
    /// The tools offered, in the order the model is shown them.
    pub tools: &'a [OfferedTool],
    /// The context files, in order.
    pub context_files: &'a [ContextFile],
    /// The skills, listed when the `read` tool is offered (the model loads one with it).
    pub skills: &'a [Skill],
    /// Today's date, `YYYY-MM-DD`.
    pub today: &'a str,
    /// The directory the run works in.
    pub cwd: &'a Path,
}

/// The system prompt made of `parts`.
pub fn build_system_prompt(parts: &PromptParts<'_>) -> String {
    let mut prompt = match parts.replacement {
        Some(text) => text.to_owned(),
        None => default_part(parts.tools),
    };
    for text in parts.appended {
        prompt.push_str("\n\n");
        prompt.push_str(text);
    }
    if !parts.context_files.is_empty() {
        prompt.push_str(
            "\n\n<project_context>\nThe project's context files: instructions and conventions to \
             follow while working in it.\n",
        );
        for file in parts.context_files {
            let path = file.path.display().to_string().replace('"', "&quot;");
            let _ = write!(prompt, "\n<context_file path=\"{path}\">\n{}", file.content);
            if let Some(size) = file.cut_from {
                let _ = write!(
                    prompt,
                    "\n[pi-tool cut this file here: it is {size} bytes, only the first {} are shown; read the file for the rest]",
                    file.content.len()
                );
            }
            prompt.push_str("\n</context_file>\n");
        }
        prompt.push_str("</project_context>");
    }
    if parts.tools.iter().any(|tool| tool.name == "read") {
        prompt.push_str(&skills_section(parts.skills));
    }
    let _ = write!(
        prompt,
        "\n\nToday's date: {}\nWorking directory: {}",
        parts.today,
        parts.cwd.display()
    );
    prompt
}

/// Who the assistant is, what it can call, and how it should work.
fn default_part(tools: &[OfferedTool]) -> String {
    let mut text = String::from(
        "You are an expert coding assistant working in the user's repository through pi-tool, a \
         coding agent. You get the user's work done with tools: reading files, running commands, \
         changing code and writing new files.\n\nTools you can call:\n",
    );
    if tools.is_empty() {
        text.push_str("(none)\n");
    }
    for tool in tools {
        if tool.purpose.is_empty() {
            let _ = writeln!(text, "- {}", tool.name);
        } else {
            let _ = writeln!(text, "- {}: {}", tool.name, tool.purpose);
        }
    }
    text.push_str(
        "\nThe project may offer further tools beyond these; use them as their descriptions \
         say.\n\nGuidelines:",
    );
    for line in guidelines(tools) {
        let _ = write!(text, "\n- {line}");
    }
    text
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::path::PathBuf;

    use super::*;

    fn context(path: &str, content: &str) -> ContextFile {
        ContextFile {
            path: PathBuf::from(path),
            content: content.to_owned(),
            cut_from: None,
        }
    }

    fn position(text: &str, part: &str) -> usize {
        text.find(part)
            .unwrap_or_else(|| panic!("{part:?} not in {text}"))
    }

    #[test]
    fn the_parts_come_in_order_with_date_and_directory_last() {
        let tools = [
            OfferedTool::new("read", "Read a file."),
            OfferedTool::new("bash", "Run a command."),
        ];
        let files = [
            context("/a/AGENTS.md", "global"),
            context("/a/b/CLAUDE.md", "local"),
        ];
        let appended = ["appended".to_owned()];
        let prompt = build_system_prompt(&PromptParts {
            replacement: None,
            appended: &appended,
            tools: &tools,
            context_files: &files,
            skills: &[],
            today: "2026-12-07",
            cwd: Path::new("/a/b"),
        });
        let order = [
            "expert coding assistant",
            "- read: Read a file\n- bash: Run a command\n",
            "Guidelines:",
            "with read, not with cat",
            "appended",
            "<context_file path=\"/a/AGENTS.md\">\nglobal\n</context_file>",
            "<context_file path=\"/a/b/CLAUDE.md\">\nlocal\n</context_file>",
            "Today's date: 2026-12-07",
        ];
        let positions: Vec<usize> = order.iter().map(|part| position(&prompt, part)).collect();
        assert!(positions.is_sorted(), "{prompt}");
        assert!(prompt.ends_with("Today's date: 2026-12-07\nWorking directory: /a/b"));
    }

    #[test]
    fn a_replacement_drops_the_default_part_but_keeps_the_rest() {
        let files = [context("/p/AGENTS.md", "rules")];
        let prompt = build_system_prompt(&PromptParts {
            replacement: Some("You are a pirate."),
            appended: &["Arr.".to_owned()],
            tools: &[OfferedTool::new("read", "Read a file.")],
            context_files: &files,
            skills: &[],
            today: "2026-01-02",
            cwd: Path::new("/p"),
        });
        assert!(prompt.starts_with("You are a pirate.\n\nArr.\n\n<project_context>"));
        assert!(!prompt.contains("Guidelines"));
        assert!(prompt.contains("rules"));
        assert!(prompt.ends_with("Working directory: /p"));
    }

    #[test]
    fn a_cut_file_says_so_and_no_tools_says_none() {
        let mut file = context("/p/AGENTS.md", "start");
        file.cut_from = Some(100_000);
        let prompt = build_system_prompt(&PromptParts {
            replacement: None,
            appended: &[],
            tools: &[],
            context_files: &[file],
            skills: &[],
            today: "2026-01-02",
            cwd: Path::new("/p"),
        });
        assert!(prompt.contains("Tools you can call:\n(none)\n"));
        assert!(prompt.contains("start\n[pi-tool cut this file here: it is 100000 bytes"));
    }
}
