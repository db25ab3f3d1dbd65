//! Pi's interactive mode: a person types prompts in an editor at the bottom of the terminal
//! and watches the agent work above it. It is a front end over
//! [`pi_coding_agent::SessionHost`] and holds no agent logic: prompts, steering, follow-ups,
//! abort, compaction, model and session changes are the host's and the session's.
//!
//! The view is ratatui's *inline* viewport over crossterm: the transcript is inserted above
//! the viewport (`Terminal::insert_before`), so it stays in the terminal's scrollback when
//! the program exits, as Pi's and Codex's do; there is no alternate screen. The viewport holds
//! what is live: the line being streamed, running tools, the queue of steering and follow-up
//! messages, the editor and the footer.
//!
//! Everything that came from a model, a tool, a file or a session is shown through
//! [`pi_coding_agent::visible`]: an escape sequence in an answer (OSC 52, a title, clearing
//! the screen) is shown, not obeyed. The terminal is given back (raw mode off, cursor shown)
//! on exit, on a panic and when the future is dropped (SIGTERM).

mod app;
mod approval_view;
mod approver;
mod clipboard;
mod editor;
mod file_complete;
mod footer;
mod highlight;
mod inserted_rows;
mod keybindings;
mod keys;
mod markdown;
mod picker;
mod scrollback;
mod slash;
mod terminal;
mod tool_view;
mod transcript;
mod wrap;

#[cfg(test)]
mod test_screen;

use std::path::PathBuf;

use pi_ai::UserMessage;
use pi_coding_agent::SessionHost;
use tokio_util::sync::CancellationToken;

pub use approver::{ApprovalAsk, ApprovalInbox, TuiApprover};
pub use editor::Editor;
pub use footer::FooterInfo;

/// Why the interactive mode could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InteractiveError {
    /// The terminal could not be set up, read or drawn on.
    #[error("the terminal failed: {0}")]
    Terminal(#[from] std::io::Error),
    /// The session had ended before the mode started.
    #[error(transparent)]
    Session(#[from] pi_coding_agent::HostError),
}

/// What the interactive mode is started with.
pub struct Interactive {
    /// The session, started.
    pub host: SessionHost,
    /// The command line's messages, sent first, one prompt after another (`pi "message"`).
    pub prompts: Vec<UserMessage>,
    /// Where the calls to approve arrive (the other end of the [`TuiApprover`] the session
    /// was started with).
    pub approvals: ApprovalInbox,
    /// Where "always" saves an allow rule (the user's settings file).
    pub user_settings: Option<PathBuf>,
    /// Ends the mode (a stop signal).
    pub stop: CancellationToken,
}

/// Runs the interactive mode until the person exits (Ctrl+D, Ctrl+C twice, `/quit`) or
/// `stop` is cancelled; the session is closed (a running prompt aborted, every call
/// answered, every message written). The failure that stopped the session file, if any.
pub async fn run(interactive: Interactive) -> Result<Option<String>, InteractiveError> {
    let Interactive {
        host,
        prompts,
        approvals,
        user_settings,
        stop,
    } = interactive;
    let mut app = app::App::new(host, prompts, user_settings)?;
    let guard = terminal::TerminalGuard::take()?;
    // Before the viewport: the history goes to the scrollback in one write.
    app.print_pending(&mut std::io::stdout())?;
    let mut screen = guard.screen(app::VIEWPORT_HEIGHT)?;
    let ran = app.run(&mut screen, approvals, &stop).await;
    // What the last moments wrote, then the viewport cleared: the shell's prompt follows the
    // transcript.
    let flushed = app.flush(&mut screen);
    let cleared = clear_viewport(&mut screen);
    drop(screen);
    guard.release();
    let closing = app.into_host().close().await;
    ran?;
    flushed?;
    cleared?;
    Ok(closing)
}

/// Blanks the viewport and puts the cursor at its top. `Terminal::clear` would ask the terminal
/// where the cursor is, and the key reader that just stopped may swallow the answer.
fn clear_viewport(screen: &mut terminal::Screen) -> std::io::Result<()> {
    let area = screen.draw(|_| {})?.area;
    screen.set_cursor_position((0, area.y))?;
    screen.show_cursor()
}
