//! A run's prompt templates: loaded from the files Pi's places give and the
//! `--prompt-template` paths, each name once (the first found wins, with a warning).

use std::path::{Path, PathBuf};

use crate::prompt_template::{PromptTemplate, load_template};
use crate::resource_walk::all_markdown_files;
use crate::skills::merge_paths;
use crate::warning::{PromptWarning, ResourceKind};

/// Loads the templates of `discovered` (files, most important first) and then of `extra` (the
/// `--prompt-template` paths: files, or directories whose `.md` files are read).
pub(crate) fn load_templates(
    discovered: Vec<PathBuf>,
    extra: &[String],
    cwd: &Path,
    home: Option<&Path>,
    warnings: &mut Vec<PromptWarning>,
) -> Vec<PromptTemplate> {
    let mut templates: Vec<PromptTemplate> = Vec::new();
    for path in merge_paths(discovered, extra, cwd, home) {
        let files = if path.is_dir() {
            all_markdown_files(&path)
        } else if path.is_file() && path.extension().is_some_and(|ext| ext == "md") {
            vec![path]
        } else {
            if !path.exists() {
                warnings.push(PromptWarning::MissingPath {
                    kind: ResourceKind::PromptTemplate,
                    path,
                });
            }
            continue;
        };
        for file in files {
            let Some(template) = load_template(&file, warnings) else {
                continue;
            };
            if let Some(kept) = templates.iter().find(|kept| kept.name == template.name) {
                warnings.push(PromptWarning::Collision {
                    kind: ResourceKind::PromptTemplate,
                    name: template.name.clone(),
                    kept: kept.path.clone(),
                    skipped: template.path,
                });
            } else {
                templates.push(template);
            }
        }
    }
    templates
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn a_directory_path_a_file_path_a_collision_and_a_missing_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("mine")).unwrap();
        std::fs::write(root.join("mine/review.md"), "Review $1").unwrap();
        std::fs::write(root.join("mine/notes.txt"), "not a template").unwrap();
        std::fs::write(root.join("review.md"), "Another review").unwrap();
        let mut warnings = Vec::new();
        let templates = load_templates(
            Vec::new(),
            &[
                "mine".to_owned(),
                "review.md".to_owned(),
                "gone.md".to_owned(),
            ],
            root,
            None,
            &mut warnings,
        );
        assert_eq!(templates.len(), 1);
        assert_eq!(templates[0].content, "Review $1");
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(matches!(warnings[0], PromptWarning::Collision { .. }));
        assert!(matches!(warnings[1], PromptWarning::MissingPath { .. }));
    }
}
