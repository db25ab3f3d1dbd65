//! A shell command the person runs themselves (`!cmd` in the interactive mode, RPC's `bash`),
//! as Pi's `bashExecution` message: run in the working directory, its output (the tail, when
//! long, as Pi keeps it) recorded in the session, and read by the model with the next prompt
//! unless it was run with `!!` (`exclude_from_context`).

use std::path::Path;
use std::process::Stdio;

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
    /// Its standard output and error, the tail kept when long.
    pub output: String,
    /// Its exit code; `None` when a signal ended it.
    pub exit_code: Option<i32>,
    /// Whether it was stopped before it ended.
    pub cancelled: bool,
    /// Whether the output was cut.
    pub truncated: bool,
    /// Kept out of the model's context (`!!cmd`).
    pub exclude_from_context: bool,
}

impl BashExecution {
    /// Runs `command` with `bash -c` in `cwd` until it ends or `stop` is cancelled (the shell
    /// is then killed, and the run is `cancelled`).
    pub async fn run(
        command: &str,
        cwd: &Path,
        exclude_from_context: bool,
        stop: &CancellationToken,
    ) -> std::io::Result<Self> {
        let child = tokio::process::Command::new("bash")
            .arg("-c")
            .arg(command)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let (output, exit_code, cancelled) = tokio::select! {
            output = child.wait_with_output() => {
                let output = output?;
                let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
                text.push_str(&String::from_utf8_lossy(&output.stderr));
                (text, output.status.code(), false)
            }
            // Dropping the child kills the shell.
            () = stop.cancelled() => (String::new(), None, true),
        };
        let (output, truncated) = tail(output.trim_end());
        Ok(Self {
            command: command.to_owned(),
            output,
            exit_code,
            cancelled,
            truncated,
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
            "excludeFromContext": self.exclude_from_context,
            "timestamp": timestamp,
        })
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
        assert_eq!(run.output, "a.txt\noops");
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
