//! The editor's files: when the client advertises `fs.readTextFile` / `fs.writeTextFile` at
//! `initialize`, `read`, `write` and `edit` read and write through `fs/read_text_file` and
//! `fs/write_text_file`, so the agent sees unsaved buffers and the editor records each change.
//! The tools' path checks run before the editor is asked (see [`pi_coding_tools::FileAccess`]).
//! Only an editor offering both is used: one that offers a single direction leaves the tools
//! on disk (a read of a buffer followed by a write to disk would lose the buffer's edits).
//!
//! The texts the editor gave and was handed during a turn are kept until the turn ends, so
//! the call's diff shows the change against the editor's buffer, not against the disk
//! ([`EditorFiles::take_change`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{ReadTextFileRequest, SessionId, WriteTextFileRequest};
use pi_coding_tools::{AccessFuture, FileAccess};
use pi_tool::ToolError;

/// A change handed to the editor: the buffer's text the tool read before it (none when the
/// editor had no such file), and the text it became.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferChange {
    /// The text the editor gave before the change, if it had the file.
    pub old_text: Option<String>,
    /// The text handed to the editor.
    pub new_text: String,
}

/// What the editor gave and was handed in the current turn, by path.
#[derive(Debug, Default)]
struct Seen {
    /// The last text read of each path (a failed read removes it: the file is not there).
    served: HashMap<PathBuf, String>,
    /// The last change written to each path, until its call's result takes it.
    changed: HashMap<PathBuf, BufferChange>,
}

/// Reads and writes one session's files through its editor.
pub struct EditorFiles {
    connection: ConnectionTo<Client>,
    session_id: SessionId,
    seen: Mutex<Seen>,
}

impl EditorFiles {
    /// Files of `session_id` through `connection`.
    pub fn new(connection: ConnectionTo<Client>, session_id: SessionId) -> Self {
        Self {
            connection,
            session_id,
            seen: Mutex::new(Seen::default()),
        }
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The text the editor last gave for `path` in this turn, if it was read.
    pub fn last_served(&self, path: &Path) -> Option<String> {
        self.seen().served.get(path).cloned()
    }

    /// The change last handed to the editor for `path`, taken (a call's result shows it once).
    pub fn take_change(&self, path: &Path) -> Option<BufferChange> {
        self.seen().changed.remove(path)
    }

    /// Forgets the turn's texts (its calls are answered).
    pub fn forget(&self) {
        *self.seen() = Seen::default();
    }
}

/// The model's words for an editor that failed a request.
fn editor_failed(error: &agent_client_protocol::Error) -> ToolError {
    ToolError::new(format!("the editor answered: {error}"))
}

impl FileAccess for EditorFiles {
    fn read_text<'a>(&'a self, path: &'a Path) -> AccessFuture<'a, String> {
        Box::pin(async move {
            let request = ReadTextFileRequest::new(self.session_id.clone(), path);
            let read = self
                .connection
                .send_request(request)
                .block_task()
                .await
                .map(|response| response.content);
            let mut seen = self.seen();
            match &read {
                Ok(text) => {
                    seen.served.insert(path.to_path_buf(), text.clone());
                }
                Err(_) => {
                    seen.served.remove(path);
                }
            }
            read.map_err(|error| editor_failed(&error))
        })
    }

    fn write_text<'a>(&'a self, path: &'a Path, text: &'a str) -> AccessFuture<'a, ()> {
        Box::pin(async move {
            let request = WriteTextFileRequest::new(self.session_id.clone(), path, text);
            self.connection
                .send_request(request)
                .block_task()
                .await
                .map_err(|error| editor_failed(&error))?;
            // The tools read a file through the editor just before writing it (under the
            // file's queue): the text served then is what this write replaces.
            let mut seen = self.seen();
            let old_text = seen.served.insert(path.to_path_buf(), text.to_owned());
            seen.changed.insert(
                path.to_path_buf(),
                BufferChange {
                    old_text,
                    new_text: text.to_owned(),
                },
            );
            Ok(())
        })
    }
}
