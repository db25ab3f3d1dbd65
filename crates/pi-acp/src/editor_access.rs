//! What a session's editor serves the session's tools, from the capabilities the client
//! advertised at `initialize`: its files (both `fs.readTextFile` and `fs.writeTextFile`) and
//! its terminals (`terminal`, used only with our launcher, which keeps the command in our
//! sandbox). Without them the tools work on disk and in the local sandbox.

use std::path::Path;
use std::sync::Arc;

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{ClientCapabilities, SessionId};
use pi_coding_tools::Workspace;

use crate::editor_files::EditorFiles;
use crate::editor_terminal::EditorTerminal;

/// The editor's files and terminals one session's tools use, if the editor offers them.
#[derive(Clone, Default)]
pub struct EditorAccess {
    files: Option<Arc<EditorFiles>>,
    terminal: Option<Arc<EditorTerminal>>,
}

impl EditorAccess {
    /// Nothing from the editor: the disk and the local sandbox.
    pub fn none() -> Self {
        Self::default()
    }

    /// What `capabilities` offer to the session `session_id` over `connection`; the
    /// terminal only with a `launcher` (our binary, see [`EditorTerminal`]).
    pub fn new(
        capabilities: &ClientCapabilities,
        connection: &ConnectionTo<Client>,
        session_id: &SessionId,
        launcher: Option<&Path>,
    ) -> Self {
        let files = (capabilities.fs.read_text_file && capabilities.fs.write_text_file)
            .then(|| Arc::new(EditorFiles::new(connection.clone(), session_id.clone())));
        let terminal = launcher.filter(|_| capabilities.terminal).map(|launcher| {
            Arc::new(EditorTerminal::new(
                connection.clone(),
                session_id.clone(),
                launcher.to_path_buf(),
            ))
        });
        Self { files, terminal }
    }

    /// The editor's files, when the file tools go through them.
    pub fn files(&self) -> Option<Arc<EditorFiles>> {
        self.files.clone()
    }

    /// Whether the file tools go through the editor.
    pub fn has_files(&self) -> bool {
        self.files.is_some()
    }

    /// Whether `bash` may go to the editor's terminal.
    pub fn has_terminal(&self) -> bool {
        self.terminal.is_some()
    }

    /// `workspace` with the editor's files and terminal in place of the disk and the local
    /// shell, where offered; its path checks and sandbox settings stay as they are.
    pub fn workspace(&self, workspace: Workspace) -> Workspace {
        let workspace = match &self.files {
            Some(files) => workspace.with_file_access(files.clone()),
            None => workspace,
        };
        match &self.terminal {
            Some(terminal) => workspace.with_command_runner(terminal.clone()),
            None => workspace,
        }
    }
}
