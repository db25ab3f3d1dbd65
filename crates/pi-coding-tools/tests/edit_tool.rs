//! `edit` on real files through the executor: blocks matched against the original, Pi's
//! refusals, line endings and BOM kept, forgiving matching that touches only what it matched.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::fs;
use std::path::Path;

use pi_coding_tools::{Workspace, edit_tool};
use pi_tool::{CallContext, ToolCall, ToolRegistry, ToolResultMessage, execute_tool_call};
use serde_json::{Value, json};

async fn edit(root: &Path, arguments: Value) -> ToolResultMessage {
    let tools = ToolRegistry::new([edit_tool(&Workspace::new(root))]).unwrap();
    execute_tool_call(
        &ToolCall::new("call-1", "edit", arguments),
        &tools,
        CallContext::default(),
    )
    .await
}

fn file(root: &Path, content: &str) -> String {
    fs::write(root.join("f.txt"), content).unwrap();
    "f.txt".to_owned()
}

fn read(root: &Path) -> String {
    fs::read_to_string(root.join("f.txt")).unwrap()
}

#[tokio::test]
async fn blocks_are_matched_against_the_original_and_written_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(dir.path(), "alpha\nbeta\ngamma\ndelta\n");
    let result = edit(
        dir.path(),
        json!({"path": path, "edits": [
            {"oldText": "gamma", "newText": "GAMMA"},
            {"oldText": "alpha", "newText": "gamma"}
        ]}),
    )
    .await;
    assert_eq!(result.text(), "Successfully replaced 2 block(s) in f.txt.");
    // The second edit's new text is not matched again by the first.
    assert_eq!(read(dir.path()), "gamma\nbeta\nGAMMA\ndelta\n");
    let details = result.details.unwrap();
    assert_eq!(details["firstChangedLine"], 1);
    assert_eq!(
        details["diff"],
        "-1 alpha\n+1 gamma\n 2 beta\n-3 gamma\n+3 GAMMA\n 4 delta"
    );
    assert!(
        details["patch"]
            .as_str()
            .unwrap()
            .starts_with("--- f.txt\n+++ f.txt\n@@ -1,4 +1,4 @@")
    );
}

#[tokio::test]
async fn refusals_say_which_edit_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(dir.path(), "one two one\nthree\n");
    let cases = [
        (
            json!([{"oldText": "four", "newText": "x"}]),
            "Could not find the text of edits[0] in f.txt. The oldText must match exactly, including all whitespace and newlines.",
        ),
        (
            json!([{"oldText": "three", "newText": "3"}, {"oldText": "one", "newText": "1"}]),
            "Found 2 occurrences of the text of edits[1] in f.txt. The text must be unique. Please provide more context to make it unique.",
        ),
        (
            json!([{"oldText": "two one", "newText": "x"}, {"oldText": "one\nthree", "newText": "y"}]),
            "edits[0] and edits[1] overlap in f.txt. Merge them into one edit or make them target different text.",
        ),
        (
            json!([{"oldText": "", "newText": "x"}]),
            "edits[0].oldText must not be empty.",
        ),
        (
            json!([{"oldText": "three", "newText": "three"}]),
            "No changes made to f.txt. The replacement produced identical content.",
        ),
    ];
    for (edits, expected) in cases {
        let result = edit(dir.path(), json!({"path": path, "edits": edits})).await;
        assert!(result.is_error);
        assert_eq!(result.text(), format!("Tool edit failed: {expected}"));
        assert_eq!(
            read(dir.path()),
            "one two one\nthree\n",
            "a refused edit wrote"
        );
    }
    let empty_list = edit(dir.path(), json!({"path": path, "edits": []})).await;
    assert!(empty_list.is_error);
    assert_eq!(
        empty_list.text(),
        "Tool edit failed: edits: 项数必须 >= 1，收到 array of 0 items"
    );
}

#[tokio::test]
async fn line_endings_and_bom_stay_as_the_file_has_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(dir.path(), "\u{feff}first\r\nsecond\r\nthird\r\n");
    let result = edit(
        dir.path(),
        json!({"path": path, "edits": [{"oldText": "first\nsecond", "newText": "1st\n2nd"}]}),
    )
    .await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(read(dir.path()), "\u{feff}1st\r\n2nd\r\nthird\r\n");
}

#[tokio::test]
async fn forgiving_matches_touch_only_the_text_they_matched() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(
        dir.path(),
        "let a = \u{201c}x\u{201d};   \nlet b = 1 \u{2014} 2;\nkeep \u{201c}this\u{201d}\n",
    );
    let result = edit(
        dir.path(),
        json!({"path": path, "edits": [{"oldText": "let a = \"x\";\nlet b = 1 - 2;", "newText": "let a = 'y';"}]}),
    )
    .await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(
        read(dir.path()),
        "let a = 'y';\nkeep \u{201c}this\u{201d}\n"
    );
}

#[tokio::test]
async fn older_argument_shapes_are_repaired_then_validated() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(dir.path(), "old\n");
    let legacy = edit(
        dir.path(),
        json!({"path": path, "oldText": "old", "newText": "new"}),
    )
    .await;
    assert!(!legacy.is_error, "{}", legacy.text());
    assert_eq!(read(dir.path()), "new\n");
    let encoded = edit(
        dir.path(),
        json!({"path": path, "edits": "[{\"oldText\":\"new\",\"newText\":\"newer\"}]"}),
    )
    .await;
    assert!(!encoded.is_error, "{}", encoded.text());
    assert_eq!(read(dir.path()), "newer\n");
}

#[tokio::test]
async fn fullwidth_punctuation_is_forgiven_and_left_alone_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(dir.path(), "你好\u{ff0c}世界\u{ff01}\n再见\u{ff0c}朋友\n");
    let result = edit(
        dir.path(),
        json!({"path": path, "edits": [{"oldText": "你好,世界!", "newText": "你好，Pi！"}]}),
    )
    .await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(read(dir.path()), "你好，Pi！\n再见\u{ff0c}朋友\n");
}

#[tokio::test]
async fn a_block_not_found_points_at_the_closest_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(
        dir.path(),
        "fn main() {\n    let total = 1;\n    println!(\"{total}\");\n}\n",
    );
    let result = edit(
        dir.path(),
        json!({"path": path, "edits": [{"oldText": "    let totl = 1;\n    println!(\"{total}\");", "newText": "x"}]}),
    )
    .await;
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "Tool edit failed: Could not find the text of edits[0] in f.txt. The oldText must match exactly, including all whitespace and newlines.\nClosest match is around line 2:\n2:     let total = 1;\n3:     println!(\"{total}\");"
    );
    let unlike = edit(
        dir.path(),
        json!({"path": path, "edits": [{"oldText": "completely different", "newText": "x"}]}),
    )
    .await;
    assert!(
        unlike
            .text()
            .ends_with("including all whitespace and newlines.")
    );
}

/// A file with both LF and CRLF lines keeps every line's own ending: only the matched text
/// changes, and the new text's lines end as the first line it replaces does (or, on a last
/// line without an ending, as most of the file's lines do).
#[tokio::test]
async fn mixed_line_endings_are_kept_line_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(dir.path(), "a\r\nb\nc\r\nd\nkeep\r\nlast");
    let result = edit(
        dir.path(),
        json!({"path": path, "edits": [
            {"oldText": "b", "newText": "B1\nB2"},
            {"oldText": "c\nd", "newText": "C1\r\nC2\nC3"},
            {"oldText": "last", "newText": "L1\nL2"}
        ]}),
    )
    .await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(
        read(dir.path()),
        "a\r\nB1\nB2\nC1\r\nC2\r\nC3\nkeep\r\nL1\r\nL2"
    );
    // The diff a model reads shows lines, not their endings.
    assert_eq!(
        result.details.unwrap()["diff"],
        " 1 a\n-2 b\n-3 c\n-4 d\n+2 B1\n+3 B2\n+4 C1\n+5 C2\n+6 C3\n 7 keep\n-6 last\n+8 L1\n+9 L2"
    );
}

#[tokio::test]
async fn a_name_typed_with_a_plain_space_edits_the_file_with_a_narrow_one() {
    let dir = tempfile::tempdir().unwrap();
    let name = "shot 10.00.00\u{202f}AM.txt";
    fs::write(dir.path().join(name), "before\n").unwrap();
    let result = edit(
        dir.path(),
        json!({"path": "shot 10.00.00 AM.txt", "edits": [{"oldText": "before", "newText": "after"}]}),
    )
    .await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(
        fs::read_to_string(dir.path().join(name)).unwrap(),
        "after\n"
    );
    assert!(!dir.path().join("shot 10.00.00 AM.txt").exists());
}
