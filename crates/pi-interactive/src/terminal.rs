//! The terminal, taken for the interactive mode and always given back: raw mode off, the
//! cursor shown, bracketed paste and the keyboard protocol turned off again, when the mode
//! ends, when it is dropped (a stop signal drops the future), and on a panic (a hook that
//! runs before the panic's message is printed, so the message is readable).

use std::io::{Stdout, Write};
use std::sync::Once;

use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::{cursor, execute, terminal};
use ratatui::backend::CrosstermBackend;
use ratatui::{Terminal, TerminalOptions, Viewport};

/// The terminal the interactive mode draws on.
pub(crate) type Screen = Terminal<CrosstermBackend<Stdout>>;

/// Holds the terminal in raw mode; gives it back when dropped.
pub(crate) struct TerminalGuard {
    restored: bool,
}

/// Raw mode, bracketed paste and the keyboard protocol on (again, after another program had
/// the terminal).
pub(crate) fn enter() -> std::io::Result<()> {
    terminal::enable_raw_mode()?;
    let mut stdout = std::io::stdout();
    execute!(
        stdout,
        EnableBracketedPaste,
        PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
    )
}

/// Puts the terminal as it was; safe to call more than once.
pub(crate) fn restore() {
    let mut stdout = std::io::stdout();
    let _ = execute!(
        stdout,
        PopKeyboardEnhancementFlags,
        DisableBracketedPaste,
        cursor::Show
    );
    let _ = terminal::disable_raw_mode();
    let _ = stdout.flush();
}

impl TerminalGuard {
    /// Raw mode on, bracketed paste and the keyboard protocol's unambiguous keys on (so
    /// Shift+Enter can be told from Enter where the terminal supports it; terminals that do
    /// not ignore the request), and a panic hook that restores the terminal first.
    pub(crate) fn take() -> std::io::Result<Self> {
        install_panic_hook();
        enter()?;
        Ok(Self { restored: false })
    }

    /// An inline viewport of `height` rows at the cursor: what is printed above it stays in
    /// the terminal's scrollback.
    pub(crate) fn screen(&self, height: u16) -> std::io::Result<Screen> {
        Terminal::with_options(
            CrosstermBackend::new(std::io::stdout()),
            TerminalOptions {
                viewport: Viewport::Inline(height),
            },
        )
    }

    /// Gives the terminal back now.
    pub(crate) fn release(mut self) {
        restore();
        self.restored = true;
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        if !self.restored {
            restore();
        }
    }
}

fn install_panic_hook() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}
