//! `grep`: lines matching a regular expression (or a literal) in a file or below a directory,
//! with context, `.gitignore`, `.ignore` and `.rgignore` respected, binary files skipped. Built
//! on ripgrep's own crates, so there is no `rg` binary to find or download.

use std::path::Path;

use grep_regex::RegexMatcherBuilder;
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use pi_tool::{RegisteredTool, ToolContext, ToolError, ToolOutput};
use serde_json::json;

use crate::Workspace;
use crate::params::GrepParams;
use crate::report::Report;
use crate::tool::{Outcome, numbers_as_text, reading_tool};
use crate::truncate::{GREP_MAX_LINE_LENGTH, shorten_line};
use crate::walk::{ABORTED, Walker, relative};

const DEFAULT_LIMIT: usize = 100;

/// The most a file's search holds in memory: its longest line (with the context lines asked
/// for) must fit. A longer line stops that file's search there, and the result says so: a
/// one-line 1 GB file took 1.9 GB before. Far above a minified bundle's line.
pub(crate) const GREP_MAX_HELD_BYTES: usize = 32 << 20;

/// The `grep` tool for `workspace`.
pub fn grep_tool(workspace: &Workspace) -> RegisteredTool {
    reading_tool(workspace, "grep", false, grep, None, Some(prepare))
}

/// A number sent as the pattern, the path or the glob is taken as its text.
fn prepare(arguments: &serde_json::Value) -> Option<serde_json::Value> {
    numbers_as_text(arguments, &["pattern", "path", "glob"])
}

/// The lines found so far, across files.
struct Found {
    lines: Vec<String>,
    matches: usize,
    limit: usize,
    shortened: bool,
    /// Files whose search stopped at a line longer than [`GREP_MAX_HELD_BYTES`].
    stopped: Vec<String>,
}

impl Found {
    fn push(&mut self, file: &str, number: Option<u64>, separator: char, bytes: &[u8]) {
        // Only the line's start is shown: four bytes a character at most, so a longer line is
        // shortened all the same, without copying all of it.
        let shown = bytes.get(..(GREP_MAX_LINE_LENGTH + 1) * 4).unwrap_or(bytes);
        let text = String::from_utf8_lossy(shown);
        let text = text.trim_end_matches(['\n', '\r']);
        let (text, shortened) = shorten_line(text, GREP_MAX_LINE_LENGTH);
        self.shortened |= shortened;
        let number = number.unwrap_or_default();
        self.lines
            .push(format!("{file}{separator}{number}{separator} {text}"));
    }

    fn limit_reached(&self) -> bool {
        self.matches >= self.limit
    }
}

/// Collects one file's matches and context lines into [`Found`].
struct FileSink<'a> {
    file: &'a str,
    found: &'a mut Found,
    /// Context lines still owed after the last match the limit lets through, so that match is
    /// shown with the context asked for, as its predecessors were.
    trailing: usize,
    /// Lines of context asked for.
    context: usize,
    /// Where the file was found to be binary (a NUL byte), if it was: its lines are no longer
    /// shown, only where the first match is.
    binary_at: Option<u64>,
    /// Where the first match after that is: the start of its line (NUL bytes end lines then).
    binary_match: Option<u64>,
}

impl<'a> FileSink<'a> {
    fn new(file: &'a str, found: &'a mut Found, context: usize) -> Self {
        Self {
            file,
            found,
            trailing: 0,
            context,
            binary_at: None,
            binary_match: None,
        }
    }

    /// One more line of the context owed after the last match shown; whether more are owed.
    fn trailing_line(&mut self, number: Option<u64>, bytes: &[u8]) -> bool {
        if self.trailing > 0 {
            self.found.push(self.file, number, '-', bytes);
            self.trailing -= 1;
        }
        self.trailing > 0
    }
}

impl Sink for FileSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _searcher: &Searcher, line: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        if self.binary_at.is_some() {
            // One match is enough to say where; a binary file counts as one.
            self.binary_match = Some(line.absolute_byte_offset());
            self.found.matches += 1;
            return Ok(false);
        }
        if self.found.limit_reached() {
            // A match within the context owed is shown as context: the limit holds.
            return Ok(self.trailing_line(line.line_number(), line.bytes()));
        }
        self.found
            .push(self.file, line.line_number(), ':', line.bytes());
        self.found.matches += 1;
        if self.found.limit_reached() {
            self.trailing = self.context;
            return Ok(self.trailing > 0);
        }
        Ok(true)
    }

    fn context(
        &mut self,
        _searcher: &Searcher,
        line: &SinkContext<'_>,
    ) -> Result<bool, Self::Error> {
        if self.binary_at.is_some() {
            return Ok(true);
        }
        if self.found.limit_reached() {
            return Ok(match line.kind() {
                SinkContextKind::After => self.trailing_line(line.line_number(), line.bytes()),
                _ => self.trailing > 0,
            });
        }
        self.found
            .push(self.file, line.line_number(), '-', line.bytes());
        Ok(true)
    }

    fn binary_data(&mut self, _searcher: &Searcher, offset: u64) -> Result<bool, Self::Error> {
        self.binary_at = Some(offset);
        Ok(true)
    }
}

/// The 1-based line of `path` that byte `offset` is on.
fn line_at(path: &Path, offset: u64) -> std::io::Result<u64> {
    let file = std::fs::File::open(path)?;
    let mut reader = std::io::BufReader::new(std::io::Read::take(file, offset));
    let mut newlines = 0;
    loop {
        let buffer = std::io::BufRead::fill_buf(&mut reader)?;
        if buffer.is_empty() {
            return Ok(newlines + 1);
        }
        newlines += memchr::memchr_iter(b'\n', buffer).count() as u64;
        let length = buffer.len();
        std::io::BufRead::consume(&mut reader, length);
    }
}

fn grep(workspace: &Workspace, params: &GrepParams, context: &ToolContext) -> Outcome {
    let root = workspace.confined_path(params.path.as_deref().unwrap_or("."))?;
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(params.ignore_case.unwrap_or(false))
        .fixed_strings(params.literal.unwrap_or(false))
        .build(&params.pattern)
        .map_err(|error| {
            ToolError::with_source(
                format!("Invalid pattern {}: {error}", params.pattern),
                error,
            )
        })?;
    let lines_around = params
        .context
        .map_or(0, |lines| usize::try_from(lines).unwrap_or(usize::MAX));
    // A file named explicitly is searched whole, as ripgrep does: NUL bytes end lines, and a
    // match in binary data is reported by where it is, not by its bytes. Walking a directory,
    // a binary file is skipped at its first NUL byte.
    let named_file = root.is_file();
    let binary = if named_file {
        BinaryDetection::convert(0)
    } else {
        BinaryDetection::quit(0)
    };
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .before_context(lines_around)
        .after_context(lines_around)
        .binary_detection(binary)
        .heap_limit(Some(GREP_MAX_HELD_BYTES))
        .build();
    let limit = params.limit.map_or(DEFAULT_LIMIT, |limit| {
        usize::try_from(limit).unwrap_or(usize::MAX)
    });
    let mut found = Found {
        lines: Vec::new(),
        matches: 0,
        limit,
        shortened: false,
        stopped: Vec::new(),
    };
    let mut search = |path: &Path, shown: &str, found: &mut Found| {
        let mut sink = FileSink::new(shown, found, lines_around);
        // A file that cannot be opened is skipped, as ripgrep does.
        let stopped = match std::fs::File::open(path) {
            Ok(file) => searcher.search_file(&matcher, &file, &mut sink).err(),
            Err(_) => None,
        };
        let binary_match = sink.binary_match;
        if let Some(error) = stopped {
            // grep-searcher says so in words only: its error for a line over the limit.
            let why = if error.to_string().contains("allocation limit") {
                format!("a line longer than {} MiB", GREP_MAX_HELD_BYTES >> 20)
            } else {
                error.to_string()
            };
            found.stopped.push(format!("{shown} ({why})"));
        }
        if let Some(offset) = binary_match {
            let line = line_at(path, offset).map_or_else(
                |_| String::new(),
                |line| format!("first match on line {line}, "),
            );
            found.lines.push(format!(
                "{shown}: binary file matches ({line}near byte {offset}; its bytes are not shown)"
            ));
        }
        !found.limit_reached()
    };
    if named_file {
        let shown = root
            .file_name()
            .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
        search(&root, &shown, &mut found);
    } else if root.is_dir() {
        Walker::new(&root, params.glob.as_deref(), ".rgignore")?
            .hiding(workspace.unreadable())
            .each_entry(context.signal(), |entry| {
                if !entry.file_type().is_some_and(|kind| kind.is_file()) {
                    return true;
                }
                search(entry.path(), &relative(&root, entry.path()), &mut found)
            })?;
    } else {
        // There, but neither a file nor a directory (a FIFO, a device), or not there at all.
        crate::path_errors::metadata(&root)?;
        return Err(ToolError::new(format!(
            "Not a regular file or directory: {}",
            root.display()
        )));
    }
    if context.is_cancelled() {
        return Err(ToolError::new(ABORTED));
    }
    if found.matches == 0 && found.stopped.is_empty() {
        return Ok(ToolOutput::text("No matches found"));
    }
    let mut report = Report::default();
    if found.limit_reached() {
        report.note(
            format!(
                "{limit} matches limit reached. Use limit={} for more, or refine pattern",
                limit.saturating_mul(2)
            ),
            "matchLimitReached",
            json!(limit),
        );
    }
    let listed = if found.matches == 0 {
        "No matches found".to_owned()
    } else {
        report.cut(&found.lines)
    };
    if found.shortened {
        report.note(
            format!(
                "Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"
            ),
            "linesTruncated",
            json!(true),
        );
    }
    if !found.stopped.is_empty() {
        report.note(
            format!(
                "Not searched past: {}. Use read to see it",
                found.stopped.join(", ")
            ),
            "searchStopped",
            json!(found.stopped),
        );
    }
    Ok(report.finish(listed))
}
