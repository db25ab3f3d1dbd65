//! The live view of a run for a person at a terminal: the model's text as it streams, each tool
//! call and its result as it happens, control characters shown, never sent
//! ([`visible`]).

use std::io::Write;

use pi_agent::AgentEvent;
use pi_ai::AssistantMessageEvent;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::sync::oneshot;

use pi_coding_agent::visible;

/// Longest result excerpt shown.
const EXCERPT: usize = 200;

/// Whether [`show`] shows anything of `event` (what its subscription asks for).
pub(crate) fn shows(event: &AgentEvent) -> bool {
    matches!(
        event,
        AgentEvent::MessageUpdate {
            assistant_message_event: AssistantMessageEvent::TextDelta { .. },
        } | AgentEvent::ToolExecutionEnd { .. }
    ) || matches!(event, AgentEvent::MessageEnd { message } if message.as_assistant().is_some())
}

/// Lets the approval prompt wait until the view has shown everything sent before it: the
/// view prints from its own task, and a prompt written while events are still queued would
/// land in the middle of the model's text (its last words after "Run it?").
#[derive(Debug, Clone)]
pub(crate) struct CaughtUp(UnboundedSender<oneshot::Sender<()>>);

impl CaughtUp {
    /// Returns once the view has shown every event the agent sent before this call, and
    /// ended its line; at once when the view is gone.
    pub(crate) async fn wait(&self) {
        let (done, shown) = oneshot::channel();
        if self.0.send(done).is_ok() {
            let _ = shown.await;
        }
    }
}

/// A view's two ends: the handle the prompt waits on, and what [`show`] answers from.
pub(crate) fn caught_up() -> (CaughtUp, UnboundedReceiver<oneshot::Sender<()>>) {
    let (asks, asked) = tokio::sync::mpsc::unbounded_channel();
    (CaughtUp(asks), asked)
}

/// Shows `events` on stdout until the run's channel closes; answers each wait of
/// [`CaughtUp`] once the events queued before it are shown.
pub(crate) async fn show(
    mut events: UnboundedReceiver<AgentEvent>,
    mut waits: UnboundedReceiver<oneshot::Sender<()>>,
) {
    let mut stdout = std::io::stdout();
    let mut mid_line = false;
    loop {
        // Events first: a wait is answered only when no event is queued. The agent sends its
        // events before it asks, so every event before the ask has been shown by then.
        let event = tokio::select! {
            biased;
            event = events.recv() => event,
            Some(done) = waits.recv() => {
                if mid_line {
                    let _ = writeln!(stdout);
                    mid_line = false;
                }
                let _ = stdout.flush();
                let _ = done.send(());
                continue;
            }
        };
        let Some(event) = event else { break };
        let mut line = |text: String, mid_line: &mut bool| {
            if *mid_line {
                let _ = writeln!(stdout);
                *mid_line = false;
            }
            let _ = writeln!(stdout, "{}", visible(&text));
        };
        match event {
            AgentEvent::MessageUpdate {
                assistant_message_event: AssistantMessageEvent::TextDelta { delta, .. },
            } => {
                let _ = write!(stdout, "{}", visible(&delta));
                let _ = stdout.flush();
                mid_line = !delta.ends_with('\n');
            }
            AgentEvent::MessageEnd { message } => {
                let Some(message) = message.as_assistant() else {
                    continue;
                };
                if let Some(error) = &message.error_message {
                    line(
                        format!("[{:?}] {error}", message.stop_reason),
                        &mut mid_line,
                    );
                }
                // Read in place: a call's arguments can be as long as the response limit.
                for block in &message.content {
                    if let pi_ai::AssistantContent::ToolCall {
                        name, arguments, ..
                    } = block
                    {
                        line(
                            format!("→ {name} {}", json_excerpt(arguments)),
                            &mut mid_line,
                        );
                    }
                }
            }
            AgentEvent::ToolExecutionEnd {
                tool_name,
                result,
                is_error,
                ..
            } => {
                let text = result
                    .as_tool_result()
                    .map(pi_tool::ToolResultMessage::text)
                    .unwrap_or_default()
                    .replace('\n', " ⏎ ");
                let mut excerpt: String = text.chars().take(EXCERPT).collect();
                if excerpt.len() < text.len() {
                    excerpt.push('…');
                }
                let mark = if is_error { "✗" } else { "←" };
                line(format!("{mark} {tool_name}: {excerpt}"), &mut mid_line);
            }
            _ => {}
        }
    }
    if mid_line {
        let _ = writeln!(stdout);
    }
    let _ = stdout.flush();
}

/// The first [`EXCERPT`] characters of `value` as JSON (with `…` when there is more), written
/// no further than that: arguments of many megabytes are neither copied nor printed whole.
fn json_excerpt(value: &serde_json::Value) -> String {
    /// Takes bytes until it holds enough, then refuses more, which ends the serialisation.
    struct Capped(Vec<u8>);
    impl Write for Capped {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            // A character takes at most four bytes: this many always hold EXCERPT of them.
            let room = (EXCERPT * 4 + 4).saturating_sub(self.0.len());
            if room == 0 {
                return Err(std::io::Error::other("enough"));
            }
            let taken = bytes.len().min(room);
            self.0
                .extend_from_slice(bytes.get(..taken).unwrap_or_default());
            Ok(taken)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut capped = Capped(Vec::new());
    let whole = serde_json::to_writer(&mut capped, value).is_ok();
    let bytes = capped.0;
    // A cut may fall inside a character: what comes before it is whole.
    let valid = match std::str::from_utf8(&bytes) {
        Ok(text) => text,
        Err(error) => std::str::from_utf8(bytes.get(..error.valid_up_to()).unwrap_or_default())
            .unwrap_or_default(),
    };
    let mut excerpt: String = valid.chars().take(EXCERPT).collect();
    if !whole || excerpt.len() < valid.len() {
        excerpt.push('…');
    }
    excerpt
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn short_arguments_are_shown_whole() {
        let arguments = json!({"path": "src/main.rs", "limit": 10});
        assert_eq!(json_excerpt(&arguments), arguments.to_string());
    }

    #[test]
    fn long_arguments_are_cut_to_an_excerpt_without_being_written_whole() {
        let arguments = json!({"content": "é".repeat(8 << 20)});
        let excerpt = json_excerpt(&arguments);
        assert_eq!(excerpt.chars().count(), EXCERPT + 1);
        assert!(excerpt.starts_with(r#"{"content":"éé"#), "{excerpt}");
        assert!(excerpt.ends_with('…'));
    }

    #[test]
    fn arguments_of_exactly_the_excerpt_are_not_marked_cut() {
        // `{"a":"` and `"}` around the text: 8 characters.
        let arguments = json!({"a": "x".repeat(EXCERPT - 8)});
        let excerpt = json_excerpt(&arguments);
        assert_eq!(excerpt.chars().count(), EXCERPT);
        assert!(!excerpt.ends_with('…'));
    }
}
