//! The interactive mode as a person sees it: the real `pi-tool` on a pseudo-terminal, its
//! output read by a terminal emulator (`vt100`), keys typed into it. The emulator answers the
//! cursor-position queries a real terminal answers (ratatui's inline viewport asks where the
//! cursor is), records whether the program tried to set the window title or the clipboard,
//! and keeps the scrollback so the whole transcript can be read.
//! Not in `support/mod.rs`: other crates' tests include that file and lack vt100.
#![allow(dead_code)]

use std::io::{ErrorKind, Write};
use std::process::Command;
use std::time::{Duration, Instant};

use std::path::{Path, PathBuf};

use expectrl::Session;
use expectrl::session::OsSession;
use serde_json::{Value, json};

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
    /// Every byte the program wrote so far.
    written: usize,
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
            written: 0,
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
                    self.written += read;
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

    /// How many bytes the program has written to the terminal so far.
    pub(crate) fn bytes_written(&mut self) -> usize {
        self.pump();
        self.written
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

    /// Whether the first cell of `text` on the screen is dim and italic; `None` when the
    /// screen does not show it.
    pub(crate) fn dim_italic(&mut self, text: &str) -> Option<(bool, bool)> {
        self.cell_of(text).map(|cell| (cell.dim(), cell.italic()))
    }

    /// The first cell of `text` on the screen.
    pub(crate) fn cell_of(&mut self, text: &str) -> Option<vt100::Cell> {
        self.pump();
        let screen = self.parser.screen();
        for (row, line) in screen.rows(0, COLS).enumerate() {
            if let Some(at) = line.find(text) {
                let column = line[..at].chars().count();
                let cell = screen.cell(u16::try_from(row).ok()?, u16::try_from(column).ok()?)?;
                return Some(cell.clone());
            }
        }
        None
    }

    /// Resizes the terminal (the program gets SIGWINCH).
    pub(crate) fn resize(&mut self, rows: u16, cols: u16) {
        self.pump();
        self.parser.screen_mut().set_size(rows, cols);
        self.session
            .get_process_mut()
            .set_window_size(cols, rows)
            .unwrap();
    }

    /// The program's process id.
    pub(crate) fn pid(&self) -> i32 {
        self.session.get_process().pid().as_raw()
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

/// A streamed text answer, in two pieces, with its usage.
pub(crate) fn answer(first: &str, second: &str) -> crate::support::Reply {
    let chunks = [
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": first}}]}),
        json!({"choices": [{"index": 0, "delta": {"content": second}, "finish_reason": "stop"}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 1200, "completion_tokens": 34, "total_tokens": 1234}}),
    ];
    let mut body = String::new();
    for chunk in chunks {
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    crate::support::Reply::sse(body)
}

/// An answer that calls `tool` with `arguments`.
pub(crate) fn call(id: &str, tool: &str, arguments: &Value) -> crate::support::Reply {
    let chunk = json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
        {"index": 0, "id": id, "type": "function", "function": {"name": tool, "arguments": arguments.to_string()}}
    ]}, "finish_reason": "tool_calls"}]});
    crate::support::Reply::sse(format!("data: {chunk}\n\ndata: [DONE]\n\n"))
}

/// A home with a work directory and an agent directory whose `models.json` names the fake.
pub(crate) struct Home {
    root: tempfile::TempDir,
}

impl Home {
    pub(crate) fn new(url: &str) -> Self {
        Self::with_models(
            url,
            &json!([{"id": "local-model", "contextWindow": 100000}]),
        )
    }

    /// A home whose `local` provider has `models`.
    pub(crate) fn with_models(url: &str, models: &Value) -> Self {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::write(work.join("notes.txt"), "milk, eggs").unwrap();
        let agent = root.path().join("agent");
        std::fs::create_dir_all(&agent).unwrap();
        let models = json!({"providers": {"local": {
            "baseUrl": format!("{url}/v1"), "api": "openai-completions",
            "models": models
        }}});
        std::fs::write(agent.join("models.json"), models.to_string()).unwrap();
        Self { root }
    }

    pub(crate) fn work(&self) -> PathBuf {
        self.root.path().join("work")
    }

    pub(crate) fn agent(&self) -> PathBuf {
        self.root.path().join("agent")
    }

    /// `pi-tool ARGS` in the work directory, on a terminal.
    pub(crate) fn start(&self, args: &[&str]) -> Tui {
        self.start_with_env(args, &[])
    }

    /// `pi-tool ARGS` with more environment variables.
    pub(crate) fn start_with_env(&self, args: &[&str], variables: &[(&str, &str)]) -> Tui {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pi-tool"));
        command.envs(variables.iter().copied());
        command
            .env("PI_CODING_AGENT_DIR", self.agent())
            .env("HOME", self.root.path())
            .env("TERM", "xterm-256color")
            .current_dir(self.work())
            .args(args);
        let mut tui = Tui::spawn(command);
        tui.expect("local/local-model");
        tui
    }

    /// Every session file, and each one's lines.
    pub(crate) fn sessions(&self) -> Vec<Vec<Value>> {
        let mut files = Vec::new();
        collect(&self.agent().join("sessions"), &mut files);
        files
            .iter()
            .map(|file| {
                std::fs::read_to_string(file)
                    .unwrap()
                    .lines()
                    .map(|line| serde_json::from_str(line).unwrap())
                    .collect()
            })
            .collect()
    }
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "jsonl") {
            files.push(path);
        }
    }
}

pub(crate) fn exited_well(status: &str) {
    assert!(
        status.contains("Exited(") && status.ends_with(", 0)"),
        "{status}"
    );
}
