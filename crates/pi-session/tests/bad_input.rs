//! The issue's "Bad input": each case gets a clear message and loses nothing that was there.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::fs;
use std::path::Path;

use pi_ai::{Message, UserMessage};
use pi_session::{NotASessionReason, Session, SessionError};

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;

fn entry(id: &str, parent: Option<&str>, text: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"{text}","timestamp":1}}}}"#
    )
}

fn write(dir: &Path, lines: &[String], tail: &str) -> std::path::PathBuf {
    let path = dir.join("s.jsonl");
    let mut text = lines.join("\n");
    text.push('\n');
    text.push_str(tail);
    fs::write(&path, text).unwrap();
    path
}

fn user(text: &str) -> Message {
    Message::from(UserMessage::text(text))
}

#[test]
fn invalid_json_lines_are_skipped_reported_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        HEADER.to_owned(),
        entry("a", None, "one"),
        "{not json".to_owned(),
        entry("b", Some("a"), "two"),
    ];
    let path = write(dir.path(), &lines, "");
    let before = fs::read(&path).unwrap();
    let mut session = Session::open(&path).unwrap();
    let skipped = &session.report().skipped;
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].line, 3);
    assert_eq!(
        skipped[0].offset as usize,
        HEADER.len() + 1 + lines[1].len() + 1
    );
    assert_eq!(session.context().unwrap().messages.len(), 2);
    session.append_message(&user("three")).unwrap();
    let after = fs::read(&path).unwrap();
    assert_eq!(
        &after[..before.len()],
        &before[..],
        "nothing that was there is rewritten"
    );
}

#[test]
fn a_torn_last_line_is_reported_ignored_and_followed_by_a_fresh_line() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [HEADER.to_owned(), entry("a", None, "one")];
    let torn = &entry("b", Some("a"), "two")[..40];
    let path = write(dir.path(), &lines, torn);
    let before = fs::read(&path).unwrap();
    let mut session = Session::open(&path).unwrap();
    let tail = session.report().torn_tail.expect("torn tail reported");
    assert_eq!(tail.offset as usize, HEADER.len() + lines[1].len() + 2);
    assert_eq!(tail.len, 40);
    assert_eq!(session.leaf_id(), Some("a"));
    let id = session.append_message(&user("three")).unwrap();
    drop(session);
    let after = fs::read(&path).unwrap();
    assert_eq!(&after[..before.len()], &before[..]);
    assert_eq!(
        after[before.len()],
        b'\n',
        "the append starts on a fresh line"
    );
    let reloaded = Session::load(&path).unwrap();
    assert_eq!(
        reloaded.report().skipped.len(),
        1,
        "the torn line is now a skipped line"
    );
    let context = reloaded.context().unwrap();
    assert_eq!(
        context.messages.len(),
        2,
        "the new entry keeps its parent: {context:?}"
    );
    assert_eq!(reloaded.entry(&id).unwrap().parent_id(), Some("a"));
}

#[test]
fn unknown_entry_types_and_fields_survive() {
    let dir = tempfile::tempdir().unwrap();
    let unknown = r#"{"type":"future_thing","id":"u","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","payload":{"x":[1,2]}}"#;
    let mut with_extra = entry("a", None, "one");
    with_extra.insert_str(with_extra.len() - 1, r#","extraField":{"kept":true}"#);
    let path = write(
        dir.path(),
        &[HEADER.to_owned(), with_extra.clone(), unknown.to_owned()],
        "",
    );
    let session = Session::open(&path).unwrap();
    assert!(matches!(
        session.entry("u").unwrap().kind(),
        Ok(pi_session::EntryKind::Unknown("future_thing"))
    ));
    assert_eq!(session.entry("u").unwrap().to_line().unwrap(), unknown);
    assert_eq!(session.entry("a").unwrap().to_line().unwrap(), with_extra);
    // The unknown entry is on the path but sends nothing.
    assert_eq!(session.context().unwrap().messages.len(), 1);
    // A fork rewrites them byte for byte.
    let fork = session.fork_to_new_file("u", None).unwrap();
    let text = fs::read_to_string(fork.file_path().unwrap()).unwrap();
    assert!(
        text.contains(unknown) && text.contains(&with_extra),
        "{text}"
    );
}

/// A malformed entry (a known type without a field it needs) is named as malformed, with the
/// field, and stays an entry of the session: looking it up, branching to it and building the
/// context at it find it; only an id no entry has is "no entry".
#[test]
fn a_malformed_entry_is_reported_as_malformed_not_as_an_unknown_id() {
    let dir = tempfile::tempdir().unwrap();
    let malformed =
        r#"{"type":"custom","id":"m","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z"}"#;
    let path = write(
        dir.path(),
        &[
            HEADER.to_owned(),
            entry("a", None, "one"),
            malformed.to_owned(),
        ],
        "",
    );
    let mut session = Session::open(&path).unwrap();
    let report = &session.report().malformed;
    assert_eq!(report.len(), 1, "{:?}", session.report());
    assert_eq!(
        (
            report[0].id.as_str(),
            report[0].entry_type.as_str(),
            report[0].missing
        ),
        ("m", "custom", "customType")
    );
    assert!(
        session.report().to_string().contains("customType"),
        "{}",
        session.report()
    );
    assert!(session.entry("m").is_some());
    assert_eq!(session.context_at("m").unwrap().messages.len(), 1);
    session.branch("m").unwrap();
    let appended = session.append_custom("t", None).unwrap();
    assert_eq!(session.entry(&appended).unwrap().parent_id(), Some("m"));
    let unknown = session.branch("nowhere").unwrap_err();
    assert!(
        matches!(unknown, SessionError::UnknownEntry { .. }),
        "{unknown:?}"
    );
    assert_eq!(unknown.to_string(), "no entry nowhere in the session");
}

#[test]
fn a_missing_parent_makes_a_root() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        &[
            HEADER.to_owned(),
            entry("a", None, "one"),
            entry("b", Some("gone"), "two"),
        ],
        "",
    );
    let session = Session::load(&path).unwrap();
    assert_eq!(session.report().orphans.len(), 1);
    assert_eq!(session.context().unwrap().messages.len(), 1);
    assert_eq!(session.tree().roots().count(), 2);
}

#[test]
fn duplicate_ids_are_reported_and_the_later_wins() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        &[
            HEADER.to_owned(),
            entry("a", None, "one"),
            entry("a", None, "two"),
        ],
        "",
    );
    let session = Session::load(&path).unwrap();
    assert_eq!(session.report().duplicate_ids[0].id, "a");
    assert_eq!(session.report().duplicate_ids[0].line, 3);
    assert_eq!(session.entries().len(), 2, "both kept");
    let context = session.context().unwrap();
    assert_eq!(
        serde_json::to_value(&context.messages[0]).unwrap()["content"],
        "two"
    );
}

#[test]
fn a_cycle_is_refused_with_its_ids() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        &[
            HEADER.to_owned(),
            entry("a", Some("b"), "one"),
            entry("b", Some("a"), "two"),
        ],
        "",
    );
    let before = fs::read(&path).unwrap();
    let error = Session::open(&path).unwrap_err();
    match &error {
        SessionError::Cycle { ids, .. } => assert_eq!(ids.len(), 2),
        other => panic!("expected a cycle, got {other}"),
    }
    assert!(error.to_string().contains("a") && error.to_string().contains("cycle"));
    assert_eq!(fs::read(&path).unwrap(), before);
}

#[test]
fn files_that_are_not_sessions_are_refused_and_untouched() {
    let dir = tempfile::tempdir().unwrap();
    for (content, reason) in [
        (&b"# notes\nsome text\n"[..], NotASessionReason::NoJson),
        (
            &b"{\"type\":\"message\",\"id\":\"x\"}\n"[..],
            NotASessionReason::NoHeader,
        ),
        (&b""[..], NotASessionReason::Empty),
        (
            &br#"{"type":"session","version":3,"id":"s1","times"#[..],
            NotASessionReason::NoJson,
        ),
    ] {
        let path = dir.path().join("foreign.jsonl");
        fs::write(&path, content).unwrap();
        for error in [
            Session::open(&path).unwrap_err(),
            Session::load(&path).unwrap_err(),
        ] {
            match &error {
                SessionError::NotASession { reason: found, .. } => assert_eq!(*found, reason),
                other => panic!("expected NotASession, got {other}"),
            }
            assert!(error.to_string().contains("left untouched"));
        }
        assert_eq!(fs::read(&path).unwrap(), content, "never truncated");
    }
    let error = Session::open(dir.path()).unwrap_err();
    assert!(
        error
            .to_string()
            .contains(&dir.path().display().to_string()),
        "{error}"
    );
}

#[test]
fn a_directory_without_permission_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked");
    fs::create_dir(&locked).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o500)).unwrap();
    let probe = fs::write(locked.join("probe"), b"");
    if probe.is_ok() {
        // Root ignores permission bits: a read-only bind is then the only way to test this,
        // so use a path below a file instead, which no user can create.
        let blocker = dir.path().join("file");
        fs::write(&blocker, b"x").unwrap();
        let mut session = Session::create(&blocker, Path::new("/w"));
        let error = session.append_message(&user("hi")).unwrap_err();
        assert!(matches!(error, SessionError::Io { .. }), "{error}");
        assert!(
            error.to_string().contains("cannot create directory"),
            "{error}"
        );
        return;
    }
    let mut session = Session::create(&locked, Path::new("/w"));
    let error = session.append_message(&user("hi")).unwrap_err();
    // The cause is in the chain, said once.
    let said = pi_tool::error_text(&error);
    assert!(said.contains("Permission denied"), "{said}");
    assert_eq!(said.matches("Permission denied").count(), 1, "{said}");
    assert!(session.entries().is_empty(), "the session is unchanged");
}

#[test]
fn a_deleted_or_replaced_file_is_detected_and_never_recreated_headless() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::create(dir.path(), Path::new("/w"));
    session.append_message(&user("one")).unwrap();
    let path = session.file_path().unwrap().to_path_buf();
    fs::remove_file(&path).unwrap();
    let error = session.append_message(&user("two")).unwrap_err();
    assert!(matches!(error, SessionError::FileDeleted { .. }), "{error}");
    assert!(!path.exists(), "no headless file recreated");
    fs::write(&path, format!("{HEADER}\n")).unwrap();
    let error = session.append_message(&user("two")).unwrap_err();
    assert!(
        matches!(error, SessionError::FileReplaced { .. }),
        "{error}"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), format!("{HEADER}\n"));
    assert_eq!(session.entries().len(), 1);
}

#[test]
fn another_writer_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::create(dir.path(), Path::new("/w"));
    session.append_message(&user("one")).unwrap();
    let path = session.file_path().unwrap().to_path_buf();
    assert!(matches!(
        Session::open(&path).unwrap_err(),
        SessionError::Locked { .. }
    ));
    let mut other = fs::OpenOptions::new().append(true).open(&path).unwrap();
    std::io::Write::write_all(&mut other, b"{\"junk\":1}\n").unwrap();
    let error = session.append_message(&user("two")).unwrap_err();
    assert!(
        matches!(error, SessionError::ChangedElsewhere { .. }),
        "{error}"
    );
}

/// A full disk, made real with RLIMIT_FSIZE: a child process (this test binary again) appends
/// until the kernel refuses the write (EFBIG, the same short-write-then-error path as ENOSPC).
#[test]
fn a_failed_append_reports_and_leaves_the_file_as_it_was() {
    if let Some(path) = std::env::var_os("PI_SESSION_FULL_DISK_FILE") {
        let path = Path::new(&path);
        let mut session = Session::open(path).unwrap();
        let before = fs::read(path).unwrap();
        let error = session
            .append_message(&user(&"y".repeat(64 << 10)))
            .unwrap_err();
        assert!(matches!(error, SessionError::Io { .. }), "{error}");
        assert_eq!(
            fs::read(path).unwrap(),
            before,
            "the partial line was cut back"
        );
        assert_eq!(session.entries().len(), 1);
        println!("REPORTED {error}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::create(dir.path(), Path::new("/w"));
    session.append_message(&user("one")).unwrap();
    let path = session.file_path().unwrap().to_path_buf();
    drop(session);
    let limit = fs::metadata(&path).unwrap().len() + 1000;
    let exe = std::env::current_exe().unwrap();
    // `trap '' XFSZ` makes the kernel return EFBIG instead of killing the writer.
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; exec prlimit --fsize={limit} \"$0\" a_failed_append_reports_and_leaves_the_file_as_it_was --exact --nocapture"
        ))
        .arg(&exe)
        .env("PI_SESSION_FULL_DISK_FILE", &path)
        .output()
        .expect("prlimit (util-linux) is needed for the full-disk test");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("REPORTED cannot append to"), "{stdout}");
    assert!(Session::load(&path).unwrap().report().is_clean());
}

#[test]
fn a_line_over_the_limit_is_an_error_naming_it_and_the_file_is_untouched() {
    use std::os::unix::fs::FileExt;
    let dir = tempfile::tempdir().unwrap();
    let lines = [HEADER.to_owned(), entry("a", None, "one")];
    let path = write(dir.path(), &lines, "");
    // Line 3: a run of zero bytes (a hole: no disk used) one MiB over the limit, then an
    // entry. Before the limit, reading it took three times its size in memory.
    let file = fs::OpenOptions::new().write(true).open(&path).unwrap();
    let start = file.metadata().unwrap().len();
    let long = pi_session::MAX_LINE_BYTES as u64 + (1 << 20);
    file.set_len(start + long).unwrap();
    file.write_at(
        format!("\n{}\n", entry("b", Some("a"), "two")).as_bytes(),
        start + long,
    )
    .unwrap();
    drop(file);
    let length = fs::metadata(&path).unwrap().len();

    let expected = format!(
        "{}: line 3 is longer than the limit of 128 MiB for a session line; the file was left untouched",
        path.display()
    );
    match Session::open(&path) {
        Err(error @ SessionError::LineTooLong { line: 3, .. }) => {
            assert_eq!(error.to_string(), expected);
        }
        other => panic!("expected line 3 too long, got {other:?}"),
    }
    match pi_session::read_summary(&path) {
        Err(error @ SessionError::LineTooLong { line: 3, .. }) => {
            assert_eq!(error.to_string(), expected);
        }
        other => panic!("expected line 3 too long, got {other:?}"),
    }
    let listing = pi_session::list_sessions(dir.path()).unwrap();
    assert!(listing.sessions.is_empty());
    assert_eq!(listing.unreadable.len(), 1);
    assert_eq!(fs::metadata(&path).unwrap().len(), length);
}
