//! A session: its header, its tree of entries, and where it is stored. Appending writes the
//! file first and changes the tree only once the line is written, so a failed append leaves
//! both the file and the session as they were.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::context::{self, ContextFromEnd, SessionContext};
use crate::entry::Entry;
use crate::error::{Result, SessionError};
use crate::header::SessionHeader;
use crate::ids::{new_entry_id, new_session_id, now_iso};
use crate::line::{self, SourceFile};
use crate::log::LogFile;
use crate::parse::{self, ParsedFile};
use crate::paths::session_file_name;
use crate::report::LoadReport;
use crate::text_file::ReadEnd;
use crate::tree::{CycleFound, Tree};

mod append;
mod line_text;
use append::{fields, insert_some};

/// Where a session's entries go.
#[derive(Debug)]
enum Storage {
    /// Nowhere (`--no-session`).
    Memory,
    /// A file not yet created: it appears with the header and the first entry in it.
    Pending(PathBuf),
    /// An open, locked file.
    Open(LogFile),
    /// A file loaded for reading only.
    ReadOnly(PathBuf),
}

/// A session: Pi's append-only tree of entries with a movable leaf.
#[derive(Debug)]
pub struct Session {
    header: SessionHeader,
    tree: Tree,
    report: LoadReport,
    storage: Storage,
}

impl Session {
    /// A session kept only in memory.
    pub fn in_memory(cwd: &Path) -> Self {
        Self::fresh(cwd, None, Storage::Memory)
    }

    /// A new session for `cwd` in `dir`, named as Pi names it
    /// (`<ISO timestamp>_<UUIDv7>.jsonl`). The file is created by the first append, with the
    /// header and that entry in it.
    pub fn create(dir: &Path, cwd: &Path) -> Self {
        let mut session = Self::fresh(cwd, None, Storage::Memory);
        let name = session_file_name(
            session.header.timestamp().unwrap_or_default(),
            session.header.id(),
        );
        session.storage = Storage::Pending(dir.join(name));
        session
    }

    /// A session kept in memory only like [`Session::in_memory`], whose id is `id` (Pi's
    /// `--no-session` with `--session-id`).
    pub fn in_memory_with_id(cwd: &Path, id: &str) -> Self {
        let mut session = Self::in_memory(cwd);
        let timestamp = session.header.timestamp().unwrap_or_default().to_owned();
        session.header = SessionHeader::new(id, &timestamp, session.header.cwd(), None);
        session
    }

    /// A new session in `dir` like [`Session::create`], whose id is `id` (Pi's `--session-id`);
    /// the caller checks that no session of `dir` has it yet.
    pub fn create_with_id(dir: &Path, cwd: &Path, id: &str) -> Self {
        let mut session = Self::create(dir, cwd);
        let timestamp = session.header.timestamp().unwrap_or_default().to_owned();
        session.header = SessionHeader::new(id, &timestamp, session.header.cwd(), None);
        session.storage = Storage::Pending(dir.join(session_file_name(&timestamp, id)));
        session
    }

    /// A new session that will be stored at `path` (Pi's `--session` with a path that does
    /// not exist yet). Fails later, on the first append, if the file exists by then.
    pub fn create_at(path: &Path, cwd: &Path) -> Self {
        Self::fresh(cwd, None, Storage::Pending(path.to_path_buf()))
    }

    /// Opens an existing session file for appending: it is read, checked, locked against
    /// other writers of ours, and its leaf is its last entry. A file of version 1 or 2 is
    /// rewritten as version 3 (atomically, keeping every line). A file that is not a session
    /// is refused and left untouched.
    pub fn open(path: &Path) -> Result<Self> {
        let mut log = LogFile::open(path)?;
        // The load's lines are read again through a handle of their own on the same open
        // file, which stays readable if the path is renamed or deleted.
        let reader = log
            .file()
            .try_clone()
            .map_err(|e| SessionError::io("open", path, e))?;
        let parsed = parse::parse(path, &Arc::new(SourceFile::new(reader, path)))?;
        log.read_to(parsed.end);
        if parsed.report.migrated_from.is_none() {
            return Self::from_parsed(parsed, Storage::Open(log), path);
        }
        // A migrated file's entries are all in memory: none refers to the file replaced here.
        let content = rewrite_content(&parsed)?;
        drop(log);
        LogFile::replace(path, &content)?;
        let mut log = LogFile::open(path)?;
        log.read_to(ReadEnd {
            end: content.len() as u64,
            lines: 0,
            last_byte: content.last().copied(),
        });
        Self::from_parsed(parsed, Storage::Open(log), path)
    }

    /// Reads a session file without opening it for writing (appends fail with
    /// [`SessionError::ReadOnly`]); older versions are migrated in memory only.
    pub fn load(path: &Path) -> Result<Self> {
        let file = std::fs::File::open(path).map_err(|e| SessionError::io("open", path, e))?;
        let metadata = file
            .metadata()
            .map_err(|e| SessionError::io("read", path, e))?;
        if !metadata.is_file() {
            return Err(SessionError::NotASession {
                path: path.to_path_buf(),
                reason: crate::error::NotASessionReason::NotARegularFile,
            });
        }
        let parsed = parse::parse(path, &Arc::new(SourceFile::new(file, path)))?;
        Self::from_parsed(parsed, Storage::ReadOnly(path.to_path_buf()), path)
    }

    /// Pi's `forkFrom` (`--fork`): a new session for `target_cwd` in `dir` holding every entry
    /// of `source`, its header's `parentSession` naming `source`.
    pub fn fork_from(source: &Path, target_cwd: &Path, dir: &Path) -> Result<Self> {
        Self::fork_from_with_id(source, target_cwd, dir, None)
    }

    /// As [`Session::fork_from`], the new session's id `id` when given (Pi's `--fork` with
    /// `--session-id`); the caller checks that no session of `dir` has it yet.
    pub fn fork_from_with_id(
        source: &Path,
        target_cwd: &Path,
        dir: &Path,
        id: Option<&str>,
    ) -> Result<Self> {
        let source_session = Self::load(source)?;
        let parent = std::path::absolute(source).unwrap_or_else(|_| source.to_path_buf());
        let mut fork = match id {
            Some(id) => Self::create_with_id(dir, target_cwd, id),
            None => Self::create(dir, target_cwd),
        };
        fork.header = SessionHeader::new(
            fork.header.id(),
            fork.header.timestamp().unwrap_or_default(),
            fork.header.cwd(),
            Some(&parent.to_string_lossy()),
        );
        let entries = source_session.tree.entries().to_vec();
        fork.write_new_file(entries)
    }

    fn fresh(cwd: &Path, parent_session: Option<&str>, storage: Storage) -> Self {
        let cwd = std::path::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf());
        let header = SessionHeader::new(
            &new_session_id(),
            &now_iso(),
            &cwd.to_string_lossy(),
            parent_session,
        );
        Self {
            header,
            tree: Tree::default(),
            report: LoadReport::default(),
            storage,
        }
    }

    fn from_parsed(parsed: ParsedFile, storage: Storage, path: &Path) -> Result<Self> {
        let ParsedFile {
            header,
            entries,
            lines,
            mut report,
            ..
        } = parsed;
        let tree = Tree::build(entries, &lines, &mut report).map_err(|CycleFound(ids)| {
            SessionError::Cycle {
                path: path.to_path_buf(),
                ids,
            }
        })?;
        Ok(Self {
            header,
            tree,
            report,
            storage,
        })
    }

    /// Creates this session's pending file holding its header and `entries` (all at once),
    /// and returns the session open on it with its leaf at the last entry.
    fn write_new_file(mut self, entries: Vec<Entry>) -> Result<Self> {
        let Storage::Pending(path) = &self.storage else {
            let mut report = LoadReport::default();
            self.tree = Tree::build(entries, &[], &mut report).map_err(|CycleFound(ids)| {
                SessionError::Cycle {
                    path: PathBuf::new(),
                    ids,
                }
            })?;
            return Ok(self);
        };
        let path = path.clone();
        let mut content = header_line(&self.header)?;
        let mut offsets = Vec::with_capacity(entries.len());
        line::for_each_text(&entries, Entry::stored_line, |_, line| {
            offsets.push(content.len() as u64);
            content.push_str(line);
            content.push('\n');
            Ok(())
        })?;
        let log = LogFile::create(&path, content.as_bytes())?;
        drop(content);
        // The copied lines that were left in the source file are read from the new file from
        // now on: this session no longer depends on the file it was copied from.
        let reader = log
            .file()
            .try_clone()
            .map_err(|e| SessionError::io("open", &path, e))?;
        let source = Arc::new(SourceFile::new(reader, &path));
        let entries = entries
            .into_iter()
            .zip(offsets)
            .map(|(entry, offset)| entry.moved_to(&source, offset))
            .collect();
        let mut report = LoadReport::default();
        let tree = Tree::build(entries, &[], &mut report).map_err(|CycleFound(ids)| {
            SessionError::Cycle {
                path: path.clone(),
                ids,
            }
        })?;
        self.tree = tree;
        self.storage = Storage::Open(log);
        Ok(self)
    }

    // ---------------------------------------------------------------- reading

    /// The header.
    pub fn header(&self) -> &SessionHeader {
        &self.header
    }

    /// The session id.
    pub fn id(&self) -> &str {
        self.header.id()
    }

    /// The file, if the session has one (existing or still to be created).
    pub fn file_path(&self) -> Option<&Path> {
        match &self.storage {
            Storage::Memory => None,
            Storage::Pending(path) | Storage::ReadOnly(path) => Some(path),
            Storage::Open(log) => Some(log.path()),
        }
    }

    /// What loading the file noticed (skipped lines, a torn last line, duplicates, ...).
    pub fn report(&self) -> &LoadReport {
        &self.report
    }

    /// All entries in file order.
    pub fn entries(&self) -> &[Entry] {
        self.tree.entries()
    }

    /// The entry with `id` (the later one when two share it).
    pub fn entry(&self, id: &str) -> Option<&Entry> {
        self.tree
            .position(id)
            .and_then(|position| self.tree.get(position))
    }

    /// The leaf's id; `None` before the first entry (or after [`Session::reset_leaf`]).
    pub fn leaf_id(&self) -> Option<&str> {
        self.tree
            .leaf()
            .and_then(|position| self.tree.get(position))
            .map(Entry::id)
    }

    /// The entries from the root to `id` (Pi's `getBranch`), or to the leaf with `None`.
    pub fn branch_entries(&self, id: Option<&str>) -> Result<Vec<&Entry>> {
        let leaf = match id {
            Some(id) => Some(self.position(id)?),
            None => self.tree.leaf(),
        };
        Ok(self
            .tree
            .path(leaf)
            .into_iter()
            .filter_map(|position| self.tree.get(position))
            .collect())
    }

    /// What the model is sent at the leaf.
    pub fn context(&self) -> Result<SessionContext> {
        context::build(&self.tree, self.tree.leaf())
    }

    /// The model and thinking level of [`Session::context`], without reading its messages.
    pub fn context_settings(&self) -> Result<context::ContextSettings> {
        context::settings_of(&self.tree, self.tree.leaf())
    }

    /// The messages of [`Session::context`] from the last one back, each read from its entry
    /// only when the iterator gets to it: a caller that needs only the context's end (the
    /// last response's usage and what came after it, as the compaction check does) reads
    /// only those entries, not the whole context.
    pub fn context_from_end(&self) -> Result<ContextFromEnd<'_>> {
        ContextFromEnd::new(&self.tree, self.tree.leaf())
    }

    /// What the model is sent at the entry `id`.
    pub fn context_at(&self, id: &str) -> Result<SessionContext> {
        context::build(&self.tree, Some(self.position(id)?))
    }

    /// The label on the entry `id`.
    pub fn label_of(&self, id: &str) -> Option<&str> {
        self.tree.label(id).map(|label| label.text.as_str())
    }

    /// The session's name: the latest `session_info` entry's, if not empty.
    pub fn name(&self) -> Option<&str> {
        self.tree
            .entries()
            .iter()
            .rev()
            .find(|entry| entry.entry_type() == "session_info")
            // A `session_info` line is in memory (only message lines stay in the file), so
            // reading it cannot fail.
            .and_then(|entry| entry.field("name").ok().flatten())
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|name| !name.is_empty())
    }

    /// The tree: roots and children (sorted by timestamp, oldest first), as Pi's `getTree`.
    pub fn tree(&self) -> crate::TreeView<'_> {
        crate::TreeView::new(&self.tree)
    }

    fn position(&self, id: &str) -> Result<usize> {
        self.tree
            .position(id)
            .ok_or_else(|| SessionError::UnknownEntry { id: id.to_owned() })
    }

    // ---------------------------------------------------------------- branching

    /// Moves the leaf to the entry `id`: the next append becomes its child.
    pub fn branch(&mut self, id: &str) -> Result<()> {
        let position = self.position(id)?;
        self.tree.set_leaf(Some(position));
        Ok(())
    }

    /// Moves the leaf before the first entry: the next append is a new root.
    pub fn reset_leaf(&mut self) {
        self.tree.set_leaf(None);
    }

    /// Moves the leaf to `id` (`None`: before the first entry) and appends a `branch_summary`
    /// of the abandoned path there; returns its id. On an error the leaf stays where it was.
    pub fn branch_with_summary(
        &mut self,
        id: Option<&str>,
        summary: &str,
        details: Option<Value>,
        from_hook: Option<bool>,
    ) -> Result<String> {
        let target = id.map(|id| self.position(id)).transpose()?;
        let previous = self.tree.leaf();
        self.tree.set_leaf(target);
        let mut map = fields([
            ("fromId", id.unwrap_or("root").into()),
            ("summary", summary.into()),
        ]);
        insert_some(&mut map, "details", details);
        insert_some(&mut map, "fromHook", from_hook.map(Value::Bool));
        let appended = self.append("branch_summary", map);
        if appended.is_err() {
            self.tree.set_leaf(previous);
        }
        appended
    }

    /// Pi's `/fork` (`createBranchedSession`): the path from the root to `entry_id` becomes a
    /// new session in `dir` (default: this file's directory) whose header names this file as
    /// `parentSession`. Labels on the path are re-emitted after it; the path's own label entries
    /// are dropped and the rest re-chained. A session in memory forks into memory.
    pub fn fork_to_new_file(&self, entry_id: &str, dir: Option<&Path>) -> Result<Self> {
        let path = self.tree.path(Some(self.position(entry_id)?));
        let mut kept: Vec<Entry> = Vec::with_capacity(path.len());
        let mut previous: Option<String> = None;
        for entry in path.iter().filter_map(|&position| self.tree.get(position)) {
            if entry.entry_type() == "label" {
                continue;
            }
            // Only an entry whose parent was a dropped label changes; the others are kept as
            // they are, line and all (rewriting one parses and writes its whole JSON).
            let entry = if entry.parent_id() == previous.as_deref() {
                entry.clone()
            } else {
                entry.with_tree_position(entry.id().to_owned(), previous.clone())?
            };
            previous = Some(entry.id().to_owned());
            kept.push(entry);
        }
        let mut taken: std::collections::HashSet<String> =
            kept.iter().map(|entry| entry.id().to_owned()).collect();
        let mut labels: Vec<(&String, &crate::tree::Label)> = self
            .tree
            .labels()
            .iter()
            .filter(|(target, _)| taken.contains(*target))
            .collect();
        labels.sort_by_key(|(_, label)| label.order);
        let mut label_entries = Vec::with_capacity(labels.len());
        for (target, label) in labels {
            let id = new_entry_id(|candidate| taken.contains(candidate));
            taken.insert(id.clone());
            let mut raw = Map::new();
            raw.insert("type".into(), "label".into());
            raw.insert("id".into(), id.clone().into());
            raw.insert(
                "parentId".into(),
                previous.clone().map_or(Value::Null, Value::String),
            );
            if let Some(timestamp) = &label.timestamp {
                raw.insert("timestamp".into(), timestamp.clone().into());
            }
            raw.insert("targetId".into(), target.clone().into());
            raw.insert("label".into(), label.text.clone().into());
            if let Ok(entry) = Entry::from_map(raw) {
                label_entries.push(entry);
            }
            previous = Some(id);
        }
        kept.extend(label_entries);

        let parent_file = self
            .file_path()
            .map(|path| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()));
        let cwd = Path::new(self.header.cwd());
        let fork = match (dir.map(Path::to_path_buf), parent_file.as_deref()) {
            (Some(dir), _) => Self::create(&dir, cwd),
            (None, Some(file)) => Self::create(file.parent().unwrap_or(Path::new(".")), cwd),
            (None, None) => Self::in_memory(cwd),
        };
        let mut fork = fork;
        fork.header = SessionHeader::new(
            fork.header.id(),
            fork.header.timestamp().unwrap_or_default(),
            fork.header.cwd(),
            parent_file
                .map(|file| file.to_string_lossy().into_owned())
                .as_deref(),
        );
        fork.write_new_file(kept)
    }

    // ---------------------------------------------------------------- durability

    /// Flushes every appended entry to the disk (`fdatasync`). The agent loop calls it before
    /// each model request and at the end of a run; a no-op without a file or new entries.
    pub fn sync(&mut self) -> Result<()> {
        match &mut self.storage {
            Storage::Open(log) => log.sync(),
            _ => Ok(()),
        }
    }
}

fn header_line(header: &SessionHeader) -> Result<String> {
    let mut line = serde_json::to_string(header.as_map()).map_err(encode)?;
    line.push('\n');
    Ok(line)
}

/// The migrated file: header, entries and every skipped line (byte for byte), in the file's
/// order.
fn rewrite_content(parsed: &ParsedFile) -> Result<Vec<u8>> {
    let mut content = header_line(&parsed.header)?.into_bytes();
    let mut kept = parsed.kept.iter().peekable();
    for (position, entry) in parsed.entries.iter().enumerate() {
        while let Some(line) = kept.next_if(|line| line.entries_before <= position) {
            content.extend_from_slice(&line.bytes);
            content.push(b'\n');
        }
        content.extend_from_slice(entry.line()?.as_bytes());
        content.push(b'\n');
    }
    for line in kept {
        content.extend_from_slice(&line.bytes);
        content.push(b'\n');
    }
    Ok(content)
}

fn encode(source: serde_json::Error) -> SessionError {
    SessionError::Encode { source }
}
