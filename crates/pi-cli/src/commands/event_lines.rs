//! The JSON lines of Pi's JSON and RPC modes: a session's events as Pi prints them, each
//! prompt closed by `agent_settled`, and the mode's own lines (the session header, responses),
//! all through one channel so they leave in the order they were made.

use pi_agent::AgentEvent;
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

/// Copies a session's events to `out` as JSON, and `agent_settled` each time `settle` says a
/// prompt ended. Every event of a prompt is sent before the prompt's task returns, so its
/// `agent_settled` follows them all: the events queued when `settle` arrives go first.
pub(crate) async fn forward(
    mut events: UnboundedReceiver<AgentEvent>,
    mut settle: UnboundedReceiver<()>,
    out: UnboundedSender<Value>,
) {
    loop {
        let line = tokio::select! {
            biased;
            event = events.recv() => match event {
                Some(event) => pi_coding_agent::pi_event_json(&event),
                None => {
                    // The session closed: the prompts settled meanwhile still say so.
                    while settle.try_recv().is_ok() {
                        if out.send(json!({"type": "agent_settled"})).is_err() {
                            break;
                        }
                    }
                    break;
                }
            },
            Some(()) = settle.recv() => {
                // The events channel was looked at before `settle`, and the prompt's last
                // events may have arrived in between: every event of the prompt was sent
                // before `settle` was, so all of them are there now and go first.
                while let Ok(event) = events.try_recv() {
                    if let Some(line) = pi_coding_agent::pi_event_json(&event)
                        && out.send(line).is_err()
                    {
                        return;
                    }
                }
                Some(json!({"type": "agent_settled"}))
            }
        };
        if let Some(line) = line
            && out.send(line).is_err()
        {
            break;
        }
    }
}

/// Writes each line of `lines` to stdout, one JSON line each.
pub(crate) async fn write_lines(mut lines: UnboundedReceiver<Value>) {
    while let Some(line) = lines.recv().await {
        if !write_line(&line) {
            break;
        }
    }
}

fn write_line(value: &Value) -> bool {
    let Ok(mut line) = serde_json::to_vec(value) else {
        return true;
    };
    line.push(b'\n');
    let mut stdout = std::io::stdout().lock();
    std::io::Write::write_all(&mut stdout, &line)
        .and_then(|()| std::io::Write::flush(&mut stdout))
        .is_ok()
}
