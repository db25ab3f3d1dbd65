//! The page: a header with what the session is and what it cost, the tree, the current
//! branch from its first entry to the leaf, then every other branch from where it left.
//! Every entry is written exactly once.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use pi_session::{Entry, EntryKind, Session};
use serde_json::Value;

use crate::content::str_field;
use crate::entry::{self, Results};
use crate::escape;
use crate::tree;

/// The page's style sheet (no fonts, images or scripts from anywhere).
const STYLE: &str = include_str!("style.css");

/// The whole page for `session`.
pub(crate) fn render(session: &Session) -> String {
    let entries = session.entries();
    // About what the text holds plus the markup around it.
    let mut out =
        String::with_capacity(entries.iter().map(Entry::line_len).sum::<usize>() + 16_384);
    let title = session
        .name()
        .map_or_else(|| format!("Session {}", session.id()), str::to_owned);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    // Nothing runs and nothing is fetched, whatever a message holds: the only images are the
    // session's own, inline.
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">\n");
    out.push_str(
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
    );
    escape::text(&mut out, &escape::one_line(&title, 120));
    out.push_str("</title>\n<style>\n");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n");
    header(&mut out, session, &title);
    let path: Vec<&Entry> = session.branch_entries(None).unwrap_or_default();
    let on_path: HashSet<&str> = path.iter().map(|entry| entry.id()).collect();
    out.push_str("<div class=\"layout\">\n");
    tree::render(&mut out, session, &on_path);
    out.push_str("<main>\n<section class=\"branch current\"><h2>Current branch</h2>\n");
    section(&mut out, session, &path);
    out.push_str("</section>\n");
    other_branches(&mut out, session, &on_path);
    out.push_str("</main>\n</div>\n</body>\n</html>\n");
    out
}

fn header(out: &mut String, session: &Session, title: &str) {
    out.push_str("<header class=\"session\"><h1>");
    escape::text(out, title);
    out.push_str("</h1><dl>");
    let header = session.header();
    let mut row = |name: &str, value: &str| {
        let _ = write!(out, "<dt>{name}</dt><dd>");
        escape::text(out, value);
        out.push_str("</dd>");
    };
    row("Session", session.id());
    row("Directory", header.cwd());
    if let Some(started) = header.timestamp() {
        row("Started", started);
    }
    if let Some(file) = session.file_path() {
        row("File", &file.display().to_string());
    }
    let totals = Totals::of(session);
    row("Entries", &session.entries().len().to_string());
    row(
        "Messages",
        &format!(
            "{} user, {} assistant, {} tool results",
            totals.user, totals.assistant, totals.results
        ),
    );
    row(
        "Tokens",
        &format!("{:.0} in, {:.0} out", totals.input, totals.output),
    );
    if totals.cost > 0.0 {
        row("Cost", &format!("${:.4}", totals.cost));
    }
    out.push_str("</dl></header>\n");
}

/// Counts and token totals over every entry of the file.
#[derive(Default)]
struct Totals {
    user: usize,
    assistant: usize,
    results: usize,
    input: f64,
    output: f64,
    cost: f64,
}

impl Totals {
    fn of(session: &Session) -> Self {
        let mut totals = Self::default();
        for entry in session.entries() {
            let Ok(EntryKind::Message(message)) = entry.kind() else {
                continue;
            };
            match str_field(message, "role") {
                "user" => totals.user += 1,
                "toolResult" => totals.results += 1,
                "assistant" => {
                    totals.assistant += 1;
                    let number = |pointer: &str| {
                        message
                            .pointer(pointer)
                            .and_then(Value::as_f64)
                            .unwrap_or(0.0)
                    };
                    totals.input += number("/usage/input");
                    totals.output += number("/usage/output");
                    totals.cost += number("/usage/cost/total");
                }
                _ => {}
            }
        }
        totals
    }
}

/// Appends `entries` in order, each tool call with its result when both are among them.
fn section(out: &mut String, session: &Session, entries: &[&Entry]) {
    let results = results_of(entries);
    for entry in entries {
        entry::render(out, entry, &results, session.label_of(entry.id()));
    }
}

/// The tool results among `entries` whose call is among them too, by call id.
fn results_of<'a>(entries: &[&'a Entry]) -> Results<'a> {
    let mut calls = HashSet::new();
    let mut results = HashMap::new();
    for entry in entries {
        let Ok(EntryKind::Message(message)) = entry.kind() else {
            continue;
        };
        match str_field(message, "role") {
            "assistant" => {
                let blocks = crate::content::content_blocks(message);
                for block in blocks {
                    if str_field(block, "type") == "toolCall" {
                        calls.insert(str_field(block, "id").to_owned());
                    }
                }
            }
            "toolResult" => {
                let call = str_field(message, "toolCallId");
                if calls.contains(call) && !results.contains_key(call) {
                    results.insert(call.to_owned(), (entry.id(), message.clone()));
                }
            }
            _ => {}
        }
    }
    results
}

/// Appends every branch off the current path: for each leaf in tree order, its entries back to
/// the first one already written. Each entry is visited once, whatever the tree's shape.
fn other_branches(out: &mut String, session: &Session, on_path: &HashSet<&str>) {
    let view = session.tree();
    let mut written: HashSet<&str> = on_path.clone();
    let mut stack: Vec<&Entry> = view.roots().collect();
    stack.reverse();
    let mut leaves = Vec::new();
    while let Some(entry) = stack.pop() {
        let children: Vec<&Entry> = view.children(entry.id()).collect();
        if children.is_empty() {
            leaves.push(entry);
        }
        stack.extend(children.into_iter().rev());
    }
    let mut any = false;
    for leaf in leaves {
        let mut branch = Vec::new();
        let mut next = Some(leaf);
        while let Some(entry) = next.filter(|entry| !written.contains(entry.id())) {
            written.insert(entry.id());
            branch.push(entry);
            next = entry.parent_id().and_then(|parent| session.entry(parent));
        }
        if branch.is_empty() {
            continue;
        }
        branch.reverse();
        if !any {
            out.push_str("<h2 class=\"others\">Other branches</h2>\n");
            any = true;
        }
        out.push_str("<section class=\"branch other\"><h3>");
        match branch.first().and_then(|first| first.parent_id()) {
            Some(parent) => {
                out.push_str("From ");
                entry::link(out, parent);
            }
            None => out.push_str("A separate root"),
        }
        out.push_str("</h3>\n");
        section(out, session, &branch);
        out.push_str("</section>\n");
    }
}
