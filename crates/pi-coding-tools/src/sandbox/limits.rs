//! A limit on how many processes one command may run at once, so a fork bomb ends at the
//! limit rather than at the machine's.
//!
//! `RLIMIT_NPROC` is the classic limit, but it counts every process of the user, and root is
//! exempt from it whatever its capabilities: as root only a `pids` cgroup holds. So:
//! - where a `pids` cgroup (version 1, as root: the hierarchy is writable) can be made, each
//!   call gets one of its own with `pids.max` [`MAX_PROCESSES`]. The thread that starts the
//!   shell joins it first (version 1 moves single threads), so the shell is born inside: no
//!   process escapes by forking before it is moved. Under bubblewrap too.
//! - otherwise, for a user other than root, the shell gets `RLIMIT_NPROC` at the user's
//!   current count plus [`MAX_PROCESSES`], set as soon as it has started (under bubblewrap, on
//!   `bwrap`, which may have started the sandbox's first process by then).
//! - as root with no writable `pids` cgroup (cgroup version 2 here, or a container that
//!   forbids it) there is no limit, and `details.sandbox` says so.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

/// How many processes and threads one command may run at once.
pub(crate) const MAX_PROCESSES: u64 = 1024;

/// Cgroups of finished calls that still held a process when their call ended; removed once
/// empty (a cgroup can only be removed then).
static LEFT_BEHIND: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The limit of one call: its cgroup, removed when the call is over.
#[derive(Debug)]
pub(crate) struct ProcessLimit {
    cgroup: Option<PathBuf>,
    /// What `details.sandbox` says of it.
    pub(crate) description: String,
}

impl Drop for ProcessLimit {
    fn drop(&mut self) {
        let mut left = LEFT_BEHIND.lock().unwrap_or_else(PoisonError::into_inner);
        left.extend(self.cgroup.take());
        // Busy ones (a background job still runs, the warden has not ended yet) wait for a
        // later call.
        left.retain(|cgroup| std::fs::remove_dir(cgroup).is_err() && cgroup.exists());
    }
}

/// Puts the calling thread, and so what it starts from now on, into a new `pids` cgroup
/// limited to [`MAX_PROCESSES`] where one can be made; otherwise a limit to set on the shell
/// once it has started ([`ProcessLimit::apply_to`]).
pub(crate) fn enter() -> ProcessLimit {
    match join_new_cgroup() {
        Ok(cgroup) => ProcessLimit {
            cgroup: Some(cgroup),
            description: format!("at most {MAX_PROCESSES} processes (pids cgroup)"),
        },
        Err(why) if nix::unistd::getuid().is_root() => ProcessLimit {
            cgroup: None,
            description: format!("no process limit (root is exempt from RLIMIT_NPROC, and {why})"),
        },
        Err(_) => ProcessLimit {
            cgroup: None,
            description: format!(
                "at most {MAX_PROCESSES} more processes of this user (RLIMIT_NPROC)"
            ),
        },
    }
}

impl ProcessLimit {
    /// Sets the limit on the process `pid` just started, when no cgroup holds it already.
    pub(crate) fn apply_to(&mut self, pid: u32) {
        if self.cgroup.is_some() || nix::unistd::getuid().is_root() {
            return;
        }
        let limit = tasks_of_this_user().saturating_add(MAX_PROCESSES);
        let Ok(pid) = i32::try_from(pid) else {
            return;
        };
        #[cfg(target_os = "linux")]
        let set = rlimit::prlimit(pid, rlimit::Resource::NPROC, Some((limit, limit)), None);
        #[cfg(not(target_os = "linux"))]
        let set: std::io::Result<()> = Err(std::io::Error::other(format!(
            "not set on {pid} (limit {limit}): Linux only"
        )));
        if let Err(error) = set {
            self.description = format!("no process limit (RLIMIT_NPROC: {error})");
        }
    }
}

/// Makes a `pids` cgroup under this process's own, limited, and moves this thread into it.
fn join_new_cgroup() -> Result<PathBuf, String> {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let hierarchy = pids_hierarchy().ok_or("no pids cgroup (version 1) is mounted")?;
    let own = own_pids_cgroup().ok_or("this process's pids cgroup is unknown")?;
    let parent = hierarchy.join(own.trim_start_matches('/'));
    remove_abandoned(&parent);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let cgroup = parent.join(format!("pi-bash-{}-{call}", std::process::id()));
    let made = std::fs::create_dir(&cgroup)
        .and_then(|()| std::fs::write(cgroup.join("pids.max"), MAX_PROCESSES.to_string()))
        .and_then(|()| std::fs::write(cgroup.join("tasks"), this_thread()?.as_encoded_bytes()));
    match made {
        Ok(()) => Ok(cgroup),
        Err(error) => {
            let _ = std::fs::remove_dir(&cgroup);
            Err(format!("no pids cgroup could be made: {error}"))
        }
    }
}

/// Removes the cgroups that pi-tool processes no longer running left in `parent` (a job still
/// ran when their call ended, and the program ended before a later call could remove them);
/// those still holding a process stay.
fn remove_abandoned(parent: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(owner) = name
            .to_str()
            .and_then(|name| name.strip_prefix("pi-bash-"))
            .and_then(|rest| rest.split_once('-'))
            .map(|(owner, _)| owner.to_owned())
        else {
            continue;
        };
        if !std::path::Path::new("/proc").join(&owner).exists() {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

/// This thread's id, as `/proc/thread-self` (`PID/task/TID`) names it.
fn this_thread() -> std::io::Result<std::ffi::OsString> {
    let link = std::fs::read_link("/proc/thread-self")?;
    link.file_name()
        .map(ToOwned::to_owned)
        .ok_or_else(|| std::io::Error::other("/proc/thread-self names no thread"))
}

/// Where the `pids` controller's version 1 hierarchy is mounted.
fn pids_hierarchy() -> Option<PathBuf> {
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    mounts.lines().find_map(|line| {
        let (before, after) = line.split_once(" - ")?;
        let mut fields = after.split_whitespace();
        let (kind, _source, options) = (fields.next()?, fields.next()?, fields.next()?);
        let is_pids = kind == "cgroup" && options.split(',').any(|option| option == "pids");
        is_pids.then(|| before.split_whitespace().nth(4).map(PathBuf::from))?
    })
}

/// This process's cgroup in the `pids` hierarchy (`/` for the root).
fn own_pids_cgroup() -> Option<String> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    groups.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        controllers
            .split(',')
            .any(|controller| controller == "pids")
            .then(|| path.to_owned())
    })
}

/// How many processes and threads this user runs now: what `RLIMIT_NPROC` counts.
fn tasks_of_this_user() -> u64 {
    let uid = nix::unistd::getuid().as_raw().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_str()
                .is_some_and(|name| name.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("status")).ok())
        .filter(|status| real_uid(status) == Some(uid.as_str()))
        .map(|status| threads(&status))
        .sum()
}

/// The real user id of a `/proc/PID/status`.
fn real_uid(status: &str) -> Option<&str> {
    status
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))?
        .split_whitespace()
        .next()
}

/// The thread count of a `/proc/PID/status` (at least the process itself).
fn threads(status: &str) -> u64 {
    status
        .lines()
        .find_map(|line| line.strip_prefix("Threads:"))
        .and_then(|count| count.trim().parse().ok())
        .unwrap_or(1)
}

/// Whether `path` is a cgroup this module made (for the tests: they must leave none behind).
#[cfg(test)]
fn is_ours(path: &std::path::Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with(&format!("pi-bash-{}-", std::process::id())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_fields_are_read() {
        let status = "Name:\tbash\nUid:\t1000\t1000\t1000\t1000\nThreads:\t3\n";
        assert_eq!(real_uid(status), Some("1000"));
        assert_eq!(threads(status), 3);
        assert_eq!(threads("Name:\tx\n"), 1);
    }

    /// On a thread of its own: joining a cgroup moves only that thread.
    #[test]
    fn a_limit_is_described_and_its_cgroup_goes_with_it() {
        let limit = std::thread::spawn(enter)
            .join()
            .unwrap_or_else(|_| panic!("the thread panicked"));
        assert!(
            limit.description.contains("process"),
            "{}",
            limit.description
        );
        let cgroup = limit.cgroup.clone();
        if let Some(cgroup) = &cgroup {
            assert!(is_ours(cgroup));
            let max = std::fs::read_to_string(cgroup.join("pids.max")).unwrap_or_default();
            assert_eq!(max.trim(), MAX_PROCESSES.to_string());
        }
        drop(limit);
        assert!(cgroup.is_none_or(|cgroup| !cgroup.exists()));
    }
}
