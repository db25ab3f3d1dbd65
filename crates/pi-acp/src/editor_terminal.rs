//! The editor's terminals: when the client advertises `terminal` at `initialize`, `bash` runs
//! its command in a terminal of the editor (`terminal/create`, then `terminal/wait_for_exit`,
//! `terminal/output` and `terminal/release`; `terminal/kill` on cancel or the time limit). The
//! call's update carries the terminal (its id in the progress and the result's details, made
//! `ToolCallContent::Terminal` by [`crate::TurnUpdates`]), so the editor shows it live.
//!
//! An editor's terminal runs what we ask with the editor's rights and environment, outside our
//! sandbox: so it is never asked to run the bare shell. It runs our own binary as a launcher
//! ([`pi_coding_tools::launcher`]: `pi-tool __confined-shell LAUNCH COMMAND`), which applies
//! the sandbox and the environment filtering a local run gets and then becomes the shell. The
//! person sees the output in the editor; the rules stay ours, in every approval mode.

use std::path::PathBuf;

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    CreateTerminalRequest, KillTerminalRequest, ReleaseTerminalRequest, SessionId,
    TerminalExitStatus, TerminalId, TerminalOutputRequest, WaitForTerminalExitRequest,
};
use pi_coding_tools::{AccessFuture, CommandEnd, CommandRequest, CommandRun, CommandRunner};
use pi_tool::{ToolContext, ToolError, ToolUpdate};
use serde_json::{Map, Value, json};

/// The details key carrying the editor's terminal id of a `bash` call.
pub const TERMINAL_ID: &str = "terminalId";

/// Runs one session's commands in its editor's terminals.
pub struct EditorTerminal {
    connection: ConnectionTo<Client>,
    session_id: SessionId,
    /// Our binary, started in the terminal as the command's launcher.
    launcher: PathBuf,
}

impl EditorTerminal {
    /// Commands of `session_id` through `connection`, each run by `launcher` (our binary,
    /// answering [`pi_coding_tools::LAUNCHER_SUBCOMMAND`]).
    pub fn new(connection: ConnectionTo<Client>, session_id: SessionId, launcher: PathBuf) -> Self {
        Self {
            connection,
            session_id,
            launcher,
        }
    }

    async fn request<R>(&self, request: R) -> Result<R::Response, ToolError>
    where
        R: agent_client_protocol::JsonRpcRequest,
    {
        self.connection
            .send_request(request)
            .block_task()
            .await
            .map_err(|error| ToolError::new(format!("the editor's terminal failed: {error}")))
    }
}

/// Kills and releases a terminal whose call ended without doing it (its future dropped), so
/// the editor is not left with a command running for nobody.
struct Held {
    connection: ConnectionTo<Client>,
    session_id: SessionId,
    terminal: Option<TerminalId>,
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some(terminal) = self.terminal.take() {
            // Fire and forget: nobody is left to read the answers.
            let kill = KillTerminalRequest::new(self.session_id.clone(), terminal.clone());
            self.connection.send_request(kill).detach();
            let release = ReleaseTerminalRequest::new(self.session_id.clone(), terminal);
            self.connection.send_request(release).detach();
        }
    }
}

/// How the command ended, from the terminal's exit status.
fn ending(status: Option<&TerminalExitStatus>) -> CommandEnd {
    match status {
        Some(TerminalExitStatus {
            exit_code: Some(code),
            ..
        }) => CommandEnd::Exited(i32::try_from(*code).unwrap_or(i32::MAX)),
        Some(status) => CommandEnd::Signalled(status.signal.clone()),
        None => CommandEnd::Signalled(None),
    }
}

impl CommandRunner for EditorTerminal {
    fn run<'a>(
        &'a self,
        request: CommandRequest,
        context: &'a ToolContext,
    ) -> AccessFuture<'a, CommandRun> {
        Box::pin(async move {
            // Our launcher, never the bare shell: the command stays in our sandbox.
            let create = CreateTerminalRequest::new(
                self.session_id.clone(),
                self.launcher.display().to_string(),
            )
            .args(request.launch.arguments())
            .cwd(request.cwd.clone())
            .output_byte_limit(u64::try_from(request.output_limit).unwrap_or(u64::MAX));
            let terminal = self.request(create).await?.terminal_id;
            let mut held = Held {
                connection: self.connection.clone(),
                session_id: self.session_id.clone(),
                terminal: Some(terminal.clone()),
            };
            let mut details = Map::new();
            details.insert(TERMINAL_ID.to_owned(), json!(terminal.0.as_ref()));
            // The editor shows the terminal from now on.
            context
                .update(ToolUpdate::new(Vec::new()).with_details(Value::Object(details.clone())));

            let deadline = async {
                match request.timeout {
                    Some(limit) => tokio::time::sleep(limit).await,
                    None => std::future::pending().await,
                }
            };
            let wait = self.request(WaitForTerminalExitRequest::new(
                self.session_id.clone(),
                terminal.clone(),
            ));
            let stopped = tokio::select! {
                exited = wait => {
                    exited?;
                    None
                }
                () = deadline => Some(CommandEnd::TimedOut),
                () = context.signal().cancelled() => Some(CommandEnd::Aborted),
            };
            if stopped.is_some() {
                self.request(KillTerminalRequest::new(
                    self.session_id.clone(),
                    terminal.clone(),
                ))
                .await?;
            }
            let output = self
                .request(TerminalOutputRequest::new(
                    self.session_id.clone(),
                    terminal.clone(),
                ))
                .await?;
            held.terminal = None;
            self.request(ReleaseTerminalRequest::new(
                self.session_id.clone(),
                terminal,
            ))
            .await?;
            Ok(CommandRun {
                end: stopped.unwrap_or_else(|| ending(output.exit_status.as_ref())),
                output: output.output,
                truncated: output.truncated,
                details,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exit_code_or_a_signal_ends_the_command() {
        let exited = TerminalExitStatus::new().exit_code(3);
        assert_eq!(ending(Some(&exited)), CommandEnd::Exited(3));
        let killed = TerminalExitStatus::new().signal("SIGKILL".to_owned());
        assert_eq!(
            ending(Some(&killed)),
            CommandEnd::Signalled(Some("SIGKILL".to_owned()))
        );
        assert_eq!(ending(None), CommandEnd::Signalled(None));
    }
}
