//! A run's system prompt: its options (the flags' values, the directories, the trust), the
//! files read for it, and the text built from them.

use std::path::PathBuf;

use serde::Serialize;

use crate::context_files::{self, ContextFile};
use crate::prompt_commands::PromptCommands;
use crate::prompt_files::{self, APPEND_SYSTEM_FILE, SYSTEM_FILE};
use crate::prompt_templates::load_templates;
use crate::prompt_text::{PromptText, resolve_text};
use crate::resource_paths::{Kind, Places, resolve};
use crate::settings::SettingsFiles;
use crate::skills::load_skills;
use crate::system_prompt::{PromptParts, build_system_prompt};
use crate::tools::OfferedTool;
use crate::warning::PromptWarning;

/// What a run's system prompt is built from.
#[derive(Debug, Clone)]
pub struct PromptOptions {
    /// The directory the run works in: its ancestors' context files are read, and its `.pi/`.
    pub cwd: PathBuf,
    /// The agent directory (`PI_CODING_AGENT_DIR`, else `~/.pi/agent`), if known.
    pub agent_dir: Option<PathBuf>,
    /// Whether the project is trusted: only then do its `.pi/SYSTEM.md` and
    /// `.pi/APPEND_SYSTEM.md` count. Context files are read either way.
    pub project_trusted: bool,
    /// `--system-prompt TEXT|FILE`: replaces the default part (and any `SYSTEM.md`).
    pub system_prompt: Option<String>,
    /// `--append-system-prompt TEXT|FILE`, in order: when any is given, no `APPEND_SYSTEM.md`
    /// is read (as in Pi).
    pub append_system_prompt: Vec<String>,
    /// Whether `AGENTS.md` / `CLAUDE.md` files are read (`--no-context-files` turns it off).
    pub context_files: bool,
    /// The tools the model is offered.
    pub tools: Vec<OfferedTool>,
    /// Today's date, `YYYY-MM-DD`.
    pub today: String,
    /// Skills: Pi's places searched unless `--no-skills`, and the `--skill` paths.
    pub skills: ResourceFlags,
    /// Prompt templates: Pi's places searched unless `--no-prompt-templates`, and the
    /// `--prompt-template` paths.
    pub prompt_templates: ResourceFlags,
    /// The home directory: `~/.agents/skills` is searched, `~` in paths stands for it.
    pub home_dir: Option<PathBuf>,
}

/// Where a run's skills or prompt templates come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceFlags {
    /// Whether Pi's places (the agent directory, the trusted project, the settings' lists)
    /// are searched; `--no-skills` / `--no-prompt-templates` turn it off.
    pub discover: bool,
    /// Paths given on the command line (files or directories, relative to the working
    /// directory), loaded after the places and even when `discover` is off, as in Pi.
    pub paths: Vec<String>,
}

impl Default for ResourceFlags {
    fn default() -> Self {
        Self {
            discover: true,
            paths: Vec::new(),
        }
    }
}

impl PromptOptions {
    /// The defaults for a run in `cwd`: Pi's agent directory, today's local date, context files
    /// on, the project not trusted, no tools, no flags.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            agent_dir: pi_session::agent_dir(),
            project_trusted: false,
            system_prompt: None,
            append_system_prompt: Vec::new(),
            context_files: true,
            tools: Vec::new(),
            today: today(),
            skills: ResourceFlags::default(),
            prompt_templates: ResourceFlags::default(),
            home_dir: std::env::home_dir(),
        }
    }
}

/// Today's date in the local time zone, `YYYY-MM-DD`, as Pi writes it.
pub fn today() -> String {
    chrono::Local::now().format("%Y-%m-%d").to_string()
}

/// A file that went into the prompt, as `--json` lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PromptSource {
    /// The text replacing the default part (`--system-prompt FILE` or a `SYSTEM.md`).
    SystemPrompt {
        /// The file.
        path: PathBuf,
    },
    /// Text appended to the prompt (`--append-system-prompt FILE` or an `APPEND_SYSTEM.md`).
    AppendSystemPrompt {
        /// The file.
        path: PathBuf,
    },
    /// An `AGENTS.md` or `CLAUDE.md`.
    ContextFile {
        /// The file.
        path: PathBuf,
        /// Whether only its start was sent.
        cut: bool,
    },
    /// A skill of the run: listed in the prompt (unless it disables model invocation, or the
    /// `read` tool is not offered), and loaded into a message by `/skill:NAME`.
    Skill {
        /// Its name.
        name: String,
        /// Its file.
        path: PathBuf,
    },
    /// A prompt template of the run (not in the system prompt: `/NAME` expands it).
    PromptTemplate {
        /// Its name.
        name: String,
        /// Its file.
        path: PathBuf,
    },
}

/// A run's system prompt and what it was made of.
#[derive(Debug)]
pub struct RunPrompt {
    /// The text sent as the system prompt with every request of the run.
    pub text: String,
    /// The files read into it, in the order they appear.
    pub sources: Vec<PromptSource>,
    /// Files left out or cut, for the front end to show; none stops the run.
    pub warnings: Vec<PromptWarning>,
    /// The skills and prompt templates the run's messages may call.
    pub commands: PromptCommands,
}

impl RunPrompt {
    /// Reads the files `options` call for and builds the prompt. Call it once per run, before
    /// the agent starts: the result does not change from turn to turn.
    pub fn build(options: &PromptOptions) -> Self {
        let mut warnings = Vec::new();
        let mut sources = Vec::new();
        let agent_dir = options.agent_dir.as_deref();
        let replacement = match &options.system_prompt {
            Some(value) => Some(resolve_text(value, &mut warnings)),
            None => prompt_files::discover(
                SYSTEM_FILE,
                &options.cwd,
                agent_dir,
                options.project_trusted,
                &mut warnings,
            ),
        };
        let appended: Vec<PromptText> = if options.append_system_prompt.is_empty() {
            prompt_files::discover(
                APPEND_SYSTEM_FILE,
                &options.cwd,
                agent_dir,
                options.project_trusted,
                &mut warnings,
            )
            .into_iter()
            .collect()
        } else {
            options
                .append_system_prompt
                .iter()
                .map(|value| resolve_text(value, &mut warnings))
                .collect()
        };
        let context: Vec<ContextFile> = if options.context_files {
            context_files::discover(agent_dir, &options.cwd, &mut warnings)
        } else {
            Vec::new()
        };
        if let Some(path) = replacement.as_ref().and_then(|text| text.file.clone()) {
            sources.push(PromptSource::SystemPrompt { path });
        }
        sources.extend(
            appended
                .iter()
                .filter_map(|text| text.file.clone())
                .map(|path| PromptSource::AppendSystemPrompt { path }),
        );
        sources.extend(context.iter().map(|file| PromptSource::ContextFile {
            path: file.path.clone(),
            cut: file.cut_from.is_some(),
        }));
        let commands = load_commands(options, &mut warnings);
        sources.extend(commands.skills.iter().map(|skill| PromptSource::Skill {
            name: skill.name.clone(),
            path: skill.path.clone(),
        }));
        sources.extend(
            commands
                .templates
                .iter()
                .map(|template| PromptSource::PromptTemplate {
                    name: template.name.clone(),
                    path: template.path.clone(),
                }),
        );
        let appended: Vec<String> = appended.into_iter().map(|text| text.text).collect();
        let text = build_system_prompt(&PromptParts {
            replacement: replacement.as_ref().map(|text| text.text.as_str()),
            appended: &appended,
            tools: &options.tools,
            context_files: &context,
            skills: &commands.skills,
            today: &options.today,
            cwd: &options.cwd,
        });
        Self {
            text,
            sources,
            warnings,
            commands,
        }
    }
}

/// The run's skills and templates from Pi's places (when searched) and the command line's
/// paths. The settings' lists are read from the user's file and, in a trusted project, the
/// project's.
fn load_commands(options: &PromptOptions, warnings: &mut Vec<PromptWarning>) -> PromptCommands {
    let places = Places {
        cwd: &options.cwd,
        agent_dir: options.agent_dir.as_deref(),
        home: options.home_dir.as_deref(),
        trusted: options.project_trusted,
    };
    let settings = if options.skills.discover || options.prompt_templates.discover {
        let project = options.project_trusted.then_some(options.cwd.as_path());
        SettingsFiles::load(places.agent_dir, project).unwrap_or_else(|error| {
            warnings.push(PromptWarning::Settings(error));
            SettingsFiles::default()
        })
    } else {
        SettingsFiles::default()
    };
    let found = |flags: &ResourceFlags, kind| {
        if flags.discover {
            resolve(kind, &settings, places)
        } else {
            Vec::new()
        }
    };
    let skill_files = found(&options.skills, Kind::Skills);
    let template_files = found(&options.prompt_templates, Kind::Prompts);
    PromptCommands {
        skills: load_skills(
            skill_files,
            &options.skills.paths,
            &options.cwd,
            places.home,
            warnings,
        ),
        templates: load_templates(
            template_files,
            &options.prompt_templates.paths,
            &options.cwd,
            places.home,
            warnings,
        ),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::path::Path;

    use super::*;

    fn options(root: &Path) -> PromptOptions {
        let mut options = PromptOptions::new(root.join("repo"));
        options.agent_dir = Some(root.join("agent"));
        options.today = "2026-12-07".to_owned();
        options
    }

    fn setup() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for (path, text) in [
            ("agent/AGENTS.md", "global rules"),
            ("agent/APPEND_SYSTEM.md", "global append"),
            ("repo/CLAUDE.md", "repo rules"),
            ("repo/.pi/SYSTEM.md", "project replacement"),
        ] {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        (dir, root)
    }

    #[test]
    fn an_untrusted_project_gets_its_context_files_but_not_its_system_md() {
        let (_dir, root) = setup();
        let prompt = RunPrompt::build(&options(&root));
        assert!(
            prompt
                .text
                .starts_with("You are an expert coding assistant")
        );
        assert!(!prompt.text.contains("project replacement"));
        assert!(prompt.text.contains("global append"));
        assert!(prompt.text.contains("repo rules"));
        assert!(
            prompt
                .warnings
                .iter()
                .any(|w| matches!(w, PromptWarning::Untrusted { .. }))
        );
        assert_eq!(
            prompt.sources,
            [
                PromptSource::AppendSystemPrompt {
                    path: root.join("agent/APPEND_SYSTEM.md")
                },
                PromptSource::ContextFile {
                    path: root.join("agent/AGENTS.md"),
                    cut: false
                },
                PromptSource::ContextFile {
                    path: root.join("repo/CLAUDE.md"),
                    cut: false
                },
            ]
        );
    }

    #[test]
    fn a_trusted_project_system_md_replaces_the_default_part() {
        let (_dir, root) = setup();
        let mut options = options(&root);
        options.project_trusted = true;
        let prompt = RunPrompt::build(&options);
        assert!(
            prompt
                .text
                .starts_with("project replacement\n\nglobal append")
        );
    }

    #[test]
    fn flags_win_over_files_and_no_context_files_reads_none() {
        let (_dir, root) = setup();
        let mut options = options(&root);
        options.project_trusted = true;
        options.system_prompt = Some("flag replacement".to_owned());
        options.append_system_prompt = vec!["one".to_owned(), "two".to_owned()];
        options.context_files = false;
        let prompt = RunPrompt::build(&options);
        assert!(
            prompt
                .text
                .starts_with("flag replacement\n\none\n\ntwo\n\nToday's date")
        );
        assert!(prompt.sources.is_empty());
    }
}
