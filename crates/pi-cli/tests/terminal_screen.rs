//! What a person sees: the raw bytes `pi-tool` writes for a person (print mode's answer on a
//! terminal, the live view and the approval prompt, `session list`, `tree` and `context`, an
//! error line) are rendered by a terminal emulator (`vt100`), and the screen is checked. Each
//! attack of issue 42 is in the text a model, a file or a session controls: the clipboard set
//! (OSC 52), the window title, the screen cleared, a hidden link (OSC 8), concealed text
//! (SGR 8), and a command whose escapes redraw the approval prompt as `$ git status` while
//! `rm -f important.txt` is what runs. On screen, each must be visible text, and the
//! terminal must have been asked to do nothing but print.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use expectrl::{Eof, Expect, Session};
use serde_json::json;

/// Text a model, a README or a session file sends: a line, then the clipboard set to
/// `rm -rf ~` (OSC 52), the title, a link whose target is hidden (OSC 8), concealed text
/// (SGR 8), the screen cleared and the cursor sent home, and a last line.
const ATTACK: &str = concat!(
    "before-clear\n",
    "\u{1b}]52;c;cm0gLXJmIH4K\u{7}",
    "\u{1b}]0;pwned-title\u{7}",
    "\u{1b}]8;;https://evil.example/\u{1b}\\click here\u{1b}]8;;\u{1b}\\ ",
    "\u{1b}[8mconcealed-secret\u{1b}[28m",
    "\u{1b}[2J\u{1b}[Hafter-clear"
);

/// A command that erases its own line, goes to its start, draws `$ git status` and hides the
/// rest: shown raw, the prompt reads `$ git status`.
const SPOOF: &str = "rm -f important.txt \"\u{1b}[2K\u{1b}[1G  $ git status\u{1b}[8m\" \u{1b}[28m";

/// Everything the terminal was asked to do besides printing and our own styling.
#[derive(Debug, Default)]
struct Requests(Vec<String>);

impl vt100::Callbacks for Requests {
    fn audible_bell(&mut self, _: &mut vt100::Screen) {
        self.0.push("bell".to_owned());
    }
    fn visual_bell(&mut self, _: &mut vt100::Screen) {
        self.0.push("visual bell".to_owned());
    }
    fn resize(&mut self, _: &mut vt100::Screen, request: (u16, u16)) {
        self.0.push(format!("resize {request:?}"));
    }
    fn set_window_icon_name(&mut self, _: &mut vt100::Screen, name: &[u8]) {
        self.0
            .push(format!("icon name {}", String::from_utf8_lossy(name)));
    }
    fn set_window_title(&mut self, _: &mut vt100::Screen, title: &[u8]) {
        self.0
            .push(format!("title {}", String::from_utf8_lossy(title)));
    }
    fn copy_to_clipboard(&mut self, _: &mut vt100::Screen, _: &[u8], data: &[u8]) {
        self.0
            .push(format!("clipboard {}", String::from_utf8_lossy(data)));
    }
    fn paste_from_clipboard(&mut self, _: &mut vt100::Screen, _: &[u8]) {
        self.0.push("paste".to_owned());
    }
    fn unhandled_control(&mut self, _: &mut vt100::Screen, byte: u8) {
        self.0.push(format!("control {byte:#x}"));
    }
    fn unhandled_escape(
        &mut self,
        _: &mut vt100::Screen,
        i1: Option<u8>,
        i2: Option<u8>,
        byte: u8,
    ) {
        self.0.push(format!("escape {i1:?} {i2:?} {byte:#x}"));
    }
    fn unhandled_csi(
        &mut self,
        _: &mut vt100::Screen,
        i1: Option<u8>,
        i2: Option<u8>,
        params: &[&[u16]],
        c: char,
    ) {
        self.0.push(format!("csi {i1:?} {i2:?} {params:?} {c}"));
    }
    fn unhandled_osc(&mut self, _: &mut vt100::Screen, params: &[&[u8]]) {
        let params: Vec<_> = params.iter().map(|p| String::from_utf8_lossy(p)).collect();
        self.0.push(format!("osc {params:?}"));
    }
}

/// The screen after `bytes` (as a terminal receives them: newlines already `\r\n`), and what
/// the terminal was asked to do. Wide and tall enough that nothing wraps or scrolls away.
fn render(bytes: &[u8]) -> (vt100::Screen, Vec<String>) {
    let mut parser = vt100::Parser::new_with_callbacks(400, 1000, 0, Requests::default());
    parser.process(bytes);
    (parser.screen().clone(), parser.callbacks().0.clone())
}

/// Output captured from a pipe, as a terminal would get it (the terminal driver turns `\n`
/// into `\r\n`).
fn as_on_a_terminal(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for &byte in bytes {
        if byte == b'\n' {
            out.push(b'\r');
        }
        out.push(byte);
    }
    out
}

/// The screen's rows, trailing spaces cut.
fn rows(screen: &vt100::Screen) -> Vec<String> {
    screen
        .rows(0, screen.size().1)
        .map(|row| row.trim_end().to_owned())
        .collect()
}

/// The attack text is on `screen` as text, in order, and the terminal was asked nothing.
fn attack_shown_as_text(what: &str, screen: &vt100::Screen, requests: &[String]) {
    let rows = rows(screen);
    let text = rows.join("\n");
    assert!(
        requests.is_empty(),
        "{what}: the terminal was asked {requests:?}\n{text}"
    );
    let row_of = |needle: &str| {
        rows.iter()
            .position(|row| row.contains(needle))
            .unwrap_or_else(|| panic!("{what}: {needle:?} is not on screen:\n{text}"))
    };
    // Nothing was cleared: the line before the clear is still there, above the one after.
    assert!(
        row_of("before-clear") < row_of("after-clear"),
        "{what}:\n{text}"
    );
    // Each escape is visible where it was.
    let attack_row = &rows[row_of("after-clear")];
    for shown in [
        "\\e]52;c;cm0gLXJmIH4K\\x07",
        "\\e]0;pwned-title\\x07",
        "\\e]8;;https://evil.example/\\e\\click here",
        "\\e[8mconcealed-secret\\e[28m",
        "\\e[2J\\e[Hafter-clear",
    ] {
        assert!(
            attack_row.contains(shown),
            "{what}: {shown:?} not shown in {attack_row:?}\n{text}"
        );
    }
}

/// A home with a working directory and an agent directory of its own.
struct Home {
    root: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("work")).unwrap();
        std::fs::create_dir_all(root.path().join("agent")).unwrap();
        Self { root }
    }

    fn work(&self) -> PathBuf {
        self.root.path().join("work")
    }

    fn agent_dir(&self) -> PathBuf {
        self.root.path().join("agent")
    }

    fn pi_tool(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pi-tool"));
        command
            .current_dir(self.work())
            .env("PI_CODING_AGENT_DIR", self.agent_dir())
            .env("HOME", self.root.path())
            .env_remove("PI_CODING_AGENT_SESSION_DIR");
        for (name, _) in std::env::vars() {
            if name.ends_with("_API_KEY") || name.ends_with("_TOKEN") {
                command.env_remove(name);
            }
        }
        command
    }

    /// `models.json` naming one OpenAI-compatible server at `url`.
    fn use_server(&self, url: &str) {
        let models = json!({"providers": {"local": {
            "baseUrl": format!("{url}/v1"),
            "api": "openai-completions",
            "models": [{"id": "local-model", "contextWindow": 32768}]
        }}});
        std::fs::write(self.agent_dir().join("models.json"), models.to_string()).unwrap();
    }
}

/// All a command writes to its terminal, until it exits.
fn on_a_terminal(command: Command) -> Vec<u8> {
    let mut session = Session::spawn(command).unwrap();
    session.set_expect_timeout(Some(Duration::from_secs(60)));
    session.expect(Eof).unwrap().as_bytes().to_vec()
}

fn answer(text: &str) -> support::Reply {
    let chunk =
        json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]});
    support::Reply::sse(format!("data: {chunk}\n\ndata: [DONE]\n\n"))
}

#[test]
fn print_mode_shows_the_models_escapes_as_text() {
    let home = Home::new();
    let (url, _seen) = support::serve(vec![answer(ATTACK)]);
    home.use_server(&url);
    let mut command = home.pi_tool();
    command.args(["-p", "--no-session", "hello"]);
    let (screen, requests) = render(&on_a_terminal(command));
    attack_shown_as_text("print mode", &screen, &requests);
}

#[test]
fn an_error_line_shows_the_providers_escapes_as_text() {
    let home = Home::new();
    let body = json!({"error": {"message": ATTACK, "type": "invalid_request_error"}});
    let (url, _seen) = support::serve(vec![support::Reply::json(
        "400 Bad Request",
        body.to_string(),
    )]);
    home.use_server(&url);
    let output = home
        .pi_tool()
        .args(["-p", "--no-session", "hello"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let (screen, requests) = render(&as_on_a_terminal(&output.stderr));
    attack_shown_as_text("the error line", &screen, &requests);
}

/// The live view of `agent` and its approval prompt, on a terminal: the model's text, then a
/// `bash` call whose command redraws its own line. The prompt's screen shows the `rm` on the
/// line that says `$ git status`; answered no, nothing runs.
#[test]
fn the_approval_prompt_shows_the_command_that_runs() {
    let home = Home::new();
    std::fs::write(home.work().join("important.txt"), "keep").unwrap();
    let script = json!([
        {"content": [
            {"type": "text", "text": ATTACK},
            {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": SPOOF}}
        ]},
        {"content": [{"type": "text", "text": "finished"}]}
    ]);
    let script_path = home.root.path().join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let mut command = home.pi_tool();
    // `--sandbox landlock`: without bubblewrap, a warning on stderr would otherwise land
    // somewhere in the streamed text on the same terminal.
    command
        .arg("--coding-tools")
        .arg(home.work())
        .args(["--sandbox", "landlock", "agent", "--no-session", "--faux"])
        .arg(&script_path)
        .arg("go");
    let mut session = Session::spawn(command).unwrap();
    session.set_expect_timeout(Some(Duration::from_secs(60)));
    let at_prompt = session.expect("Run it?").unwrap();
    let (screen, requests) = render(at_prompt.as_bytes());
    attack_shown_as_text("the live view", &screen, &requests);
    let rows = rows(&screen);
    let text = rows.join("\n");
    // The prompt's line shows the bytes that run, the `rm` first; every line that says
    // `git status` says `rm` too.
    assert!(
        rows.iter().any(
            |row| row == "  $ rm -f important.txt \"\\e[2K\\e[1G  $ git status\\e[8m\" \\e[28m"
        ),
        "{text}"
    );
    for row in rows.iter().filter(|row| row.contains("git status")) {
        assert!(
            row.contains("rm -f important.txt"),
            "a line shows `git status` without the rm that runs: {row:?}\n{text}"
        );
    }
    session.send_line("n").unwrap();
    session.expect(Eof).unwrap();
    assert!(home.work().join("important.txt").exists());
}

/// `session list`, `session tree` and `session context` of a session file whose first message
/// and name carry the attack.
#[test]
fn session_commands_show_a_files_escapes_as_text() {
    let home = Home::new();
    let dir = home.agent_dir().join("sessions").join(encode(&home.work()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("hostile.jsonl");
    let mut session = pi_session::Session::create_at(&file, &home.work());
    session
        .append_message_value(json!({"role": "user", "content": ATTACK, "timestamp": 1}))
        .unwrap();
    let second = "\u{1b}]8;;https://evil.example/\u{1b}\\link\u{1b}]8;;\u{1b}\\ \u{1b}[8mconcealed\u{1b}[28m";
    session
        .append_message_value(json!({"role": "user", "content": second, "timestamp": 2}))
        .unwrap();
    session.sync().unwrap();
    drop(session);
    let file = file.to_str().unwrap();
    for args in [
        vec!["session", "list"],
        vec!["session", "list", "--all"],
        vec!["session", "tree", file],
    ] {
        let output = home.pi_tool().args(&args).output().unwrap();
        assert!(output.status.success(), "{args:?}: {output:?}");
        let (screen, requests) = render(&as_on_a_terminal(&output.stdout));
        let rows = rows(&screen);
        assert!(requests.is_empty(), "{args:?}: {requests:?}");
        let text = rows.join("\n");
        // A listing shortens the first message.
        // A listing and a tree shorten each message: the first one's start, then the second.
        let shown: &[&str] = if args[1] == "list" {
            &[
                "before-clear",
                "\\e]52;c;cm0gLXJmIH4K\\x07",
                "\\e]0;pwned-title\\x07",
            ]
        } else {
            &[
                "before-clear",
                "\\e]52;c;cm0gLXJmIH4K\\x07",
                "\\e]0;pwned-title\\x07",
                "\\e]8;;https://evil.example/\\e\\link\\e]8;;\\e\\ \\e[8mconcealed\\e[28m",
            ]
        };
        for shown in shown {
            assert!(
                text.contains(shown),
                "{args:?}: {shown:?} not on screen:\n{text}"
            );
        }
    }
    // The context is JSON lines: every escape is a JSON escape.
    let output = home
        .pi_tool()
        .args(["session", "context", file])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let (screen, requests) = render(&as_on_a_terminal(&output.stdout));
    assert!(requests.is_empty(), "context: {requests:?}");
    let text = rows(&screen).join("\n");
    assert!(text.contains("\\u001b]52;c;cm0gLXJmIH4K\\u0007"), "{text}");
    assert!(text.contains("before-clear\\n"), "{text}");
}

fn encode(cwd: &Path) -> String {
    let text = cwd.to_str().unwrap();
    format!(
        "--{}--",
        text.trim_start_matches('/').replace(['/', '\\', ':'], "-")
    )
}
