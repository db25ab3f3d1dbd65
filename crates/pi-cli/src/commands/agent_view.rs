//! The live view of a run for a person at a terminal: the model's text as it streams, each tool
//! call and its result as it happens, control characters shown, never sent
//! ([`visible`]).

use std::io::Write;

use pi_agent::AgentEvent;
use pi_ai::AssistantMessageEvent;
use tokio::sync::mpsc::UnboundedReceiver;

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

/// Shows `events` on stdout until the run's channel closes.
pub(crate) async fn show(mut events: UnboundedReceiver<AgentEvent>) {
    let mut stdout = std::io::stdout();
    let mut mid_line = false;
    while let Some(event) = events.recv().await {
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
                for call in message.tool_calls() {
                    line(format!("→ {} {}", call.name, call.arguments), &mut mid_line);
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
