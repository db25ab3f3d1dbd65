//! The terminal prompt, driven through a real pseudo-terminal as a person would: yes once;
//! always (the rule saved to the user's settings, other keys kept, and the next run allowed
//! without asking); no with a reason (the model's next request carries it); Ctrl-C at the
//! prompt (the call is refused, the run stops, nothing runs).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use expectrl::session::OsSession;
use expectrl::{ControlCode, Eof, Expect, Session};
use serde_json::{Value, json};

struct Home {
    root: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        let home = Self {
            root: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(home.work()).unwrap();
        std::fs::create_dir_all(home.agent_dir()).unwrap();
        home
    }

    fn work(&self) -> PathBuf {
        self.root.path().join("work")
    }

    fn agent_dir(&self) -> PathBuf {
        self.root.path().join("agent")
    }

    fn settings(&self) -> PathBuf {
        self.agent_dir().join("settings.json")
    }

    fn command(&self, script: &Value, extra: &[&str]) -> Command {
        let path = self.root.path().join("script.json");
        std::fs::write(&path, script.to_string()).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_pi-tool"));
        command
            .env("PI_CODING_AGENT_DIR", self.agent_dir())
            .env("HOME", self.root.path())
            .current_dir(self.work())
            .arg("--coding-tools")
            .arg(self.work())
            .args(["agent", "--faux"])
            .arg(&path)
            .args(extra)
            .arg("go");
        command
    }

    /// The run on a terminal of its own.
    fn on_terminal(&self, script: &Value, extra: &[&str]) -> OsSession {
        let mut session = Session::spawn(self.command(script, extra)).unwrap();
        session.set_expect_timeout(Some(Duration::from_secs(30)));
        session
    }
}

fn bash_then_answer(command: &str) -> Value {
    json!([
        {"content": [{"type": "toolCall", "id": "c1", "name": "bash",
            "arguments": {"command": command}}]},
        {"content": [{"type": "text", "text": "finished"}]}
    ])
}

fn exit_status(session: &OsSession) -> String {
    format!("{:?}", session.get_process().wait().unwrap())
}

#[test]
fn yes_once_runs_the_call() {
    let home = Home::new();
    std::fs::write(home.work().join("old.txt"), "x").unwrap();
    let mut session = home.on_terminal(&bash_then_answer("rm old.txt"), &["--no-session"]);
    session.expect("bash wants to run (call c1)").unwrap();
    session.expect("$ rm old.txt").unwrap();
    session.expect("Run it?").unwrap();
    session.send_line("y").unwrap();
    session.expect("finished").unwrap();
    session.expect(Eof).unwrap();
    let status = exit_status(&session);
    assert!(
        status.contains("Exited(") && status.ends_with(", 0)"),
        "{status}"
    );
    assert!(!home.work().join("old.txt").exists());
    // Once only: nothing was saved.
    assert!(!home.settings().exists());
}

#[test]
fn always_saves_the_rule_which_the_next_run_uses_without_asking() {
    let home = Home::new();
    std::fs::write(home.settings(), r#"{"theme": "dark", "defaultModel": "m"}"#).unwrap();
    let script = bash_then_answer("touch made.txt");
    let mut session = home.on_terminal(&script, &["--no-session"]);
    session.expect("Run it?").unwrap();
    session.send_line("a").unwrap();
    session.expect("bash(touch made.txt)").unwrap();
    session.expect("Press Enter to save it").unwrap();
    session.send_line("").unwrap();
    session.expect("Saved bash(touch made.txt)").unwrap();
    session.expect(Eof).unwrap();
    assert!(home.work().join("made.txt").exists());
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(home.settings()).unwrap()).unwrap();
    assert_eq!(
        saved,
        json!({"theme": "dark", "defaultModel": "m",
            "permissions": {"allow": ["bash(touch made.txt)"]}})
    );

    // The next run has no terminal at all: had it asked, the call would have been refused.
    std::fs::remove_file(home.work().join("made.txt")).unwrap();
    let output = home
        .command(&script, &["--no-session", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert!(home.work().join("made.txt").exists(), "{output:?}");
    assert!(!String::from_utf8_lossy(&output.stderr).contains("needs approval"));
}

#[test]
fn an_edited_always_rule_is_the_one_saved() {
    let home = Home::new();
    let mut session = home.on_terminal(&bash_then_answer("touch a.txt"), &["--no-session"]);
    session.expect("Run it?").unwrap();
    session.send_line("a").unwrap();
    session.expect("Press Enter to save it").unwrap();
    session.send_line("bash(touch").unwrap();
    session.expect("That rule cannot be read").unwrap();
    session.expect("Press Enter to save it").unwrap();
    session.send_line("bash(touch:*)").unwrap();
    session.expect("Saved bash(touch:*)").unwrap();
    session.expect(Eof).unwrap();
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(home.settings()).unwrap()).unwrap();
    assert_eq!(saved["permissions"]["allow"], json!(["bash(touch:*)"]));
}

#[test]
fn no_with_a_reason_reaches_the_models_next_request() {
    let home = Home::new();
    std::fs::write(home.work().join("thesis.txt"), "years of work").unwrap();
    let session_file = home.root.path().join("run.jsonl");
    let mut session = home.on_terminal(
        &bash_then_answer("rm thesis.txt"),
        &["--session", session_file.to_str().unwrap()],
    );
    session.expect("Run it?").unwrap();
    session.send_line("r").unwrap();
    session.expect("Your reason, for the model: ").unwrap();
    session.send_line("that is my thesis").unwrap();
    session.expect("finished").unwrap();
    session.expect(Eof).unwrap();
    assert_eq!(
        std::fs::read_to_string(home.work().join("thesis.txt")).unwrap(),
        "years of work"
    );
    // What the model is sent after the refusal: the paired result with the reason.
    let context = Command::new(env!("CARGO_BIN_EXE_pi-tool"))
        .env("PI_CODING_AGENT_DIR", home.agent_dir())
        .args(["session", "context"])
        .arg(&session_file)
        .output()
        .unwrap();
    assert!(context.status.success(), "{context:?}");
    let messages: Vec<Value> = String::from_utf8_lossy(&context.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let result = messages
        .iter()
        .find(|message| message["role"] == "toolResult")
        .unwrap();
    assert_eq!(result["isError"], true);
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("the user denied") && text.contains("that is my thesis"),
        "{text}"
    );
    // The model answered after it: the run went on to its next request.
    assert_eq!(messages.last().unwrap()["role"], "assistant");
}

#[test]
fn ctrl_c_at_the_prompt_refuses_the_call_and_stops_the_run() {
    let home = Home::new();
    std::fs::write(home.work().join("keep.txt"), "x").unwrap();
    let mut session = home.on_terminal(&bash_then_answer("rm keep.txt"), &["--no-session"]);
    session.expect("Run it?").unwrap();
    session.send(ControlCode::EndOfText).unwrap();
    session
        .expect("the run was cancelled before anyone answered")
        .unwrap();
    session.expect(Eof).unwrap();
    let status = exit_status(&session);
    assert!(!status.ends_with(", 0)"), "{status}");
    assert!(home.work().join("keep.txt").exists());
}

#[test]
fn yes_for_this_session_is_recorded_listed_and_restored_when_the_session_continues() {
    let home = Home::new();
    let session_file = home.root.path().join("run.jsonl");
    let session_flag = ["--session", session_file.to_str().unwrap()];
    let script = bash_then_answer("touch a.txt");
    let mut session = home.on_terminal(&script, &session_flag);
    session.expect("Run it?").unwrap();
    session.send_line("s").unwrap();
    session
        .expect("Allowed for this session: bash(touch a.txt)")
        .unwrap();
    session.expect(Eof).unwrap();
    assert!(home.work().join("a.txt").exists());
    assert!(!home.settings().exists(), "nothing saved for good");

    // The session continues without a terminal: had it asked, the call would be refused.
    std::fs::remove_file(home.work().join("a.txt")).unwrap();
    let mut flags = session_flag.to_vec();
    flags.push("--json");
    let output = home.command(&script, &flags).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    assert!(home.work().join("a.txt").exists(), "{output:?}");

    let listed = |json: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pi-tool"));
        command
            .env("PI_CODING_AGENT_DIR", home.agent_dir())
            .args(["session", "approvals"])
            .arg(&session_file);
        if json {
            command.arg("--json");
        }
        let output = command.output().unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let records: Vec<Value> = listed(true)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(records.len(), 2, "{records:?}");
    assert_eq!(
        (
            &records[0]["decision"],
            &records[0]["policy"],
            &records[0]["decidedBy"],
            &records[0]["scope"],
            &records[0]["rule"],
        ),
        (
            &json!("allow"),
            &json!("ask"),
            &json!("user"),
            &json!("session"),
            &json!("bash(touch a.txt)")
        )
    );
    assert_eq!(records[0]["tool"], "bash");
    assert_eq!(records[0]["toolCallId"], "c1");
    assert_eq!(records[0]["mode"], "ask");
    assert!(
        records[0]["fingerprint"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    assert_eq!(
        (&records[1]["decidedBy"], &records[1]["source"]),
        (&json!("rule"), &json!("session"))
    );
    let text = listed(false);
    let first = text.lines().next().unwrap();
    assert!(
        first.contains("allow  bash  c1  user/session  mode  bash(touch a.txt)"),
        "{text}"
    );
}

/// `full-auto`: a read of a file outside the workspace runs (reads run in every mode), the
/// confinement refuses it, and the prompt asks once whether to run it outside; yes reads it.
/// Without a terminal the same run is refused, saying which flag would allow it.
#[test]
fn full_auto_asks_once_to_run_outside_what_the_sandbox_refused() {
    let home = Home::new();
    let secret = home.root.path().join("secret.txt");
    std::fs::write(&secret, "the outside secret").unwrap();
    let script = json!([
        {"content": [{"type": "toolCall", "id": "c1", "name": "read",
            "arguments": {"path": secret.to_str().unwrap()}}]},
        {"content": [{"type": "text", "text": "finished"}]}
    ]);
    let mut session = home.on_terminal(&script, &["--no-session", "--approval", "full-auto"]);
    session
        .expect("the sandbox refused read (call c1)")
        .unwrap();
    session.expect("a path outside the workspace").unwrap();
    session
        .expect("Run it outside the sandbox, this once?")
        .unwrap();
    session.send_line("y").unwrap();
    session.expect("the outside secret").unwrap();
    session.expect("finished").unwrap();
    session.expect(Eof).unwrap();
    let status = exit_status(&session);
    assert!(
        status.contains("Exited(") && status.ends_with(", 0)"),
        "{status}"
    );

    let output = home
        .command(
            &script,
            &["--no-session", "--approval", "full-auto", "--json"],
        )
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("the outside secret"), "{stdout}");
    let allow_dir = format!("--allow-dir {}", home.root.path().display());
    assert!(stdout.contains(&allow_dir), "{stdout}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("the sandbox refused read"), "{stderr}");
}

/// P13, R6: escape sequences in a command (erase the line, go to its start, draw `$ git
/// status`, hide the rest) are shown as text at the prompt, so the person sees the `rm`; and
/// a model's text that would set the clipboard (OSC 52), the title and clear the screen
/// reaches the terminal as visible text. Nothing the terminal would act on is sent: the raw
/// bytes read from the pseudo-terminal hold none of the model's escapes.
#[test]
fn escape_sequences_from_the_model_are_shown_never_sent() {
    let home = Home::new();
    std::fs::write(home.work().join("important.txt"), "keep").unwrap();
    let spoof = "rm -f important.txt \"\u{1b}[2K\u{1b}[1G  $ git status\u{1b}[8m\" \u{1b}[28m";
    let script = json!([
        {"content": [
            {"type": "text", "text": "\u{1b}]52;c;cm0gLXJmIH4K\u{7}\u{1b}]0;pwned\u{7}\u{1b}[2Jtext"},
            {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": spoof}}
        ]},
        {"content": [{"type": "text", "text": "finished"}]}
    ]);
    let mut session = home.on_terminal(&script, &["--no-session"]);
    let prompt = session.expect("Run it?").unwrap();
    let mut shown = String::from_utf8_lossy(prompt.before()).into_owned();
    assert!(shown.contains("rm -f important.txt"), "{shown}");
    assert!(
        shown.contains("\\e[2K\\e[1G  $ git status\\e[8m"),
        "{shown}"
    );
    session.send_line("n").unwrap();
    // The live view (stdout) and the prompt (stderr) share the terminal in no fixed order:
    // the model's first text may come before the prompt or after it, but before its second
    // answer.
    let rest = session.expect("finished").unwrap();
    shown.push_str(&String::from_utf8_lossy(rest.before()));
    session.expect(Eof).unwrap();
    // The model's text streams in pieces and the prompt may land between two of them, so
    // each escaped character is counted, not the whole sequence: the command's four ESCs and
    // the text's three, the text's two BELs.
    assert!(shown.matches("\\e").count() >= 7, "{shown}");
    assert_eq!(shown.matches("\\x07").count(), 2, "{shown}");
    for sent in [
        "\u{1b}]52",
        "\u{1b}]0;",
        "\u{1b}[2J",
        "\u{1b}[2K",
        "\u{1b}[8m",
    ] {
        assert!(
            !shown.contains(sent),
            "{sent:?} reached the terminal: {shown:?}"
        );
    }
    assert!(home.work().join("important.txt").exists());
}
