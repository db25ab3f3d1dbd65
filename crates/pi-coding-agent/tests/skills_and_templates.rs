//! Skills and prompt templates as a run finds and uses them, on prepared directory trees: the
//! places searched (the agent directory, `~/.agents`, a trusted project, the settings' lists,
//! the command line's paths), what goes into the system prompt, and the messages expanded.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs)]

use std::path::{Path, PathBuf};

use pi_coding_agent::{OfferedTool, PromptOptions, PromptSource, PromptWarning, RunPrompt};

struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Tree {
    fn new(files: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        std::fs::create_dir_all(root.join("repo/.git")).unwrap();
        Self { _dir: dir, root }
    }

    fn options(&self, trusted: bool) -> PromptOptions {
        let mut options = PromptOptions::new(self.root.join("repo"));
        options.agent_dir = Some(self.root.join("agent"));
        options.home_dir = Some(self.root.join("home"));
        options.project_trusted = trusted;
        options.today = "2026-12-07".to_owned();
        options.tools = vec![OfferedTool::new("read", "Read a file.")];
        options
    }
}

fn skill(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\nHow to {name}.\n")
}

fn skill_names(prompt: &RunPrompt) -> Vec<&str> {
    prompt
        .commands
        .skills
        .iter()
        .map(|skill| skill.name.as_str())
        .collect()
}

fn tree() -> Tree {
    Tree::new(&[
        (
            "agent/skills/global/SKILL.md",
            &skill("global", "Global skill."),
        ),
        (
            "agent/skills/no-description/SKILL.md",
            "---\nname: no-description\n---\nx",
        ),
        (
            "agent/skills/Bad_Name/SKILL.md",
            &skill("Bad_Name", "Loads with a warning."),
        ),
        (
            "agent/prompts/review.md",
            "---\ndescription: Review\n---\nReview $1, then ${@:2}.",
        ),
        (
            "home/.agents/skills/shared/SKILL.md",
            &skill("shared", "Shared with other tools."),
        ),
        (
            "repo/.pi/skills/project/SKILL.md",
            &skill("project", "The project's skill."),
        ),
        (
            "repo/.agents/skills/global/SKILL.md",
            &skill("global", "Project copy."),
        ),
        ("repo/.pi/prompts/fix.md", "Fix $@"),
        ("repo/AGENTS.md", "Project rules."),
    ])
}

#[test]
fn a_trusted_project_adds_its_skills_first_and_the_system_prompt_lists_them_after_the_context() {
    let tree = tree();
    let prompt = RunPrompt::build(&tree.options(true));
    // The project's copy of `global` wins over the agent directory's, as in Pi.
    assert_eq!(
        skill_names(&prompt),
        ["project", "global", "Bad_Name", "shared"]
    );
    let text = &prompt.text;
    let context = text.find("Project rules.").unwrap();
    let skills = text.find("<available_skills>").unwrap();
    let date = text.find("Today's date").unwrap();
    assert!(context < skills && skills < date, "{text}");
    assert!(
        text.contains("<description>Project copy.</description>"),
        "{text}"
    );
    assert!(!text.contains("no-description"), "{text}");
    let warnings: Vec<String> = prompt.warnings.iter().map(ToString::to_string).collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("no-description") && w.contains("description is required")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("Bad_Name") && w.contains("invalid characters")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("two skills are called \"global\"")),
        "{warnings:?}"
    );
    let templates: Vec<&str> = prompt
        .commands
        .templates
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(templates, ["fix", "review"]);
    assert!(prompt.sources.contains(&PromptSource::Skill {
        name: "shared".to_owned(),
        path: tree.root.join("home/.agents/skills/shared/SKILL.md"),
    }));
    assert!(prompt.sources.contains(&PromptSource::PromptTemplate {
        name: "review".to_owned(),
        path: tree.root.join("agent/prompts/review.md"),
    }));
}

#[test]
fn an_untrusted_project_keeps_its_skills_and_templates_out() {
    let tree = tree();
    let prompt = RunPrompt::build(&tree.options(false));
    assert_eq!(skill_names(&prompt), ["Bad_Name", "global", "shared"]);
    assert!(
        prompt
            .text
            .contains("<description>Global skill.</description>")
    );
    assert_eq!(prompt.commands.templates.len(), 1);
    assert_eq!(prompt.commands.expand("/fix it"), "/fix it");
}

#[test]
fn no_skills_keeps_the_command_line_paths_and_no_read_tool_lists_none() {
    let tree = tree();
    let mut options = tree.options(true);
    options.skills.discover = false;
    options.skills.paths = vec!["../agent/skills/global".to_owned()];
    options.prompt_templates.discover = false;
    let prompt = RunPrompt::build(&options);
    assert_eq!(skill_names(&prompt), ["global"]);
    assert!(prompt.commands.templates.is_empty());
    options.tools = vec![OfferedTool::new("bash", "Run a command.")];
    let prompt = RunPrompt::build(&options);
    assert!(!prompt.text.contains("available_skills"), "{}", prompt.text);
    // The skill can still be called by name.
    assert!(
        prompt
            .commands
            .expand("/skill:global now")
            .starts_with("<skill name=\"global\"")
    );
}

#[test]
fn the_settings_lists_add_places_and_patterns_turn_files_off() {
    let tree = Tree::new(&[
        (
            "agent/settings.json",
            r#"{"skills": ["../lib/skills", "!skills/off"], "prompts": ["../lib/prompts"]}"#,
        ),
        (
            "agent/skills/off/SKILL.md",
            &skill("off", "Turned off by a pattern."),
        ),
        (
            "lib/skills/extra/SKILL.md",
            &skill("extra", "From the settings."),
        ),
        ("lib/prompts/deep/nested.md", "Nested $1"),
    ]);
    let prompt = RunPrompt::build(&tree.options(false));
    assert_eq!(skill_names(&prompt), ["extra"]);
    assert_eq!(prompt.commands.expand("/nested x"), "Nested x");
}

#[test]
fn messages_expand_templates_and_skills() {
    let tree = tree();
    let prompt = RunPrompt::build(&tree.options(true));
    let commands = &prompt.commands;
    assert_eq!(
        commands.expand("/review src \"a b\" c"),
        "Review src, then a b c."
    );
    assert_eq!(commands.expand("/review"), "Review , then .");
    assert_eq!(commands.expand("review src"), "review src");
    let expanded = commands.expand("/skill:shared  do it ");
    let path = tree.root.join("home/.agents/skills/shared/SKILL.md");
    let dir = path.parent().unwrap().display();
    assert_eq!(
        expanded,
        format!(
            "<skill name=\"shared\" location=\"{}\">\nRelative paths in this skill start from {dir}.\n\nHow to shared.\n</skill>\n\ndo it",
            path.display()
        )
    );
}

#[test]
fn a_missing_command_line_path_warns() {
    let tree = tree();
    let mut options = tree.options(false);
    options.skills.paths = vec!["nowhere".to_owned()];
    options.prompt_templates.paths = vec!["nowhere.md".to_owned()];
    let prompt = RunPrompt::build(&options);
    let missing: Vec<&Path> = prompt
        .warnings
        .iter()
        .filter_map(|warning| match warning {
            PromptWarning::MissingPath { path, .. } => Some(path.as_path()),
            _ => None,
        })
        .collect();
    assert_eq!(
        missing,
        [
            tree.root.join("repo/nowhere").as_path(),
            tree.root.join("repo/nowhere.md").as_path()
        ]
    );
}
