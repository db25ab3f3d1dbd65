//! The interactive mode's keys and slash commands, typed on a pseudo-terminal as a person
//! would, against a local fake of the OpenAI Chat wire: Shift+Tab and Ctrl+P; the `--models`
//! scope, Shift+Ctrl+P and `/scoped-models`; Alt+Enter's
//! follow-up; `!cmd` (the model reads it) and `!!cmd` (it does not); `/name` and `/session`; `/model` (picker and pattern); `/fork`;
//! `/resume` (named filter, rename, delete); `/import`; `/tree` (labels, filters); Ctrl+G's external editor; `/copy` (OSC 52) and `/export` (JSONL and HTML); Tab completion; `@` file completion; Alt+Up; Ctrl+T; a prompt template; SIGTERM giving the terminal back.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod support;
#[path = "support/tui.rs"]
mod tui;

use serde_json::json;
use tui::{Home, answer, call, exited_well};

fn two_models(url: &str) -> Home {
    Home::with_models(
        url,
        &json!([
            {"id": "local-model", "reasoning": true, "contextWindow": 100000},
            {"id": "other-model", "contextWindow": 50000}
        ]),
    )
}

#[test]
fn shift_tab_changes_the_thinking_level_and_ctrl_p_the_model() {
    let (url, seen) = support::serve(vec![answer("From the ", "other one.")]);
    let home = two_models(&url);
    let mut tui = home.start(&["--model", "local/local-model"]);
    tui.expect("local/local-model • medium");
    tui.keys("\x1b[Z");
    tui.expect("local/local-model • high");
    tui.keys("\x10");
    tui.expect("local/other-model • off");
    tui.line("who are you?");
    tui.expect("From the other one.");
    let bodies = support::bodies(&seen);
    assert_eq!(bodies[0]["model"], "other-model");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn alt_enter_while_the_agent_works_queues_a_follow_up() {
    let (url, seen) = support::serve(vec![
        call("call_1", "bash", &json!({"command": "sleep 2"})),
        answer("Slept", "."),
        answer("In short: ", "slept."),
    ]);
    let home = Home::new(&url);
    let mut tui = home.start(&["--approval", "yolo"]);
    tui.line("sleep a bit");
    tui.expect("● bash $ sleep 2");
    tui.keys("then summarise");
    tui.keys("\x1b\r");
    tui.expect("Follow-up: then summarise");
    tui.expect("In short: slept.");
    let bodies = support::bodies(&seen);
    assert_eq!(bodies.len(), 3);
    assert!(!bodies[1]["messages"].to_string().contains("then summarise"));
    assert!(bodies[2]["messages"].to_string().contains("then summarise"));
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn a_bang_command_runs_and_the_model_reads_it_and_two_bangs_keep_it_out() {
    let (url, seen) = support::serve(vec![answer("It printed ", "milk and eggs.")]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("!echo hi-from-the-shell; cat notes.txt");
    tui.expect("● bash $ echo hi-from-the-shell; cat notes.txt");
    tui.expect("⎿ hi-from-the-shell");
    tui.expect("milk, eggs");
    tui.line("!!echo kept-private");
    tui.expect("⎿ kept-private");
    tui.expect("(kept out of the model's context: !!)");
    assert!(support::bodies(&seen).is_empty());
    tui.line("what did it print?");
    tui.expect("It printed milk and eggs.");
    let context = support::bodies(&seen)[0]["messages"].to_string();
    assert!(
        context.contains("Ran `echo hi-from-the-shell; cat notes.txt`"),
        "{context}"
    );
    assert!(context.contains("milk, eggs"), "{context}");
    assert!(!context.contains("kept-private"), "{context}");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
    // Pi's bashExecution messages, in the session file.
    let sessions = home.sessions();
    let roles: Vec<&str> = sessions[0]
        .iter()
        .filter_map(|line| line["message"]["role"].as_str())
        .collect();
    assert_eq!(
        roles,
        ["bashExecution", "bashExecution", "user", "assistant"]
    );
}

#[test]
fn name_and_session_commands() {
    let (url, _seen) = support::serve(vec![answer("Hi", ".")]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("hello");
    tui.expect("Hi.");
    tui.line("/name my-work");
    tui.expect("~/work • my-work");
    tui.line("/hotkeys");
    tui.expect("ctrl+c                   clear the input; twice in a row: exit");
    tui.line("/session");
    tui.expect("Session file:");
    tui.expect("Messages:     2 (1 user, 1 assistant, 0 tool calls)");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
    let sessions = home.sessions();
    assert!(
        sessions[0]
            .iter()
            .any(|line| line["type"] == "session_info" && line["name"] == "my-work")
    );
}

#[test]
fn model_picker_and_pattern() {
    let (url, _seen) = support::serve(vec![]);
    let home = two_models(&url);
    let mut tui = home.start(&["--model", "local/local-model"]);
    tui.line("/model");
    tui.expect("Choose a model");
    tui.expect("local/local-model (current)");
    tui.keys("other");
    tui.keys("\r");
    tui.expect("Model: local/other-model");
    tui.expect("local/other-model • off");
    tui.line("/model local-mo");
    tui.expect("Model: local/local-model");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn fork_from_an_earlier_message_and_resume_the_first_session() {
    let (url, _seen) = support::serve(vec![answer("A", "."), answer("B", ".")]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("alpha question");
    tui.expect("A.");
    tui.line("beta question");
    tui.expect("B.");
    tui.line("/fork");
    tui.expect("Fork from which message?");
    tui.keys("\r");
    tui.expect("Forked into a new session");
    // The message forked from is back in the editor, to edit and send.
    tui.expect("› beta question");
    assert_eq!(home.sessions().len(), 2);
    tui.keys("\x15");
    tui.line("/resume");
    tui.expect("Resume which session?");
    tui.keys("\r");
    tui.expect("Resumed");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn tab_completes_commands_and_templates_expand() {
    let (url, seen) = support::serve(vec![answer("Reviewed", ".")]);
    let home = Home::new(&url);
    std::fs::create_dir_all(home.agent().join("prompts")).unwrap();
    std::fs::write(
        home.agent().join("prompts/review.md"),
        "---\ndescription: Review a path\n---\nReview $1 for bugs.",
    )
    .unwrap();
    let mut tui = home.start(&[]);
    tui.keys("/rev");
    tui.expect("/review");
    tui.expect("Review a path");
    tui.keys("\t");
    tui.keys("src");
    tui.expect("› /review src");
    tui.keys("\r");
    tui.expect("Reviewed.");
    let bodies = support::bodies(&seen);
    assert!(
        bodies[0]["messages"]
            .to_string()
            .contains("Review src for bugs.")
    );
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn sigterm_gives_the_terminal_back() {
    let (url, _seen) = support::serve(vec![]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.keys("a draft");
    tui.expect("› a draft");
    assert!(tui.emulator().screen().bracketed_paste());
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(tui.pid()),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let status = tui.wait_exit();
    assert!(
        status.contains("Exited(") && status.ends_with(", 143)"),
        "{status}"
    );
    let emulator = tui.emulator();
    assert!(!emulator.screen().hide_cursor());
    assert!(!emulator.screen().bracketed_paste());
}

#[test]
fn at_completes_workspace_files() {
    let (url, seen) = support::serve(vec![answer("Read ", "it.")]);
    let home = Home::new(&url);
    std::fs::create_dir_all(home.work().join("src")).unwrap();
    std::fs::write(home.work().join("src/parser.rs"), "fn parse() {}").unwrap();
    let mut tui = home.start(&[]);
    tui.keys("look at @pars");
    tui.expect("@src/parser.rs");
    tui.keys("\t");
    tui.expect("› look at @src/parser.rs");
    tui.keys("please\r");
    tui.expect("Read it.");
    assert!(
        support::bodies(&seen)[0]["messages"]
            .to_string()
            .contains("look at @src/parser.rs please")
    );
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn alt_up_takes_queued_messages_back_and_ctrl_t_hides_thinking() {
    let thinking = {
        let chunks = [
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "reasoning_content": "secret musing"}}]}),
            json!({"choices": [{"index": 0, "delta": {"content": "Visible answer."}, "finish_reason": "stop"}]}),
        ];
        let mut body = String::new();
        for chunk in chunks {
            body.push_str(&format!("data: {chunk}\n\n"));
        }
        body.push_str("data: [DONE]\n\n");
        support::Reply::sse(body)
    };
    let (url, seen) = support::serve(vec![
        call("call_1", "bash", &json!({"command": "sleep 2"})),
        thinking,
    ]);
    let home = Home::new(&url);
    let mut tui = home.start(&["--approval", "yolo"]);
    tui.keys("\x14");
    tui.expect("Thinking is hidden");
    tui.line("go");
    tui.expect("● bash $ sleep 2");
    tui.line("a queued thought");
    tui.expect("Steering: a queued thought");
    tui.keys("\x1b[1;3A");
    tui.wait_for("the queue back in the editor", |shown| {
        shown.contains("› a queued thought") && !shown.contains("Steering: a queued")
    });
    tui.expect("Visible answer.");
    let shown = tui.expect("Thinking… (hidden; ctrl+t shows it)");
    assert!(!shown.contains("secret musing"), "{shown}");
    // Taken back: never sent.
    assert!(
        !support::bodies(&seen)[1]["messages"]
            .to_string()
            .contains("a queued thought")
    );
    tui.keys("\x15\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn tree_goes_back_to_a_question_and_branches_from_there() {
    let (url, seen) = support::serve(vec![answer("A", "."), answer("B", "."), answer("C", ".")]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("alpha question");
    tui.expect("A.");
    tui.line("beta question");
    tui.expect("B.");
    tui.line("/tree");
    tui.expect("Go to which entry?");
    tui.expect("› • assistant: B.");
    tui.keys("\x1b[A");
    tui.expect("› • user: beta question");
    tui.keys("\r");
    tui.expect("Moved in the session tree");
    tui.expect("› beta question");
    tui.keys("\x15");
    tui.line("gamma question");
    tui.expect("C.");
    let context = support::bodies(&seen)[2]["messages"].to_string();
    assert!(
        context.contains("alpha question") && context.contains("gamma question"),
        "{context}"
    );
    assert!(!context.contains("beta question"), "{context}");
    tui.line("/tree");
    tui.expect("  • user: gamma question");
    tui.expect("    user: beta question");
    tui.keys("\x1b");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
    // One file: the new question's parent is the first answer, beside the old branch.
    let sessions = home.sessions();
    assert_eq!(sessions.len(), 1);
    let messages: Vec<&serde_json::Value> = sessions[0]
        .iter()
        .filter(|line| line["type"] == "message")
        .collect();
    let first_answer = messages[1]["id"].clone();
    let gamma = messages
        .iter()
        .find(|m| m["message"]["content"] == "gamma question")
        .unwrap();
    assert_eq!(gamma["parentId"], first_answer);
}

#[test]
fn copy_puts_the_last_answer_on_the_clipboard_and_export_writes_the_session() {
    let (url, _seen) = support::serve(vec![answer("Copy ", "this text.")]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("say something");
    tui.expect("Copy this text.");
    assert!(tui.emulator().callbacks().clipboard.is_empty());
    tui.line("/copy");
    tui.expect("Copied the last answer to the clipboard");
    // "Copy this text." in base64, through OSC 52.
    assert_eq!(
        tui.emulator().callbacks().clipboard,
        vec![b"Q29weSB0aGlzIHRleHQu".to_vec()]
    );
    tui.line("/export saved.jsonl");
    tui.expect("Session exported to:");
    tui.line("/export saved.html");
    tui.expect("saved.html");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
    let saved = std::fs::read_to_string(home.work().join("saved.jsonl")).unwrap();
    assert!(saved.contains("Copy this text."));
    let page = std::fs::read_to_string(home.work().join("saved.html")).unwrap();
    assert!(page.contains("<!DOCTYPE html>") && page.contains("Copy this text."));
}

#[test]
fn ctrl_g_edits_the_message_in_the_external_editor() {
    let (url, seen) = support::serve(vec![answer("Got ", "it.")]);
    let home = Home::new(&url);
    // An "editor" that appends a line to what it was given.
    let editor = home.agent().join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nprintf '\\nand a line from the editor' >> \"$1\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut tui = home.start_with_env(&[], &[("VISUAL", editor.to_str().unwrap())]);
    tui.keys("my draft");
    tui.keys("\x07");
    tui.expect("  and a line from the editor");
    tui.expect("› my draft");
    tui.keys("\r");
    tui.expect("Got it.");
    let context = support::bodies(&seen)[0]["messages"].to_string();
    assert!(
        context.contains("my draft\\nand a line from the editor"),
        "{context}"
    );
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn keybindings_json_rebinds_keys_and_a_bad_entry_is_a_warning() {
    let (url, _seen) = support::serve(vec![answer("Hi", ".")]);
    let home = Home::new(&url);
    std::fs::write(
        home.agent().join("keybindings.json"),
        json!({
            "app.session.new": "f5",
            "app.exit": ["ctrl+q"],
            "no.such.action": "x",
            "app.interrupt": ["escape", "hyper+x"],
            "tui.editor.yank": "ctrl+y"
        })
        .to_string(),
    )
    .unwrap();
    let mut tui = home.start(&[]);
    tui.expect("no action is called \"no.such.action\"");
    tui.expect("app.interrupt: \"hyper+x\" is not a key");
    tui.line("hello");
    tui.expect("Hi.");
    // F5 is /new now (refused while the run is still settling: pressed again then).
    tui.expect("↑1.2k");
    for _ in 0..50 {
        tui.keys("\x1b[15~");
        std::thread::sleep(std::time::Duration::from_millis(200));
        if tui.screen().contains("New session started") {
            break;
        }
    }
    tui.expect("New session started");
    tui.line("/hotkeys");
    tui.expect("ctrl+q                   exit, when the input is empty");
    // Ctrl+D no longer exits (it only deletes forward); Ctrl+Q does.
    tui.keys("\x04");
    tui.keys("still here");
    tui.expect("still here");
    tui.keys("\x15\x11");
    exited_well(&tui.wait_exit());
}

#[test]
fn a_malformed_keybindings_json_keeps_the_defaults() {
    let (url, _seen) = support::serve(vec![]);
    let home = Home::new(&url);
    std::fs::write(home.agent().join("keybindings.json"), "{\"app.exit\": ").unwrap();
    let mut tui = home.start(&[]);
    tui.expect("keybindings.json is not valid JSON");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn code_in_a_named_language_is_coloured() {
    let (url, _seen) = support::serve(vec![answer(
        "Here:\n```rust\nfn main() { let answer = 42; }\n```\n```\nplain words here\n```\n",
        "Done.",
    )]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("show me code");
    tui.expect("Done.");
    let keyword = tui.cell_of("fn main").unwrap();
    let number = tui.cell_of("42").unwrap();
    assert!(
        matches!(keyword.fgcolor(), vt100::Color::Rgb(..)),
        "{:?}",
        keyword.fgcolor()
    );
    assert_ne!(keyword.fgcolor(), number.fgcolor());
    let plain = tui.cell_of("plain words").unwrap();
    assert_eq!(plain.fgcolor(), vt100::Color::Idx(6));
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn reload_reads_templates_and_keybindings_again() {
    let (url, seen) = support::serve(vec![answer("Reviewed", ".")]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.expect("local/local-model");
    // Written while the program runs: seen after /reload only.
    std::fs::create_dir_all(home.agent().join("prompts")).unwrap();
    std::fs::write(
        home.agent().join("prompts/review.md"),
        "---\ndescription: Review a path\n---\nReview $1 for bugs.",
    )
    .unwrap();
    std::fs::write(
        home.agent().join("keybindings.json"),
        r#"{"app.exit": "ctrl+q", "app.bogus": 1, "bad.id": "x"}"#,
    )
    .unwrap();
    std::fs::write(
        home.agent().join("settings.json"),
        r#"{"steeringMode": "one-at-a-time"}"#,
    )
    .unwrap();
    tui.line("/reload");
    tui.expect("Reloaded keybindings, settings, skills, prompt templates and context files");
    tui.expect("no action is called \"bad.id\"");
    // The queue mode the settings name now holds.
    tui.line("/settings");
    tui.expect("Steering mode       one-at-a-time");
    tui.keys("\x1b");
    tui.line("/review src");
    tui.expect("Reviewed.");
    let bodies = support::bodies(&seen);
    assert!(
        bodies[0]["messages"]
            .to_string()
            .contains("Review src for bugs."),
        "{}",
        bodies[0]
    );
    tui.keys("\x11");
    exited_well(&tui.wait_exit());
}

#[test]
fn settings_change_auto_compaction_and_the_steering_mode_and_save_them() {
    let (url, _seen) = support::serve(vec![]);
    let home = Home::new(&url);
    std::fs::write(home.agent().join("settings.json"), r#"{"theme": "dark"}"#).unwrap();
    let mut tui = home.start(&[]);
    tui.line("/settings");
    tui.expect("Auto-compaction     on");
    tui.expect("Steering mode       all");
    // Down to auto-compaction, Enter; then down to the steering mode, Enter.
    tui.keys("\x1b[B");
    tui.keys("\r");
    tui.expect("Auto-compaction     off");
    tui.keys("\x1b[B");
    tui.keys("\r");
    tui.expect("Steering mode       one-at-a-time");
    tui.keys("\x1b");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.agent().join("settings.json")).unwrap())
            .unwrap();
    assert_eq!(
        saved,
        json!({"theme": "dark", "compaction": {"enabled": false}, "steeringMode": "one-at-a-time"})
    );
    // The next start reads them.
    let mut tui = home.start(&[]);
    tui.line("/settings");
    tui.expect("Auto-compaction     off");
    tui.expect("Steering mode       one-at-a-time");
    tui.keys("\x1b");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn ctrl_p_cycles_the_models_scope_both_ways_and_scoped_models_changes_and_saves_it() {
    let (url, seen) = support::serve(vec![answer("Third ", "here.")]);
    let home = Home::with_models(
        &url,
        &json!([
            {"id": "local-model", "reasoning": true, "contextWindow": 100000},
            {"id": "other-model", "contextWindow": 50000},
            {"id": "third-model", "contextWindow": 50000}
        ]),
    );
    let mut tui = home.start(&["--models", "local/local-model:high,local/third-model"]);
    // The scope's first model, at its pattern's level; other-model is never cycled to.
    tui.expect("local/local-model • high • scoped 1/2");
    tui.keys("\x10");
    tui.expect("local/third-model • off • scoped 2/2");
    tui.keys("\x10");
    tui.expect("local/local-model • high • scoped 1/2");
    // Shift+Ctrl+P (the kitty keyboard protocol's CSI u): backwards.
    tui.keys("\x1b[112;6u");
    tui.expect("local/third-model • off • scoped 2/2");
    tui.line("who are you?");
    tui.expect("Third here.");
    assert_eq!(support::bodies(&seen)[0]["model"], "third-model");
    // The switches are model_change entries of the session, as /model records them.
    let entries = &home.sessions()[0];
    let changes: Vec<&str> = entries
        .iter()
        .filter(|entry| entry["type"] == "model_change")
        .map(|entry| entry["modelId"].as_str().unwrap())
        .collect();
    assert_eq!(changes.last(), Some(&"third-model"), "{entries:?}");
    tui.line("/scoped-models");
    tui.expect("[x] local/local-model");
    tui.expect("[ ] local/other-model");
    // Enter turns local-model off for the session.
    tui.keys("\r");
    tui.expect("[ ] local/local-model");
    tui.expect("scoped 1/1");
    // Down to the last item: saved to the settings.
    tui.keys("\x1b[B");
    tui.keys("\x1b[B");
    tui.keys("\x1b[B");
    tui.keys("\r");
    tui.expect("Saved enabledModels");
    tui.keys("\x1b");
    tui.keys("\x10");
    tui.expect("Only one model of the scope has a key");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.agent().join("settings.json")).unwrap())
            .unwrap();
    assert_eq!(saved["enabledModels"], json!(["local/third-model"]));
    // The next start without --models reads enabledModels (local-model, named, is outside).
    let mut tui = home.start(&["--model", "local/local-model"]);
    tui.expect("local/local-model • medium • scoped -/1");
    tui.keys("\x10");
    tui.expect("Only one model of the scope has a key");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

#[test]
fn tree_labels_an_entry_as_pi_records_it_and_filters_as_pis_modes() {
    let (url, _seen) = support::serve(vec![answer("A", "."), answer("B", ".")]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("alpha question");
    tui.expect("A.");
    tui.line("beta question");
    tui.expect("B.");
    tui.line("/tree");
    tui.expect("filter default");
    tui.keys("\x1b[A");
    tui.expect("› • user: beta question");
    // Shift+L: the label typed in the editor, Enter saves it; the tree shows it.
    tui.keys("L");
    tui.expect("The entry's label");
    tui.keys("checkpoint");
    tui.keys("\r");
    tui.expect("› • [checkpoint] user: beta question");
    // Ctrl+U: user messages only.
    tui.keys("\x15");
    let shown = tree_list(&tui.expect("filter user-only"));
    assert!(!shown.contains("assistant: A."), "{shown}");
    assert!(shown.contains("user: alpha question"), "{shown}");
    // Ctrl+L: labelled entries only.
    tui.keys("\x0c");
    let shown = tree_list(&tui.expect("filter labeled-only"));
    assert!(!shown.contains("alpha question"), "{shown}");
    assert!(
        shown.contains("[checkpoint] user: beta question"),
        "{shown}"
    );
    // Ctrl+O: the next mode, every entry (the label entry itself among them).
    tui.keys("\x0f");
    tui.expect("filter all");
    tui.expect("label: checkpoint");
    tui.keys("\x1b");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
    let entries = &home.sessions()[0];
    let beta = entries
        .iter()
        .find(|entry| entry["message"]["content"] == "beta question")
        .unwrap();
    let label = entries
        .iter()
        .find(|entry| entry["type"] == "label")
        .unwrap();
    assert_eq!(label["targetId"], beta["id"]);
    assert_eq!(label["label"], "checkpoint");
    // Pi's fields: the label entry follows the leaf.
    assert_eq!(label["parentId"], entries[entries.len() - 2]["id"]);
    // The settings' treeFilterMode is the filter /tree opens with.
    std::fs::write(
        home.agent().join("settings.json"),
        r#"{"treeFilterMode": "labeled-only"}"#,
    )
    .unwrap();
    let mut tui = home.start(&["-c"]);
    tui.line("/tree");
    let shown = tree_list(&tui.expect("filter labeled-only"));
    assert!(!shown.contains("alpha question"), "{shown}");
    tui.keys("\x1b");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
}

/// The tree's list on `screen`: from its title to the editor's rule.
fn tree_list(screen: &str) -> String {
    let start = screen.find("Go to which entry?").unwrap();
    let rest = &screen[start..];
    rest[..rest.find('─').unwrap_or(rest.len())].to_owned()
}

#[test]
fn import_continues_a_session_file_from_elsewhere() {
    let (url, seen) = support::serve(vec![answer("A", "."), answer("Again", ".")]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("alpha question");
    tui.expect("A.");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
    // The session moves out of the project's sessions, under another name.
    let files = walk(&home.agent().join("sessions"));
    assert_eq!(files.len(), 1, "{files:?}");
    let shared = home.work().join("shared.jsonl");
    std::fs::rename(&files[0], &shared).unwrap();
    let mut tui = home.start(&[]);
    tui.line("/import shared.jsonl");
    tui.expect("Session imported from");
    tui.line("and again?");
    tui.expect("Again.");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
    let context = support::bodies(&seen)[1]["messages"].to_string();
    assert!(context.contains("alpha question"), "{context}");
    // Copied into the sessions, the file imported left as it was.
    let copied = walk(&home.agent().join("sessions"))
        .into_iter()
        .find(|path| path.file_name().unwrap() == "shared.jsonl")
        .unwrap();
    assert!(
        std::fs::read_to_string(copied)
            .unwrap()
            .contains("and again?")
    );
    assert!(
        !std::fs::read_to_string(&shared)
            .unwrap()
            .contains("and again?")
    );
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[test]
fn resume_lists_named_sessions_renames_and_deletes_one() {
    let (url, _seen) = support::serve(vec![answer("A", "."), answer("B", ".")]);
    let home = Home::new(&url);
    let mut tui = home.start(&[]);
    tui.line("alpha question");
    tui.expect("A.");
    tui.line("/new");
    tui.expect("New session started");
    tui.line("beta question");
    tui.expect("B.");
    tui.line("/new");
    tui.line("/resume");
    tui.expect("Resume which session?");
    // Ctrl+N: named sessions only (none yet), and back.
    tui.keys("\x0e");
    tui.expect("(nothing matches)");
    tui.keys("\x0e");
    tui.expect("› beta question");
    // Ctrl+R: the new name typed in the editor.
    tui.keys("\x12");
    tui.expect("The session's new name");
    tui.keys("Beta work");
    tui.keys("\r");
    tui.expect("› Beta work  (2 messages)");
    tui.keys("\x0e");
    tui.expect("Resume which named session?");
    tui.expect("› Beta work");
    tui.keys("\x0e");
    // Ctrl+D on alpha's session, then again: deleted.
    tui.keys("alpha");
    tui.expect("› alpha question");
    tui.keys("\x04");
    tui.expect("Delete this session?");
    tui.keys("\x04");
    tui.expect("Deleted");
    tui.keys("\x1b");
    tui.keys("\x04");
    exited_well(&tui.wait_exit());
    // The session /new started last has no message; of the others only beta's is left.
    let sessions = home.sessions();
    let asked = |session: &Vec<serde_json::Value>, question: &str| {
        session
            .iter()
            .any(|entry| entry["message"]["content"] == question)
    };
    assert!(
        !sessions
            .iter()
            .any(|session| asked(session, "alpha question"))
    );
    let kept = sessions
        .iter()
        .find(|session| asked(session, "beta question"))
        .unwrap();
    assert!(
        kept.iter()
            .any(|entry| entry["type"] == "session_info" && entry["name"] == "Beta work")
    );
}
