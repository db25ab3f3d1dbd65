//! What went wrong while gathering the prompt's files: never a reason to stop a run (Pi warns
//! and goes on), so these are returned beside the prompt for the front end to show.

use std::path::PathBuf;

/// Skills or prompt templates, as a warning names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceKind {
    /// A skill.
    Skill,
    /// A prompt template.
    PromptTemplate,
}

impl std::fmt::Display for ResourceKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Skill => "skill",
            Self::PromptTemplate => "prompt template",
        })
    }
}

/// A file the prompt would have used was left out or cut.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PromptWarning {
    /// A context file or prompt file exists but could not be read.
    #[error("could not read {}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A context file name that is not a regular file (a directory, a pipe).
    #[error("{} is not a regular file; skipped", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// A context file larger than [`crate::MAX_CONTEXT_FILE_BYTES`]: only its start is sent.
    #[error(
        "{} is {size} bytes; only its first {kept} go into the system prompt",
        path.display()
    )]
    Cut {
        /// The file.
        path: PathBuf,
        /// Its size on disk.
        size: u64,
        /// How many bytes were kept.
        kept: usize,
    },
    /// A project `.pi/SYSTEM.md` or `.pi/APPEND_SYSTEM.md` in a project that is not trusted:
    /// it would change how the agent behaves, so it is ignored (as Pi does).
    #[error(
        "{} is ignored: this project is not trusted (list it in permissions.trustedProjects of your settings.json)",
        path.display()
    )]
    Untrusted {
        /// The file.
        path: PathBuf,
    },
    /// A skill with a problem: a name or description the Agent Skills format does not allow
    /// (the skill still loads), or no description, a file that cannot be read or front matter
    /// that is not YAML (it does not).
    #[error("skill {}: {problem}", path.display())]
    InvalidSkill {
        /// The skill's file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// A prompt template that cannot be read or whose front matter is not YAML: not loaded.
    #[error("prompt template {}: {problem}", path.display())]
    InvalidTemplate {
        /// The template's file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// Two skills (or templates) of one name: the first found is used.
    #[error(
        "two {kind}s are called \"{name}\": {} is used, {} is not",
        kept.display(),
        skipped.display()
    )]
    Collision {
        /// Skills or templates.
        kind: ResourceKind,
        /// The name.
        name: String,
        /// The file used.
        kept: PathBuf,
        /// The file left out.
        skipped: PathBuf,
    },
    /// A `--skill` or `--prompt-template` path that does not exist.
    #[error("{kind} path {} does not exist", path.display())]
    MissingPath {
        /// Skills or templates.
        kind: ResourceKind,
        /// The path.
        path: PathBuf,
    },
    /// A `--skill` path that is neither a directory nor a `.md` file.
    #[error("{kind} path {} is not a Markdown file or a directory", path.display())]
    NotMarkdown {
        /// Skills or templates.
        kind: ResourceKind,
        /// The path.
        path: PathBuf,
    },
    /// A settings file that could not be read for its `skills` and `prompts` lists.
    #[error("the settings' skills and prompts lists are not read")]
    Settings(#[source] crate::settings::SettingsError),
}
