//! `find`: files and directories whose name (or, for a pattern with `/`, whose path) matches a
//! glob, below a directory, `.gitignore`, `.ignore` and `.fdignore` respected. Runs on the
//! blocking pool and stops when the call is cancelled (upstream blocks its event loop and cannot
//! be interrupted).

use globset::{GlobBuilder, GlobMatcher};
use pi_tool::{RegisteredTool, ToolContext, ToolError, ToolOutput};
use serde_json::json;

use crate::Workspace;
use crate::params::FindParams;
use crate::report::Report;
use crate::tool::{Outcome, numbers_as_text, reading_tool};
use crate::walk::{Walker, relative};

const DEFAULT_LIMIT: usize = 1000;

/// The `find` tool for `workspace`.
pub fn find_tool(workspace: &Workspace) -> RegisteredTool {
    reading_tool(workspace, "find", false, find, None, Some(prepare))
}

/// A number sent as the pattern or the path is taken as its text.
fn prepare(arguments: &serde_json::Value) -> Option<serde_json::Value> {
    numbers_as_text(arguments, &["pattern", "path"])
}

fn find(workspace: &Workspace, params: &FindParams, context: &ToolContext) -> Outcome {
    let root = workspace.confined_path(params.path.as_deref().unwrap_or("."))?;
    if !crate::path_errors::metadata(&root)?.is_dir() {
        return Err(ToolError::new(format!(
            "Not a directory: {}",
            root.display()
        )));
    }
    let pattern = Pattern::of(&params.pattern)?;
    let limit = params.limit.map_or(DEFAULT_LIMIT, |limit| {
        usize::try_from(limit).unwrap_or(usize::MAX)
    });
    let mut found = Vec::new();
    let mut limit_reached = false;
    Walker::new(&root, None, ".fdignore")?
        .hiding(workspace.unreadable())
        .each_entry(context.signal(), |entry| {
            let path = relative(&root, entry.path());
            if pattern.matches(entry, &path) {
                if found.len() == limit {
                    limit_reached = true;
                    return false;
                }
                let is_dir = entry.file_type().is_some_and(|kind| kind.is_dir());
                found.push(if is_dir { format!("{path}/") } else { path });
            }
            true
        })?;
    if found.is_empty() {
        return Ok(ToolOutput::text("No files found matching pattern"));
    }
    let mut report = Report::default();
    if limit_reached {
        report.note(
            format!(
                "{limit} results limit reached. Use limit={} for more, or refine pattern",
                limit.saturating_mul(2)
            ),
            "resultLimitReached",
            json!(limit),
        );
    }
    let listed = report.cut(&found);
    Ok(report.finish(listed))
}

/// A `find` pattern as fd (upstream's finder) reads it.
struct Pattern {
    glob: GlobMatcher,
    against: Against,
}

/// What a pattern is matched against.
enum Against {
    /// The entry's name: a pattern without `/`.
    Name,
    /// The path relative to the directory searched.
    RelativePath,
    /// The absolute path: a pattern starting with `/`.
    AbsolutePath,
}

impl Pattern {
    fn of(pattern: &str) -> Result<Self, ToolError> {
        // A pattern with `/` matches the path, at any depth, as fd's `--full-path` with the
        // `**/` upstream puts in front (`deep/**` finds `src/deep/x`); `./` anchors it at the
        // directory searched, and `/` at the root of the file system.
        let (glob, against) = if let Some(anchored) = pattern.strip_prefix("./") {
            (anchored.to_owned(), Against::RelativePath)
        } else if pattern.starts_with('/') {
            (pattern.to_owned(), Against::AbsolutePath)
        } else if !pattern.contains('/') {
            (pattern.to_owned(), Against::Name)
        } else if pattern.starts_with("**/") {
            (pattern.to_owned(), Against::RelativePath)
        } else {
            (format!("**/{pattern}"), Against::RelativePath)
        };
        // Smart case, as fd and ripgrep: a pattern without upper-case letters matches either
        // case.
        let case_insensitive = !pattern.chars().any(char::is_uppercase);
        let glob = GlobBuilder::new(&glob)
            .literal_separator(!matches!(against, Against::Name))
            .case_insensitive(case_insensitive)
            .build()
            .map_err(|error| {
                ToolError::with_source(format!("Invalid pattern {pattern}: {error}"), error)
            })?
            .compile_matcher();
        Ok(Self { glob, against })
    }

    /// Whether `entry`, at `relative` below the directory searched, matches.
    fn matches(&self, entry: &ignore::DirEntry, relative: &str) -> bool {
        match self.against {
            Against::Name => self.glob.is_match(entry.file_name()),
            Against::RelativePath => self.glob.is_match(relative),
            Against::AbsolutePath => self.glob.is_match(entry.path()),
        }
    }
}
