//! `find`: files and directories whose name (or, for a pattern with `/`, whose path) matches a
//! glob, below a directory, `.gitignore` respected. Runs on the blocking pool and stops when
//! the call is cancelled (upstream blocks its event loop and cannot be interrupted).

use globset::{GlobBuilder, GlobMatcher};
use pi_tool::{RegisteredTool, ToolContext, ToolError, ToolOutput};
use serde_json::json;

use crate::Workspace;
use crate::params::FindParams;
use crate::report::Report;
use crate::tool::{Outcome, reading_tool};
use crate::walk::{each_entry, relative, walker};

const DEFAULT_LIMIT: usize = 1000;

/// The `find` tool for `workspace`.
pub fn find_tool(workspace: &Workspace) -> RegisteredTool {
    reading_tool(workspace, "find", false, find)
}

fn find(workspace: &Workspace, params: &FindParams, context: &ToolContext) -> Outcome {
    let root = workspace.confined_path(params.path.as_deref().unwrap_or("."))?;
    if !root.is_dir() {
        return Err(ToolError::new(format!(
            "Path not found: {}",
            root.display()
        )));
    }
    let by_path = params.pattern.contains('/');
    // Smart case, as fd (upstream's finder) and ripgrep: a pattern without upper-case letters
    // matches either case.
    let case_insensitive = !params.pattern.chars().any(char::is_uppercase);
    let glob: GlobMatcher = GlobBuilder::new(params.pattern.trim_start_matches("./"))
        .literal_separator(by_path)
        .case_insensitive(case_insensitive)
        .build()
        .map_err(|error| ToolError::new(format!("Invalid pattern {}: {error}", params.pattern)))?
        .compile_matcher();
    let limit = params.limit.map_or(DEFAULT_LIMIT, |limit| {
        usize::try_from(limit).unwrap_or(usize::MAX)
    });
    let mut found = Vec::new();
    let mut limit_reached = false;
    each_entry(&walker(&root, None)?, context.signal(), |entry| {
        let path = relative(&root, entry.path());
        let matched = if by_path {
            glob.is_match(&path)
        } else {
            glob.is_match(entry.file_name())
        };
        if matched {
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
