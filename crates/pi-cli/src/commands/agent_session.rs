//! The session flags of an `agent` run, as Pi spells them: a new file in this directory's
//! session directory by default, `-c` the newest one, `--session` a file or an id prefix,
//! `--fork` a copy, `-r` a pick from a list, `--no-session` none. Opening it is the runtime's
//! ([`pi_coding_agent::open_session`]); the list `-r` shows and reads is this file's.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use pi_coding_agent::{SessionTarget, open_session, session_dir};
use pi_session::Session;

use super::session::{listing_json, print_report};

/// Pi's session flags of `pi-tool agent`.
#[derive(Debug, Args)]
pub(crate) struct SessionArgs {
    /// Continue the newest session of this directory (a new one when it has none).
    #[arg(short = 'c', long = "continue", group = "which_session")]
    pub(crate) continue_session: bool,
    /// Continue this session: a file (created when missing) or an id prefix (this directory's
    /// sessions first, then every directory's).
    #[arg(long, value_name = "PATH|ID", group = "which_session")]
    pub(crate) session: Option<String>,
    /// Start a new session holding every entry of this one (a file or an id prefix); its
    /// header names the original as `parentSession`.
    #[arg(long, value_name = "PATH|ID", group = "which_session")]
    pub(crate) fork: Option<String>,
    /// Write no session: the run is forgotten when it ends.
    #[arg(long, group = "which_session", conflicts_with = "session_dir")]
    pub(crate) no_session: bool,
    /// List this directory's sessions (newest first) and continue the one picked by number;
    /// with `--json`, print the list as JSON and exit.
    #[arg(short = 'r', long, group = "which_session")]
    pub(crate) resume: bool,
    /// Keep and look for this directory's sessions in DIR instead of
    /// `~/.pi/agent/sessions/--<cwd>--/` (`PI_CODING_AGENT_DIR` moves `~/.pi/agent`).
    #[arg(long, value_name = "DIR")]
    pub(crate) session_dir: Option<PathBuf>,
}

/// What the session flags asked for.
pub(crate) enum Chosen {
    /// Run in this session.
    Run(Box<Session>),
    /// `-r --json`: the list was printed; nothing runs.
    Listed,
}

/// Opens (or creates, or forks) the run's session for the directory `cwd`. Prints the load
/// report of an existing file on stderr.
pub(crate) fn choose(args: &SessionArgs, json: bool, cwd: &Path) -> anyhow::Result<Chosen> {
    choose_with_id(args, None, json, cwd)
}

/// As [`choose`], with Pi's `--session-id`: the project session with exactly that id.
pub(crate) fn choose_with_id(
    args: &SessionArgs,
    session_id: Option<&str>,
    json: bool,
    cwd: &Path,
) -> anyhow::Result<Chosen> {
    let dir = || session_dir(args.session_dir.as_deref(), cwd);
    let target = if let (Some(id), true) = (session_id, args.no_session) {
        SessionTarget::InMemoryWithId(id.to_owned())
    } else if let (Some(id), Some(source)) = (session_id, &args.fork) {
        SessionTarget::ForkWithId {
            source: source.clone(),
            id: id.to_owned(),
        }
    } else if let Some(id) = session_id {
        SessionTarget::Id(id.to_owned())
    } else if args.no_session {
        SessionTarget::InMemory
    } else if args.continue_session {
        SessionTarget::ContinueRecent
    } else if let Some(target) = &args.session {
        SessionTarget::Named(target.clone())
    } else if let Some(source) = &args.fork {
        SessionTarget::Fork(source.clone())
    } else if args.resume {
        let dir = dir()?;
        let listing = pi_session::list_sessions(&dir)?;
        if json {
            crate::output::print_line(&listing_json(&listing.sessions).to_string())?;
            return Ok(Chosen::Listed);
        }
        match pick(&listing.sessions, &dir)? {
            // A path: `Named` opens it as it is.
            Some(path) => SessionTarget::Named(path.display().to_string()),
            None => anyhow::bail!("no session picked"),
        }
    } else {
        SessionTarget::New
    };
    let opened = open_session(&target, dir, cwd)?;
    if let Some((path, report)) = &opened.report {
        print_report(path, report);
    }
    if let Some(notice) = &opened.notice {
        report!("pi-tool: warning: {notice}");
    }
    Ok(Chosen::Run(Box::new(opened.session)))
}

/// Pi's picker as a numbered list on stderr; the number is read from stdin.
fn pick(sessions: &[pi_session::SessionSummary], dir: &Path) -> anyhow::Result<Option<PathBuf>> {
    if sessions.is_empty() {
        anyhow::bail!("no sessions in {}", dir.display());
    }
    let mut stderr = std::io::stderr().lock();
    for (number, summary) in sessions.iter().enumerate() {
        let title = summary
            .name
            .as_deref()
            .or(summary.first_message.as_deref())
            .unwrap_or("(no messages)");
        writeln!(
            stderr,
            "{:>3}. {}  {} entries  {}",
            number + 1,
            super::session::modified_iso(summary),
            summary.entry_count,
            super::session::one_line(title, 70),
        )?;
    }
    write!(stderr, "Session number (1-{}): ", sessions.len())?;
    stderr.flush()?;
    drop(stderr);
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .context("reading the session number")?;
    let answer = answer.trim();
    if answer.is_empty() {
        return Ok(None);
    }
    let chosen = answer
        .parse::<usize>()
        .ok()
        .and_then(|number| number.checked_sub(1))
        .and_then(|index| sessions.get(index));
    match chosen {
        Some(summary) => Ok(Some(summary.path.clone())),
        None => anyhow::bail!("{answer:?} is not a number from 1 to {}", sessions.len()),
    }
}
