//! A run's skills: loaded from the files Pi's places give and the `--skill` paths, each name
//! once (the first found wins, with a warning), listed in the system prompt for the model to
//! read when a task matches, and loaded into a message by `/skill:NAME`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::frontmatter::{Document, js_trim};
use crate::resource_paths::resolve_entry;
use crate::resource_walk::{RootFiles, skill_files};
use crate::skill::{Skill, load_skill};
use crate::warning::{PromptWarning, ResourceKind};

/// Loads the skills of `discovered` (files, most important first) and then of `extra` (the
/// `--skill` paths: files or directories, relative to `cwd`).
pub(crate) fn load_skills(
    discovered: Vec<PathBuf>,
    extra: &[String],
    cwd: &Path,
    home: Option<&Path>,
    warnings: &mut Vec<PromptWarning>,
) -> Vec<Skill> {
    let paths = merge_paths(discovered, extra, cwd, home);
    let mut skills: Vec<Skill> = Vec::new();
    let mut real_paths = Vec::new();
    let mut collisions = Vec::new();
    for path in paths {
        let files = if path.is_dir() {
            skill_files(&path, RootFiles::Skills)
        } else if path.is_file() && path.extension().is_some_and(|ext| ext == "md") {
            vec![path]
        } else if path.exists() {
            warnings.push(PromptWarning::NotMarkdown {
                kind: ResourceKind::Skill,
                path,
            });
            continue;
        } else {
            warnings.push(PromptWarning::MissingPath {
                kind: ResourceKind::Skill,
                path,
            });
            continue;
        };
        for file in files {
            let Some(skill) = load_skill(&file, warnings) else {
                continue;
            };
            // The same file reached twice (through a link) is no collision.
            let real = std::fs::canonicalize(&skill.path).unwrap_or_else(|_| skill.path.clone());
            if real_paths.contains(&real) {
                continue;
            }
            if let Some(kept) = skills.iter().find(|kept| kept.name == skill.name) {
                collisions.push(PromptWarning::Collision {
                    kind: ResourceKind::Skill,
                    name: skill.name.clone(),
                    kept: kept.path.clone(),
                    skipped: skill.path,
                });
            } else {
                real_paths.push(real);
                skills.push(skill);
            }
        }
    }
    warnings.extend(collisions);
    skills
}

/// `discovered` then `extra` resolved against `cwd`, each place once (by its real path).
pub(crate) fn merge_paths(
    discovered: Vec<PathBuf>,
    extra: &[String],
    cwd: &Path,
    home: Option<&Path>,
) -> Vec<PathBuf> {
    let mut seen = Vec::new();
    discovered
        .into_iter()
        .chain(extra.iter().map(|path| resolve_entry(path, cwd, home)))
        .filter(|path| {
            let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
            let first = !seen.contains(&real);
            seen.push(real);
            first
        })
        .collect()
}

/// The system prompt's list of the skills the model may load itself (those with
/// `disable-model-invocation` left out), in the Agent Skills format's XML; empty when there
/// are none.
pub fn skills_section(skills: &[Skill]) -> String {
    let visible: Vec<&Skill> = skills
        .iter()
        .filter(|skill| !skill.disable_model_invocation)
        .collect();
    if visible.is_empty() {
        return String::new();
    }
    let mut text = String::from(
        "\n\nSkills hold instructions for particular kinds of task, one file each. When a task \
         fits a skill's description, read that file with the read tool first and follow it. \
         Relative paths in a skill start from the directory of its file: make them absolute \
         before using them in a tool call.\n\n<available_skills>",
    );
    for skill in visible {
        let _ = write!(
            text,
            "\n  <skill>\n    <name>{}</name>\n    <description>{}</description>\n    <location>{}</location>\n  </skill>",
            escape_xml(&skill.name),
            escape_xml(&skill.description),
            escape_xml(&skill.path.display().to_string()),
        );
    }
    text.push_str("\n</available_skills>");
    text
}

/// `text` with XML's five special characters escaped.
fn escape_xml(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            _ => escaped.push(c),
        }
    }
    escaped
}

/// A message `/skill:NAME rest` with the skill's text in place of the command, as Pi sends
/// it: a `<skill>` block naming the skill and its file, then the rest of the message after a
/// blank line. `None` when `text` is not such a command, no skill has that name, or its file
/// can no longer be read or parsed (the message is then sent as typed, as Pi does).
pub(crate) fn expand_skill_command(text: &str, skills: &[Skill]) -> Option<String> {
    let command = text.strip_prefix("/skill:")?;
    // Pi splits at the first space only: a name followed by a line break is not a command.
    let (name, rest) = match command.split_once(' ') {
        Some((name, rest)) => (name, js_trim(rest)),
        None => (command, ""),
    };
    let skill = skills.iter().find(|skill| skill.name == name)?;
    let bytes = std::fs::read(&skill.path).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let document = Document::parse(&text).ok()?;
    let body = js_trim(&document.body);
    let block = format!(
        "<skill name=\"{}\" location=\"{}\">\nRelative paths in this skill start from {}.\n\n{body}\n</skill>",
        skill.name,
        skill.path.display(),
        skill.base_dir.display()
    );
    Some(if rest.is_empty() {
        block
    } else {
        format!("{block}\n\n{rest}")
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn write(root: &Path, relative: &str, text: &str) -> PathBuf {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn skill_text(name: &str, description: &str) -> String {
        format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\nSteps.\n")
    }

    #[test]
    fn the_first_of_two_names_wins_and_a_link_is_no_collision() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let first = write(root, "a/SKILL.md", &skill_text("same", "first"));
        let second = write(root, "b/SKILL.md", &skill_text("same", "second"));
        #[cfg(unix)]
        std::os::unix::fs::symlink(&first, root.join("link.md")).unwrap();
        let mut warnings = Vec::new();
        let skills = load_skills(
            vec![first.clone(), second.clone()],
            &["link.md".to_owned(), "gone".to_owned()],
            root,
            None,
            &mut warnings,
        );
        assert_eq!(skills.len(), 1);
        assert_eq!(skills[0].description, "first");
        let text: Vec<String> = warnings.iter().map(ToString::to_string).collect();
        assert_eq!(text.len(), 2, "{text:?}");
        assert!(text[0].contains("does not exist"), "{text:?}");
        assert!(text[1].contains("\"same\""), "{text:?}");
    }

    #[test]
    fn a_skill_path_directory_loads_its_root_files_too() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "lib/one.md", &skill_text("one", "d"));
        write(dir.path(), "lib/two/SKILL.md", &skill_text("two", "d"));
        let skills = load_skills(
            Vec::new(),
            &["lib".to_owned()],
            dir.path(),
            None,
            &mut Vec::new(),
        );
        let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
        assert_eq!(names, ["one", "two"]);
    }

    #[test]
    fn the_section_escapes_and_leaves_out_hidden_skills() {
        let skill = |name: &str, hidden| Skill {
            name: name.to_owned(),
            description: "Use <when> \"x\" & 'y'".to_owned(),
            path: PathBuf::from(format!("/s/{name}/SKILL.md")),
            base_dir: PathBuf::from(format!("/s/{name}")),
            disable_model_invocation: hidden,
        };
        assert_eq!(skills_section(&[skill("h", true)]), "");
        let section = skills_section(&[skill("a", false), skill("h", true)]);
        assert!(section.ends_with(
            "<available_skills>\n  <skill>\n    <name>a</name>\n    <description>Use &lt;when&gt; &quot;x&quot; &amp; &apos;y&apos;</description>\n    <location>/s/a/SKILL.md</location>\n  </skill>\n</available_skills>"
        ), "{section}");
        assert!(!section.contains("<name>h</name>"));
    }

    #[test]
    fn a_skill_command_becomes_the_skill_block_and_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "pdf/SKILL.md", &skill_text("pdf", "d"));
        let mut warnings = Vec::new();
        let skills = vec![crate::skill::load_skill(&path, &mut warnings).unwrap()];
        let expanded = expand_skill_command("/skill:pdf  extract page 2 ", &skills).unwrap();
        assert_eq!(
            expanded,
            format!(
                "<skill name=\"pdf\" location=\"{}\">\nRelative paths in this skill start from {}.\n\n# pdf\nSteps.\n</skill>\n\nextract page 2",
                path.display(),
                dir.path().join("pdf").display()
            )
        );
        assert!(
            expand_skill_command("/skill:pdf", &skills)
                .unwrap()
                .ends_with("</skill>")
        );
        assert_eq!(expand_skill_command("/skill:other x", &skills), None);
        assert_eq!(expand_skill_command("/skill:pdf\nx", &skills), None);
        assert_eq!(expand_skill_command("please /skill:pdf", &skills), None);
    }
}
