//! The interactive mode under strain, on a pseudo-terminal: the terminal resized while a tool
//! runs and an answer streams (the inline viewport asks the terminal where the cursor is on a
//! resize: nothing may wait on a key for it), a tool printing many lines, a very long line,
//! and compaction asked for with `/compact`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;

use serde_json::json;
use support::tui::{Home, answer, call, exited_well};

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
    tui.line("still responsive");
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
