//! A loaded session reads its message lines from the file again when it builds a context, forks
//! or compacts (they are not kept in memory): a file another program appends to, renames or
//! deletes stays readable, and a file rewritten in place is refused with a clear error that
//! names it, never read as if it were the file loaded.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

mod common;

use common::{HEADER, user_entry};
use pi_session::{Session, SessionError};

/// A session of `count` user messages in a chain, ids `e0000000`, `e0000001`, ...
fn chain(dir: &Path, count: usize) -> (PathBuf, String) {
    let mut content = format!("{HEADER}\n");
    for index in 0..count {
        let parent = index.checked_sub(1).map(|p| format!("e{p:07}"));
        content.push_str(&user_entry(
            &format!("e{index:07}"),
            parent.as_deref(),
            &format!("message {index}"),
        ));
        content.push('\n');
    }
    let path = dir.join("s.jsonl");
    fs::write(&path, &content).unwrap();
    (path, content)
}

fn texts(session: &Session) -> Vec<String> {
    session
        .context()
        .unwrap()
        .messages
        .iter()
        .map(|message| {
            serde_json::to_value(message).unwrap()["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[test]
fn a_file_renamed_or_deleted_after_loading_is_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = chain(dir.path(), 30);
    let loaded = Session::load(&path).unwrap();
    let opened = Session::open(&path).unwrap();
    let moved = dir.path().join("moved.jsonl");
    fs::rename(&path, &moved).unwrap();
    assert_eq!(texts(&loaded).len(), 30);
    fs::remove_file(&moved).unwrap();
    let expected: Vec<String> = (0..30).map(|i| format!("message {i}")).collect();
    assert_eq!(texts(&loaded), expected);
    assert_eq!(texts(&opened), expected);
}

#[test]
fn lines_another_program_appends_leave_what_was_loaded_readable() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = chain(dir.path(), 10);
    let session = Session::load(&path).unwrap();
    let mut file = fs::OpenOptions::new().append(true).open(&path).unwrap();
    writeln!(
        file,
        "{}",
        user_entry("e0000010", Some("e0000009"), "from Pi")
    )
    .unwrap();
    assert_eq!(texts(&session).len(), 10);
    assert_eq!(Session::load(&path).unwrap().entries().len(), 11);
}

#[test]
fn a_file_rewritten_in_place_is_refused_with_its_name_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let (path, content) = chain(dir.path(), 10);
    let mut session = Session::open(&path).unwrap();
    // An editor that saves in place: the same bytes, one message's text changed length, so
    // every line after it moved.
    let edited = content.replace("message 3\"", "message three\"");
    fs::write(&path, &edited).unwrap();
    let error = session.context().unwrap_err();
    assert!(
        matches!(error, SessionError::ChangedOnDisk { .. }),
        "{error}"
    );
    let shown = error.to_string();
    assert!(
        shown.contains("s.jsonl") && shown.contains("changed on disk"),
        "{shown}"
    );
    // A fork would copy the wrong text: it is refused, and no new file is left behind.
    let forks = dir.path().join("forks");
    assert!(matches!(
        session.fork_to_new_file("e0000009", Some(&forks)),
        Err(SessionError::ChangedOnDisk { .. })
    ));
    assert_eq!(fs::read_dir(&forks).map_or(0, Iterator::count), 0);
    // Appending is refused too: the file is not where the session left it.
    assert!(matches!(
        session.append_custom("note", None),
        Err(SessionError::ChangedElsewhere { .. })
    ));
    // Nothing was written to the user's file.
    assert_eq!(fs::read_to_string(&path).unwrap(), edited);
    // Loaded again, it reads as it is now.
    assert!(texts(&Session::load(&path).unwrap()).contains(&"message three".to_owned()));
}

#[test]
fn a_fork_reads_its_own_file_not_the_one_it_was_copied_from() {
    let dir = tempfile::tempdir().unwrap();
    let (path, content) = chain(dir.path(), 10);
    let session = Session::load(&path).unwrap();
    let forks = dir.path().join("forks");
    let fork = session.fork_to_new_file("e0000004", Some(&forks)).unwrap();
    fs::write(&path, content.replace("message", "changed")).unwrap();
    let expected: Vec<String> = (0..5).map(|i| format!("message {i}")).collect();
    assert_eq!(texts(&fork), expected);
    assert!(session.context().is_err());
}
