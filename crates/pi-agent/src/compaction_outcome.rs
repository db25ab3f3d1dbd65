//! What a compaction's events report, whether or not this build compacts sessions itself (the
//! `compaction` feature): a program may compact in its own way and announce it with the same
//! events.

use serde::{Deserialize, Serialize};

/// Why a compaction runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CompactionReason {
    /// The context passed the threshold.
    Threshold,
    /// The provider said the request did not fit.
    Overflow,
    /// Someone asked for it.
    Manual,
}

/// A compaction that was written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Compacted {
    /// The new `compaction` entry.
    pub entry_id: String,
    /// The first entry kept verbatim.
    pub first_kept_entry_id: String,
    /// Pi's `tokensBefore`.
    pub tokens_before: u64,
    /// The estimated context after compacting (summary and kept messages, chars/4).
    pub tokens_after: u64,
    /// Files only read.
    pub read_files: Vec<String>,
    /// Files written or edited.
    pub modified_files: Vec<String>,
}
