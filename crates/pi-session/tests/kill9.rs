//! kill -9 at random moments during appends: every file loads afterwards, and every entry whose
//! append had returned (the helper prints its id only then) is in it.
//!
//! The helper is this test binary itself, run again with `PI_SESSION_KILL9_FILE` set: it opens
//! (or creates) the session and appends entries of varied sizes, some of a megabyte so that a
//! kill can land mid-write and tear the last line.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pi_ai::{Message, UserMessage};
use pi_session::Session;

const HELPER_ENV: &str = "PI_SESSION_KILL9_FILE";
const KILLS: usize = 200;
/// Kills per file: each file is reopened after every kill but one, then a new file starts, so
/// the files stay small enough to reload 200 times.
const KILLS_PER_FILE: usize = 25;

#[test]
fn kill9_helper() {
    let Some(path) = std::env::var_os(HELPER_ENV) else {
        return;
    };
    let path = Path::new(&path);
    let mut session = if path.exists() {
        Session::open(path).expect("the session opens after a kill")
    } else {
        Session::create_at(path, Path::new("/kill9"))
    };
    let mut seed = std::process::id() as u64 | 1;
    for n in 0u64.. {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let size = match seed % 16 {
            0 => 256 << 10,
            1..=3 => 16 << 10,
            _ => 100,
        };
        let text = format!("{n}:{}", "x".repeat(size));
        let id = session
            .append_message(&Message::from(UserMessage::text(text)))
            .expect("append");
        if n % 8 == 0 {
            session.sync().expect("sync");
        }
        // Printed only once the append returned: the parent may now count on it.
        println!("appended {id}");
    }
}

#[test]
fn every_returned_append_survives_200_kills() {
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut promised: HashSet<String> = HashSet::new();
    let mut torn_tails = 0usize;
    let mut rng = Instant::now().elapsed().subsec_nanos() as u64 | 1;
    let started = Instant::now();
    let mut files = Vec::new();
    for kill in 0..KILLS {
        let file = dir
            .path()
            .join(format!("kill9-{}.jsonl", kill / KILLS_PER_FILE));
        if kill % KILLS_PER_FILE == 0 {
            files.push(file.clone());
        }
        let mut child = Command::new(&exe)
            .args(["kill9_helper", "--exact", "--nocapture", "--test-threads=1"])
            .env(HELPER_ENV, &file)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, receiver) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(id) = line.strip_prefix("appended ") {
                    let _ = sender.send(id.to_owned());
                }
            }
        });
        // Wait for the first append (so the helper got past its start), then a random moment.
        let first = receiver.recv_timeout(Duration::from_secs(30));
        assert!(first.is_ok(), "kill {kill}: the helper appended nothing");
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        std::thread::sleep(Duration::from_micros(rng % 10_000));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        reader.join().unwrap();
        promised.extend(first);
        promised.extend(receiver.try_iter());

        let session = Session::load(&file)
            .unwrap_or_else(|error| panic!("kill {kill}: the file does not load: {error}"));
        if session.report().torn_tail.is_some() {
            torn_tails += 1;
        }
        let present: HashSet<&str> = session.entries().iter().map(|e| e.id()).collect();
        let lost: Vec<&String> = promised
            .iter()
            .filter(|id| !present.contains(id.as_str()))
            .collect();
        assert!(
            lost.is_empty(),
            "kill {kill}: returned appends missing: {lost:?}"
        );
        if kill % KILLS_PER_FILE == KILLS_PER_FILE - 1 {
            // The next kill starts a new file.
            promised.clear();
        }
    }
    let (mut entries, mut skipped) = (0, 0);
    for file in &files {
        let session = Session::load(file).unwrap();
        entries += session.entries().len();
        skipped += session.report().skipped.len();
    }
    eprintln!(
        "{KILLS} kills in {:.1?} over {} files: {entries} entries, {torn_tails} loads saw a torn last line (ignored), {skipped} torn lines left mid-file (skipped)",
        started.elapsed(),
        files.len(),
    );
}
