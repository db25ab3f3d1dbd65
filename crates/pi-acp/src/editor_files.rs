//! The editor's files: when the client advertises `fs.readTextFile` / `fs.writeTextFile` at
//! `initialize`, `read`, `write` and `edit` read and write through `fs/read_text_file` and
//! `fs/write_text_file`, so the agent sees unsaved buffers and the editor records each change.
//! The tools' path checks run before the editor is asked (see [`pi_coding_tools::FileAccess`]).
//! Only an editor offering both is used: one that offers a single direction leaves the tools
//! on disk (a read of a buffer followed by a write to disk would lose the buffer's edits).

use std::path::Path;

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{ReadTextFileRequest, SessionId, WriteTextFileRequest};
use pi_coding_tools::{AccessFuture, FileAccess};
use pi_tool::ToolError;

/// Reads and writes one session's files through its editor.
pub struct EditorFiles {
    connection: ConnectionTo<Client>,
    session_id: SessionId,
}

impl EditorFiles {
    /// Files of `session_id` through `connection`.
    pub fn new(connection: ConnectionTo<Client>, session_id: SessionId) -> Self {
        Self {
            connection,
            session_id,
        }
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
            self.connection
                .send_request(request)
                .block_task()
                .await
                .map(|response| response.content)
                .map_err(|error| editor_failed(&error))
        })
    }

    fn write_text<'a>(&'a self, path: &'a Path, text: &'a str) -> AccessFuture<'a, ()> {
        Box::pin(async move {
            let request = WriteTextFileRequest::new(self.session_id.clone(), path, text);
            self.connection
                .send_request(request)
                .block_task()
                .await
                .map(|_| ())
                .map_err(|error| editor_failed(&error))
        })
    }
}
