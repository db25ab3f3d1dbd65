//! A shell command the person runs themselves (`!cmd` in the interactive mode, RPC's `bash`),
//! as Pi's `bashExecution` message: run in the working directory, its output (the tail, when
//! long, as Pi keeps it) recorded in the session, and read by the model with the next prompt
//! unless it was run with `!!` (`exclude_from_context`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::io::AsyncReadExt;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// The most lines of output kept (the last ones).
pub const USER_BASH_MAX_LINES: usize = 2000;
/// The most bytes of output kept (the last ones).
pub const USER_BASH_MAX_BYTES: usize = 50 * 1024;

/// A command the person ran and what it printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BashExecution {
    /// The command line.
    pub command: String,
    /// Its standard output and error, interleaved as written, the tail kept when long.
    pub output: String,
    /// Its exit code; `None` when a signal ended it.
    pub exit_code: Option<i32>,
    /// Whether it was stopped before it ended.
    pub cancelled: bool,
    /// Whether the output was cut.
    pub truncated: bool,
    /// Where the whole output is, when it was cut (a temporary file).
    pub full_output_path: Option<PathBuf>,
    /// Kept out of the model's context (`!!cmd`).
    pub exclude_from_context: bool,
}

/// How much of the output is held in memory: twice what is kept, so the last
/// [`USER_BASH_MAX_LINES`] and [`USER_BASH_MAX_BYTES`] are always among it, however much the
/// command writes (`yes` runs in bounded memory until it is stopped).
const HELD_BYTES: usize = 2 * USER_BASH_MAX_BYTES;

/// How long a job the shell left in the background may keep the output open without
/// writing before the run is over.
const BACKGROUND_QUIET: std::time::Duration = std::time::Duration::from_millis(500);

impl BashExecution {
    /// Runs `command` with `bash -c` in `cwd`, in a process group of its own, until it ends
    /// or `stop` is cancelled (the whole group is then killed, and the run is `cancelled`).
    /// Standard output and error share one pipe, so they interleave as written; past
    /// [`USER_BASH_MAX_BYTES`] the whole output also goes to a temporary file.
    pub async fn run(
        command: &str,
        cwd: &Path,
        exclude_from_context: bool,
        stop: &CancellationToken,
    ) -> std::io::Result<Self> {
        let (reader, writer) = std::io::pipe()?;
        let mut child = {
            // The builder holds the write ends: dropped at the end of this block, so only the
            // shell and its children keep the pipe open.
            let mut shell = tokio::process::Command::new("bash");
            shell
                .arg("-c")
                .arg(command)
                .current_dir(cwd)
                .stdin(Stdio::null())
                .stdout(writer.try_clone()?)
                .stderr(writer)
                .process_group(0)
                .kill_on_drop(true);
            shell.spawn()?
        };
        let group = child.id();
        let mut pipe = tokio::net::unix::pipe::Receiver::from_owned_fd(reader.into())?;
        let mut output = Output::default();
        let mut buffer = vec![0; 64 * 1024];
        let mut pipe_open = true;
        let mut status = None;
        let cancelled = loop {
            tokio::select! {
                read = pipe.read(&mut buffer), if pipe_open => match read {
                    Ok(0) | Err(_) => pipe_open = false,
                    Ok(read) => output.push(buffer.get(..read).unwrap_or_default()),
                },
                ended = child.wait(), if status.is_none() => status = Some(ended?),
                () = stop.cancelled() => break true,
                // The shell has ended but a job it left in the background holds the pipe:
                // once that is quiet for a moment, the run is over.
                () = tokio::time::sleep(BACKGROUND_QUIET), if status.is_some() && pipe_open => break false,
            }
            // Done when the shell has ended and nothing holds the pipe any more.
            if status.is_some() && !pipe_open {
                break false;
            }
        };
        if cancelled {
            kill_group(group);
        }
        // As Pi keeps it: the output as written (its last line end too), or the tail when cut.
        let whole = output.text();
        let (cut_text, truncated) = tail(whole.trim_end());
        let text = if truncated { cut_text } else { whole };
        Ok(Self {
            command: command.to_owned(),
            output: text,
            exit_code: if cancelled {
                None
            } else {
                status.and_then(|status| status.code())
            },
            cancelled,
            truncated,
            full_output_path: truncated.then(|| output.spill_path()).flatten(),
            exclude_from_context,
        })
    }

    /// Pi's `bashExecution` message, as the session stores it.
    pub fn to_message(&self, timestamp: u64) -> Value {
        json!({
            "role": "bashExecution",
            "command": self.command,
            "output": self.output,
            "exitCode": self.exit_code,
            "cancelled": self.cancelled,
            "truncated": self.truncated,
            "fullOutputPath": self.full_output_path,
            "excludeFromContext": self.exclude_from_context,
            "timestamp": timestamp,
        })
    }
}

/// The output as it comes: its last [`HELD_BYTES`] (at least) in memory, and once it
/// passes [`USER_BASH_MAX_BYTES`], all of it in a temporary file.
#[derive(Default)]
struct Output {
    held: Vec<u8>,
    total: usize,
    /// The whole output, once it is long; `None` before, or when the file could not be made
    /// or written (the tail in memory is still shown).
    spill: Option<tempfile::NamedTempFile>,
    spill_failed: bool,
}

impl Output {
    fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len();
        if self.total > USER_BASH_MAX_BYTES && self.spill.is_none() && !self.spill_failed {
            // Everything before this chunk is still held: the file starts complete.
            self.spill = tempfile::Builder::new()
                .prefix("pi-bash-")
                .suffix(".log")
                .tempfile()
                .ok()
                .filter(|file| append(file, &self.held));
            self.spill_failed = self.spill.is_none();
        }
        if let Some(file) = &self.spill
            && !append(file, chunk)
        {
            self.spill = None;
            self.spill_failed = true;
        }
        self.held.extend_from_slice(chunk);
        if self.held.len() > 2 * HELD_BYTES {
            let cut = self.held.len() - HELD_BYTES;
            self.held.drain(..cut);
        }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.held).into_owned()
    }

    /// Keeps the temporary file past this run and says where it is.
    fn spill_path(self) -> Option<PathBuf> {
        let (_, path) = self.spill?.keep().ok()?;
        Some(path)
    }
}

/// Appends `bytes` to `file`; whether it worked.
fn append(file: &tempfile::NamedTempFile, bytes: &[u8]) -> bool {
    let mut handle = file.as_file();
    handle.write_all(bytes).is_ok()
}

/// Kills the process group `id` leads (the shell and everything it started). The group may
/// be gone already; nothing else to do then.
fn kill_group(id: Option<u32>) {
    if let Some(id) = id.and_then(|id| i32::try_from(id).ok()) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(id),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

/// The last [`USER_BASH_MAX_LINES`] lines and [`USER_BASH_MAX_BYTES`] bytes of `text`, and
/// whether anything was cut.
fn tail(text: &str) -> (String, bool) {
    let mut start = 0;
    let mut cut = false;
    if let Some((at, _)) = text.match_indices('\n').rev().nth(USER_BASH_MAX_LINES - 1) {
        start = at + 1;
        cut = true;
    }
    if text.len() - start > USER_BASH_MAX_BYTES {
        start = text.len() - USER_BASH_MAX_BYTES;
        while !text.is_char_boundary(start) {
            start += 1;
        }
        cut = true;
    }
    (text.get(start..).unwrap_or_default().to_owned(), cut)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test]
    async fn a_command_runs_and_becomes_pi_s_message() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "x").unwrap();
        let stop = CancellationToken::new();
        let run = BashExecution::run("ls; echo oops >&2; exit 3", dir.path(), false, &stop)
            .await
            .unwrap();
        assert_eq!(run.output, "a.txt\noops\n");
        assert_eq!(run.exit_code, Some(3));
        let message = run.to_message(7);
        assert_eq!(message["role"], "bashExecution");
        assert_eq!(message["exitCode"], 3);
        assert_eq!(message["excludeFromContext"], false);
    }

    #[tokio::test]
    async fn a_stopped_command_is_cancelled() {
        let dir = tempfile::tempdir().unwrap();
        let stop = CancellationToken::new();
        stop.cancel();
        let run = BashExecution::run("sleep 30", dir.path(), true, &stop)
            .await
            .unwrap();
        assert!(run.cancelled);
        assert_eq!(run.exit_code, None);
    }

    #[tokio::test]
    async fn output_interleaves_and_a_long_one_keeps_its_tail_and_the_whole_in_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let stop = CancellationToken::new();
        let run = BashExecution::run(
            "echo one; echo two >&2; echo three; seq 1 200000",
            dir.path(),
            false,
            &stop,
        )
        .await
        .unwrap();
        assert!(run.truncated);
        assert!(run.output.ends_with("\n200000"), "{}", &run.output[..40]);
        assert_eq!(run.output.lines().count(), USER_BASH_MAX_LINES);
        let whole = std::fs::read_to_string(run.full_output_path.as_ref().unwrap()).unwrap();
        assert!(
            whole.starts_with("one\ntwo\nthree\n1\n2\n"),
            "stdout and stderr in order"
        );
        assert!(whole.ends_with("199999\n200000\n"));
        std::fs::remove_file(run.full_output_path.unwrap()).unwrap();
    }

    #[tokio::test]
    async fn a_stop_ends_every_process_the_command_started() {
        let dir = tempfile::tempdir().unwrap();
        let stop = CancellationToken::new();
        let marker = dir.path().join("pid");
        let command = format!("sleep 300 & echo $! > {}; wait", marker.display());
        let stopper = stop.clone();
        let waiter = tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            stopper.cancel();
        });
        let run = BashExecution::run(&command, dir.path(), false, &stop)
            .await
            .unwrap();
        waiter.await.unwrap();
        assert!(run.cancelled);
        let pid: i32 = std::fs::read_to_string(&marker)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // The background `sleep` is gone (a zombie at most, until its parent is reaped).
        std::thread::sleep(std::time::Duration::from_millis(100));
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(state.is_empty() || state.contains(") Z "), "{state}");
    }

    #[tokio::test]
    async fn a_background_job_holding_the_output_does_not_hold_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let stop = CancellationToken::new();
        let run = tokio::time::timeout(
            std::time::Duration::from_secs(20),
            BashExecution::run("echo started; sleep 60 &", dir.path(), false, &stop),
        )
        .await
        .expect("the run ends once the shell has")
        .unwrap();
        assert_eq!(run.output, "started\n");
        assert_eq!(run.exit_code, Some(0));
    }

    #[test]
    fn long_output_keeps_its_tail() {
        let lines: Vec<String> = (0..3000).map(|n| n.to_string()).collect();
        let (kept, cut) = tail(&lines.join("\n"));
        assert!(cut);
        assert_eq!(kept.lines().count(), USER_BASH_MAX_LINES);
        assert!(kept.ends_with("2999"));
        let (kept, cut) = tail(&"é".repeat(40_000));
        assert!(cut && kept.len() <= USER_BASH_MAX_BYTES);
        assert_eq!(tail("short"), ("short".to_owned(), false));
    }
}
