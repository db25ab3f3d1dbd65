//! What loading a file found wrong but survived: every problem named with its line and byte
//! offset, so a user can see what was skipped, and nothing in the file is changed for it.

/// A line that is not JSON, or JSON that is not an entry: skipped (the file keeps it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedLine {
    /// 1-based line number.
    pub line: usize,
    /// Byte offset of the line's start.
    pub offset: u64,
    /// Why it was skipped.
    pub reason: String,
}

/// The last line of the file, cut off by a crash mid-write (no newline and not valid JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TornTail {
    /// Byte offset where the torn line starts.
    pub offset: u64,
    /// How many bytes of it are there.
    pub len: u64,
}

/// An entry whose id an earlier entry already has. Lookups find the later one (as in Pi).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateId {
    /// The id.
    pub id: String,
    /// 1-based line of the later entry.
    pub line: usize,
}

/// An entry whose `parentId` names no entry: it is treated as a root (as in Pi).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Orphan {
    /// The entry.
    pub id: String,
    /// The id it names as its parent.
    pub missing_parent: String,
}

/// An entry of a known type without a field that type needs: kept, but left out of the
/// context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MalformedEntry {
    /// The entry.
    pub id: String,
    /// Its type.
    pub entry_type: String,
    /// The field missing or of the wrong type.
    pub missing: &'static str,
}

/// Everything loading a session noticed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// Lines skipped (not JSON, or not an entry).
    pub skipped: Vec<SkippedLine>,
    /// A torn last line, ignored; the next append starts on a fresh line after it.
    pub torn_tail: Option<TornTail>,
    /// Ids seen twice.
    pub duplicate_ids: Vec<DuplicateId>,
    /// Entries whose parent is missing.
    pub orphans: Vec<Orphan>,
    /// Entries of known types missing required fields.
    pub malformed: Vec<MalformedEntry>,
    /// The version the file had when it was older than 3 and was migrated in memory.
    pub migrated_from: Option<u64>,
}

impl LoadReport {
    /// Whether the file loaded without any remark.
    pub fn is_clean(&self) -> bool {
        self == &Self::default()
    }
}

impl std::fmt::Display for LoadReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for skipped in &self.skipped {
            writeln!(
                f,
                "line {} (byte {}) skipped: {}",
                skipped.line, skipped.offset, skipped.reason
            )?;
        }
        if let Some(torn) = self.torn_tail {
            writeln!(
                f,
                "torn last line at byte {} ({} bytes, no newline) ignored",
                torn.offset, torn.len
            )?;
        }
        for duplicate in &self.duplicate_ids {
            writeln!(
                f,
                "line {}: entry id {} already used; the later entry wins",
                duplicate.line, duplicate.id
            )?;
        }
        for orphan in &self.orphans {
            writeln!(
                f,
                "entry {} names missing parent {}; treated as a root",
                orphan.id, orphan.missing_parent
            )?;
        }
        for malformed in &self.malformed {
            writeln!(
                f,
                "entry {} ({}) lacks {}; kept but not used",
                malformed.id, malformed.entry_type, malformed.missing
            )?;
        }
        if let Some(version) = self.migrated_from {
            writeln!(f, "migrated from version {version} to 3")?;
        }
        Ok(())
    }
}
