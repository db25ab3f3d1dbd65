//! Listing sessions for `-c`, `-r` and `session list`: each file's header, first user message,
//! name and entry count, read line by line without parsing every entry (only the header, the
//! first user message and `session_info` lines are parsed; other lines are told apart by the
//! `{"type":"..."` prefix Pi and we write).

use std::fs::File;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;

use crate::error::{Result, SessionError};
use crate::header::SessionHeader;
use crate::text_file;

/// One session file, as a picker shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSummary {
    /// The file.
    pub path: PathBuf,
    /// The header.
    pub header: SessionHeader,
    /// The latest `session_info` name, if any and not empty.
    pub name: Option<String>,
    /// The text of the first user message (text blocks joined by spaces).
    pub first_message: Option<String>,
    /// Lines after the header that are not blank.
    pub entry_count: usize,
    /// Of them, `message` entries.
    pub message_count: usize,
    /// The file's modification time.
    pub modified: SystemTime,
}

/// The sessions of a directory, newest first, and the files that could not be read.
#[derive(Debug, Default)]
pub struct SessionListing {
    /// Sessions, newest modification time first.
    pub sessions: Vec<SessionSummary>,
    /// `.jsonl` files that could not be read (files that are not sessions are left out).
    pub unreadable: Vec<SessionError>,
}

/// The sessions in `dir` (Pi's `SessionManager.list`); a missing directory has none.
pub fn list_sessions(dir: &Path) -> Result<SessionListing> {
    let mut listing = SessionListing::default();
    collect(dir, &mut listing)?;
    sort(&mut listing);
    Ok(listing)
}

/// The sessions of every cwd under `sessions_root` (Pi's `listAll`).
pub fn list_all_sessions(sessions_root: &Path) -> Result<SessionListing> {
    let mut listing = SessionListing::default();
    let dirs = match std::fs::read_dir(sessions_root) {
        Ok(dirs) => dirs,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(listing),
        Err(error) => return Err(SessionError::io("list", sessions_root, error)),
    };
    for dir in dirs {
        let dir = dir.map_err(|e| SessionError::io("list", sessions_root, e))?;
        if dir.file_type().is_ok_and(|kind| kind.is_dir())
            && let Err(error) = collect(&dir.path(), &mut listing)
        {
            listing.unreadable.push(error);
        }
    }
    sort(&mut listing);
    Ok(listing)
}

/// The newest session in `dir` by modification time (Pi's `-c`), if any.
pub fn most_recent_session(dir: &Path) -> Result<Option<PathBuf>> {
    Ok(list_sessions(dir)?
        .sessions
        .into_iter()
        .next()
        .map(|summary| summary.path))
}

/// The summary of one file; `None` when it is not a session.
pub fn read_summary(path: &Path) -> Result<Option<SessionSummary>> {
    let file = File::open(path).map_err(|e| SessionError::io("open", path, e))?;
    let metadata = file
        .metadata()
        .map_err(|e| SessionError::io("read", path, e))?;
    if !metadata.is_file() {
        return Ok(None);
    }
    let mut header = None;
    let mut not_a_session = false;
    let mut summary_fields = (None, None, 0usize, 0usize);
    // Line by line through one small buffer: a line over the limit is refused unread.
    text_file::for_each_line(&file, 0, None, 0, |_, text| {
        let line = text.map_or_else(|bytes| bytes, str::as_bytes);
        if line.iter().all(u8::is_ascii_whitespace) {
            return ControlFlow::Continue(());
        }
        if header.is_none() {
            match serde_json::from_slice::<Value>(line) {
                // Lines before the header that are not JSON are skipped, as Pi does.
                Err(_) => {}
                Ok(value) => match SessionHeader::from_value(value) {
                    Some(found) => header = Some(found),
                    None => {
                        not_a_session = true;
                        return ControlFlow::Break(());
                    }
                },
            }
            return ControlFlow::Continue(());
        }
        let (name, first_message, entries, messages) = &mut summary_fields;
        *entries += 1;
        match entry_type(line).as_deref() {
            Some("message") => {
                *messages += 1;
                if first_message.is_none() && contains(line, br#""role":"user""#) {
                    *first_message = user_text(line);
                }
            }
            Some("session_info") => {
                *name = serde_json::from_slice::<Value>(line)
                    .ok()
                    .and_then(|value| value.get("name").and_then(Value::as_str).map(str::to_owned))
                    .map(|name| name.trim().to_owned())
                    .filter(|name| !name.is_empty());
            }
            _ => {}
        }
        ControlFlow::Continue(())
    })
    .map_err(|error| SessionError::lines(path, error))?;
    if not_a_session {
        return Ok(None);
    }
    let Some(header) = header else {
        return Ok(None);
    };
    let (name, first_message, entry_count, message_count) = summary_fields;
    Ok(Some(SessionSummary {
        path: path.to_path_buf(),
        header,
        name,
        first_message,
        entry_count,
        message_count,
        modified: metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH),
    }))
}

fn collect(dir: &Path, listing: &mut SessionListing) -> Result<()> {
    let files = match std::fs::read_dir(dir) {
        Ok(files) => files,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(SessionError::io("list", dir, error)),
    };
    for file in files {
        let file = file.map_err(|e| SessionError::io("list", dir, e))?;
        let path = file.path();
        if path.extension().is_none_or(|ext| ext != "jsonl") {
            continue;
        }
        match read_summary(&path) {
            Ok(Some(summary)) => listing.sessions.push(summary),
            Ok(None) => {}
            Err(error) => listing.unreadable.push(error),
        }
    }
    Ok(())
}

fn sort(listing: &mut SessionListing) {
    listing.sessions.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| b.path.cmp(&a.path))
    });
}

/// The entry's type from the `{"type":"...` prefix, or by parsing the line when it is
/// written another way.
fn entry_type(line: &[u8]) -> Option<String> {
    const PREFIX: &[u8] = br#"{"type":""#;
    if let Some(rest) = line.strip_prefix(PREFIX) {
        let end = rest
            .iter()
            .position(|&byte| byte == b'"' || byte == b'\\')?;
        if rest.get(end) == Some(&b'"') {
            return std::str::from_utf8(rest.get(..end)?)
                .ok()
                .map(str::to_owned);
        }
    }
    let value: Value = serde_json::from_slice(line).ok()?;
    value.get("type")?.as_str().map(str::to_owned)
}

/// A user message's text, as Pi's picker takes it (text blocks joined by a space).
fn user_text(line: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(line).ok()?;
    let message = value.get("message")?;
    if message.get("role")?.as_str()? != "user" {
        return None;
    }
    let text = match message.get("content")? {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        _ => return None,
    };
    (!text.is_empty()).then_some(text)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}
