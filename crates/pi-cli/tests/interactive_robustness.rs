//! The interactive mode under strain, on a pseudo-terminal: the terminal resized while a tool
//! runs and an answer streams (the inline viewport asks the terminal where the cursor is on a
//! resize: nothing may wait on a key for it), a tool printing many lines, a very long line,
//! compaction asked for with `/compact`, a session of 10,000 messages resumed, binary output,
//! and an answer in 2,000 deltas.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;
#[path = "support/tui.rs"]
mod tui;

use std::time::Instant;

use serde_json::{Value, json};
use tui::{Home, answer, call, exited_well};

#[test]
fn a_resize_mid_run_keeps_the_screen_working() {
    let (url, _seen) = support::serve(vec![
        call(
            "call_1",
            "bash",
            &json!({"command": "sleep 2; echo resized-ok"}),
        ),
        answer("Still ", "here after the resize."),
    ]);
    let home = Home::new(&url);
    let mut tui = home.start(&["--approval", "yolo"]);
    tui.line("sleep then answer");
    tui.expect("● bash $ sleep 2; echo resized-ok");
    tui.resize(30, 60);
    tui.expect("⎿ resized-ok");
    tui.expect("Still here after the resize.");
    // The footer is drawn at the new width.
    tui.expect("local/local-model • off");
    tui.resize(40, 100);
    tui.keys("typing still works");
    tui.expect("› typing still works");
    tui.keys("\x15\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn many_lines_of_output_and_a_very_long_line_stay_on_screen_right() {
    let long = "x".repeat(5_000);
    let (url, _seen) = support::serve(vec![
        call("call_1", "bash", &json!({"command": "seq 1 100000"})),
        answer(&format!("{long} "), "end-of-long-line"),
    ]);
    let home = Home::new(&url);
    let mut tui = home.start(&["--approval", "yolo"]);
    tui.line("count");
    tui.expect("● bash $ seq 1 100000");
    tui.expect("more lines (ctrl+o shows the whole result)");
    tui.expect("end-of-long-line");
    // The long line was cut into rows of the terminal's width, not wrapped by the terminal.
    let shown = tui.screen();
    assert!(shown.lines().all(|line| line.chars().count() <= 100));
    // Ctrl+O prints the last result whole (as the tool kept it: its tail).
    tui.keys("\x0f");
    tui.wait_for("the whole result", |shown| {
        shown.lines().any(|line| line.trim_end() == "    99999")
    });
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn slash_compact_summarises_the_conversation() {
    // Compaction may ask twice (the history, and the start of a turn cut in two): each
    // summary holds every heading either asks for.
    let (url, seen) = support::serve(vec![
        answer(&"words ".repeat(400), "First answer."),
        answer(&"words ".repeat(400), "Second answer."),
        answer(
            "## Goal\nAnswer two questions.\n## Constraints & Preferences\n- none\n",
            "## Progress\n- both answered\n## Key Decisions\n- none\n## Next Steps\n- none\n## Critical Context\n- none\n## Original Request\n- two questions\n## Early Progress\n- none\n## Context for Suffix\n- none\n",
        ),
        answer(
            "## Goal\nAnswer two questions.\n## Constraints & Preferences\n- none\n",
            "## Progress\n- both answered\n## Key Decisions\n- none\n## Next Steps\n- none\n## Critical Context\n- none\n## Original Request\n- two questions\n## Early Progress\n- none\n## Context for Suffix\n- none\n",
        ),
    ]);
    let home = Home::new(&url);
    // Keep almost nothing verbatim, so a short conversation has something to summarise.
    std::fs::write(
        home.agent().join("settings.json"),
        r#"{"compaction": {"keepRecentTokens": 1}}"#,
    )
    .unwrap();
    let mut tui = home.start(&[]);
    tui.line("first question");
    tui.expect("First answer.");
    tui.line("second question");
    tui.expect("Second answer.");
    tui.line("/compact keep the goal");
    tui.wait_for("the compaction to end", |shown| {
        shown.contains("Compacted:") || shown.contains("Compaction failed")
    });
    let shown = tui.everything();
    assert!(shown.contains("Compacted:"), "{shown}");
    let bodies = support::bodies(&seen);
    assert!(bodies.len() >= 3, "{bodies:?}");
    assert!(bodies[2].to_string().contains("keep the goal"));
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
    let sessions = home.sessions();
    assert!(sessions[0].iter().any(|line| line["type"] == "compaction"));
}

/// A session file of `count` messages (user and assistant in turn, ~1 KB each).
fn long_session(path: &std::path::Path, cwd: &std::path::Path, count: usize) {
    let mut text = json!({"type": "session", "version": 3, "id": "long-session",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd})
    .to_string();
    text.push('\n');
    let filler = "let value = compute(input); // a line of code\n".repeat(20);
    let mut parent = Value::Null;
    for index in 0..count {
        let id = format!("{index:08x}");
        let message = if index % 2 == 0 {
            json!({"role": "user", "content": format!("question {index}"), "timestamp": 1})
        } else {
            json!({"role": "assistant", "content": [{"type": "text", "text": format!("answer {index}\n{filler}")}],
                "api": "openai-completions", "provider": "local", "model": "local-model",
                "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
                    "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0}},
                "stopReason": "stop", "timestamp": 2})
        };
        let entry = json!({"type": "message", "id": id, "parentId": parent,
            "timestamp": "2026-01-01T00:00:00.000Z", "message": message});
        text.push_str(&entry.to_string());
        text.push('\n');
        parent = json!(id);
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_session_of_ten_thousand_messages_opens_ready_to_type() {
    let (url, _seen) = support::serve(vec![]);
    let home = Home::new(&url);
    let path = home.agent().join("long.jsonl");
    long_session(&path, &home.work(), 10_000);
    let started = Instant::now();
    let mut tui = home.start(&["--session", path.to_str().unwrap()]);
    // The last answer is shown, the earlier ones are counted, and the editor takes keys.
    tui.expect("answer 9999");
    tui.expect("9800 earlier messages");
    tui.keys("x");
    tui.expect("› x");
    let ready = started.elapsed();
    // A debug build on a busy machine: the bound catches a hang or a quadratic start, the
    // figure is printed for the record.
    println!("10,000 messages: ready to type after {ready:?}");
    assert!(ready.as_secs() < 20, "{ready:?}");
    tui.keys("\x15\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn binary_output_and_two_thousand_deltas_leave_the_screen_intact() {
    let mut body = String::new();
    for index in 0..2_000 {
        let delta = if index == 0 {
            json!({"role": "assistant", "content": "tok "})
        } else {
            json!({"content": "tok "})
        };
        body.push_str(&format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": delta}]})
        ));
    }
    body.push_str(&format!(
        "data: {}\n\ndata: [DONE]\n\n",
        json!({"choices": [{"index": 0, "delta": {"content": "END"}, "finish_reason": "stop"}]})
    ));
    let (url, _seen) = support::serve(vec![
        call(
            "call_1",
            "bash",
            &json!({"command": "cat noise.bin; echo; echo after-binary"}),
        ),
        support::Reply::sse(body),
    ]);
    let home = Home::new(&url);
    // 4,000 bytes of noise, the same every run (a linear congruential generator), as valid
    // UTF-8 (vt100 gives U+FFFD, which a lossy decoding of invalid bytes makes, no width,
    // where terminals give it one column): controls, ASCII, and some 2- and 3-byte characters.
    let mut state: u32 = 12_345;
    let noise: String = (0..4_000)
        .map(|_| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let byte = (state >> 16) as u8;
            match byte {
                0..=127 => char::from(byte),
                128..=191 => char::from_u32(0x400 + u32::from(byte)).unwrap(),
                _ => char::from_u32(0x4e00 + u32::from(byte)).unwrap(),
            }
        })
        .collect();
    std::fs::write(home.work().join("noise.bin"), noise).unwrap();
    let mut tui = home.start(&["--approval", "yolo"]);
    tui.line("go");
    // 2,000 deltas of "tok " fill 80 rows exactly; END starts the next.
    // Every row of the transcript is where it belongs: the viewport's two rules are the only
    // ones, no piece of an earlier frame is left among the transcript's rows.
    // (Read as a whole frame: a read may end mid-frame, so this waits for one that holds.)
    let rules = |shown: &str| {
        shown
            .lines()
            .filter(|line| line.contains("────────"))
            .count()
    };
    let stale = |shown: &str| {
        shown
            .lines()
            .any(|line| line.contains('─') && !line.contains("────────"))
    };
    let shown = tui.wait_for(
        "the whole answer under a drawn viewport, nothing stale",
        |shown| shown.contains("\nEND") && rules(shown) == 2 && !stale(shown),
    );
    assert_eq!(shown.matches("tok").count(), 2_000);
    // The binary was shown, not obeyed: no title, no clipboard, the footer where it was.
    let obeyed = tui.emulator().callbacks();
    assert!(obeyed.titles.is_empty() && obeyed.clipboard.is_empty());
    tui.expect("local/local-model • off");
    tui.keys("still typing");
    tui.expect("› still typing");
    tui.keys("\x15\x04");
    exited_well(&tui.wait_exit());
}
