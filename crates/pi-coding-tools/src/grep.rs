//! `grep`: lines matching a regular expression (or a literal) in a file or below a directory,
//! with context, `.gitignore`, `.ignore` and `.rgignore` respected, binary files skipped. Built
//! on ripgrep's own crates, so there is no `rg` binary to find or download.

use std::path::Path;

use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use pi_tool::{RegisteredTool, ToolContext, ToolError, ToolOutput};
use serde_json::json;

use crate::Workspace;
use crate::params::GrepParams;
use crate::report::Report;
use crate::tool::{Outcome, reading_tool};
use crate::truncate::{GREP_MAX_LINE_LENGTH, shorten_line};
use crate::walk::{ABORTED, Walker, relative};

const DEFAULT_LIMIT: usize = 100;

/// The `grep` tool for `workspace`.
pub fn grep_tool(workspace: &Workspace) -> RegisteredTool {
    reading_tool(workspace, "grep", false, grep)
}

/// The lines found so far, across files.
struct Found {
    lines: Vec<String>,
    matches: usize,
    limit: usize,
    shortened: bool,
}

impl Found {
    fn push(&mut self, file: &str, number: Option<u64>, separator: char, bytes: &[u8]) {
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_end_matches(['\n', '\r']);
        let (text, shortened) = shorten_line(text, GREP_MAX_LINE_LENGTH);
        self.shortened |= shortened;
        let number = number.unwrap_or_default();
        self.lines
            .push(format!("{file}{separator}{number}{separator} {text}"));
    }
}

/// Collects one file's matches and context lines into [`Found`].
struct FileSink<'a> {
    file: &'a str,
    found: &'a mut Found,
}

impl Sink for FileSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _searcher: &Searcher, line: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        self.found
            .push(self.file, line.line_number(), ':', line.bytes());
        self.found.matches += 1;
        Ok(self.found.matches < self.found.limit)
    }

    fn context(
        &mut self,
        _searcher: &Searcher,
        line: &SinkContext<'_>,
    ) -> Result<bool, Self::Error> {
        self.found
            .push(self.file, line.line_number(), '-', line.bytes());
        Ok(true)
    }
}

fn grep(workspace: &Workspace, params: &GrepParams, context: &ToolContext) -> Outcome {
    let root = workspace.confined_path(params.path.as_deref().unwrap_or("."))?;
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(params.ignore_case.unwrap_or(false))
        .fixed_strings(params.literal.unwrap_or(false))
        .build(&params.pattern)
        .map_err(|error| ToolError::new(format!("Invalid pattern {}: {error}", params.pattern)))?;
    let lines_around = params
        .context
        .map_or(0, |lines| usize::try_from(lines).unwrap_or(usize::MAX));
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .before_context(lines_around)
        .after_context(lines_around)
        .binary_detection(BinaryDetection::quit(0))
        .build();
    let limit = params.limit.map_or(DEFAULT_LIMIT, |limit| {
        usize::try_from(limit).unwrap_or(usize::MAX)
    });
    let mut found = Found {
        lines: Vec::new(),
        matches: 0,
        limit,
        shortened: false,
    };
    let mut search = |path: &Path, shown: &str, found: &mut Found| {
        // A file that cannot be read is skipped, as ripgrep does.
        let _ = searcher.search_path(&matcher, path, FileSink { file: shown, found });
        found.matches < found.limit
    };
    if root.is_file() {
        let shown = root
            .file_name()
            .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
        search(&root, &shown, &mut found);
    } else if root.is_dir() {
        Walker::new(&root, params.glob.as_deref(), ".rgignore")?.each_entry(
            context.signal(),
            |entry| {
                if !entry.file_type().is_some_and(|kind| kind.is_file()) {
                    return true;
                }
                search(entry.path(), &relative(&root, entry.path()), &mut found)
            },
        )?;
    } else {
        return Err(ToolError::new(format!(
            "Path not found: {}",
            root.display()
        )));
    }
    if context.is_cancelled() {
        return Err(ToolError::new(ABORTED));
    }
    if found.matches == 0 {
        return Ok(ToolOutput::text("No matches found"));
    }
    let mut report = Report::default();
    if found.matches >= limit {
        report.note(
            format!(
                "{limit} matches limit reached. Use limit={} for more, or refine pattern",
                limit.saturating_mul(2)
            ),
            "matchLimitReached",
            json!(limit),
        );
    }
    let listed = report.cut(&found.lines);
    if found.shortened {
        report.note(
            format!(
                "Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"
            ),
            "linesTruncated",
            json!(true),
        );
    }
    Ok(report.finish(listed))
}
