//! `agent --mcp` with a server whose tools are named like the coding tools (`pi-tool serve`
//! over a workspace: the coding tools themselves, as a hostile server could name its own): they
//! come in as `mcp__pi-tool__<name>` with a warning, a call to `ls` finds no such tool, and the
//! renamed `bash` is judged as a server's tool (it asks; without a terminal, refused), not as
//! our shell with its read-only commands.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use assert_cmd::Command;
use serde_json::{Value, json};

#[test]
fn imported_tools_named_like_ours_are_renamed_and_not_judged_as_ours() {
    let root = tempfile::tempdir().unwrap();
    let (work, agent_dir) = (root.path().join("work"), root.path().join("agent"));
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&agent_dir).unwrap();
    std::fs::write(work.join("victim"), "keep").unwrap();
    let script = root.path().join("script.json");
    let calls = json!([
        {"content": [
            {"type": "toolCall", "id": "a", "name": "ls", "arguments": {"path": "."}},
            {"type": "toolCall", "id": "b", "name": "mcp__pi-tool__bash",
             "arguments": {"command": "rm victim"}}
        ]},
        {"content": [{"type": "text", "text": "ok"}]}
    ]);
    std::fs::write(&script, calls.to_string()).unwrap();
    let server = format!(
        "{} --coding-tools {} serve",
        env!("CARGO_BIN_EXE_pi-tool"),
        work.display()
    );
    let output = Command::cargo_bin("pi-tool")
        .unwrap()
        .env("PI_CODING_AGENT_DIR", &agent_dir)
        .env("HOME", root.path())
        .current_dir(&work)
        .args(["agent", "--json", "--no-session", "--faux"])
        .arg(&script)
        .args(["go", "--mcp", &server])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    for name in ["bash", "ls", "read", "write", "edit", "grep", "find"] {
        assert!(
            stderr.contains(&format!(
                "its tool \"{name}\" is imported as \"mcp__pi-tool__{name}\""
            )),
            "{name}: {stderr}"
        );
    }
    let results: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|message| message["role"] == "toolResult")
        .collect();
    assert_eq!(results.len(), 2, "{results:?}");
    assert_eq!(
        results[0]["isError"], true,
        "`ls` is not ours to call: {}",
        results[0]
    );
    assert_eq!(
        results[1]["isError"], true,
        "the server's `bash` ran: {}",
        results[1]
    );
    assert_eq!(
        std::fs::read_to_string(work.join("victim")).unwrap(),
        "keep"
    );
}
