//! Which session a run works in, as Pi's flags choose it: a new file in the directory's session
//! directory by default, the newest one (`-c`), a file or an id prefix (`--session`), a copy of
//! one (`--fork`), or none kept (`--no-session`). Choosing from a list (`-r`) is the front end's:
//! it shows the list its own way and names the pick as a file.

use std::path::{Path, PathBuf};

use pi_session::{LoadReport, Session, SessionSummary};

use crate::runtime_error::RuntimeError;

/// The session a run is asked to work in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionTarget {
    /// A new session file in the session directory.
    New,
    /// The newest session of the session directory (a new one when it has none).
    ContinueRecent,
    /// A file (created when missing) or an id prefix: the directory's sessions first, then
    /// every directory's.
    Named(String),
    /// A new session holding every entry of this one (a file or an id prefix); its header
    /// names the original as `parentSession`.
    Fork(String),
    /// As [`SessionTarget::Fork`], the new session's id this one (Pi's `--fork` with
    /// `--session-id`), refused when a session of the directory has it already.
    ForkWithId {
        /// The session forked (a file or an id prefix).
        source: String,
        /// The new session's id.
        id: String,
    },
    /// The session of the session directory whose id is exactly this (Pi's `--session-id`),
    /// created with that id when there is none.
    Id(String),
    /// A session kept in memory only: the run is forgotten when it ends.
    InMemory,
    /// As [`SessionTarget::InMemory`], with this id (Pi's `--no-session --session-id`: the id
    /// still names the session to the provider, e.g. as OpenAI's prompt cache key).
    InMemoryWithId(String),
}

/// A session opened for a run, with what loading an existing file noticed.
#[derive(Debug)]
pub struct OpenedSession {
    /// The session.
    pub session: Session,
    /// The file read and its load report (skipped lines, a torn tail...), when one was read
    /// and loading noticed anything.
    pub report: Option<(PathBuf, LoadReport)>,
    /// What a person should know about the choice (e.g. a `--session-id` that named no
    /// session, so a new one was made with it).
    pub notice: Option<String>,
}

/// A session named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FoundSession {
    /// A session file that exists.
    Existing(PathBuf),
    /// A path with no file yet: the session is created there.
    NewFile(PathBuf),
}

/// The session directory of `cwd`: `explicit` (`--session-dir`) made absolute, else Pi's
/// default under the agent directory.
pub fn session_dir(explicit: Option<&Path>, cwd: &Path) -> Result<PathBuf, RuntimeError> {
    match explicit {
        Some(dir) => std::path::absolute(dir).map_err(|source| RuntimeError::Io {
            what: format!("resolving {}", dir.display()),
            source,
        }),
        None => pi_session::default_session_dir(cwd).ok_or(RuntimeError::NoAgentDir),
    }
}

/// Opens (or creates, or forks) the session `target` names for a run in `cwd`, whose
/// sessions live in `dir` (see [`session_dir`]; unused for [`SessionTarget::InMemory`]).
pub fn open_session(
    target: &SessionTarget,
    dir: impl FnOnce() -> Result<PathBuf, RuntimeError>,
    cwd: &Path,
) -> Result<OpenedSession, RuntimeError> {
    match target {
        SessionTarget::InMemory => return Ok(fresh(Session::in_memory(cwd))),
        SessionTarget::InMemoryWithId(id) if !valid_session_id(id) => {
            return Err(RuntimeError::InvalidSessionId(id.clone()));
        }
        SessionTarget::InMemoryWithId(id) => {
            return Ok(fresh(Session::in_memory_with_id(cwd, id)));
        }
        _ => {}
    }
    let dir = dir()?;
    match target {
        SessionTarget::InMemory | SessionTarget::InMemoryWithId(_) | SessionTarget::New => {
            Ok(fresh(Session::create(&dir, cwd)))
        }
        SessionTarget::ContinueRecent => {
            let recent =
                pi_session::most_recent_session(&dir).map_err(|source| RuntimeError::Session {
                    what: format!("listing the sessions in {}", dir.display()),
                    source,
                })?;
            match recent {
                Some(path) => open_existing(&path),
                None => Ok(fresh(Session::create(&dir, cwd))),
            }
        }
        SessionTarget::Named(name) => match find_session(name, &dir)? {
            FoundSession::Existing(path) => open_existing(&path),
            FoundSession::NewFile(path) => Ok(fresh(Session::create_at(&path, cwd))),
        },
        SessionTarget::Id(id) => {
            if !valid_session_id(id) {
                return Err(RuntimeError::InvalidSessionId(id.clone()));
            }
            let listing =
                pi_session::list_sessions(&dir).map_err(|source| RuntimeError::Session {
                    what: format!("listing the sessions in {}", dir.display()),
                    source,
                })?;
            match listing
                .sessions
                .iter()
                .find(|summary| summary.header.id() == id)
            {
                Some(summary) => open_existing(&summary.path),
                None => Ok(OpenedSession {
                    session: Session::create_with_id(&dir, cwd, id),
                    report: None,
                    notice: Some(format!(
                        "no session of this project has the id {id:?}; a new one is created with it"
                    )),
                }),
            }
        }
        SessionTarget::Fork(source) => fork_session(source, None, &dir, cwd),
        SessionTarget::ForkWithId { source, id } => fork_session(source, Some(id), &dir, cwd),
    }
}

/// A new session in `dir` holding every entry of `source` (a file or an id prefix), with the
/// id `id` when given (refused when a session of `dir` has it).
fn fork_session(
    source: &str,
    id: Option<&str>,
    dir: &Path,
    cwd: &Path,
) -> Result<OpenedSession, RuntimeError> {
    if let Some(id) = id {
        if !valid_session_id(id) {
            return Err(RuntimeError::InvalidSessionId(id.to_owned()));
        }
        let listing = pi_session::list_sessions(dir).map_err(|source| RuntimeError::Session {
            what: format!("listing the sessions in {}", dir.display()),
            source,
        })?;
        if listing
            .sessions
            .iter()
            .any(|summary| summary.header.id() == id)
        {
            return Err(RuntimeError::SessionIdTaken(id.to_owned()));
        }
    }
    let FoundSession::Existing(path) = find_session(source, dir)? else {
        return Err(RuntimeError::NoFileToFork(source.to_owned()));
    };
    let fork = Session::fork_from_with_id(&path, cwd, dir, id).map_err(|source| {
        RuntimeError::Session {
            what: format!("forking {}", path.display()),
            source,
        }
    })?;
    let report = noticed(&path, fork.report());
    Ok(OpenedSession {
        session: fork,
        report,
        notice: None,
    })
}

/// Finds the session `target` names, as Pi's `--session` does: a path when it has a `/` or
/// `\` or ends in `.jsonl` (which may not exist yet), else the prefix of a session id, looked up
/// among `dir`'s sessions first, then every directory's. A prefix two sessions share is
/// refused, naming both.
pub fn find_session(target: &str, dir: &Path) -> Result<FoundSession, RuntimeError> {
    if target.contains(['/', '\\']) || target.ends_with(".jsonl") {
        let path = PathBuf::from(target);
        return match std::fs::metadata(&path) {
            Ok(_) => Ok(FoundSession::Existing(path)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                Ok(FoundSession::NewFile(path))
            }
            Err(source) => Err(RuntimeError::Io {
                what: format!("reading {target}"),
                source,
            }),
        };
    }
    if target.is_empty() {
        return Err(RuntimeError::EmptySessionId);
    }
    let listing_of = |dir: &Path, all: bool| {
        let listed = if all {
            pi_session::list_all_sessions(dir)
        } else {
            pi_session::list_sessions(dir)
        };
        listed.map_err(|source| RuntimeError::Session {
            what: format!("listing the sessions in {}", dir.display()),
            source,
        })
    };
    let local = listing_of(dir, false)?;
    if let Some(path) = unique_match(target, &local.sessions)? {
        return Ok(FoundSession::Existing(path));
    }
    let root = pi_session::agent_dir().map(|agent| pi_session::sessions_root(&agent));
    if let Some(root) = &root {
        let all = listing_of(root, true)?;
        if let Some(path) = unique_match(target, &all.sessions)? {
            return Ok(FoundSession::Existing(path));
        }
    }
    Err(RuntimeError::NoSuchSession {
        prefix: target.to_owned(),
        looked_in: format!(
            "{}{}",
            dir.display(),
            root.map(|root| format!(" and under {}", root.display()))
                .unwrap_or_default()
        ),
    })
}

/// The one session whose id starts with `prefix`, if any.
fn unique_match(
    prefix: &str,
    sessions: &[SessionSummary],
) -> Result<Option<PathBuf>, RuntimeError> {
    let mut matches = sessions
        .iter()
        .filter(|summary| summary.header.id().starts_with(prefix));
    let Some(first) = matches.next() else {
        return Ok(None);
    };
    let mut paths = vec![first.path.clone()];
    paths.extend(
        matches
            .filter(|summary| summary.path != first.path)
            .map(|summary| summary.path.clone()),
    );
    if paths.len() > 1 {
        return Err(RuntimeError::AmbiguousSession {
            prefix: prefix.to_owned(),
            paths,
        });
    }
    Ok(Some(first.path.clone()))
}

/// Opens an existing session for appending.
fn open_existing(path: &Path) -> Result<OpenedSession, RuntimeError> {
    let session = Session::open(path).map_err(|source| RuntimeError::Session {
        what: format!("opening {}", path.display()),
        source,
    })?;
    let report = noticed(path, session.report());
    Ok(OpenedSession {
        session,
        report,
        notice: None,
    })
}

fn fresh(session: Session) -> OpenedSession {
    OpenedSession {
        session,
        report: None,
        notice: None,
    }
}

/// Pi's rule for a session id given by a person: letters, digits, `.`, `_` and `-`, starting
/// and ending with a letter or digit (it becomes part of a file name).
fn valid_session_id(id: &str) -> bool {
    let edge = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    edge(id.chars().next())
        && edge(id.chars().last())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// The load report of `path`, when loading noticed anything.
fn noticed(path: &Path, report: &LoadReport) -> Option<(PathBuf, LoadReport)> {
    (!report.is_clean()).then(|| (path.to_path_buf(), report.clone()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn a_path_that_does_not_exist_yet_is_a_new_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.jsonl");
        let found = find_session(path.to_str().unwrap(), dir.path()).unwrap();
        assert_eq!(found, FoundSession::NewFile(path));
        assert!(matches!(
            find_session("", dir.path()),
            Err(RuntimeError::EmptySessionId)
        ));
    }

    #[test]
    fn a_session_kept_in_memory_can_be_given_its_id() {
        let dir = tempfile::tempdir().unwrap();
        let unused = || -> Result<PathBuf, RuntimeError> { panic!("no session directory") };
        let target = SessionTarget::InMemoryWithId("release-audit.1".to_owned());
        let opened = open_session(&target, unused, dir.path()).unwrap();
        assert_eq!(opened.session.id(), "release-audit.1");
        assert_eq!(opened.session.file_path(), None);
        let bad = SessionTarget::InMemoryWithId("a/b".to_owned());
        assert!(matches!(
            open_session(&bad, unused, dir.path()),
            Err(RuntimeError::InvalidSessionId(_))
        ));
    }

    #[test]
    fn a_fork_can_be_given_its_id_once() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = || Ok(dir.path().join("sessions"));
        let mut source = open_session(&SessionTarget::New, sessions, dir.path()).unwrap();
        source.session.append_model_change("faux", "m").unwrap();
        source.session.sync().unwrap();
        let path = source.session.file_path().unwrap().display().to_string();
        drop(source);
        let target = SessionTarget::ForkWithId {
            source: path.clone(),
            id: "forked.1".to_owned(),
        };
        let mut fork = open_session(&target, sessions, dir.path()).unwrap();
        assert_eq!(fork.session.id(), "forked.1");
        assert!(fork.session.header().as_map().contains_key("parentSession"));
        fork.session.sync().unwrap();
        drop(fork);
        assert!(matches!(
            open_session(&target, sessions, dir.path()),
            Err(RuntimeError::SessionIdTaken(id)) if id == "forked.1"
        ));
    }

    #[test]
    fn a_session_id_is_created_then_found_again() {
        let dir = tempfile::tempdir().unwrap();
        let target = SessionTarget::Id("release-audit.1".to_owned());
        let sessions = || Ok(dir.path().join("sessions"));
        let mut opened = open_session(&target, sessions, dir.path()).unwrap();
        assert!(opened.notice.is_some());
        assert_eq!(opened.session.id(), "release-audit.1");
        opened.session.append_model_change("faux", "m").unwrap();
        opened.session.sync().unwrap();
        let path = opened.session.file_path().unwrap().to_path_buf();
        drop(opened);
        let again = open_session(&target, sessions, dir.path()).unwrap();
        assert_eq!(again.session.file_path(), Some(path.as_path()));
        assert!(again.notice.is_none());
        for bad in ["", "-x", "x-", "a/b", "a b"] {
            assert!(matches!(
                open_session(&SessionTarget::Id(bad.to_owned()), sessions, dir.path()),
                Err(RuntimeError::InvalidSessionId(_))
            ));
        }
    }

    #[test]
    fn in_memory_needs_no_session_directory() {
        let dir = tempfile::tempdir().unwrap();
        let opened = open_session(
            &SessionTarget::InMemory,
            || Err(RuntimeError::NoAgentDir),
            dir.path(),
        )
        .unwrap();
        assert!(opened.session.file_path().is_none());
        assert!(matches!(
            open_session(
                &SessionTarget::New,
                || Err(RuntimeError::NoAgentDir),
                dir.path()
            ),
            Err(RuntimeError::NoAgentDir)
        ));
    }

    #[test]
    fn an_id_prefix_two_sessions_share_is_refused_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        for _ in 0..2 {
            let mut session = Session::create(dir.path(), dir.path());
            session.append_model_change("faux", "m").unwrap();
            session.sync().unwrap();
        }
        // Every id shares the empty... but not the empty prefix: the first hex digit may
        // differ, so use the longest prefix both ids share.
        let listing = pi_session::list_sessions(dir.path()).unwrap();
        let ids: Vec<&str> = listing.sessions.iter().map(|s| s.header.id()).collect();
        let shared: String = ids[0]
            .chars()
            .zip(ids[1].chars())
            .take_while(|(a, b)| a == b)
            .map(|(a, _)| a)
            .collect();
        if shared.is_empty() {
            // No common prefix: one character of each names exactly one session.
            let one = &ids[0][..1];
            assert!(matches!(
                find_session(one, dir.path()).unwrap(),
                FoundSession::Existing(_)
            ));
        } else {
            let error = find_session(&shared, dir.path()).unwrap_err();
            assert!(
                matches!(error, RuntimeError::AmbiguousSession { ref paths, .. } if paths.len() == 2)
            );
        }
    }
}
