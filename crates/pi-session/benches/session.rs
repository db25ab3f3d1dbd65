//! The session benchmark (issue 22 item 9), run by `scripts/session-bench.sh`, which puts
//! upstream Pi's figures for the same files beside ours (`benches/pi-side.mjs`):
//!
//! - append: sessions of 1k / 10k / 100k entries of ~5 KB (10k entries is ~50 MB), written
//!   through [`Session`] as the agent writes them, one `fdatasync` per turn of 4 entries;
//! - load: [`Session::load`] plus the leaf's context of each file, and each of the two alone
//!   (the best of several runs);
//! - list: [`list_sessions`] over 1,000 sessions of ~1 MB each in one directory.
//!
//! - cold: with `SESSION_BENCH_COLD=load` or `resume` and `SESSION_BENCH_FILE`, one load (or
//!   load + context) of that file in this fresh process, as a person's resume runs it: no
//!   memory freed by an earlier run to reuse (the script starts it five times per file);
//! - warm: with `SESSION_BENCH_WARM` set and `SESSION_BENCH_FILE`, the load figures of that
//!   file alone (the script starts it three times per file, taking turns with Pi's side).
//!
//! Where the files go: `SESSION_BENCH_DIR` (default: a directory under the system's temporary
//! one). Which sizes: `SESSION_BENCH_SIZES` (default `1000,10000,100000`);
//! `SESSION_BENCH_NO_LIST` leaves the listing out. It prints one JSON
//! line per figure on stdout; the files stay for Pi's side and are removed by the script.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pi_session::{Session, list_sessions};
use serde_json::{Value, json};

/// The allocator `pi-tool` runs with (`crates/pi-cli/src/main.rs`), so the figures are what a
/// person's resume gets: with glibc's, each warm run of a 1,000-entry load + context took 4.8 ms
/// instead of 3.1 ms (it hands the freed heap back to the system, and the next run faults it in
/// again), in a fresh process alike.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Entries per turn: user, assistant with a tool call, its result, assistant's answer.
const TURN: usize = 4;
/// Bytes of text in each entry, so 10,000 entries make ~50 MB.
const ENTRY_TEXT: usize = 4_900;

/// What entries hold, repeated: code, as real sessions are full of, with the quotes and
/// newlines JSON escapes, one escape per 23 characters (this repository's Rust sources have
/// one per 27 to 40); the same text as `pi-side.mjs`.
const LINE: &str = "    let path = workspace.join(\"notes.txt\");\n    for line in text.lines() {\n        // the longest line wins, as in the reader\n        count += line.len();\n    }\n";

fn main() {
    if std::env::var_os("SESSION_BENCH_WARM").is_some() {
        let file =
            PathBuf::from(std::env::var_os("SESSION_BENCH_FILE").expect("SESSION_BENCH_FILE"));
        let (load, open, context) = load_figures(&file);
        print_figure(
            json!({"figure": "warm", "ms": ms(load), "open_ms": ms(open),
            "context_ms": ms(context)}),
        );
        return;
    }
    if let Some(mode) = std::env::var_os("SESSION_BENCH_COLD") {
        let file =
            PathBuf::from(std::env::var_os("SESSION_BENCH_FILE").expect("SESSION_BENCH_FILE"));
        cold(
            &file,
            mode.to_str().expect("SESSION_BENCH_COLD: load or resume"),
        );
        return;
    }
    let dir = std::env::var_os("SESSION_BENCH_DIR").map_or_else(
        || std::env::temp_dir().join("pi-session-bench"),
        PathBuf::from,
    );
    let sizes: Vec<usize> = std::env::var("SESSION_BENCH_SIZES")
        .unwrap_or_else(|_| "1000,10000,100000".to_owned())
        .split(',')
        .map(|size| size.trim().parse().expect("SESSION_BENCH_SIZES: numbers"))
        .collect();
    std::fs::create_dir_all(&dir).unwrap();
    let cwd = Path::new("/home/u/proj");
    for &entries in &sizes {
        let session_dir = dir.join(format!("grow-{entries}"));
        let (file, append) = write_session(&session_dir, cwd, entries);
        let bytes = std::fs::metadata(&file).unwrap().len();
        let turns = entries.div_ceil(TURN);
        print_figure(
            json!({"figure": "append", "entries": entries, "bytes": bytes,
            "fdatasyncs": turns, "ms": ms(append), "file": file}),
        );
        let (load, open, context) = load_figures(&file);
        print_figure(json!({"figure": "load", "entries": entries, "bytes": bytes,
            "ms": ms(load), "open_ms": ms(open), "context_ms": ms(context), "file": file}));
    }

    if std::env::var_os("SESSION_BENCH_NO_LIST").is_some() {
        return;
    }
    // 1,000 sessions of ~1 MB: one written through the library, copied under 1,000 names.
    let list_dir = dir.join("list");
    let model = write_session(&dir.join("list-model"), cwd, 200).0;
    std::fs::create_dir_all(&list_dir).unwrap();
    for index in 0..1000 {
        let name = format!("2026-12-04T10-00-00-{index:03}Z_session-{index:04}.jsonl");
        let target = list_dir.join(name);
        if !target.exists() {
            std::fs::copy(&model, &target).unwrap();
        }
    }
    let size = std::fs::metadata(&model).unwrap().len();
    let list = best_of(5, || {
        let listing = list_sessions(&list_dir).unwrap();
        assert_eq!(listing.sessions.len(), 1000);
    });
    print_figure(
        json!({"figure": "list", "sessions": 1000, "bytes_each": size,
        "ms": ms(list), "dir": list_dir}),
    );
}

/// Load + context, load alone and context alone of `file`, each the best of 5 in this process.
/// What a resume waits for: freeing it all afterwards is not timed (Pi's garbage collector
/// frees its side later, untimed, too).
fn load_figures(file: &Path) -> (Duration, Duration, Duration) {
    let load = best_of(5, || {
        let session = Session::load(file).unwrap();
        let context = session.context().unwrap();
        assert!(!context.messages.is_empty());
        (session, context)
    });
    let open = best_of(5, || {
        let session = Session::load(file).unwrap();
        assert!(!session.entries().is_empty());
        session
    });
    let session = Session::load(file).unwrap();
    let context = best_of(5, || {
        let context = session.context().unwrap();
        assert!(!context.messages.is_empty());
        context
    });
    (load, open, context)
}

/// One load (`load`) or load + context (`resume`) of `file`, the first in this process.
fn cold(file: &Path, mode: &str) {
    let start = Instant::now();
    let session = Session::load(file).unwrap();
    let context = match mode {
        "load" => None,
        "resume" => Some(session.context().unwrap()),
        other => panic!("SESSION_BENCH_COLD: load or resume, not {other}"),
    };
    let took = start.elapsed();
    assert!(context.is_none_or(|context| !context.messages.is_empty()));
    print_figure(json!({"figure": "cold", "mode": mode, "ms": ms(took)}));
}

/// Writes a session of `entries` entries in `dir` as a run does (one write per entry, one
/// `fdatasync` per turn); returns its file and the time the appends took.
fn write_session(dir: &Path, cwd: &Path, entries: usize) -> (PathBuf, Duration) {
    if dir.exists() {
        std::fs::remove_dir_all(dir).unwrap();
    }
    std::fs::create_dir_all(dir).unwrap();
    let text: String = LINE.repeat(ENTRY_TEXT / LINE.len() + 1);
    let text = &text[..ENTRY_TEXT];
    let mut session = Session::create(dir, cwd);
    let start = Instant::now();
    let mut clock = 1_796_000_000_000_u64;
    for index in 0..entries {
        clock += 1;
        let call = format!("call_{}", index / TURN);
        let message: Value = match index % TURN {
            0 => {
                json!({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": clock})
            }
            1 => json!({"role": "assistant", "content": [
                    {"type": "text", "text": text},
                    {"type": "toolCall", "id": call, "name": "read", "arguments": {"path": "notes.txt"}}],
                "api": "openai-completions", "provider": "fake", "model": "fake-model",
                "usage": usage(), "stopReason": "toolUse", "timestamp": clock}),
            2 => json!({"role": "toolResult", "toolCallId": call, "toolName": "read",
                "content": [{"type": "text", "text": text}], "isError": false, "timestamp": clock}),
            _ => json!({"role": "assistant", "content": [{"type": "text", "text": text}],
                "api": "openai-completions", "provider": "fake", "model": "fake-model",
                "usage": usage(), "stopReason": "stop", "timestamp": clock}),
        };
        session.append_message_value(message).unwrap();
        if index % TURN == TURN - 1 {
            session.sync().unwrap();
        }
    }
    session.sync().unwrap();
    let took = start.elapsed();
    (session.file_path().unwrap().to_path_buf(), took)
}

fn usage() -> Value {
    json!({"input": 1200, "output": 40, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1240,
        "cost": {"input": 0.0036, "output": 0.0006, "cacheRead": 0, "cacheWrite": 0, "total": 0.0042}})
}

/// The shortest of `runs` runs of `work`; what it returns is dropped after the clock stops.
fn best_of<T>(runs: usize, mut work: impl FnMut() -> T) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            let result = work();
            let took = start.elapsed();
            drop(result);
            took
        })
        .min()
        .unwrap_or_default()
}

fn ms(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1000.0 * 100.0).round() / 100.0
}

fn print_figure(figure: Value) {
    println!("{figure}");
}
