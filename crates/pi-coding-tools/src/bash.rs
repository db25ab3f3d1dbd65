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

use crate::Workspace;
use crate::params::BashParams;
use crate::tool::description_of;
use crate::truncate::{DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_tail};

/// Output kept in memory: the tail the result and progress are cut from.
const ROLLING_BYTES: usize = 100 * 1024;
/// How long a background process that holds the output pipe open may stay quiet once the
/// shell itself has exited before reading stops.
const DRAIN_GRACE: Duration = Duration::from_millis(250);
/// How long output may keep coming from a background process once the shell has exited.
const DRAIN_LIMIT: Duration = Duration::from_secs(2);
/// How long a stopped command has between `SIGTERM` and `SIGKILL`.
const KILL_GRACE: Duration = Duration::from_secs(2);
/// Bytes read from the pipe at a time.
const READ_BYTES: usize = 64 * 1024;
/// How often progress shows the output's tail while the command runs.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

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
        } else if let Some(reason) = enforcement.strip_prefix("refused: ") {
            description.push_str(&format!(
                "\n\nRefused on this machine ({reason}): no command runs."
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
        .with_scalar_string_repair()
        .with_annotations(pi_tool::ToolAnnotations::open()),
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
    if let Some(runner) = workspace
        .command_runner()
        .filter(|runner| runner.takes_commands())
    {
        return run_elsewhere(runner.as_ref(), workspace, params, context).await;
    }
    // One pipe for stdout and stderr: the model reads them in the order they were written.
    let (reader, writer) = std::io::pipe().map_err(|error| {
        ToolError::with_source(format!("Could not make the output pipe: {error}"), error)
    })?;
    let (child, enforcement, (warden, limit)) = spawn(&params.command, cwd, workspace, &writer);
    // Our copy of the write end must go, or the pipe would never report its end.
    drop(writer);
    let mut child = child?;
    let mut group = GroupKiller {
        group: child.id(),
        warden,
        _limit: limit,
    };
    let mut pipe =
        tokio::net::unix::pipe::Receiver::from_owned_fd(reader.into()).map_err(|error| {
            ToolError::with_source(format!("Could not read the output pipe: {error}"), error)
        })?;

    let mut output = Output::new(workspace);
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
    let mut buffer = vec![0; READ_BYTES];
    let mut pipe_open = true;
    let ending = loop {
        tokio::select! {
            read = pipe.read(&mut buffer), if pipe_open => match read {
                Ok(0) | Err(_) => pipe_open = false,
                Ok(read) => output.push(buffer.get(..read).unwrap_or_default(), context)?,
            },
            status = child.wait() => {
                break Ending::Exited(status.map_err(ToolError::from)?);
            }
            () = &mut deadline => break stop(&mut child, group.warden.as_ref(), Ending::TimedOut(params.timeout.unwrap_or_default())).await,
            () = context.signal().cancelled() => break stop(&mut child, group.warden.as_ref(), Ending::Aborted).await,
        }
    };
    if matches!(ending, Ending::Exited(_)) {
        // The shell ended on its own: jobs it left in the background are the user's to keep
        // (under bubblewrap they end with the shell's namespace).
        group.group = None;
        group.warden = None;
    }
    // What the shell wrote before exiting is still in the pipe: all of it is read. Only a
    // background process holding the pipe open is cut short: once it has been quiet for the
    // grace, or has kept writing for the drain limit, reading stops and the result says so.
    let draining_since = tokio::time::Instant::now();
    let mut still_open = None;
    while pipe_open {
        let idle = tokio::time::timeout(DRAIN_GRACE, pipe.read(&mut buffer));
        match idle.await {
            Ok(Ok(0) | Err(_)) => pipe_open = false,
            Ok(Ok(read)) => output.push(buffer.get(..read).unwrap_or_default(), context)?,
            Err(_) => {
                still_open = Some(StillOpen::Quiet);
                break;
            }
        }
        if draining_since.elapsed() > DRAIN_LIMIT {
            still_open = Some(StillOpen::Writing);
            break;
        }
    }
    // A command that failed in a sandbox that holds: did the sandbox stop it?
    let refusal = match (&ending, &enforcement) {
        (Ending::Exited(status), Some(enforcement))
            if !status.success() && !enforcement.starts_with("none: ") =>
        {
            crate::sandbox::denial::find(workspace, &String::from_utf8_lossy(&output.tail))
        }
        _ => None,
    };
    let mut result = output.finish(ending, still_open)?;
    if let Some(enforcement) = enforcement {
        let mut details = match result.details.take() {
            Some(Value::Object(details)) => details,
            _ => Map::new(),
        };
        details.insert("sandbox".into(), Value::String(enforcement));
        if let Some(refusal) = refusal
            && let Ok(refusal) = serde_json::to_value(refusal)
        {
            details.insert(pi_tool::SandboxRefusal::DETAILS_KEY.into(), refusal);
        }
        result.details = Some(Value::Object(details));
    }
    Ok(result)
}

/// Runs the command through the workspace's [`crate::CommandRunner`] (an editor's terminal):
/// its output and ending become the same result text, limits and notices as a local run's,
/// the runner's details added. No progress is reported: the runner shows the command live.
async fn run_elsewhere(
    runner: &dyn crate::CommandRunner,
    workspace: &Workspace,
    params: &BashParams,
    context: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let launch = crate::ShellLaunch::new(
        workspace,
        shell(),
        params.command.clone(),
        workspace.cwd().to_path_buf(),
    );
    let enforcement = launch.enforcement();
    let request = crate::CommandRequest {
        shell: shell(),
        command: params.command.clone(),
        cwd: workspace.cwd().to_path_buf(),
        launch,
        timeout: params
            .timeout
            .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok()),
        output_limit: ROLLING_BYTES,
    };
    let run = runner.run(request, context).await?;
    let mut output = Output::new(workspace);
    output.push(run.output.as_bytes(), &ToolContext::new(context.call_id()))?;
    let failed = run.end != crate::CommandEnd::Exited(0);
    let ending = match run.end {
        crate::CommandEnd::Exited(code) => Ending::Exited(exit_status((code & 0xff) << 8)),
        // A raw wait status of 9 reads as "killed by signal 9": no exit code.
        crate::CommandEnd::Signalled(_) => Ending::Exited(exit_status(9)),
        crate::CommandEnd::TimedOut => Ending::TimedOut(params.timeout.unwrap_or_default()),
        crate::CommandEnd::Aborted => Ending::Aborted,
    };
    let mut result = output.finish(ending, None)?;
    let mut details = match result.details.take() {
        Some(Value::Object(details)) => details,
        _ => Map::new(),
    };
    details.extend(run.details);
    if let Some(enforcement) = enforcement {
        // A failed command in a sandbox that holds: did the sandbox stop it? As a local run.
        if failed
            && !enforcement.starts_with("none: ")
            && let Some(refusal) = crate::sandbox::denial::find(workspace, &run.output)
            && let Ok(refusal) = serde_json::to_value(refusal)
        {
            details.insert(pi_tool::SandboxRefusal::DETAILS_KEY.into(), refusal);
        }
        // The runner ran our launcher, which applied this sandbox.
        details.insert("sandbox".into(), Value::String(enforcement));
    }
    if run.truncated {
        // The runner kept only the tail: the totals count what it kept.
        details.insert("outputStartDropped".into(), Value::Bool(true));
    }
    if !details.is_empty() {
        result.details = Some(Value::Object(details));
    }
    Ok(result)
}

/// An exit status from a raw wait status.
fn exit_status(raw: i32) -> ExitStatus {
    std::os::unix::process::ExitStatusExt::from_raw(raw)
}

/// Why reading stopped while a background process still held the output pipe open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StillOpen {
    /// It wrote nothing for [`DRAIN_GRACE`].
    Quiet,
    /// It kept writing for [`DRAIN_LIMIT`].
    Writing,
}

/// Kills the command's process group, and under Landlock every process it started, when the
/// call ends without the shell having exited on its own (the call's future dropped mid-run, an
/// error): `kill_on_drop` reaches only the shell, not the pipeline or the jobs it started. At
/// once: a dropped call cannot wait for a grace.
struct GroupKiller {
    group: Option<u32>,
    warden: Option<crate::sandbox::warden::Warden>,
    /// Kept for the call; dropped after the kill, when its cgroup may be removed.
    _limit: Option<crate::sandbox::limits::ProcessLimit>,
}

impl Drop for GroupKiller {
    fn drop(&mut self) {
        if let Some(id) = self.group {
            signal_group(id, nix::sys::signal::Signal::SIGKILL);
        }
        if let Some(warden) = &self.warden {
            warden.signal_all(nix::sys::signal::Signal::SIGKILL);
        }
    }
}

/// Sends `signal` to the process group `id` leads. The group may be gone already; nothing
/// else to do then.
fn signal_group(id: u32, signal: nix::sys::signal::Signal) {
    if let Ok(id) = i32::try_from(id) {
        let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(id), signal);
    }
}

/// What the sandbox keeps for a call: the warden that can end every process the command
/// starts, and the process limit.
type Kept = (
    Option<crate::sandbox::warden::Warden>,
    Option<crate::sandbox::limits::ProcessLimit>,
);

/// Starts the shell, confined when the workspace is, with `output` as its stdout and stderr;
/// says how far the sandbox was enforced, and gives what the sandbox keeps for the call: the
/// warden that can end every process the command starts, and the process limit.
fn spawn(
    command: &str,
    cwd: &std::path::Path,
    workspace: &Workspace,
    output: &std::io::PipeWriter,
) -> (Result<Child, ToolError>, Option<String>, Kept) {
    let shell = shell();
    let withheld = workspace.environment().withheld();
    let configure = |process: &mut Command| {
        let (stdout, stderr) = match (output.try_clone(), output.try_clone()) {
            (Ok(stdout), Ok(stderr)) => (Stdio::from(stdout), Stdio::from(stderr)),
            // Out of descriptors: the spawn below fails on its own and says why.
            _ => (Stdio::null(), Stdio::null()),
        };
        process
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .kill_on_drop(true)
            .process_group(0);
        // No API key, token or password of ours reaches the command, sandboxed or not.
        for name in &withheld {
            process.env_remove(name);
        }
    };
    let failed = |error: std::io::Error| {
        ToolError::with_source(format!("Could not start the shell: {error}"), error)
    };
    match workspace.shell_confinement() {
        Some(confinement) => {
            let started =
                crate::sandbox::spawn_shell(&shell, command, cwd, &confinement, configure);
            (
                started.child.map_err(failed),
                Some(started.enforcement),
                (started.warden, started.limit),
            )
        }
        None => {
            let mut process = Command::new(&shell);
            process.arg("-c").arg(command).current_dir(cwd);
            configure(&mut process);
            (process.spawn().map_err(failed), None, (None, None))
        }
    }
}

/// `bash` where it is installed, `sh` otherwise.
fn shell() -> PathBuf {
    crate::sandbox::bubblewrap::find_program("bash")
        .or_else(|| crate::sandbox::bubblewrap::find_program("sh"))
        .unwrap_or_else(|| PathBuf::from("sh"))
}

/// Ends the command's whole process group, and under Landlock (through its `warden`) every
/// process it started, `setsid` jobs too: `SIGTERM` first, so it can clean up, then `SIGKILL`
/// for whatever is left once the shell has exited or the grace has passed; reaps the shell.
async fn stop(
    child: &mut Child,
    warden: Option<&crate::sandbox::warden::Warden>,
    ending: Ending,
) -> Ending {
    // The shell leads its own group (`process_group(0)`), so its id is the group's.
    if let Some(id) = child.id() {
        // Under bubblewrap the command is not in the group, and bubblewrap itself would end
        // the whole sandbox at once on `SIGTERM`: each process inside is asked instead.
        let inside = crate::sandbox::bubblewrap::processes_inside(id);
        if inside.is_empty() {
            signal_group(id, nix::sys::signal::Signal::SIGTERM);
        }
        if let Some(warden) = warden {
            warden.signal_all(nix::sys::signal::Signal::SIGTERM);
        }
        for process in inside {
            if let Ok(process) = i32::try_from(process) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(process),
                    nix::sys::signal::Signal::SIGTERM,
                );
            }
        }
        let _ = tokio::time::timeout(KILL_GRACE, child.wait()).await;
        signal_group(id, nix::sys::signal::Signal::SIGKILL);
        if let Some(warden) = warden {
            warden.signal_all(nix::sys::signal::Signal::SIGKILL);
        }
    }
    let _ = child.kill().await;
    ending
}

/// Everything the command wrote: a rolling tail in memory, the whole in a file once long.
struct Output {
    workspace: Workspace,
    tail: Vec<u8>,
    total_bytes: usize,
    newlines: usize,
    spill: Option<(PathBuf, std::fs::File)>,
    /// Why the full-output file stopped short (a full disk), and at which byte.
    spill_failed: Option<String>,
    last_progress: Option<tokio::time::Instant>,
}

impl Output {
    fn new(workspace: &Workspace) -> Self {
        Self {
            workspace: workspace.clone(),
            tail: Vec::new(),
            total_bytes: 0,
            newlines: 0,
            spill: None,
            spill_failed: None,
            last_progress: None,
        }
    }

    fn push(&mut self, chunk: &[u8], context: &ToolContext) -> Result<(), ToolError> {
        let written_before = self.total_bytes;
        self.total_bytes += chunk.len();
        self.newlines += chunk.iter().filter(|byte| **byte == b'\n').count();
        self.tail.extend_from_slice(chunk);
        match &mut self.spill {
            Some((_, file)) if self.spill_failed.is_none() => {
                if let Err(error) = file.write_all(chunk) {
                    self.spill_failed = Some(format!(
                        "the full output stops after {written_before} bytes: {error}"
                    ));
                }
            }
            Some(_) => {}
            None if self.total_bytes > DEFAULT_MAX_BYTES && self.spill_failed.is_none() => {
                self.try_spill();
            }
            None => {}
        }
        // Compacted only once twice the window has piled up, so a fast command does not pay
        // a move of the whole window for every read.
        if self.tail.len() > 2 * ROLLING_BYTES {
            let excess = self.tail.len() - ROLLING_BYTES;
            self.tail.drain(..excess);
        }
        let now = tokio::time::Instant::now();
        let due = self
            .last_progress
            .is_none_or(|last| now.duration_since(last) >= PROGRESS_INTERVAL);
        if due && context.report_progress().is_some() {
            self.last_progress = Some(now);
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
    /// everything written (the tail only rolls past 100 KB, the spill starts at 50 KB). When
    /// it cannot be made (the temporary directory full), the output is not lost: the tail in
    /// memory is still shown, and the result says the whole could not be kept.
    fn try_spill(&mut self) {
        if let Err(error) = self.spill_tail() {
            self.spill = None;
            self.spill_failed = Some(format!("the full output could not be kept: {error}"));
        }
    }

    fn spill_tail(&mut self) -> std::io::Result<()> {
        let (mut file, path) = tempfile::Builder::new()
            .prefix("pi-bash-")
            .suffix(".log")
            .tempfile_in(self.workspace.output_directory())
            .and_then(|file| file.keep().map_err(|error| error.error))?;
        // Removed with the workspace's other output files, even when the write below fails.
        self.workspace.remember_output_file(&path);
        file.write_all(&self.tail)?;
        self.spill = Some((path, file));
        Ok(())
    }

    /// The result: the tail within Pi's limits, the notices, the details. `still_open` says a
    /// background process was still holding the output open when reading stopped, and how.
    fn finish(
        mut self,
        ending: Ending,
        still_open: Option<StillOpen>,
    ) -> Result<ToolOutput, ToolError> {
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
        if cut.truncated && self.spill.is_none() && self.spill_failed.is_none() {
            self.try_spill();
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
            // The totals are the command's, not the window's kept in memory.
            let mut cut = cut;
            cut.total_lines = total_lines;
            cut.total_bytes = self.total_bytes;
            details.insert("truncation".into(), json!(cut));
        }
        if let Some(problem) = &self.spill_failed {
            // Said where the model reads it, not only in the details.
            shown.push_str(&format!("\n\n[Note: {problem}.]"));
            details.insert("fullOutputIncomplete".into(), json!(problem));
        }
        if let Some(still_open) = still_open {
            // Said as it was: a background job that only keeps the pipe open (`sleep 30 &`)
            // wrote nothing more; one that kept writing was cut off.
            let notice = match still_open {
                StillOpen::Quiet => format!(
                    "[A background process still holds the output open; reading stopped after \
                     {} ms without output, so what it writes later is not shown.]",
                    DRAIN_GRACE.as_millis()
                ),
                StillOpen::Writing => format!(
                    "[Output after the shell exited was still coming from a background process; \
                     reading stopped after {} s.]",
                    DRAIN_LIMIT.as_secs()
                ),
            };
            shown.push_str(&format!("\n\n{notice}"));
            details.insert("outputStillOpen".into(), json!(true));
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
