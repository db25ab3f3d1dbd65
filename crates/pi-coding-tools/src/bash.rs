//! `bash`: run a command in the workspace, its output (stdout and stderr, interleaved as they
//! come) streamed as progress and returned tail-first within Pi's limits, the whole of a long
//! output kept in a temporary file.
//!
//! Better than upstream where its users were hurt: the command runs in its own process group,
//! and a time limit or a cancellation kills the whole group; once the shell has exited, output
//! still held open by a background process is waited for only briefly, so a daemon can never
//! hang the call (earendil-works/pi#7636); a failing command is an `isError` result that keeps
//! its output and details rather than an exception that loses them.

use std::io::Write;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use pi_tool::schema::ObjectParams;
use pi_tool::{FnTool, RegisteredTool, ToolContext, ToolError, ToolOutput, text};
use serde_json::{Map, Value, json};
use tokio::io::AsyncReadExt;
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

use crate::Workspace;
use crate::params::BashParams;
use crate::tool::description_of;
use crate::truncate::{DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_tail};

/// Output kept in memory: the tail the result and progress are cut from.
const ROLLING_BYTES: usize = 100 * 1024;
/// How long output may keep coming once the shell itself has exited.
const DRAIN_GRACE: Duration = Duration::from_millis(250);

/// The `bash` tool for `workspace`.
///
/// When the workspace is confined but this machine cannot enforce it (no Landlock), the
/// description says so, as each result's `details.sandbox` does: nothing pretends.
pub fn bash_tool(workspace: &Workspace) -> RegisteredTool {
    let workspace = workspace.clone();
    let mut description = description_of("bash").to_owned();
    if let Some(confinement) = workspace.shell_confinement() {
        let enforcement = crate::sandbox::probe(&confinement);
        if let Some(reason) = enforcement.strip_prefix("none: ") {
            description.push_str(&format!(
                "\n\nNot sandboxed on this machine ({reason}): the command can write \
                 anywhere this user can."
            ));
        }
    }
    RegisteredTool::new(
        FnTool::new(
            "bash",
            description,
            BashParams::object_schema(),
            move |params: BashParams, context: ToolContext| {
                let workspace = workspace.clone();
                async move { bash(&workspace, &params, &context).await }
            },
        )
        .with_scalar_string_repair(),
    )
}

/// How the command ended.
enum Ending {
    Exited(ExitStatus),
    TimedOut(f64),
    Aborted,
}

async fn bash(
    workspace: &Workspace,
    params: &BashParams,
    context: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let cwd = workspace.cwd();
    if !cwd.is_dir() {
        return Err(ToolError::new(format!(
            "Working directory does not exist: {}\nCannot execute bash commands.",
            cwd.display()
        )));
    }
    let (child, enforcement) = spawn(&params.command, cwd, workspace);
    let mut child = child?;
    let mut group = GroupKiller(child.id());
    let mut readers = Vec::new();
    let (sender, mut chunks) = mpsc::unbounded_channel();
    for stream in [
        child
            .stdout
            .take()
            .map(|out| Box::new(out) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
        child
            .stderr
            .take()
            .map(|err| Box::new(err) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
    ]
    .into_iter()
    .flatten()
    {
        readers.push(AbortOnDrop(tokio::spawn(forward(stream, sender.clone()))));
    }
    drop(sender);

    let mut output = Output::default();
    let time_limit = params
        .timeout
        .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok());
    let deadline = async {
        match time_limit {
            Some(limit) => tokio::time::sleep(limit).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(deadline);
    let ending = loop {
        tokio::select! {
            chunk = chunks.recv() => match chunk {
                Some(chunk) => output.push(&chunk, context)?,
                // Both streams closed: only the exit status is left to wait for.
                None => break wait_or_stop(&mut child, &mut deadline, params, context).await?,
            },
            status = child.wait() => {
                break Ending::Exited(status.map_err(|error| ToolError::new(error.to_string()))?);
            }
            () = &mut deadline => break stop(&mut child, Ending::TimedOut(params.timeout.unwrap_or_default())).await,
            () = context.signal().cancelled() => break stop(&mut child, Ending::Aborted).await,
        }
    };
    if matches!(ending, Ending::Exited(_)) {
        // The shell ended on its own: jobs it left in the background are the user's to keep.
        group.0 = None;
    }
    // Output the shell wrote before exiting is in the pipes; a background process holding
    // them open gets a short grace, not the power to hang the call.
    let grace = tokio::time::sleep(DRAIN_GRACE);
    tokio::pin!(grace);
    loop {
        tokio::select! {
            chunk = chunks.recv() => match chunk {
                Some(chunk) => output.push(&chunk, context)?,
                None => break,
            },
            () = &mut grace => break,
        }
    }
    let mut result = output.finish(ending)?;
    if let Some(enforcement) = enforcement {
        let mut details = match result.details.take() {
            Some(Value::Object(details)) => details,
            _ => Map::new(),
        };
        details.insert("sandbox".into(), Value::String(enforcement));
        result.details = Some(Value::Object(details));
    }
    Ok(result)
}

/// Kills the command's process group when the call ends without the shell having exited on
/// its own (the call's future dropped mid-run, an error): `kill_on_drop` reaches only the shell,
/// not the pipeline or the jobs it started.
struct GroupKiller(Option<u32>);

impl Drop for GroupKiller {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(id) = self.0.and_then(|id| i32::try_from(id).ok()) {
            // The group may be gone already; nothing else to do then.
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(id),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

/// A pipe reader owned by its call: aborted when the call ends, even if something outside
/// the process group still holds the pipe open.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Starts the shell, confined when the workspace is; says how far the sandbox was enforced.
fn spawn(
    command: &str,
    cwd: &std::path::Path,
    workspace: &Workspace,
) -> (Result<Child, ToolError>, Option<String>) {
    let start = || start_shell(command, cwd);
    match workspace.shell_confinement() {
        Some(confinement) => {
            let (child, enforcement) = crate::sandbox::spawn(
                || start().map_err(|error| std::io::Error::other(error.to_string())),
                &confinement,
            );
            (
                child.map_err(|error| ToolError::new(error.to_string())),
                Some(enforcement),
            )
        }
        None => (start(), None),
    }
}

fn start_shell(command: &str, cwd: &std::path::Path) -> Result<Child, ToolError> {
    let build = |shell: &str| {
        let mut process = Command::new(shell);
        process
            .arg("-c")
            .arg(command)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        process.process_group(0);
        process
    };
    match build("bash").spawn() {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => build("sh").spawn(),
        spawned => spawned,
    }
    .map_err(|error| ToolError::new(format!("Could not start the shell: {error}")))
}

async fn forward(
    mut stream: Box<dyn tokio::io::AsyncRead + Send + Unpin>,
    chunks: mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut buffer = vec![0; 8192];
    while let Ok(read) = stream.read(&mut buffer).await {
        let Some(chunk) = buffer.get(..read).filter(|chunk| !chunk.is_empty()) else {
            break;
        };
        if chunks.send(chunk.to_vec()).is_err() {
            break;
        }
    }
}

/// The streams have closed: wait for the exit status, still under the time limit and signal.
async fn wait_or_stop(
    child: &mut Child,
    deadline: &mut std::pin::Pin<&mut impl std::future::Future<Output = ()>>,
    params: &BashParams,
    context: &ToolContext,
) -> Result<Ending, ToolError> {
    tokio::select! {
        status = child.wait() => Ok(Ending::Exited(status.map_err(|error| ToolError::new(error.to_string()))?)),
        () = deadline.as_mut() => Ok(stop(child, Ending::TimedOut(params.timeout.unwrap_or_default())).await),
        () = context.signal().cancelled() => Ok(stop(child, Ending::Aborted).await),
    }
}

/// Kills the command's whole process group and reaps the shell.
async fn stop(child: &mut Child, ending: Ending) -> Ending {
    #[cfg(unix)]
    if let Some(id) = child.id().and_then(|id| i32::try_from(id).ok()) {
        // The shell leads its own group (`process_group(0)`), so its id is the group's.
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(id),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let _ = child.kill().await;
    ending
}

/// Everything the command wrote: a rolling tail in memory, the whole in a file once long.
#[derive(Default)]
struct Output {
    tail: Vec<u8>,
    total_bytes: usize,
    newlines: usize,
    spill: Option<(PathBuf, std::fs::File)>,
}

impl Output {
    fn push(&mut self, chunk: &[u8], context: &ToolContext) -> Result<(), ToolError> {
        self.total_bytes += chunk.len();
        self.newlines += chunk.iter().filter(|byte| **byte == b'\n').count();
        self.tail.extend_from_slice(chunk);
        match &mut self.spill {
            Some((_, file)) => file.write_all(chunk).map_err(keep_failed)?,
            None if self.total_bytes > DEFAULT_MAX_BYTES => self.spill_tail()?,
            None => {}
        }
        if self.tail.len() > ROLLING_BYTES {
            let excess = self.tail.len() - ROLLING_BYTES;
            self.tail.drain(..excess);
        }
        if context.report_progress().is_some() {
            let shown = truncate_tail(
                &String::from_utf8_lossy(&self.tail),
                DEFAULT_MAX_LINES,
                DEFAULT_MAX_BYTES,
            );
            context.progress(vec![text(shown.content)]);
        }
        Ok(())
    }

    /// Starts the full-output file with the tail, which until the first spill holds
    /// everything written (the tail only rolls past 100 KB, the spill starts at 50 KB).
    fn spill_tail(&mut self) -> Result<(), ToolError> {
        let (mut file, path) = tempfile::Builder::new()
            .prefix("pi-bash-")
            .suffix(".log")
            .tempfile()
            .and_then(|file| file.keep().map_err(|error| error.error))
            .map_err(keep_failed)?;
        file.write_all(&self.tail).map_err(keep_failed)?;
        self.spill = Some((path, file));
        Ok(())
    }

    fn finish(mut self, ending: Ending) -> Result<ToolOutput, ToolError> {
        // A final newline ends the last line; it does not start another (`seq 1 3000` is 3000
        // lines, and its last 2000 start at 1001, as upstream shows them).
        let text = String::from_utf8_lossy(&self.tail).into_owned();
        let ends_line = text.ends_with('\n');
        let cut = truncate_tail(
            text.strip_suffix('\n').unwrap_or(&text),
            DEFAULT_MAX_LINES,
            DEFAULT_MAX_BYTES,
        );
        // A cut output always leaves the whole somewhere the model can read it.
        if cut.truncated && self.spill.is_none() {
            self.spill_tail()?;
        }
        let whole = String::from_utf8_lossy(&self.tail);
        let mut details = Map::new();
        let mut shown = if cut.content.is_empty() {
            "(no output)".to_owned()
        } else if cut.truncated {
            cut.content.clone()
        } else {
            // Uncut output is shown exactly as written, final newline included.
            text
        };
        let spilled = self
            .spill
            .as_ref()
            .map(|(path, _)| path.display().to_string());
        let dropped = self.total_bytes > self.tail.len();
        if cut.truncated || dropped {
            // Lines are counted over everything the command wrote, not just the tail kept.
            let total_lines = self.newlines + 1 - usize::from(ends_line);
            let end = total_lines;
            let start = end + 1 - cut.output_lines.max(1);
            let full = spilled
                .as_deref()
                .map(|path| format!(" Full output: {path}"))
                .unwrap_or_default();
            let notice = if cut.last_line_partial {
                format!(
                    "[Showing last {} of line {end} (line is {}).{full}]",
                    format_size(cut.output_bytes),
                    format_size(whole.split('\n').next_back().map_or(0, str::len))
                )
            } else if cut.truncated_by == Some("lines") {
                format!("[Showing lines {start}-{end} of {total_lines}.{full}]")
            } else {
                format!(
                    "[Showing lines {start}-{end} of {total_lines} ({} limit).{full}]",
                    format_size(DEFAULT_MAX_BYTES)
                )
            };
            shown.push_str(&format!("\n\n{notice}"));
            details.insert("truncation".into(), json!(cut));
        }
        if let Some(path) = spilled {
            details.insert("fullOutputPath".into(), json!(path));
        }
        let failure = match ending {
            Ending::Exited(status) if status.success() => None,
            Ending::Exited(status) => Some(match status.code() {
                Some(code) => format!("Command exited with code {code}"),
                None => "Command was killed by a signal".to_owned(),
            }),
            Ending::TimedOut(seconds) => Some(format!("Command timed out after {seconds} seconds")),
            Ending::Aborted => Some("Command aborted".to_owned()),
        };
        if let Some(failure) = &failure {
            shown.push_str(&format!("\n\n{failure}"));
        }
        let mut result = ToolOutput::text(shown);
        if !details.is_empty() {
            result = result.with_details(Value::Object(details));
        }
        if failure.is_some() {
            result = result.with_is_error(true);
        }
        Ok(result)
    }
}

fn keep_failed(error: std::io::Error) -> ToolError {
    ToolError::new(format!("Could not keep the output: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The description tells the model whether the sandbox holds on this machine: Pi's words
    /// where Landlock enforces it, a warning where it cannot.
    #[test]
    fn the_description_says_when_the_sandbox_cannot_hold() {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let workspace = Workspace::new(dir.path());
        let confinement = workspace
            .shell_confinement()
            .unwrap_or_else(|| panic!("confined by default"));
        let enforced = !crate::sandbox::probe(&confinement).starts_with("none: ");
        let description = bash_tool(&workspace).definition().description;
        assert_eq!(description == description_of("bash"), enforced);
        assert_eq!(
            description.contains("Not sandboxed on this machine"),
            !enforced
        );
        let unconfined = Workspace::unconfined(dir.path());
        assert_eq!(
            bash_tool(&unconfined).definition().description,
            description_of("bash")
        );
    }
}
