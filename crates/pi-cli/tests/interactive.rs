//! The interactive mode as a person uses it: the real `pi-tool` on a pseudo-terminal (its
//! screen read through a terminal emulator), against a local fake of the OpenAI Chat wire
//! named in `models.json`. A prompt and its streamed answer with the footer; a tool call and
//! its result; Esc during a long `bash` (every call answered, the shell gone); a steering
//! message queued mid-run; an approval answered inline; `/new`; exit and `-c` showing the
//! history; a model's escape sequences shown, not obeyed; Ctrl+C twice; Shift+Enter and the
//! history; a failed request in red.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;
#[path = "support/tui.rs"]
mod tui;

use std::path::Path;

use serde_json::{Value, json};
use tui::{Home, answer, call, exited_well};

#[test]
fn a_prompt_streams_its_answer_and_the_footer_counts_it() {
    let (url, seen) = support::serve(vec![answer("Hello from ", "the model.")]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("Say hello");
    let shown = tui.expect("Hello from the model.");
    assert!(shown.contains("› Say hello"), "{shown}");
    // The footer: tokens in and out, cost, the context's share of the window, the model.
    tui.expect("↑1.2k ↓34 $0.000 1.2%/100.0k  local/local-model • off");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
    // The transcript stays on the terminal; the terminal is given back.
    let after = tui.everything();
    assert!(after.contains("Hello from the model."), "{after}");
    let emulator = tui.emulator();
    assert!(!emulator.screen().hide_cursor());
    assert!(!emulator.screen().bracketed_paste());
    assert_eq!(support::bodies(&seen).len(), 1);
}

#[test]
fn a_tool_call_is_shown_with_its_result() {
    let (url, _seen) = support::serve(vec![
        call("call_1", "read", &json!({"path": "notes.txt"})),
        answer("You need ", "milk and eggs."),
    ]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("What do I need?");
    tui.expect("● read notes.txt");
    tui.expect("⎿ milk, eggs");
    tui.expect("You need milk and eggs.");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn escape_during_a_long_bash_answers_the_call_and_ends_the_shell() {
    let (url, seen) = support::serve(vec![call(
        "call_1",
        "bash",
        &json!({"command": "echo $$ > shell.pid; sleep 600"}),
    )]);
    let home = Home::new(&url);
    let mut tui = home.start(&["--approval", "yolo"]);
    tui.line("Wait a long time");
    tui.expect("● bash $ echo $$ > shell.pid; sleep 600");
    let pid_file = home.work().join("shell.pid");
    tui.wait_for("the shell to start", |_| {
        std::fs::read_to_string(&pid_file).is_ok_and(|text| text.trim().parse::<i32>().is_ok())
    });
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    tui.expect("Working…");
    tui.keys("\x1b");
    tui.expect("Aborted");
    // The shell is gone (its group was ended and reaped).
    tui.wait_for("the shell to end", |_| {
        !Path::new(&format!("/proc/{pid}")).exists()
    });
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
    // Every call has its result in the session.
    let sessions = home.sessions();
    assert_eq!(sessions.len(), 1);
    let messages: Vec<&Value> = sessions[0]
        .iter()
        .filter(|line| line["type"] == "message")
        .map(|line| &line["message"])
        .collect();
    let results: Vec<&Value> = messages
        .iter()
        .copied()
        .filter(|m| m["role"] == "toolResult")
        .collect();
    assert_eq!(results.len(), 1, "{messages:?}");
    assert_eq!(results[0]["toolCallId"], "call_1");
    assert_eq!(support::bodies(&seen).len(), 1);
}

#[test]
fn enter_while_the_agent_works_queues_a_steering_message() {
    let (url, seen) = support::serve(vec![
        call("call_1", "bash", &json!({"command": "sleep 3; echo slept"})),
        answer("Checked ", "the tests too."),
    ]);
    let home = Home::new(&url);
    let mut tui = home.start(&["--approval", "yolo"]);
    tui.line("Run the slow thing");
    tui.expect("● bash $ sleep 3; echo slept");
    tui.line("also check the tests");
    tui.expect("Steering: also check the tests");
    tui.expect("Checked the tests too.");
    // Delivered: in the transcript, no longer in the queue.
    tui.wait_for("the steering message delivered", |shown| {
        shown.contains("› also check the tests") && !shown.contains("Steering: also check")
    });
    let bodies = support::bodies(&seen);
    assert_eq!(bodies.len(), 2);
    assert!(
        bodies[1]["messages"]
            .to_string()
            .contains("also check the tests")
    );
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn an_approval_is_asked_inline_and_yes_runs_the_call() {
    let (url, _seen) = support::serve(vec![
        call("call_1", "bash", &json!({"command": "touch made.txt"})),
        answer("Made ", "it."),
    ]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("Make a file");
    tui.expect("bash wants to run (call call_1)");
    tui.expect("$ touch made.txt");
    tui.expect("Run it? [y] yes once");
    assert!(!home.work().join("made.txt").exists());
    tui.keys("y");
    tui.expect("→ allowed once");
    tui.expect("Made it.");
    assert!(home.work().join("made.txt").exists());
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn slash_new_starts_another_session() {
    let (url, seen) = support::serve(vec![answer("One", "."), answer("Two", ".")]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("first question");
    tui.expect("One.");
    tui.line("/new");
    tui.expect("New session started");
    tui.line("second question");
    tui.expect("Two.");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
    let bodies = support::bodies(&seen);
    assert!(!bodies[1]["messages"].to_string().contains("first question"));
    assert_eq!(home.sessions().len(), 2);
}

#[test]
fn continuing_shows_the_history() {
    let (url, _seen) = support::serve(vec![answer("Noted: ", "milk.")]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("remember the milk");
    tui.expect("Noted: milk.");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
    let mut again = home.start(&["-c"]);
    let shown = again.expect("Noted: milk.");
    assert!(shown.contains("› remember the milk"), "{shown}");
    again.keys("\x04");
    exited_well(&again.wait_exit());
}

#[test]
fn escape_sequences_from_the_model_are_shown_not_obeyed() {
    let (url, _seen) = support::serve(vec![answer(
        "before \u{1b}]52;c;cm0gLXJmIH4K\u{7}\u{1b}]0;pwned\u{7}",
        "\u{1b}[2J\u{1b}[H after",
    )]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("show me");
    let shown = tui.expect("after");
    assert!(
        shown.contains("before \\e]52;c;cm0gLXJmIH4K\\x07\\e]0;pwned\\x07\\e[2J\\e[H after"),
        "{shown}"
    );
    // Nothing was cleared: the prompt is still there.
    assert!(shown.contains("› show me"), "{shown}");
    let obeyed = tui.emulator().callbacks();
    assert!(obeyed.titles.is_empty(), "{:?}", obeyed.titles);
    assert!(obeyed.clipboard.is_empty(), "{:?}", obeyed.clipboard);
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn ctrl_c_clears_the_input_and_twice_exits() {
    let (url, seen) = support::serve(vec![]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.keys("some draft");
    tui.expect("› some draft");
    tui.keys("\x03");
    tui.wait_for("the input cleared", |shown| !shown.contains("some draft"));
    tui.expect("Press Ctrl+C again to exit");
    tui.keys("\x03");
    exited_well(&tui.wait_exit());
    assert!(support::bodies(&seen).is_empty());
}

/// An answer that thinks first, then says `text`.
fn thinking_answer(thinking: &str, text: &str) -> support::Reply {
    let chunks = [
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "reasoning_content": thinking}}]}),
        json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]}),
    ];
    let mut body = String::new();
    for chunk in chunks {
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    support::Reply::sse(body)
}

#[test]
fn thinking_is_shown_dimmed_before_the_answer() {
    let (url, _seen) = support::serve(vec![thinking_answer("Let me weigh this.", "Forty-two.")]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("the answer?");
    tui.expect("Forty-two.");
    assert_eq!(tui.dim_italic("Let me weigh this."), Some((true, true)));
    assert_eq!(tui.dim_italic("Forty-two."), Some((false, false)));
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn no_with_a_reason_reaches_the_model_and_always_saves_the_rule() {
    let (url, seen) = support::serve(vec![
        call("call_1", "bash", &json!({"command": "rm -rf build"})),
        answer("Understood, ", "not deleting."),
        call("call_2", "bash", &json!({"command": "touch kept.txt"})),
        answer("Touched", "."),
    ]);
    let home = Home::new(&url);
    std::fs::create_dir_all(home.work().join("build")).unwrap();
    let mut tui = home.start(&[]);
    tui.line("clean up");
    tui.expect("$ rm -rf build");
    // A key typed before the question is asked goes to the editor, not to the question.
    tui.expect("Run it? [y] yes once");
    tui.keys("r");
    tui.expect("Your reason, for the model");
    tui.line("keep the build");
    tui.expect("→ refused: keep the build");
    tui.expect("Understood, not deleting.");
    assert!(home.work().join("build").exists());
    assert!(
        support::bodies(&seen)[1]["messages"]
            .to_string()
            .contains("keep the build")
    );
    tui.line("touch a file");
    tui.wait_for("the second question", |shown| {
        shown.contains("bash wants to run (call call_2)") && shown.contains("Run it? [y]")
    });
    tui.keys("a");
    tui.expect("The rule to save to your settings");
    tui.expect("› bash(touch kept.txt)");
    tui.keys("\r");
    tui.expect("Saved bash(touch kept.txt)");
    tui.expect("Touched.");
    assert!(home.work().join("kept.txt").exists());
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(home.agent().join("settings.json")).unwrap())
            .unwrap();
    assert_eq!(
        settings["permissions"]["allow"],
        json!(["bash(touch kept.txt)"])
    );
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn markdown_in_the_answer_is_styled() {
    let (url, _seen) = support::serve(vec![answer(
        "## Plan\n- run **cargo test**\n",
        "- then `cargo fmt`\n",
    )]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("plan?");
    tui.expect("• then cargo fmt");
    tui.expect("• run cargo test");
    assert!(tui.cell_of("Plan").unwrap().bold());
    assert!(tui.cell_of("cargo test").unwrap().bold());
    assert_eq!(
        tui.cell_of("cargo fmt").unwrap().fgcolor(),
        vt100::Color::Idx(6)
    );
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn shift_enter_makes_a_new_line_and_up_brings_back_what_was_sent() {
    let (url, seen) = support::serve(vec![answer("Two ", "lines."), answer("Again", ".")]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.keys("line one");
    // Shift+Enter as terminals with the keyboard protocol send it, then Ctrl+J.
    tui.keys("\x1b[13;2u");
    tui.keys("line two");
    tui.keys("\n");
    tui.keys("line three");
    tui.expect("  line three");
    tui.keys("\r");
    tui.expect("Two lines.");
    let first = support::bodies(&seen)[0]["messages"].to_string();
    assert!(
        first.contains("line one\\nline two\\nline three"),
        "{first}"
    );
    // Up brings the message back; sent again, it is the same text.
    tui.keys("\x1b[A");
    tui.expect("› line one");
    tui.keys("\r");
    tui.expect("Again.");
    let second = support::bodies(&seen)[1]["messages"].to_string();
    assert_eq!(
        second.matches("line one\\nline two\\nline three").count(),
        2,
        "{second}"
    );
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn a_failed_request_is_shown_in_red() {
    let (url, _seen) = support::serve(vec![support::Reply::json(
        "400 Bad Request",
        r#"{"error": {"message": "the model refused the request"}}"#,
    )]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("hello?");
    tui.expect("the model refused the request");
    let cell = tui.cell_of("Error:").unwrap();
    assert_eq!(cell.fgcolor(), vt100::Color::Idx(1));
    // The session goes on.
    tui.keys("still here");
    tui.expect("› still here");
    tui.keys("\x15\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn messages_on_the_command_line_are_sent_first() {
    let (url, seen) = support::serve(vec![
        answer("First ", "reply."),
        answer("Second ", "reply."),
    ]);
    let home = Home::new(&url);
    std::fs::write(home.work().join("plan.md"), "step one").unwrap();
    let mut tui = home.start(&["@plan.md", "read the plan", "and then this"]);
    tui.expect("First reply.");
    tui.expect("› and then this");
    tui.expect("Second reply.");
    let bodies = support::bodies(&seen);
    assert!(bodies[0]["messages"].to_string().contains("step one"));
    assert!(bodies[1]["messages"].to_string().contains("and then this"));
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn an_edit_asks_with_its_diff_and_shows_it_coloured() {
    let (url, _seen) = support::serve(vec![
        call(
            "call_1",
            "edit",
            &json!({"path": "notes.txt", "edits": [{"oldText": "milk, eggs", "newText": "milk, eggs, bread"}]}),
        ),
        answer("Added ", "bread."),
    ]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("add bread");
    tui.expect("edit wants to run (call call_1)");
    tui.expect("    -milk, eggs");
    tui.expect("    +milk, eggs, bread");
    tui.expect("Run it? [y] yes once");
    assert_eq!(
        tui.cell_of("+milk").unwrap().fgcolor(),
        vt100::Color::Idx(2)
    );
    assert_eq!(
        tui.cell_of("-milk").unwrap().fgcolor(),
        vt100::Color::Idx(1)
    );
    tui.keys("y");
    tui.expect("Added bread.");
    assert_eq!(
        std::fs::read_to_string(home.work().join("notes.txt")).unwrap(),
        "milk, eggs, bread"
    );
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

/// The bytes the program writes while nobody types and nothing runs, over a second, after a
/// moment for the last frame to be written.
fn written_while_idle(tui: &mut tui::Tui) -> usize {
    std::thread::sleep(std::time::Duration::from_millis(400));
    let before = tui.bytes_written();
    std::thread::sleep(std::time::Duration::from_secs(1));
    tui.bytes_written() - before
}

#[test]
fn an_idle_view_is_not_drawn_again() {
    let (url, _seen) = support::serve(vec![answer("Hello from ", "the model.")]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.expect("local/local-model");
    assert_eq!(written_while_idle(&mut tui), 0, "drawn while idle at start");
    // A run draws as it goes, then stops drawing when it is over.
    tui.line("Say hello");
    tui.expect("Hello from the model.");
    assert_eq!(
        written_while_idle(&mut tui),
        0,
        "drawn while idle after a run"
    );
    // A key is drawn at once.
    tui.keys("zq7");
    tui.wait_for("the keys typed", |screen| screen.contains("zq7"));
    tui.keys("\x03");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

/// A 1x1 PNG.
const PIXEL_PNG: &[u8] = b"\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x0d\x49\x44\x41\x54\x78\xda\x63\x64\x60\xf8\x5f\x0f\x00\x02\x87\x01\x80\xeb\x47\xba\x92\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82";

#[test]
fn an_image_in_a_tool_result_is_a_line_with_its_type_and_size() {
    let (url, _seen) = support::serve(vec![
        call("call_1", "read", &json!({"path": "pixel.png"})),
        answer("A single ", "pixel."),
    ]);
    let home = Home::new(&url);
    std::fs::write(home.work().join("pixel.png"), PIXEL_PNG).unwrap();
    let mut tui = home.start(&[]);
    tui.line("What is in pixel.png?");
    tui.expect("● read pixel.png");
    let shown = tui.expect("[image: image/png, ");
    assert!(shown.contains(" B]"), "{shown}");
    tui.expect("A single pixel.");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}
