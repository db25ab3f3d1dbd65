//! The interactive mode as a person sees it: the real `pi-tool` on a pseudo-terminal, its
//! output read by a terminal emulator (`vt100`), keys typed into it. The emulator answers the
//! cursor-position queries a real terminal answers (ratatui's inline viewport asks where the
//! cursor is), records whether the program tried to set the window title or the clipboard,
//! and keeps the scrollback so the whole transcript can be read.
#![allow(dead_code)]

use std::io::{ErrorKind, Write};
use std::process::Command;
use std::time::{Duration, Instant};

use expectrl::Session;
use expectrl::session::OsSession;

/// The terminal's size.
pub(crate) const ROWS: u16 = 40;
pub(crate) const COLS: u16 = 100;
/// How long a test waits for the screen to show something.
const PATIENCE: Duration = Duration::from_secs(30);
/// The cursor-position query (DSR 6).
const CURSOR_QUERY: &[u8] = b"\x1b[6n";

/// What the program asked of the terminal that it must not obey for a model's text.
#[derive(Debug, Default)]
pub(crate) struct Obeyed {
    pub(crate) titles: Vec<Vec<u8>>,
    pub(crate) clipboard: Vec<Vec<u8>>,
}

impl vt100::Callbacks for Obeyed {
    fn set_window_title(&mut self, _: &mut vt100::Screen, title: &[u8]) {
        self.titles.push(title.to_vec());
    }

    fn copy_to_clipboard(&mut self, _: &mut vt100::Screen, _: &[u8], data: &[u8]) {
        self.clipboard.push(data.to_vec());
    }
}

/// The program on its terminal.
pub(crate) struct Tui {
    session: OsSession,
    parser: vt100::Parser<Obeyed>,
    /// The end of the output that may be the start of a cursor query.
    carry: Vec<u8>,
    /// The program closed the terminal.
    pub(crate) ended: bool,
}

impl Tui {
    /// Starts `command` on a terminal of [`ROWS`] × [`COLS`].
    pub(crate) fn spawn(command: Command) -> Self {
        let mut session = Session::spawn(command).unwrap();
        session
            .get_process_mut()
            .set_window_size(COLS, ROWS)
            .unwrap();
        Self {
            session,
            parser: vt100::Parser::new_with_callbacks(ROWS, COLS, 10_000, Obeyed::default()),
            carry: Vec::new(),
            ended: false,
        }
    }

    /// Reads what the program wrote so far.
    pub(crate) fn pump(&mut self) {
        let mut buffer = [0u8; 65_536];
        loop {
            match self.session.try_read(&mut buffer) {
                Ok(0) => {
                    self.ended = true;
                    return;
                }
                Ok(read) => {
                    let bytes = buffer[..read].to_vec();
                    self.feed(&bytes);
                }
                Err(error) if error.kind() == ErrorKind::WouldBlock => return,
                Err(_) => {
                    self.ended = true;
                    return;
                }
            }
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        let mut data = std::mem::take(&mut self.carry);
        data.extend_from_slice(bytes);
        let mut rest = data.as_slice();
        while let Some(at) = find(rest, CURSOR_QUERY) {
            self.parser.process(&rest[..at]);
            let (row, column) = self.parser.screen().cursor_position();
            let answer = format!("\x1b[{};{}R", row + 1, column + 1);
            self.session.write_all(answer.as_bytes()).unwrap();
            self.session.flush().unwrap();
            rest = &rest[at + CURSOR_QUERY.len()..];
        }
        // Keep a possible start of a query for the next read.
        let keep = (1..CURSOR_QUERY.len())
            .rev()
            .find(|&length| rest.ends_with(&CURSOR_QUERY[..length]))
            .unwrap_or(0);
        self.parser.process(&rest[..rest.len() - keep]);
        self.carry = rest[rest.len() - keep..].to_vec();
    }

    /// The screen as shown now.
    pub(crate) fn screen(&mut self) -> String {
        self.pump();
        self.parser.screen().contents()
    }

    /// The scrollback and the screen, top to bottom.
    pub(crate) fn everything(&mut self) -> String {
        self.pump();
        let screen = self.parser.screen_mut();
        screen.set_scrollback(usize::MAX);
        let back = screen.scrollback();
        let mut rows = Vec::new();
        for offset in (1..=back).rev() {
            screen.set_scrollback(offset);
            rows.extend(screen.rows(0, COLS).next());
        }
        screen.set_scrollback(0);
        rows.extend(screen.rows(0, COLS));
        rows.join("\n")
    }

    /// Waits until the transcript and screen satisfy `wanted`; fails showing the screen.
    pub(crate) fn wait_for(&mut self, what: &str, wanted: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let text = self.everything();
            if wanted(&text) {
                return text;
            }
            assert!(
                Instant::now() < deadline && !self.ended,
                "waited for {what}; the terminal shows (ended: {}):\n{text}",
                self.ended
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until `text` is shown.
    pub(crate) fn expect(&mut self, text: &str) -> String {
        self.wait_for(&format!("{text:?}"), |shown| shown.contains(text))
    }

    /// Types `keys` (raw bytes: `\r` is Enter, `\x1b` Esc, `\x04` Ctrl+D).
    pub(crate) fn keys(&mut self, keys: &str) {
        self.pump();
        self.session.write_all(keys.as_bytes()).unwrap();
        self.session.flush().unwrap();
        // A lone Esc must not join the next key into Alt+key.
        std::thread::sleep(Duration::from_millis(60));
    }

    /// Types a line and Enter.
    pub(crate) fn line(&mut self, text: &str) {
        self.keys(text);
        self.keys("\r");
    }

    /// Waits for the program to end; its exit status.
    pub(crate) fn wait_exit(&mut self) -> String {
        let deadline = Instant::now() + PATIENCE;
        while !self.ended {
            assert!(
                Instant::now() < deadline,
                "the program did not exit; the terminal shows:\n{}",
                self.parser.screen().contents()
            );
            self.pump();
            std::thread::sleep(Duration::from_millis(20));
        }
        format!("{:?}", self.session.get_process().wait().unwrap())
    }

    /// The emulator's state (cursor, modes) and what it was asked to do.
    pub(crate) fn emulator(&mut self) -> &vt100::Parser<Obeyed> {
        self.pump();
        &self.parser
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}
