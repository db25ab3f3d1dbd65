//! One skill: a Markdown file (a `SKILL.md`, or a root `.md` file of some skill directories)
//! whose front matter names it and says when to use it, read and checked as Pi checks it
//! against the Agent Skills format.

use std::path::{Path, PathBuf};

use yaml_rust2::Yaml;

use crate::frontmatter::{Document, js_trim};
use crate::warning::PromptWarning;

/// The longest skill name the format allows.
pub const MAX_SKILL_NAME_CHARS: usize = 64;
/// The longest skill description the format allows.
pub const MAX_SKILL_DESCRIPTION_CHARS: usize = 1024;

/// A skill the run can use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Its name (`name` in the front matter, else its directory's name): `/skill:NAME`.
    pub name: String,
    /// When to use it (`description` in the front matter).
    pub description: String,
    /// The skill's file.
    pub path: PathBuf,
    /// The directory its relative references start from (the file's directory).
    pub base_dir: PathBuf,
    /// `disable-model-invocation: true`: left out of the system prompt, only `/skill:NAME`
    /// loads it.
    pub disable_model_invocation: bool,
}

/// Reads the skill in `path`. Problems with its name or an over-long description are warned
/// about and the skill still loads, as Pi does; a file without a description, unreadable, or
/// whose front matter is not YAML is skipped with a warning.
pub(crate) fn load_skill(path: &Path, warnings: &mut Vec<PromptWarning>) -> Option<Skill> {
    let mut problem = |problem: String| {
        warnings.push(PromptWarning::InvalidSkill {
            path: path.to_path_buf(),
            problem,
        });
    };
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(error) => {
            problem(format!("cannot be read: {error}"));
            return None;
        }
    };
    let document = match Document::parse(&text) {
        Ok(document) => document,
        Err(error) => {
            problem(error.to_string());
            return None;
        }
    };
    let description = match document.field("description") {
        None | Some(Yaml::Null) => None,
        Some(Yaml::String(text)) => Some(text.clone()),
        Some(_) => {
            problem("description must be text".to_owned());
            return None;
        }
    };
    let description = description.filter(|text| !js_trim(text).is_empty());
    match &description {
        None => problem("description is required".to_owned()),
        Some(text) if utf16_len(text) > MAX_SKILL_DESCRIPTION_CHARS => problem(format!(
            "description exceeds {MAX_SKILL_DESCRIPTION_CHARS} characters ({})",
            utf16_len(text)
        )),
        Some(_) => {}
    }
    let base_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = match document.field("name") {
        Some(Yaml::String(name)) if !name.is_empty() => name.clone(),
        None | Some(Yaml::Null | Yaml::String(_)) => base_dir
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default(),
        Some(_) => {
            problem("name must be text".to_owned());
            return None;
        }
    };
    for error in name_problems(&name) {
        problem(error);
    }
    let description = description?;
    Some(Skill {
        name,
        description,
        path: path.to_path_buf(),
        base_dir,
        disable_model_invocation: document.field("disable-model-invocation")
            == Some(&Yaml::Boolean(true)),
    })
}

/// What is wrong with a skill's name by the format's rules: at most 64 characters, lowercase
/// ASCII letters, digits and hyphens, no hyphen first, last or doubled.
pub(crate) fn name_problems(name: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let length = utf16_len(name);
    if length > MAX_SKILL_NAME_CHARS {
        problems.push(format!(
            "name exceeds {MAX_SKILL_NAME_CHARS} characters ({length})"
        ));
    }
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        problems.push(
            "name contains invalid characters (only lowercase a-z, 0-9 and hyphens)".to_owned(),
        );
    }
    if name.starts_with('-') || name.ends_with('-') {
        problems.push("name must not start or end with a hyphen".to_owned());
    }
    if name.contains("--") {
        problems.push("name must not contain two hyphens in a row".to_owned());
    }
    problems
}

/// The length JavaScript gives `text` (UTF-16 code units), which Pi's limits count.
fn utf16_len(text: &str) -> usize {
    text.encode_utf16().count()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn write(dir: &Path, relative: &str, text: &str) -> PathBuf {
        let path = dir.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_valid_skill_loads_without_warnings() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "pdf/SKILL.md",
            "---\nname: pdf-tools\ndescription: Work with PDFs.\ndisable-model-invocation: true\n---\nBody",
        );
        let mut warnings = Vec::new();
        let skill = load_skill(&path, &mut warnings).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(skill.name, "pdf-tools");
        assert_eq!(skill.description, "Work with PDFs.");
        assert_eq!(skill.base_dir, dir.path().join("pdf"));
        assert!(skill.disable_model_invocation);
    }

    #[test]
    fn the_name_defaults_to_the_directory_and_a_bad_name_only_warns() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "My_Skill/SKILL.md",
            "---\ndescription: d\n---\n",
        );
        let mut warnings = Vec::new();
        let skill = load_skill(&path, &mut warnings).unwrap();
        assert_eq!(skill.name, "My_Skill");
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].to_string().contains("invalid characters"),
            "{}",
            warnings[0]
        );
    }

    #[test]
    fn no_description_or_bad_yaml_skips_the_skill_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        for text in [
            "---\nname: x\n---\n",
            "---\ndescription: '  '\n---\n",
            "---\n: [\n---\n",
            "no front matter",
        ] {
            let path = write(dir.path(), "x/SKILL.md", text);
            let mut warnings = Vec::new();
            assert!(load_skill(&path, &mut warnings).is_none(), "{text}");
            assert!(!warnings.is_empty(), "{text}");
        }
    }

    #[test]
    fn name_rules() {
        assert!(name_problems("pdf-processing").is_empty());
        assert_eq!(name_problems("-pdf").len(), 1);
        assert_eq!(name_problems("pdf--x").len(), 1);
        assert_eq!(name_problems("PDF").len(), 1);
        assert_eq!(name_problems(&"a".repeat(65)).len(), 1);
        assert!(name_problems(&"a".repeat(64)).is_empty());
    }
}
