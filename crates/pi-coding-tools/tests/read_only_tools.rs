//! `read`, `write`, `ls`, `find`, `grep` on real temporary directories, through the executor
//! (so arguments are parsed exactly as a model's would be), checked against Pi's texts.
//!
//! (Over 500 lines on purpose: each file under `tests/` is its own binary that links the whole
//! crate stack, so one file per behaviour area keeps CI's link time and disk down; the tests
//! inside are independent and share only the helpers at the top.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation,
    missing_docs
)]

use std::fs;
use std::path::Path;

use pi_coding_tools::{Workspace, find_tool, grep_tool, ls_tool, read_tool, write_tool};
use pi_tool::{CallContext, ToolCall, ToolRegistry, ToolResultMessage, execute_tool_call};
use serde_json::{Value, json};

fn tools(root: &Path) -> ToolRegistry {
    let workspace = Workspace::new(root);
    ToolRegistry::new([
        read_tool(&workspace),
        write_tool(&workspace),
        ls_tool(&workspace),
        find_tool(&workspace),
        grep_tool(&workspace),
    ])
    .unwrap()
}

async fn call(root: &Path, name: &str, arguments: Value) -> ToolResultMessage {
    let call = ToolCall::new("call-1", name, arguments);
    execute_tool_call(&call, &tools(root), CallContext::default()).await
}

fn write(root: &Path, path: &str, content: impl AsRef<[u8]>) {
    let path = root.join(path);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

#[tokio::test]
async fn read_gives_a_window_and_says_how_to_continue() {
    let dir = tempfile::tempdir().unwrap();
    let text: Vec<String> = (1..=10).map(|n| format!("line {n}")).collect();
    write(dir.path(), "a.txt", text.join("\n"));

    let whole = call(dir.path(), "read", json!({"path": "a.txt"})).await;
    assert_eq!(whole.text(), text.join("\n"));
    assert!(!whole.is_error);

    let window = call(
        dir.path(),
        "read",
        json!({"path": "@a.txt", "offset": 3, "limit": 2}),
    )
    .await;
    assert_eq!(
        window.text(),
        "line 3\nline 4\n\n[6 more lines in file. Use offset=5 to continue.]"
    );

    let beyond = call(dir.path(), "read", json!({"path": "a.txt", "offset": 11})).await;
    assert!(beyond.is_error);
    assert_eq!(
        beyond.text(),
        "Tool read failed: Offset 11 is beyond end of file (10 lines total)"
    );

    let missing = call(dir.path(), "read", json!({"path": "nope.txt"})).await;
    assert!(missing.is_error);
    assert!(
        missing
            .text()
            .starts_with("Tool read failed: Could not read nope.txt")
    );
}

#[tokio::test]
async fn read_cuts_long_files_at_pi_limits() {
    let dir = tempfile::tempdir().unwrap();
    let many: Vec<String> = (1..=2500).map(|n| n.to_string()).collect();
    write(dir.path(), "many.txt", many.join("\n"));
    let by_lines = call(dir.path(), "read", json!({"path": "many.txt"})).await;
    assert!(
        by_lines
            .text()
            .ends_with("\n2000\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]")
    );
    assert_eq!(
        by_lines.details.as_ref().unwrap()["truncation"]["truncatedBy"],
        "lines"
    );

    let wide: Vec<String> = (0..100)
        .map(|n| format!("{n:03}{}", "x".repeat(997)))
        .collect();
    write(dir.path(), "wide.txt", wide.join("\n"));
    let by_bytes = call(dir.path(), "read", json!({"path": "wide.txt", "offset": 2})).await;
    assert!(
        by_bytes
            .text()
            .ends_with("[Showing lines 2-52 of 100 (50.0KB limit). Use offset=53 to continue.]"),
        "{}",
        by_bytes.text()
    );

    write(dir.path(), "huge.txt", "y".repeat(60 * 1024));
    let huge = call(dir.path(), "read", json!({"path": "huge.txt"})).await;
    assert_eq!(
        huge.text(),
        "[Line 1 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '1p' huge.txt | head -c 51200]"
    );
}

/// An image of `width`×`height` in `format`, with a gradient so that it compresses like a photo.
fn picture(width: u32, height: u32, format: image::ImageFormat) -> Vec<u8> {
    let pixels = image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, ((x * y) % 251) as u8])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(pixels)
        .write_to(&mut out, format)
        .unwrap();
    out.into_inner()
}

/// The attached image of a result, decoded: (MIME type, width, height).
fn attached(result: &ToolResultMessage) -> (String, u32, u32) {
    use base64::Engine;
    let content = serde_json::to_value(&result.content).unwrap();
    assert_eq!(content[1]["type"], "image", "{content}");
    let data = base64::engine::general_purpose::STANDARD
        .decode(content[1]["data"].as_str().unwrap())
        .unwrap();
    let decoded = image::load_from_memory(&data).unwrap();
    (
        content[1]["mimeType"].as_str().unwrap().to_owned(),
        decoded.width(),
        decoded.height(),
    )
}

#[tokio::test]
async fn read_knows_images_by_their_bytes_not_their_names() {
    use base64::Engine;
    let dir = tempfile::tempdir().unwrap();
    let png = base64::engine::general_purpose::STANDARD
        .decode(pi_test_tools::PIXEL_PNG_BASE64)
        .unwrap();
    write(dir.path(), "picture.txt", &png);
    write(dir.path(), "notes.png", "just text");
    let image = call(dir.path(), "read", json!({"path": "picture.txt"})).await;
    let content = serde_json::to_value(&image.content).unwrap();
    assert_eq!(
        content[0],
        json!({"type": "text", "text": "Read image file [image/png]"})
    );
    // Small and in a format every provider takes: attached byte for byte.
    assert_eq!(content[1]["type"], "image");
    assert_eq!(content[1]["mimeType"], "image/png");
    assert_eq!(content[1]["data"], pi_test_tools::PIXEL_PNG_BASE64);
    let notes = call(dir.path(), "read", json!({"path": "notes.png"})).await;
    assert_eq!(notes.text(), "just text");
}

#[tokio::test]
async fn read_converts_bmp_and_shrinks_large_images_within_pi_limits() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "shot.bmp",
        picture(3, 2, image::ImageFormat::Bmp),
    );
    let bmp = call(dir.path(), "read", json!({"path": "shot.bmp"})).await;
    assert!(!bmp.is_error);
    assert_eq!(
        serde_json::to_value(&bmp.content).unwrap()[0]["text"],
        "Read image file [image/png]\n[Converted from image/bmp]"
    );
    assert_eq!(attached(&bmp), ("image/png".to_owned(), 3, 2));

    write(
        dir.path(),
        "wide.png",
        picture(3000, 1000, image::ImageFormat::Png),
    );
    let wide = call(dir.path(), "read", json!({"path": "wide.png"})).await;
    let (mime, width, height) = attached(&wide);
    assert_eq!((width, height), (2000, 667), "{mime}");
    let note = serde_json::to_value(&wide.content).unwrap()[0]["text"].clone();
    assert!(
        note.as_str().unwrap().contains(
            "original 3000x1000 (image/png), displayed at 2000x667. Multiply coordinates by 1.50"
        ),
        "{note}"
    );
    assert_eq!(wide.details.unwrap()["image"]["originalWidth"], 3000);

    // A broken image is named, not sent to a provider that would refuse the whole request.
    write(
        dir.path(),
        "broken.png",
        [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0],
    );
    let broken = call(dir.path(), "read", json!({"path": "broken.png"})).await;
    assert_eq!(broken.content.len(), 1);
    assert!(
        broken.text().contains("could not be decoded"),
        "{}",
        broken.text()
    );
}

/// A BMP header claiming 30 000 × 30 000 pixels (a decompression bomb) is refused before its
/// pixels are decoded, and named in a note.
#[tokio::test]
async fn an_image_too_large_to_decode_is_refused_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let side: u32 = 30_000;
    let mut bmp = Vec::new();
    bmp.extend_from_slice(b"BM");
    bmp.extend_from_slice(&(54 + 16_u32).to_le_bytes()); // file size (a lie)
    bmp.extend_from_slice(&0_u32.to_le_bytes());
    bmp.extend_from_slice(&54_u32.to_le_bytes()); // pixel data offset
    bmp.extend_from_slice(&40_u32.to_le_bytes()); // BITMAPINFOHEADER
    bmp.extend_from_slice(&side.to_le_bytes());
    bmp.extend_from_slice(&side.to_le_bytes());
    bmp.extend_from_slice(&1_u16.to_le_bytes());
    bmp.extend_from_slice(&24_u16.to_le_bytes());
    bmp.extend_from_slice(&[0; 24]);
    bmp.extend_from_slice(&[0; 16]);
    write(dir.path(), "bomb.bmp", bmp);
    let result = call(dir.path(), "read", json!({"path": "bomb.bmp"})).await;
    assert_eq!(result.content.len(), 1, "nothing attached");
    assert!(
        result.text().contains("could not be decoded"),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn numbers_and_booleans_sent_as_strings_are_repaired_as_upstream_does() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", "one\ntwo\nthree");
    let read = call(
        dir.path(),
        "read",
        json!({"path": "a.txt", "offset": "2", "limit": "1"}),
    )
    .await;
    assert!(!read.is_error, "{}", read.text());
    assert!(read.text().starts_with("two\n"), "{}", read.text());
    let grep = call(
        dir.path(),
        "grep",
        json!({"pattern": "TWO", "ignoreCase": "true", "context": "1"}),
    )
    .await;
    assert_eq!(grep.text(), "a.txt-1- one\na.txt:2: two\na.txt-3- three");
    // Only exact numbers: anything else is still refused, and names the field.
    let vague = call(
        dir.path(),
        "read",
        json!({"path": "a.txt", "offset": "two"}),
    )
    .await;
    assert!(vague.is_error);
    assert_eq!(
        vague.text(),
        r#"Tool read failed: offset: 必须是 integer 且 >= 1，收到 string "two""#
    );
}

#[tokio::test]
async fn missing_fields_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let write = call(dir.path(), "write", json!({"path": "a.txt"})).await;
    assert_eq!(
        write.text(),
        "Tool write failed: content: 必须是 string，但缺失"
    );
}

#[tokio::test]
async fn write_creates_parents_and_counts_real_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let result = call(
        dir.path(),
        "write",
        json!({"path": "deep/er/x.txt", "content": "héllo"}),
    )
    .await;
    assert_eq!(result.text(), "Successfully wrote 6 bytes to deep/er/x.txt");
    assert_eq!(
        fs::read_to_string(dir.path().join("deep/er/x.txt")).unwrap(),
        "héllo"
    );
    let again = call(
        dir.path(),
        "write",
        json!({"path": "deep/er/x.txt", "content": ""}),
    )
    .await;
    assert!(!again.is_error);
    assert_eq!(
        fs::read_to_string(dir.path().join("deep/er/x.txt")).unwrap(),
        ""
    );
}

#[tokio::test]
async fn ls_sorts_marks_directories_and_keeps_dotfiles() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b.txt", "");
    write(dir.path(), "A.txt", "");
    write(dir.path(), ".hidden", "");
    write(dir.path(), "src/lib.rs", "");
    let listed = call(dir.path(), "ls", json!({})).await;
    assert_eq!(listed.text(), ".hidden\nA.txt\nb.txt\nsrc/");
    let limited = call(dir.path(), "ls", json!({"limit": 2})).await;
    assert_eq!(
        limited.text(),
        ".hidden\nA.txt\n\n[2 entries limit reached. Use limit=4 for more]"
    );
    assert_eq!(limited.details, Some(json!({"entryLimitReached": 2})));
    fs::create_dir(dir.path().join("empty")).unwrap();
    assert_eq!(
        call(dir.path(), "ls", json!({"path": "empty"}))
            .await
            .text(),
        "(empty directory)"
    );
    let file = call(dir.path(), "ls", json!({"path": "b.txt"})).await;
    assert!(file.text().starts_with("Tool ls failed: Not a directory: "));
    let missing = call(dir.path(), "ls", json!({"path": "nowhere"})).await;
    assert!(
        missing
            .text()
            .starts_with("Tool ls failed: Path not found: ")
    );
}

fn project(root: &Path) {
    write(root, ".gitignore", "target/\n*.log\n");
    write(
        root,
        "src/main.rs",
        "fn main() {\n    println!(\"Hello\");\n}\n",
    );
    write(
        root,
        "src/util/mod.rs",
        "pub fn hello() -> &'static str {\n    \"hello\"\n}\n",
    );
    write(root, "README.md", "# Hello project\nSay hello.\n");
    write(root, ".config/settings.rs", "// hello from a hidden dir\n");
    write(root, "target/debug/build.rs", "hello in an ignored dir\n");
    write(root, "run.log", "hello in an ignored file\n");
    write(root, ".git/HEAD", "hello from git internals\n");
    write(root, "blob.bin", b"hello\x00binary");
}

#[tokio::test]
async fn find_matches_names_or_paths_and_respects_gitignore() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let rust = call(dir.path(), "find", json!({"pattern": "*.rs"})).await;
    assert_eq!(
        rust.text(),
        ".config/settings.rs\nsrc/main.rs\nsrc/util/mod.rs"
    );
    let nested = call(dir.path(), "find", json!({"pattern": "src/**/*.rs"})).await;
    assert_eq!(nested.text(), "src/main.rs\nsrc/util/mod.rs");
    let under = call(
        dir.path(),
        "find",
        json!({"pattern": "*.rs", "path": "src/util"}),
    )
    .await;
    assert_eq!(under.text(), "mod.rs");
    let dirs = call(dir.path(), "find", json!({"pattern": "util"})).await;
    assert_eq!(dirs.text(), "src/util/");
    let limited = call(dir.path(), "find", json!({"pattern": "*.rs", "limit": 1})).await;
    assert_eq!(
        limited.text(),
        ".config/settings.rs\n\n[1 results limit reached. Use limit=2 for more, or refine pattern]"
    );
    let none = call(dir.path(), "find", json!({"pattern": "*.py"})).await;
    assert_eq!(none.text(), "No files found matching pattern");
}

#[tokio::test]
async fn grep_finds_lines_with_context_across_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let plain = call(dir.path(), "grep", json!({"pattern": "hello"})).await;
    assert_eq!(
        plain.text(),
        ".config/settings.rs:1: // hello from a hidden dir\nREADME.md:2: Say hello.\nsrc/util/mod.rs:1: pub fn hello() -> &'static str {\nsrc/util/mod.rs:2:     \"hello\""
    );
    let folded = call(
        dir.path(),
        "grep",
        json!({"pattern": "HELLO", "ignoreCase": true, "glob": "*.rs"}),
    )
    .await;
    assert_eq!(
        folded.text(),
        ".config/settings.rs:1: // hello from a hidden dir\nsrc/main.rs:2:     println!(\"Hello\");\nsrc/util/mod.rs:1: pub fn hello() -> &'static str {\nsrc/util/mod.rs:2:     \"hello\""
    );
    let around = call(
        dir.path(),
        "grep",
        json!({"pattern": "println", "path": "src/main.rs", "context": 1}),
    )
    .await;
    assert_eq!(
        around.text(),
        "main.rs-1- fn main() {\nmain.rs:2:     println!(\"Hello\");\nmain.rs-3- }"
    );
    let literal = call(
        dir.path(),
        "grep",
        json!({"pattern": "println!(", "literal": true}),
    )
    .await;
    assert_eq!(literal.text(), "src/main.rs:2:     println!(\"Hello\");");
    let limited = call(
        dir.path(),
        "grep",
        json!({"pattern": "hello", "ignoreCase": true, "limit": 2}),
    )
    .await;
    assert!(
        limited
            .text()
            .ends_with("\n\n[2 matches limit reached. Use limit=4 for more, or refine pattern]")
    );
    assert_eq!(limited.details, Some(json!({"matchLimitReached": 2})));
    let none = call(dir.path(), "grep", json!({"pattern": "absent"})).await;
    assert_eq!(none.text(), "No matches found");
    let bad = call(dir.path(), "grep", json!({"pattern": "("})).await;
    assert!(bad.is_error);
}

#[tokio::test]
async fn grep_shortens_long_lines_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "long.txt",
        format!("needle {}", "z".repeat(600)),
    );
    let result = call(dir.path(), "grep", json!({"pattern": "needle"})).await;
    let text = result.text();
    assert!(text.starts_with("long.txt:1: needle zzz"));
    assert!(text.contains("... [truncated]"));
    assert!(text.ends_with("[Some lines truncated to 500 chars. Use read tool to see full lines]"));
    assert_eq!(result.details, Some(json!({"linesTruncated": true})));
}

#[tokio::test]
async fn walks_stop_when_the_call_is_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let signal = tokio_util::sync::CancellationToken::new();
    signal.cancel();
    for (name, arguments) in [
        ("grep", json!({"pattern": "hello"})),
        ("find", json!({"pattern": "*.rs"})),
    ] {
        let context = CallContext {
            signal: Some(signal.clone()),
            report_progress: None,
        };
        let call = ToolCall::new("call-1", name, arguments);
        let result = execute_tool_call(&call, &tools(dir.path()), context).await;
        assert!(result.is_error);
        assert_eq!(
            result.text(),
            format!("Tool {name} failed: Operation aborted")
        );
    }
}

#[tokio::test]
async fn find_uses_smart_case_as_fd_does() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "Case.txt", "x");
    write(dir.path(), "docs/README.md", "x");
    let lower = call(dir.path(), "find", json!({"pattern": "case.txt"})).await;
    assert_eq!(lower.text(), "Case.txt");
    let readme = call(dir.path(), "find", json!({"pattern": "*.MD"})).await;
    assert_eq!(readme.text(), "No files found matching pattern");
    let exact = call(dir.path(), "find", json!({"pattern": "README.md"})).await;
    assert_eq!(exact.text(), "docs/README.md");
}

/// `outer/` (a plain directory or a git repository) whose `.gitignore` ignores `build/`, and
/// `outer/repo/`, a repository of its own whose `.gitignore` does not: git keeps
/// `repo/build/artifact.txt`, so the tools must too.
fn nested_repository(root: &Path, outer_is_a_repository: bool) {
    write(root, "outer/.gitignore", "build/\n");
    write(root, "outer/build/skipped.txt", "needle\n");
    write(root, "outer/repo/.gitignore", "*.log\n");
    write(root, "outer/repo/build/artifact.txt", "needle\n");
    write(root, "outer/repo/run.log", "needle\n");
    fs::create_dir_all(root.join("outer/repo/.git")).unwrap();
    if outer_is_a_repository {
        fs::create_dir_all(root.join("outer/.git")).unwrap();
    }
}

#[tokio::test]
async fn an_outer_gitignore_stops_at_a_nested_repository_as_git_does() {
    for outer_is_a_repository in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        nested_repository(dir.path(), outer_is_a_repository);
        let inside = call(
            dir.path(),
            "find",
            json!({"pattern": "*.txt", "path": "outer/repo"}),
        )
        .await;
        assert_eq!(
            inside.text(),
            "build/artifact.txt",
            "{outer_is_a_repository}"
        );
        let around = call(
            dir.path(),
            "find",
            json!({"pattern": "*.txt", "path": "outer"}),
        )
        .await;
        assert_eq!(
            around.text(),
            "repo/build/artifact.txt",
            "{outer_is_a_repository}"
        );
        let grep = call(
            dir.path(),
            "grep",
            json!({"pattern": "needle", "path": "outer"}),
        )
        .await;
        assert_eq!(
            grep.text(),
            "repo/build/artifact.txt:1: needle",
            "{outer_is_a_repository}"
        );
        let grep_inside = call(
            dir.path(),
            "grep",
            json!({"pattern": "needle", "path": "outer/repo"}),
        )
        .await;
        assert_eq!(grep_inside.text(), "build/artifact.txt:1: needle");
    }
}

#[tokio::test]
async fn find_matches_a_pattern_with_a_slash_at_any_depth_as_fd_does() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "deep/a.txt", "x");
    write(dir.path(), "deep/sub/b.txt", "x");
    write(dir.path(), "src/deep/c.txt", "x");
    write(dir.path(), "shallow.txt", "x");
    let deep = call(dir.path(), "find", json!({"pattern": "deep/**"})).await;
    assert_eq!(
        deep.text(),
        "deep/a.txt\ndeep/sub/\ndeep/sub/b.txt\nsrc/deep/c.txt"
    );
    let nested = call(dir.path(), "find", json!({"pattern": "deep/*.txt"})).await;
    assert_eq!(nested.text(), "deep/a.txt\nsrc/deep/c.txt");
    // `./` anchors the pattern at the directory searched.
    let anchored = call(dir.path(), "find", json!({"pattern": "./deep/*.txt"})).await;
    assert_eq!(anchored.text(), "deep/a.txt");
    let absolute = format!("{}/src/**", dir.path().canonicalize().unwrap().display());
    let by_absolute = call(dir.path(), "find", json!({"pattern": absolute})).await;
    assert_eq!(by_absolute.text(), "src/deep/\nsrc/deep/c.txt");
}

#[tokio::test]
async fn grep_honours_rgignore_and_find_honours_fdignore() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".rgignore", "for-find.txt\n");
    write(dir.path(), ".fdignore", "for-grep.txt\n");
    write(dir.path(), "for-find.txt", "needle\n");
    write(dir.path(), "for-grep.txt", "needle\n");
    let grep = call(dir.path(), "grep", json!({"pattern": "needle"})).await;
    assert_eq!(grep.text(), "for-grep.txt:1: needle");
    let find = call(dir.path(), "find", json!({"pattern": "for-*"})).await;
    assert_eq!(find.text(), "for-find.txt");
    // `.rgignore` wins over `.gitignore`, as in ripgrep: a `!` in it brings a file back.
    write(dir.path(), ".gitignore", "*.log\n");
    write(dir.path(), "kept.log", "needle\n");
    write(dir.path(), ".rgignore", "for-find.txt\n!kept.log\n");
    let back = call(dir.path(), "grep", json!({"pattern": "needle"})).await;
    assert_eq!(back.text(), "for-grep.txt:1: needle\nkept.log:1: needle");
}

#[tokio::test]
async fn read_takes_offset_zero_as_the_start() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", "one\ntwo\nthree");
    let whole = call(dir.path(), "read", json!({"path": "a.txt", "offset": 0})).await;
    assert!(!whole.is_error, "{}", whole.text());
    assert_eq!(whole.text(), "one\ntwo\nthree");
    let first = call(
        dir.path(),
        "read",
        json!({"path": "a.txt", "offset": "0", "limit": 1}),
    )
    .await;
    assert_eq!(
        first.text(),
        "one\n\n[2 more lines in file. Use offset=2 to continue.]"
    );
    // Below zero is still refused.
    let negative = call(dir.path(), "read", json!({"path": "a.txt", "offset": -1})).await;
    assert!(negative.is_error);
}

#[tokio::test]
async fn grep_keeps_the_context_after_the_last_match_shown() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a.txt",
        "zero\nmatch one\nafter\nmatch two\nend\n",
    );
    let one = call(
        dir.path(),
        "grep",
        json!({"pattern": "match", "context": 1, "limit": 1}),
    )
    .await;
    assert_eq!(
        one.text(),
        "a.txt-1- zero\na.txt:2: match one\na.txt-3- after\n\n[1 matches limit reached. Use limit=2 for more, or refine pattern]"
    );
    // A match within that context is shown once, as context: the limit holds.
    write(dir.path(), "b.txt", "match one\nmatch two\nmatch three\n");
    let adjacent = call(
        dir.path(),
        "grep",
        json!({"pattern": "match", "path": "b.txt", "context": 1, "limit": 1}),
    )
    .await;
    assert_eq!(
        adjacent.text(),
        "b.txt:1: match one\nb.txt-2- match two\n\n[1 matches limit reached. Use limit=2 for more, or refine pattern]"
    );
}

#[tokio::test]
async fn grep_says_where_a_binary_file_named_explicitly_matches() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "blob.bin",
        b"head\nhello\x00\x01binary\xff tail\n",
    );
    let named = call(
        dir.path(),
        "grep",
        json!({"pattern": "binary", "path": "blob.bin", "context": 2}),
    )
    .await;
    assert!(!named.is_error);
    assert_eq!(
        named.text(),
        "blob.bin: binary file matches (first match on line 2, near byte 11; its bytes are not shown)"
    );
    let absent = call(
        dir.path(),
        "grep",
        json!({"pattern": "absent", "path": "blob.bin"}),
    )
    .await;
    assert_eq!(absent.text(), "No matches found");
    // Walking a directory, binary files are skipped, as ripgrep does.
    let walked = call(dir.path(), "grep", json!({"pattern": "binary"})).await;
    assert_eq!(walked.text(), "No matches found");
}

#[tokio::test]
async fn grep_takes_a_number_as_its_pattern() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", "port 8080\nport 123\n");
    let number = call(dir.path(), "grep", json!({"pattern": 123, "context": "0"})).await;
    assert!(!number.is_error, "{}", number.text());
    assert_eq!(number.text(), "a.txt:2: port 123");
    let find = call(dir.path(), "find", json!({"pattern": 1})).await;
    assert!(!find.is_error, "{}", find.text());
    assert_eq!(find.text(), "No files found matching pattern");
}

/// A PNG cut short keeps a header that reads well: it is decoded before being attached, and
/// named in a note when it cannot be (a provider would refuse the whole request).
#[tokio::test]
async fn a_truncated_image_is_named_in_a_note_not_attached() {
    let dir = tempfile::tempdir().unwrap();
    let png = picture(64, 64, image::ImageFormat::Png);
    write(dir.path(), "cut.png", &png[..png.len() / 2]);
    let cut = call(dir.path(), "read", json!({"path": "cut.png"})).await;
    assert!(!cut.is_error);
    assert_eq!(cut.content.len(), 1, "nothing attached: {}", cut.text());
    assert!(
        cut.text()
            .starts_with("Read image file [image/png]\n[The image could not be decoded ("),
        "{}",
        cut.text()
    );
    let jpeg = picture(64, 64, image::ImageFormat::Jpeg);
    write(dir.path(), "cut.jpg", &jpeg[..jpeg.len() / 3]);
    let cut = call(dir.path(), "read", json!({"path": "cut.jpg"})).await;
    assert_eq!(cut.content.len(), 1, "nothing attached: {}", cut.text());
    assert!(
        cut.text().contains("could not be decoded"),
        "{}",
        cut.text()
    );
    // Whole, they are attached as they are.
    write(dir.path(), "whole.png", &png);
    let whole = call(dir.path(), "read", json!({"path": "whole.png"})).await;
    assert_eq!(attached(&whole), ("image/png".to_owned(), 64, 64));
}

/// Names as macOS writes them (a narrow no-break space before AM in screenshots, a curly
/// apostrophe, decomposed accents) or with a no-break space, typed with a plain space and a
/// straight apostrophe, as models type them: found when the name as typed is not there.
#[tokio::test]
async fn paths_typed_with_plain_spaces_and_apostrophes_find_the_file() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "shots/shot 10.00.00\u{202f}AM.txt",
        "screenshot",
    );
    write(dir.path(), "Capture d\u{2019}e\u{301}cran.txt", "capture");
    write(dir.path(), "no\u{a0}break dir/inside.txt", "inside");
    for (typed, content) in [
        ("shots/shot 10.00.00 AM.txt", "screenshot"),
        ("Capture d'écran.txt", "capture"),
        ("no break dir/inside.txt", "inside"),
    ] {
        let read = call(dir.path(), "read", json!({"path": typed})).await;
        assert!(!read.is_error, "{typed}: {}", read.text());
        assert_eq!(read.text(), content, "{typed}");
    }
    let grep = call(
        dir.path(),
        "grep",
        json!({"pattern": "inside", "path": "no break dir"}),
    )
    .await;
    assert_eq!(grep.text(), "inside.txt:1: inside");
    // The name as typed wins when it is there.
    write(dir.path(), "shots/shot 10.00.00 AM.txt", "typed");
    let typed = call(
        dir.path(),
        "read",
        json!({"path": "shots/shot 10.00.00 AM.txt"}),
    )
    .await;
    assert_eq!(typed.text(), "typed");
    // Two names that both read as the one typed: neither is guessed.
    write(dir.path(), "two\u{a0}names.txt", "a");
    write(dir.path(), "two\u{202f}names.txt", "b");
    let ambiguous = call(dir.path(), "read", json!({"path": "two names.txt"})).await;
    assert!(ambiguous.is_error, "{}", ambiguous.text());
}

/// A new file's name typed with a no-break space (or another Unicode space) is written with a
/// plain space, as upstream Pi 0.80.6 writes it (its paths read every Unicode space as a plain
/// one), and the result names the file written. An existing name keeps its spelling.
#[tokio::test]
async fn a_new_files_unicode_spaces_are_written_plain_and_the_result_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let wrote = call(
        dir.path(),
        "write",
        json!({"path": "notes/new\u{a0}file\u{202f}AM.txt", "content": "hi"}),
    )
    .await;
    assert!(!wrote.is_error, "{}", wrote.text());
    assert_eq!(
        wrote.text(),
        "Successfully wrote 2 bytes to notes/new file AM.txt"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("notes/new file AM.txt")).unwrap(),
        "hi"
    );
    assert!(
        !dir.path()
            .join("notes/new\u{a0}file\u{202f}AM.txt")
            .exists()
    );
    // Read back as typed.
    let read = call(
        dir.path(),
        "read",
        json!({"path": "notes/new\u{a0}file\u{202f}AM.txt"}),
    )
    .await;
    assert_eq!(read.text(), "hi");
    // A file that is there under a no-break space is written in place, under its own name.
    write(dir.path(), "kept\u{a0}name.txt", "old");
    let over = call(
        dir.path(),
        "write",
        json!({"path": "kept\u{a0}name.txt", "content": "new"}),
    )
    .await;
    assert_eq!(
        over.text(),
        "Successfully wrote 3 bytes to kept\u{a0}name.txt"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("kept\u{a0}name.txt")).unwrap(),
        "new"
    );
    assert!(!dir.path().join("kept name.txt").exists());
    // Typed with a plain space, the existing no-break name is found, and named.
    let plain = call(
        dir.path(),
        "write",
        json!({"path": "kept name.txt", "content": "newer"}),
    )
    .await;
    assert_eq!(
        plain.text(),
        "Successfully wrote 5 bytes to kept\u{a0}name.txt"
    );
    assert!(!dir.path().join("kept name.txt").exists());
}

/// A respelled path is confined as any other: a link under such a name that leads outside is
/// refused.
#[tokio::test]
async fn a_respelled_path_is_still_confined() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.txt", "secret");
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("link\u{202f}AM.d")).unwrap();
    let read = call(dir.path(), "read", json!({"path": "link AM.d/secret.txt"})).await;
    assert!(read.is_error);
    assert!(
        read.text().contains("is outside the workspace"),
        "{}",
        read.text()
    );
    // A path outside typed with a plain space stays outside.
    write(outside.path(), "secret\u{a0}two.txt", "secret");
    let typed = format!("{}/secret two.txt", outside.path().display());
    let outer = call(dir.path(), "read", json!({"path": typed})).await;
    assert!(
        outer.text().contains("is outside the workspace"),
        "{}",
        outer.text()
    );
}
