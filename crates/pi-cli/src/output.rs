//! Output that survives its reader going away. Rust ignores `SIGPIPE`, so `print!` and
//! `eprintln!` to a closed pipe panic; and a panic while reporting a panic aborts the process.
//! - stdout (`pi-tool session context F | head`): these functions return the error, and
//!   `main` ends quietly on it with status 0, as ripgrep does: the reader has what it wanted;
//! - stderr (an MCP host that stopped reading it, `2>&1 | head`): [`report!`] writes a line
//!   and drops the error, as nobody is left to read it; the program goes on.

use std::io::{self, Write};

/// `eprintln!` that goes on when stderr is a closed pipe (see the module's comment). What it
/// says often carries text others control (a provider's error body, a session file's rule, a
/// server's tool name): control characters are shown, never sent
/// ([`pi_coding_agent::visible`]).
macro_rules! report {
    ($($message:tt)*) => {{
        use std::io::Write as _;
        let line = format!($($message)*);
        let _ = writeln!(std::io::stderr(), "{}", ::pi_coding_agent::visible(&line));
    }};
}

/// Writes `text` to stdout.
pub(crate) fn print(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(stdout_error)
}

/// Writes `text` and a newline to stdout.
pub(crate) fn print_line(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(stdout_error)
}

/// Writes to stdout through a buffer what `write` writes (nothing is gathered in memory
/// first), then flushes.
pub(crate) fn write_buffered(
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(stdout_error)
}

/// Stdout's reader went away. Only this is ended quietly: a broken pipe to a peer (an MCP
/// server that died) is a failure to report.
#[derive(Debug)]
pub(crate) struct StdoutClosed;

impl std::fmt::Display for StdoutClosed {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("the reader of stdout went away")
    }
}

impl std::error::Error for StdoutClosed {}

/// `error` from a write to stdout, marked as [`StdoutClosed`] when it is a broken pipe.
pub(crate) fn stdout_error(error: io::Error) -> io::Error {
    if error.kind() == io::ErrorKind::BrokenPipe {
        io::Error::new(io::ErrorKind::BrokenPipe, StdoutClosed)
    } else {
        error
    }
}

/// The outcome of a write to stdout made elsewhere (a tokio one), its broken pipe marked.
pub(crate) fn stdout_written(outcome: io::Result<()>) -> anyhow::Result<()> {
    anyhow::Context::context(outcome.map_err(stdout_error), "writing to stdout")
}

/// Whether `error` is stdout's reader having gone away (see [`stdout_error`]).
pub(crate) fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .and_then(io::Error::get_ref)
            .is_some_and(|inner| inner.is::<StdoutClosed>())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn only_stdout_s_broken_pipe_is_found_under_context() {
        let broken: anyhow::Result<()> =
            Err(stdout_error(io::Error::from(io::ErrorKind::BrokenPipe)))
                .context("writing to stdout");
        assert!(is_broken_pipe(&broken.unwrap_err()));
        // A peer's broken pipe (an MCP server that died) is a failure.
        let peer: anyhow::Result<()> =
            Err(io::Error::from(io::ErrorKind::BrokenPipe)).context("writing to the server");
        assert!(!is_broken_pipe(&peer.unwrap_err()));
        let other: anyhow::Result<()> =
            Err(io::Error::from(io::ErrorKind::PermissionDenied)).context("writing to stdout");
        assert!(!is_broken_pipe(&other.unwrap_err()));
        assert!(!is_broken_pipe(&anyhow::anyhow!("broken pipe")));
    }
}
