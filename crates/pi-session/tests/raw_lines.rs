//! Entries kept as their raw lines: a line is kept byte for byte, a line that is not UTF-8 is
//! skipped like any line that is not JSON, and a big file (read on two threads) reports the
//! same things, at the same lines and offsets, as it would read on one.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::fs;
use std::path::{Path, PathBuf};

mod common;

use common::{HEADER, user_entry};
use pi_session::Session;

fn write_bytes(dir: &Path, bytes: &[u8]) -> PathBuf {
    let path = dir.join("s.jsonl");
    fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn entries_are_their_lines_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    // Spaces, escapes, a number written as 1.50 and fields before `type`: none survive a
    // parse and re-serialisation, all survive here.
    let odd = r#"{ "message" : {"content":"caf\u00e9 \/ ok","role":"user","timestamp":1.50e0}, "type":"message", "id":"a", "parentId":null }"#;
    let next = r#"{"type":"custom","id":"b","parentId":"a","customType":"x","data":{"big":12345678901234567890}}"#;
    let path = write_bytes(dir.path(), format!("{HEADER}\n{odd}\n{next}\n").as_bytes());
    let session = Session::load(&path).unwrap();
    assert_eq!(session.entry("a").unwrap().line().unwrap(), odd);
    assert_eq!(session.entry("b").unwrap().line().unwrap(), next);
    // The odd message is still read: the typed read declines its float timestamp, the value
    // path names why.
    let error = session.context().unwrap_err();
    assert!(error.to_string().contains('a'), "{error}");
    let fork = Session::fork_from(&path, Path::new("/w"), dir.path()).unwrap();
    let text = fs::read_to_string(fork.file_path().unwrap()).unwrap();
    let copied: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(copied, [odd, next]);
}

#[test]
fn a_line_that_is_not_utf8_is_skipped_and_reported_with_its_offset() {
    let dir = tempfile::tempdir().unwrap();
    let first = user_entry("a", None, "one");
    let mut bad = user_entry("b", Some("a"), "two").into_bytes();
    let at = bad.len() - 10;
    bad[at] = 0xff;
    let third = user_entry("c", Some("a"), "three");
    let mut bytes = format!("{HEADER}\n{first}\n").into_bytes();
    bytes.extend_from_slice(&bad);
    bytes.push(b'\n');
    bytes.extend_from_slice(third.as_bytes());
    bytes.push(b'\n');
    let path = write_bytes(dir.path(), &bytes);
    let before = fs::read(&path).unwrap();

    let mut session = Session::open(&path).unwrap();
    let skipped = &session.report().skipped;
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0].line, 3);
    assert_eq!(
        skipped[0].offset as usize,
        HEADER.len() + 1 + first.len() + 1
    );
    assert!(skipped[0].reason.starts_with("not JSON"), "{skipped:?}");
    assert_eq!(session.entries().len(), 2);
    assert_eq!(session.context().unwrap().messages.len(), 2);
    session.label("c", Some("kept")).unwrap();
    let after = fs::read(&path).unwrap();
    assert_eq!(&after[..before.len()], &before[..], "nothing is rewritten");
}

#[test]
fn a_last_line_torn_inside_a_character_is_a_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    let first = user_entry("a", None, "one");
    let second = user_entry("b", Some("a"), "caf\u{e9}");
    // Cut between the two bytes of "é".
    let cut = second.find('\u{e9}').unwrap() + 1;
    let mut bytes = format!("{HEADER}\n{first}\n").into_bytes();
    bytes.extend_from_slice(&second.as_bytes()[..cut]);
    let path = write_bytes(dir.path(), &bytes);
    let session = Session::load(&path).unwrap();
    let tail = session.report().torn_tail.expect("a torn tail");
    assert_eq!(tail.offset as usize, HEADER.len() + first.len() + 2);
    assert_eq!(tail.len as usize, cut);
    assert!(session.report().skipped.is_empty());
    assert_eq!(session.leaf_id(), Some("a"));
}

#[test]
fn a_big_file_read_on_two_threads_reports_at_the_right_lines() {
    let dir = tempfile::tempdir().unwrap();
    // 800 entries of ~6 KB: 4.8 MB, read from the file in two pieces and checked in two
    // halves; a line that is not UTF-8 in the second piece, characters of two to four bytes in
    // every line.
    let text = format!("é€𝄞{}", "x".repeat(6_000));
    let mut lines = vec![HEADER.to_owned()];
    let mut parent: Option<String> = None;
    for index in 0..800 {
        let id = format!("e{index:03}");
        lines.push(user_entry(&id, parent.as_deref(), &text));
        parent = Some(id);
        if index == 100 {
            lines.push("{not json".to_owned());
        }
        if index == 500 {
            lines.push(r#"{"type":"message"}"#.to_owned());
            lines.push(String::new());
            lines.push("[1,2]".to_owned());
        }
    }
    let not_utf8_line = 720;
    let mut content = lines[..not_utf8_line - 1].join("\n").into_bytes();
    content.extend(b"\n{\"type\":\"custom\",\"id\":\"\xff\"}\n");
    content.extend(lines[not_utf8_line - 1..].join("\n").into_bytes());
    content.push(b'\n');
    lines.insert(
        not_utf8_line - 1,
        "{\"type\":\"custom\",\"id\":\"?\"}".to_owned(),
    );
    let torn_at = content.len();
    content.extend(&user_entry("torn", parent.as_deref(), "cut").as_bytes()[..50]);
    let path = write_bytes(dir.path(), &content);

    let offset_of = |number: usize| -> u64 {
        lines[..number - 1]
            .iter()
            .map(|line| line.len() as u64 + 1)
            .sum()
    };
    let session = Session::load(&path).unwrap();
    let report = session.report();
    let found: Vec<(usize, u64, &str)> = report
        .skipped
        .iter()
        .map(|skipped| (skipped.line, skipped.offset, skipped.reason.as_str()))
        .collect();
    // Line 1 is the header, entry n is on line n + 2 up to the first bad line.
    assert_eq!(found.len(), 4, "{found:?}");
    assert_eq!((found[0].0, found[0].1), (103, offset_of(103)));
    assert!(found[0].2.starts_with("not JSON"));
    assert_eq!((found[1].0, found[1].1), (504, offset_of(504)));
    assert!(found[1].2.starts_with("not an entry"), "{found:?}");
    assert_eq!((found[2].0, found[2].1), (506, offset_of(506)));
    assert_eq!(found[2].2, "not a JSON object");
    assert_eq!(
        (found[3].0, found[3].1),
        (not_utf8_line, offset_of(not_utf8_line))
    );
    assert!(found[3].2.starts_with("not JSON"), "{found:?}");
    let tail = report.torn_tail.expect("a torn tail");
    assert_eq!(tail.offset as usize, torn_at);
    assert_eq!(tail.len, 50);
    assert_eq!(session.entries().len(), 800);
    assert_eq!(session.leaf_id(), Some("e799"));
    let context = session.context().unwrap();
    assert_eq!(context.messages.len(), 800);
    assert_eq!(context.entry_ids.first().map(String::as_str), Some("e000"));
    assert_eq!(context.entry_ids.last().map(String::as_str), Some("e799"));

    // Opened for appending, the next entry starts on a fresh line after the torn one, and
    // every line that was there is still there.
    let mut session = Session::open(&path).unwrap();
    session
        .append_message(&pi_ai::Message::User(pi_ai::UserMessage::text("after")))
        .unwrap();
    session.sync().unwrap();
    let written = fs::read(&path).unwrap();
    assert_eq!(written[..content.len()], content[..]);
    assert_eq!(written[content.len()], b'\n');
    let again = Session::load(&path).unwrap();
    assert_eq!(again.entries().len(), 801);
    assert_eq!(again.context().unwrap().messages.len(), 801);
}
