//! A stop signal to `pi-tool` ends the commands its calls started, and what is owed is still
//! answered: SIGINT or SIGTERM to `call`, `run`, `agent` and stdio `serve` while a `bash` call
//! runs a shell with children and grandchildren. Each test checks that every one of those
//! processes is gone within seconds, that the result was printed (or answered), and the exit
//! code (128 + the signal's number). Every wait is bounded; nothing passes without the processes
//! having been seen alive first.
//!
//! (Over 500 lines on purpose: each file under `tests/` is its own binary that links the whole
//! crate stack, so one file per behaviour area keeps CI's link time and disk down; the tests
//! inside are independent and share only the helpers at the top.)
#![cfg(target_os = "linux")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};

/// How long the commands may take to start (a shell in its sandbox, on a busy machine).
const START: Duration = Duration::from_secs(20);
/// How long `pi-tool` may take to exit after the signal: its 4 s limit, and room for a loaded
/// machine.
const EXIT: Duration = Duration::from_secs(10);
/// How long the command's processes may outlive `pi-tool`.
const GONE: Duration = Duration::from_secs(5);

/// The processes of one command: each carries `marker` on its command line, as this machine's
/// `/proc` shows it. (Pids the shell reports would not do: in a sandbox with its own pid
/// namespace they are not this machine's.)
struct Marked {
    marker: String,
}

/// Processes every command starts: the shell, its background job, a subshell and its child,
/// and the foreground child.
const PROCESSES: usize = 5;

impl Marked {
    fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let marker = format!(
            "0.{}{nanos:09}{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        Self { marker }
    }

    /// A shell command that starts a background job, a subshell with its own child, and a
    /// foreground child, all sleeping for 1000 s (plus the marker, a fraction of a second).
    fn command(&self) -> String {
        let sleep = format!("sleep 1000 {}", self.marker);
        format!("{sleep} & ({sleep} & wait) & {sleep}")
    }

    /// The marked processes running now, other than `except`.
    fn running(&self, except: Option<u32>) -> Vec<u32> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|name| name.parse::<u32>().ok())
            else {
                continue;
            };
            if Some(pid) == except || pid == std::process::id() {
                continue;
            }
            let Ok(line) = std::fs::read(entry.path().join("cmdline")) else {
                continue;
            };
            if String::from_utf8_lossy(&line).contains(&self.marker) && alive(pid) {
                found.push(pid);
            }
        }
        found
    }

    /// Waits until the command's processes all run (`pi_tool`'s own command line may hold the
    /// marker too: it is not counted).
    fn started(&self, pi_tool: &PiTool) -> Vec<u32> {
        let begin = Instant::now();
        loop {
            let found = self.running(Some(pi_tool.child.id()));
            if found.len() >= PROCESSES {
                return found;
            }
            assert!(
                begin.elapsed() < START,
                "the command did not start within {START:?}: {found:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Asserts no marked process is left within [`GONE`].
    fn all_gone(&self) {
        let begin = Instant::now();
        loop {
            let left = self.running(None);
            if left.is_empty() {
                return;
            }
            if begin.elapsed() > GONE {
                // Not left behind for the next run; they carry the marker, so they are ours.
                for pid in &left {
                    let _ = kill(Pid::from_raw(i32::try_from(*pid).unwrap()), Signal::SIGKILL);
                }
                panic!("still running {GONE:?} after pi-tool exited: {left:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// How `bash` runs. Each scenario runs both ways: in its sandbox (bubblewrap, where present,
/// kills the command's namespace when its parent dies, which would hide a leak) and without
/// one, where only `pi-tool` can end the command's process group.
#[derive(Debug, Clone, Copy)]
enum Sandbox {
    Confined,
    Unconfined,
}

const SANDBOXES: [Sandbox; 2] = [Sandbox::Confined, Sandbox::Unconfined];

/// `pi-tool` running, killed if a test fails before it exits.
struct PiTool {
    child: Child,
}

impl Drop for PiTool {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl PiTool {
    fn start(args: &[&str], dir: &Path, sandbox: Sandbox) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pi-tool"));
        command.arg("--coding-tools").arg(dir);
        if let Sandbox::Unconfined = sandbox {
            command.arg("--unconfined-file-tools");
        }
        let child = command
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        Self { child }
    }

    /// The `host:port` that `serve --http` says it serves on, read from stderr a byte at a
    /// time so that what follows stays in the pipe for [`PiTool::exit`].
    fn served_address(&mut self) -> String {
        let stderr = self.child.stderr.as_mut().unwrap();
        let mut line = Vec::new();
        let mut byte = [0_u8];
        loop {
            assert!(
                stderr.read(&mut byte).unwrap() == 1,
                "the server did not start: {}",
                String::from_utf8_lossy(&line)
            );
            if byte[0] != b'\n' {
                line.push(byte[0]);
                continue;
            }
            let text = String::from_utf8_lossy(&line).into_owned();
            if let Some(address) = text
                .strip_prefix("pi-tool: serving MCP on http://")
                .and_then(|rest| rest.strip_suffix("/mcp"))
            {
                return address.to_owned();
            }
            line.clear();
        }
    }

    fn stdin(&mut self) -> ChildStdin {
        self.child.stdin.take().unwrap()
    }

    fn signal(&self, signal: Signal) {
        kill(
            Pid::from_raw(i32::try_from(self.child.id()).unwrap()),
            signal,
        )
        .unwrap();
    }

    /// Waits for the exit; returns its status, how long it took, and what was written.
    fn exit(mut self) -> (ExitStatus, Duration, String, String) {
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                start.elapsed() < EXIT,
                "pi-tool did not exit within {EXIT:?} of the signal"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let took = start.elapsed();
        let mut stdout = String::new();
        let mut stderr = String::new();
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        (status, took, stdout, stderr)
    }
}

/// Whether `pid` runs: it exists and is not a zombie (a process whose parent is gone may be
/// left unreaped by a container's init).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next())
            .is_some_and(|state| state != 'Z' && state != 'X')
    })
}

fn exit_code(signal: Signal) -> i32 {
    128 + signal as i32
}

/// The text of a result's content.
fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|block| block["text"].as_str())
        .collect()
}

fn bash_call(id: &str, marked: &Marked) -> String {
    json!({"type": "toolCall", "id": id, "name": "bash", "arguments": {"command": marked.command()}})
        .to_string()
}

fn call_is_stopped_by(signal: Signal, sandbox: Sandbox) {
    let dir = tempfile::tempdir().unwrap();
    let marked = Marked::new();
    let arguments = json!({"command": marked.command()}).to_string();
    let pi = PiTool::start(&["call", "bash", &arguments], dir.path(), sandbox);
    marked.started(&pi);
    pi.signal(signal);
    let (status, took, stdout, stderr) = pi.exit();
    marked.all_gone();
    assert_eq!(status.code(), Some(exit_code(signal)), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one result line: {stdout}");
    let result: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(result["toolCallId"], "call-1");
    assert_eq!(result["isError"], true);
    assert!(
        text(&result).contains("Command aborted"),
        "{result} ({stderr})"
    );
    eprintln!("call, {signal}, {sandbox:?}: exited {took:?} after the signal");
}

#[test]
fn sigint_to_call_ends_the_command_and_prints_its_aborted_result() {
    for sandbox in SANDBOXES {
        call_is_stopped_by(Signal::SIGINT, sandbox);
    }
}

#[test]
fn sigterm_to_call_ends_the_command_and_prints_its_aborted_result() {
    for sandbox in SANDBOXES {
        call_is_stopped_by(Signal::SIGTERM, sandbox);
    }
}

fn run_is_stopped_by(signal: Signal, sandbox: Sandbox) {
    let dir = tempfile::tempdir().unwrap();
    let mut pi = PiTool::start(&["run"], dir.path(), sandbox);
    let mut stdin = pi.stdin();
    let echo = json!({"type": "toolCall", "id": "e", "name": "echo", "arguments": {"value": "Pi"}});
    let (first, second) = (Marked::new(), Marked::new());
    let (b1, b2) = (bash_call("b1", &first), bash_call("b2", &second));
    writeln!(stdin, "{b1}\n{echo}\n{b2}").unwrap();
    stdin.flush().unwrap();
    first.started(&pi);
    second.started(&pi);
    pi.signal(signal);
    // Stdin stays open: the signal, not the end of the input, must end the run.
    let (status, took, stdout, stderr) = pi.exit();
    drop(stdin);
    first.all_gone();
    second.all_gone();
    assert_eq!(status.code(), Some(exit_code(signal)), "{stderr}");
    let results: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let ids: Vec<&str> = results
        .iter()
        .map(|result| result["toolCallId"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["b1", "e", "b2"],
        "one line per call started, in order"
    );
    for bash in [&results[0], &results[2]] {
        assert_eq!(bash["isError"], true);
        assert!(text(bash).contains("Command aborted"), "{bash}");
    }
    assert_eq!(text(&results[1]), "Pi");
    eprintln!("run, {signal}, {sandbox:?}: exited {took:?} after the signal");
}

#[test]
fn sigint_to_run_ends_every_command_and_writes_every_result() {
    for sandbox in SANDBOXES {
        run_is_stopped_by(Signal::SIGINT, sandbox);
    }
}

#[test]
fn sigterm_to_run_ends_every_command_and_writes_every_result() {
    for sandbox in SANDBOXES {
        run_is_stopped_by(Signal::SIGTERM, sandbox);
    }
}

fn agent_is_stopped_by(signal: Signal, sandbox: Sandbox) {
    let dir = tempfile::tempdir().unwrap();
    let marked = Marked::new();
    let script = json!([
        {"content": [{"type": "toolCall", "id": "call-1", "name": "bash",
                      "arguments": {"command": marked.command()}}]},
        {"content": [{"type": "text", "text": "never reached"}]}
    ]);
    let script_path = dir.path().join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let script_arg = script_path.to_str().unwrap();
    let pi = PiTool::start(
        &[
            "agent",
            "--demo-tools",
            "--approval",
            "full-auto",
            "--faux",
            script_arg,
            "--json",
            "--no-session",
            "run it",
        ],
        dir.path(),
        sandbox,
    );
    marked.started(&pi);
    pi.signal(signal);
    let (status, took, stdout, stderr) = pi.exit();
    marked.all_gone();
    assert_eq!(status.code(), Some(exit_code(signal)), "{stderr}");
    let messages: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let results: Vec<&Value> = messages
        .iter()
        .filter(|message| message["role"] == "toolResult")
        .collect();
    assert_eq!(results.len(), 1, "the call's result is recorded: {stdout}");
    assert_eq!(results[0]["toolCallId"], "call-1");
    assert_eq!(results[0]["isError"], true);
    assert!(
        !stdout.contains("never reached"),
        "the run stopped at the signal"
    );
    eprintln!("agent, {signal}, {sandbox:?}: exited {took:?} after the signal");
}

#[test]
fn sigterm_to_agent_ends_the_command_and_records_its_result() {
    for sandbox in SANDBOXES {
        agent_is_stopped_by(Signal::SIGTERM, sandbox);
    }
}

#[test]
fn sigint_to_agent_ends_the_command_and_records_its_result() {
    for sandbox in SANDBOXES {
        agent_is_stopped_by(Signal::SIGINT, sandbox);
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn stdio_serve_is_stopped_by(signal: Signal, sandbox: Sandbox) {
    let dir = tempfile::tempdir().unwrap();
    let mut pi = PiTool::start(&["serve"], dir.path(), sandbox);
    let mut stdin = pi.stdin();
    let marked = Marked::new();
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "bash", "arguments": {"command": marked.command()}}});
    writeln!(stdin, "{INITIALIZE}\n{INITIALIZED}\n{call}").unwrap();
    stdin.flush().unwrap();
    marked.started(&pi);
    pi.signal(signal);
    // The client stays connected: the signal must end the server.
    let (status, took, stdout, stderr) = pi.exit();
    drop(stdin);
    marked.all_gone();
    assert_eq!(status.code(), Some(exit_code(signal)), "{stderr}");
    let answer = stdout
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|message| message["id"] == 7)
        .unwrap_or_else(|| panic!("the call was not answered: {stdout}"));
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(
        text(&answer["result"]).contains("Command aborted"),
        "{answer}"
    );
    eprintln!("serve, {signal}, {sandbox:?}: exited {took:?} after the signal");
}

#[test]
fn sigint_to_stdio_serve_ends_the_command_and_answers_the_call() {
    for sandbox in SANDBOXES {
        stdio_serve_is_stopped_by(Signal::SIGINT, sandbox);
    }
}

#[test]
fn sigterm_to_stdio_serve_ends_the_command_and_answers_the_call() {
    for sandbox in SANDBOXES {
        stdio_serve_is_stopped_by(Signal::SIGTERM, sandbox);
    }
}

/// A command that ignores SIGTERM and SIGINT (its children inherit that) outlasts a polite
/// stop; a second signal ends `pi-tool` at once, and its process group with it.
#[test]
fn a_second_signal_exits_at_once_and_still_ends_the_commands() {
    for sandbox in SANDBOXES {
        second_signal(sandbox);
    }
}

fn second_signal(sandbox: Sandbox) {
    let dir = tempfile::tempdir().unwrap();
    let mut pi = PiTool::start(&["run"], dir.path(), sandbox);
    let mut stdin = pi.stdin();
    let marked = Marked::new();
    let deaf = json!({"type": "toolCall", "id": "deaf", "name": "bash",
        "arguments": {"command": format!("trap '' TERM INT; {}", marked.command())}});
    writeln!(stdin, "{deaf}").unwrap();
    stdin.flush().unwrap();
    marked.started(&pi);
    pi.signal(Signal::SIGTERM);
    std::thread::sleep(Duration::from_millis(300));
    pi.signal(Signal::SIGTERM);
    let (status, took, _stdout, stderr) = pi.exit();
    marked.all_gone();
    assert_eq!(status.code(), Some(exit_code(Signal::SIGTERM)), "{stderr}");
    assert!(
        took < Duration::from_secs(2),
        "{sandbox:?}: exited {took:?} after the second signal"
    );
}

/// A call deaf to cancellation (`hang`) cannot hold the exit: the first signal stops the server
/// within its limit, a second at once.
#[test]
fn a_call_deaf_to_cancellation_does_not_hold_the_exit() {
    for second in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let mut pi = PiTool::start(&["serve", "--test-tools"], dir.path(), Sandbox::Confined);
        let mut stdin = pi.stdin();
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "hang", "arguments": {}}});
        writeln!(stdin, "{INITIALIZE}\n{INITIALIZED}\n{call}").unwrap();
        stdin.flush().unwrap();
        // The server has no way to say the call started; give it time to.
        std::thread::sleep(Duration::from_millis(500));
        pi.signal(Signal::SIGINT);
        let mut limit = Duration::from_secs(7);
        if second {
            std::thread::sleep(Duration::from_millis(300));
            pi.signal(Signal::SIGINT);
            limit = Duration::from_secs(2);
        }
        let (status, took, _stdout, stderr) = pi.exit();
        drop(stdin);
        assert_eq!(status.code(), Some(exit_code(Signal::SIGINT)), "{stderr}");
        assert!(
            took < limit,
            "second signal: {second}; exited after {took:?}"
        );
        eprintln!("hang, second signal {second}: exited {took:?} after the last signal");
    }
}

/// A command that ignores SIGTERM and SIGINT outlasts `bash`'s polite stop but not its SIGKILL
/// after the grace: one signal still ends it, and its own result is printed within the limit.
#[test]
fn one_signal_ends_a_command_deaf_to_sigterm_and_prints_its_result() {
    for sandbox in SANDBOXES {
        deaf_call(sandbox);
    }
}

fn deaf_call(sandbox: Sandbox) {
    let dir = tempfile::tempdir().unwrap();
    let marked = Marked::new();
    let arguments =
        json!({"command": format!("trap '' TERM INT; {}", marked.command())}).to_string();
    let pi = PiTool::start(&["call", "bash", &arguments], dir.path(), sandbox);
    marked.started(&pi);
    pi.signal(Signal::SIGINT);
    let (status, took, stdout, stderr) = pi.exit();
    marked.all_gone();
    assert_eq!(status.code(), Some(exit_code(Signal::SIGINT)), "{stderr}");
    let result: Value = serde_json::from_str(stdout.trim_end()).unwrap();
    assert_eq!(result["isError"], true);
    assert!(text(&result).contains("Command aborted"), "{result}");
    eprintln!("deaf call, SIGINT, {sandbox:?}: exited {took:?} after the signal");
}

/// `serve --http`: the server stops on SIGTERM and the calls in flight are dropped with it,
/// not left running: dropping a `bash` call kills its process group.
#[test]
fn sigterm_to_http_serve_ends_the_commands_of_calls_in_flight() {
    for sandbox in SANDBOXES {
        http_serve(sandbox);
    }
}

fn http_serve(sandbox: Sandbox) {
    let dir = tempfile::tempdir().unwrap();
    let mut pi = PiTool::start(
        &[
            "serve",
            "--http",
            "127.0.0.1:0",
            "--token",
            "t0ken",
            "--stateless",
        ],
        dir.path(),
        sandbox,
    );
    // The port the kernel picked, as the server says it (a port picked here and bound later
    // could be taken by another test's server in between).
    let address = pi.served_address();
    let mut client = std::net::TcpStream::connect(&address).unwrap();
    let marked = Marked::new();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "bash", "arguments": {"command": marked.command()}}})
    .to_string();
    write!(
        client,
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer t0ken\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: 2025-06-18\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    marked.started(&pi);
    pi.signal(Signal::SIGTERM);
    let (status, took, _stdout, stderr) = pi.exit();
    marked.all_gone();
    assert_eq!(status.code(), Some(exit_code(Signal::SIGTERM)), "{stderr}");
    eprintln!("serve --http, SIGTERM, {sandbox:?}: exited {took:?} after the signal");
}
