//! Pi's sessions, in Pi's own version-3 JSONL format, with a log that survives crashes.
//!
//! A session file is a header line and one JSON entry per line; entries form a tree through
//! `parentId`, and a movable leaf says where the conversation is. This crate reads every entry
//! type Pi writes (and keeps unknown fields and types on rewrite), migrates versions 1 and 2,
//! builds the context the model is sent for any leaf in time linear in the path (as
//! [`pi_ai::Message`]s), branches, forks, labels and names sessions, lists them, and appends
//! to the file one whole line per entry with `fdatasync` on [`Session::sync`].
//!
//! Why a crate of its own: the file format is shared by programs that run no agent (`pi-tool
//! session list|context|tree`, tools that read Pi's sessions) and by the loop's compaction and
//! the session runtime's recorder; it depends only on the message model, so reading a session
//! needs no HTTP, provider, tool or command line.
//!
//! ```
//! use pi_ai::{Message, UserMessage};
//! use pi_session::Session;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let mut session = Session::create(dir.path(), std::path::Path::new("/work"));
//! session.append_model_change("openai", "gpt-4.1").unwrap();
//! let user = session.append_message(&Message::from(UserMessage::text("hi"))).unwrap();
//! session.sync().unwrap();
//!
//! let path = session.file_path().unwrap().to_path_buf();
//! drop(session); // a session file is open for writing in one place at a time
//! let reopened = Session::open(&path).unwrap();
//! assert_eq!(reopened.leaf_id(), Some(user.as_str()));
//! assert_eq!(reopened.context().unwrap().messages.len(), 1);
//! ```

mod context;
mod entry;
mod error;
mod halves;
mod header;
mod ids;
mod line;
mod line_reader;
mod lines;
mod list;
mod log;
mod migrate;
mod parse;
mod paths;
mod quick_scan;
mod report;
mod scan;
mod session;
mod string_end;
mod text_file;
mod tree;
mod view;

pub use context::{
    BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX, COMPACTION_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_SUFFIX, ContextFromEnd, ContextMessage, ContextSettings, ModelRef,
    SessionContext,
};
pub use entry::{Entry, EntryKind, NotAnEntry};
pub use error::{NotASessionReason, Result, SessionError};
pub use header::{CURRENT_VERSION, SessionHeader};
pub use ids::{iso_to_millis, millis_to_iso, new_entry_id, new_session_id, now_iso};
pub use list::{
    SessionListing, SessionSummary, list_all_sessions, list_sessions, most_recent_session,
    read_summary,
};
pub use paths::{
    AGENT_DIR_ENV, SESSION_DIR_ENV, agent_dir, default_session_dir, encode_cwd,
    session_dir_for_cwd, session_file_name, sessions_root,
};
pub use report::{DuplicateId, LoadReport, MalformedEntry, Orphan, SkippedLine, TornTail};
pub use session::Session;
pub use text_file::MAX_LINE_BYTES;
pub use view::TreeView;
