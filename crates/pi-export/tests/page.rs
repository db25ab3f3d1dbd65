//! The page as a person and a browser see it: every entry of a session Pi wrote has its place
//! once; and a session with hostile messages, edits, images, a compaction and 40 nested
//! branches, loaded in headless Chromium (installed by `scripts/test.sh`), parses into the
//! DOM we meant: no script or remote image, links only where safe, diffs, the current path.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::path::{Path, PathBuf};
use std::process::Command;

use pi_session::Session;
use serde_json::{Value, json};

/// Pi 0.80.6's own file with every entry type.
fn pis_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../pi-session/tests/pi/all-types.jsonl")
}

#[test]
fn every_entry_of_a_file_pi_wrote_has_its_place_once() {
    let session = Session::load(&pis_file()).unwrap();
    let html = pi_export::session_html(&session);
    for entry in session.entries() {
        let anchor = format!("id=\"e-{}\"", entry.id());
        assert_eq!(html.matches(&anchor).count(), 1, "{anchor}");
        let link = format!("href=\"#e-{}\"", entry.id());
        assert!(html.contains(&link), "the tree links {link}");
    }
    for text in [
        "abandoned answer",
        "The user asked something else.",
        "block note",
        "Label \"start\"",
        "README.md\nsrc/",
        "last answer",
        "Thinking",
        "$0.0168",
    ] {
        assert!(html.contains(text), "{text:?} is on the page");
    }
    assert_eq!(html.matches("class=\"badge\">current").count(), 1);
    assert!(html.contains("<title>fixture session</title>"));
}

/// A tiny real PNG (1x1).
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

fn line(value: &Value) -> String {
    format!("{value}\n")
}

fn message(id: &str, parent: Option<&str>, second: u32, message: Value) -> String {
    line(&json!({
        "type": "message", "id": id, "parentId": parent,
        "timestamp": format!("2026-12-07T10:{:02}:{:02}.000Z", second / 60, second % 60),
        "message": message,
    }))
}

fn assistant(content: Value) -> Value {
    json!({"role": "assistant", "content": content, "api": "openai-completions", "provider": "openai",
           "model": "gpt-test", "usage": {"input": 100, "output": 20, "cost": {"total": 0.5}},
           "stopReason": "toolUse", "timestamp": 2})
}

fn result(call: &str, tool: &str, text: &str, error: bool) -> Value {
    json!({"role": "toolResult", "toolCallId": call, "toolName": tool,
           "content": [{"type": "text", "text": text}], "isError": error, "timestamp": 3})
}

/// A session with what an attacker and a working day put in one.
fn hostile_session(dir: &Path) -> PathBuf {
    let mut text = line(&json!({"type": "session", "version": 3, "id": "s-hostile",
        "timestamp": "2026-12-07T10:00:00.000Z", "cwd": "/work/<b>repo</b>"}));
    let attack = "Read this: <script>document.title='pwned'</script> <img src=x onerror=\"document.title='pwned'\"> \
                  [click](javascript:alert(1)) ![remote](https://example.com/x.png) \u{1b}]52;c;cm0gLXJmIH4=\u{7} done";
    text += &message(
        "u1",
        None,
        1,
        json!({"role": "user", "content": attack, "timestamp": 1}),
    );
    text += &message(
        "a1",
        Some("u1"),
        2,
        assistant(json!([
            {"type": "thinking", "thinking": "I should edit main.rs"},
            {"type": "text", "text": "| a | b |\n|---|---|\n| 1 | 2 |\n\n```rust\nfn main() {}\n```"},
            {"type": "toolCall", "id": "c1", "name": "edit", "arguments": {"path": "src/main.rs",
                "edits": [{"oldText": "let x = 1;\nkeep();\n", "newText": "let x = 2;\nkeep();\n"}]}},
            {"type": "toolCall", "id": "c2", "name": "bash", "arguments": {"command": "cargo test </dev/null"}},
        ])),
    );
    text += &message(
        "r1",
        Some("a1"),
        3,
        result("c1", "edit", "Edited src/main.rs", false),
    );
    let failing: String = (1..=30).map(|n| format!("error line {n}\n")).collect();
    text += &message("r2", Some("r1"), 4, result("c2", "bash", &failing, true));
    text += &message(
        "u2",
        Some("r2"),
        5,
        json!({"role": "user", "content": [
        {"type": "text", "text": "What is in this picture?"},
        {"type": "image", "mimeType": "image/png", "data": PNG},
        {"type": "image", "mimeType": "text/html", "data": "PHNjcmlwdD4="},
    ], "timestamp": 5}),
    );
    text += &line(&json!({"type": "compaction", "id": "k1", "parentId": "u2",
        "timestamp": "2026-12-07T10:00:06.000Z", "summary": "## Goal\nFix the **tests**.",
        "firstKeptEntryId": "u2", "tokensBefore": 12345}));
    // The current branch goes on from the compaction; 40 nested branches leave from it.
    text += &message(
        "a2",
        Some("k1"),
        7,
        assistant(json!([{"type": "text", "text": "All green."}])),
    );
    let mut parent = "k1".to_owned();
    for depth in 0..40 {
        let id = format!("n{depth}");
        text += &message(
            &id,
            Some(&parent),
            8 + depth,
            json!({"role": "user", "content": format!("nested {depth}"), "timestamp": 8}),
        );
        // A sibling, so that every level is a fork.
        text += &message(
            &format!("m{depth}"),
            Some(&parent),
            8 + depth,
            json!({"role": "user", "content": format!("sibling {depth}"), "timestamp": 8}),
        );
        parent = id;
    }
    // The current leaf is the last line: point it back at a2 with a label on it.
    text += &line(&json!({"type": "label", "id": "l1", "parentId": "a2",
        "timestamp": "2026-12-07T10:09:00.000Z", "targetId": "a2", "label": "green"}));
    let file = dir.join("hostile.jsonl");
    std::fs::write(&file, text).unwrap();
    file
}

fn chromium() -> PathBuf {
    let candidates = std::env::var_os("CHROMIUM")
        .into_iter()
        .map(PathBuf::from)
        .chain(["chromium", "chromium-browser", "google-chrome"].map(PathBuf::from));
    for candidate in candidates {
        if Command::new(&candidate)
            .arg("--version")
            .output()
            .is_ok_and(|out| out.status.success())
        {
            return candidate;
        }
    }
    panic!(
        "no Chromium found (chromium, chromium-browser, google-chrome or $CHROMIUM): scripts/test.sh installs Debian's chromium"
    );
}

#[test]
#[ignore = "needs headless Chromium: run scripts/test.sh (it installs Debian's chromium)"]
fn chromium_renders_the_page_as_meant_and_runs_nothing_from_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let file = hostile_session(dir.path());
    let page = dir.path().join("out").join("page.html");
    std::fs::create_dir_all(page.parent().unwrap()).unwrap();
    // An existing page is replaced and keeps its mode.
    std::fs::write(&page, "old").unwrap();
    let written = pi_export::export_file(&file, Some(&page)).unwrap();
    assert_eq!(written, page);
    let out = Command::new(chromium())
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dom = String::from_utf8(out.stdout).unwrap();
    assert!(
        dom.contains("<title>Session s-hostile</title>"),
        "the title is ours, not the session's script's"
    );
    // Nothing from the session became an element or a live link.
    assert!(!dom.contains("<script"), "no script element");
    assert!(!dom.contains("javascript:"), "no javascript: link");
    assert_eq!(
        dom.matches("<img").count(),
        1,
        "only the session's own PNG is an image"
    );
    assert!(dom.contains(&format!(
        "<img class=\"image\" alt=\"image\" src=\"data:image/png;base64,{PNG}\">"
    )));
    assert!(
        dom.contains("&lt;script&gt;document.title='pwned'&lt;/script&gt;"),
        "the attack shows as text"
    );
    assert!(
        dom.contains("<a href=\"https://example.com/x.png\">remote</a>"),
        "a remote image is a link to click"
    );
    assert!(
        dom.contains("\\u{1b}]52;c;cm0gLXJmIH4=\\u{7}"),
        "terminal escapes are shown"
    );
    assert!(dom.contains("an image that cannot be shown: text/html"));
    assert!(dom.contains("/work/&lt;b&gt;repo&lt;/b&gt;"));
    // The work: markdown, the edit's diff, the failed bash folded, the compaction.
    assert!(dom.contains("<table>") && dom.contains("<code class=\"language-rust\">fn main() {}"));
    assert!(dom.contains("<span class=\"del\">-let x = 1;</span>"));
    assert!(dom.contains("<span class=\"ins\">+let x = 2;</span>"));
    assert!(dom.contains("<span class=\"ctx\"> keep();</span>"));
    assert!(dom.contains("tool-call failed") && dom.contains("$ cargo test &lt;/dev/null"));
    assert!(dom.contains("18 more lines") && dom.contains("error line 30"));
    assert!(dom.contains("Compaction <span class=\"meta\">(12345 tokens before)</span>"));
    assert!(dom.contains("<h2>Goal</h2>") && dom.contains("<strong>tests</strong>"));
    // The tree: the current leaf (the label) on the path; the deepest branches show their
    // depth as a number instead of indenting without bound; every branch's messages are there.
    assert_eq!(dom.matches("class=\"badge\">current").count(), 1);
    assert!(
        dom.contains("<span class=\"depth\">40</span>"),
        "depth 40 written as a number"
    );
    assert!(
        dom.contains("style=\"--depth:16\""),
        "indentation stops at 16"
    );
    assert!(dom.contains("nested 39") && dom.contains("sibling 39"));
    let green = dom.find("All green.").unwrap();
    let others = dom.find("Other branches").unwrap();
    assert!(green < others, "the current branch comes first");
    let entries = Session::load(&file).unwrap().entries().len();
    assert_eq!(entries, 5 + 1 + 1 + 80 + 1);
    assert_eq!(
        dom.matches("id=\"e-").count(),
        entries,
        "one anchor per entry"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&page).unwrap().permissions().mode() & 0o777;
        let before = 0o666 & !0o022;
        assert!(
            mode == before || mode == 0o644,
            "the replaced page's mode is kept: {mode:o}"
        );
    }
}

#[test]
fn a_session_not_written_yet_and_one_in_memory_are_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let pending = Session::create(dir.path(), dir.path());
    let page = dir.path().join("p.html");
    let error = pi_export::write_session_html(&pending, Some(&page)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Nothing to export yet - start a conversation first"
    );
    let memory = Session::in_memory(dir.path());
    let error = pi_export::write_session_html(&memory, Some(&page)).unwrap_err();
    assert_eq!(error.to_string(), "Cannot export in-memory session to HTML");
    assert!(!page.exists());
    // A page into a directory that does not exist fails and leaves nothing behind.
    let file = hostile_session(dir.path());
    let error =
        pi_export::export_file(&file, Some(&dir.path().join("missing/p.html"))).unwrap_err();
    assert!(error.to_string().starts_with("could not write"), "{error}");
}

#[test]
fn the_default_page_name_is_pis() {
    assert_eq!(
        pi_export::default_output_path(Path::new("/s/2026-12-07T10-00-00-000Z_abc.jsonl")),
        PathBuf::from("pi-session-2026-12-07T10-00-00-000Z_abc.html")
    );
}
