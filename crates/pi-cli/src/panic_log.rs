//! How a panic is reported. A panicking tool is answered with an error result; the panic is
//! also told on stderr, in one line without a backtrace. A client can make a tool panic as often
//! as it likes (and choose the message), so the log is bounded: at most [`BURST`] lines in each
//! [`WINDOW`], each at most [`MAX_LINE`] bytes with its line breaks escaped, then one line
//! saying that more are being counted, and the count when the next window opens.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Panics shown in full per window.
const BURST: u32 = 10;
/// The window the burst is counted in.
const WINDOW: Duration = Duration::from_secs(60);
/// The longest panic line shown, in bytes (the message is the tool's, and may be the client's).
const MAX_LINE: usize = 512;

/// Panics shown and not shown in the current window.
struct Window {
    opened: Option<Instant>,
    shown: u32,
    hidden: u64,
}

static WINDOW_NOW: Mutex<Window> = Mutex::new(Window {
    opened: None,
    shown: 0,
    hidden: 0,
});

/// Reports every panic of the process this way from now on.
pub(crate) fn install() {
    std::panic::set_hook(Box::new(|info| {
        for line in lines(&info.to_string(), Instant::now()) {
            report!("{line}");
        }
    }));
}

/// What to write for a panic described as `panic` at `now`: nothing, or up to two lines.
fn lines(panic: &str, now: Instant) -> Vec<String> {
    // Only counters change under the lock: a poisoned one is as good as any.
    let mut window = WINDOW_NOW.lock().unwrap_or_else(PoisonError::into_inner);
    let mut lines = Vec::new();
    if window
        .opened
        .is_none_or(|opened| now.duration_since(opened) >= WINDOW)
    {
        if window.hidden > 0 {
            lines.push(format!(
                "pi-tool: {} more panics in the last minute were not shown",
                window.hidden
            ));
        }
        *window = Window {
            opened: Some(now),
            shown: 0,
            hidden: 0,
        };
    }
    if window.shown < BURST {
        window.shown += 1;
        lines.push(format!("pi-tool: panic: {}", one_line(panic)));
    } else {
        window.hidden += 1;
        if window.hidden == 1 {
            lines.push(format!(
                "pi-tool: {BURST} panics in a minute: the next ones this minute are counted, \
                 not shown"
            ));
        }
    }
    lines
}

/// `text` on one line (breaks escaped, so no one can forge a line of the log), cut to
/// [`MAX_LINE`] bytes at a character boundary.
fn one_line(text: &str) -> String {
    let mut line = String::with_capacity(text.len().min(MAX_LINE) + 4);
    for character in text.chars() {
        let escaped: &str = match character {
            '\n' => "\\n",
            '\r' => "\\r",
            _ => "",
        };
        let length = if escaped.is_empty() {
            character.len_utf8()
        } else {
            escaped.len()
        };
        if line.len() + length > MAX_LINE {
            line.push_str(" ...");
            break;
        }
        if escaped.is_empty() {
            line.push(character);
        } else {
            line.push_str(escaped);
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_one_bounded_line() {
        assert_eq!(
            one_line("panicked at src/x.rs:1:2:\nboom\r\nfake: line"),
            "panicked at src/x.rs:1:2:\\nboom\\r\\nfake: line"
        );
        let long = one_line(&"é".repeat(MAX_LINE));
        assert!(
            long.len() <= MAX_LINE + 4 && long.ends_with(" ..."),
            "{long}"
        );
    }

    #[test]
    fn a_burst_is_shown_then_counted() {
        let start = Instant::now();
        let written: usize = (0..100).map(|_| lines("boom", start).len()).sum();
        // The burst, and one line saying the rest are counted.
        assert_eq!(written, usize::try_from(BURST).unwrap_or(usize::MAX) + 1);
        let next = lines("boom", start + WINDOW);
        assert_eq!(
            next,
            vec![
                "pi-tool: 90 more panics in the last minute were not shown".to_owned(),
                "pi-tool: panic: boom".to_owned()
            ]
        );
    }
}
