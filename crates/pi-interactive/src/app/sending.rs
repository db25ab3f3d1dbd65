//! Sending what was typed: a message (or a steering or follow-up message while the agent
//! works), a `!command`, a slash command.

use super::*;

impl App {
    pub(super) async fn submit(&mut self, text: String, follow_up: bool) {
        self.status = None;
        if text.trim().is_empty() {
            return;
        }
        if let Some(command) = text.strip_prefix('!') {
            let (command, excluded) = match command.strip_prefix('!') {
                Some(command) => (command, true),
                None => (command, false),
            };
            self.run_shell(command.trim().to_owned(), excluded);
            return;
        }
        match slash::parse(&text) {
            Err(error) => {
                self.pending.push(transcript::error(&error));
                return;
            }
            Ok(Some(command)) => {
                self.command(command).await;
                return;
            }
            Ok(None) => {}
        }
        let Ok(session) = self.host.session() else {
            return;
        };
        let message = session.expand_commands(UserMessage::text(text.clone()));
        if self.task.is_some() {
            if self.run_started.is_none() {
                self.pending.push(transcript::error(
                    "Wait for the command to finish, or press Esc, before sending a message.",
                ));
                self.editor.set_text(&text);
                return;
            }
            if follow_up {
                session.follow_up(message);
            } else {
                session.steer(message);
            }
            self.queued.push(Queued { follow_up, text });
            return;
        }
        self.start_prompt(message);
    }

    pub(super) fn start_prompt(&mut self, message: UserMessage) {
        let Ok(session) = self.host.session() else {
            return;
        };
        let session = Arc::clone(session);
        self.run_started = Some(Instant::now());
        self.task = Some(tokio::spawn(async move {
            Done::Prompt(Box::new(session.prompt(vec![message.into()]).await))
        }));
    }

    /// The command line's messages, one prompt after another.
    pub(super) fn next_initial(&mut self) {
        if self.task.is_some() {
            return;
        }
        if let Some(message) = self.initial.pop_front() {
            let message = match self.host.session() {
                Ok(session) => session.expand_commands(message),
                Err(_) => return,
            };
            self.start_prompt(message);
        }
    }

    /// `!cmd` (the model reads it with the next prompt) or `!!cmd` (it does not).
    pub(super) fn run_shell(&mut self, command: String, exclude_from_context: bool) {
        if self.task.is_some() {
            self.pending.push(transcript::error(
                "The agent is working: wait for it, or press Esc, before running a command.",
            ));
            return;
        }
        let cwd = self.cwd.clone();
        let stop = CancellationToken::new();
        self.shell_stop = Some(stop.clone());
        self.set_status(transcript::notice(&format!(
            "Running {command}… (esc stops it)"
        )));
        self.task = Some(tokio::spawn(async move {
            let output = BashExecution::run(&command, &cwd, exclude_from_context, &stop)
                .await
                .map_err(|error| format!("Could not run {command}: {error}"));
            Done::Shell { command, output }
        }));
    }
}
