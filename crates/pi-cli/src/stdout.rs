//! Printing to stdout that survives a reader going away (`pi-tool session context F | head`):
//! Rust ignores `SIGPIPE`, so `print!` to a closed pipe panics. These return the error instead,
//! and `main` ends quietly on it with status 0, as ripgrep does: the reader has what it wanted.

use std::io::{self, Write};

/// Writes `text` to stdout.
pub(crate) fn print(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Writes `text` and a newline to stdout.
pub(crate) fn print_line(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

/// Writes to stdout through a buffer what `write` writes (nothing is gathered in memory
/// first), then flushes.
pub(crate) fn write_buffered(
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    write(&mut out)?;
    out.flush()
}

/// Whether `error` is stdout's reader having gone away.
pub(crate) fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|error| error.kind() == io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn a_broken_pipe_is_found_under_context() {
        let broken: anyhow::Result<()> =
            Err(io::Error::from(io::ErrorKind::BrokenPipe)).context("writing to stdout");
        assert!(is_broken_pipe(&broken.unwrap_err()));
        let other: anyhow::Result<()> =
            Err(io::Error::from(io::ErrorKind::PermissionDenied)).context("writing to stdout");
        assert!(!is_broken_pipe(&other.unwrap_err()));
        assert!(!is_broken_pipe(&anyhow::anyhow!("broken pipe")));
    }
}
