//! The path-based Unix sockets that are listening on this machine, for bubblewrap to hide from
//! a shell without network.
//!
//! A read-only mount does not stop `connect()`, and a network namespace covers only abstract
//! sockets: a Docker socket or a session bus reached through its path is as good as the
//! network (Docker's is root). The runtime directories where most of them live (`/run`,
//! `/tmp`, `$XDG_RUNTIME_DIR`) get fresh empty file systems; the rest, wherever they are, are
//! found in `/proc/net/unix` (every socket bound in this network namespace) and covered one by
//! one.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// Directories that hold the sockets of daemons and sessions, as they exist here (links
/// followed, each once).
pub(crate) fn runtime_directories() -> Vec<PathBuf> {
    let mut candidates = vec![
        PathBuf::from("/tmp"),
        PathBuf::from("/run"),
        PathBuf::from("/var/run"),
    ];
    if let Some(runtime) = std::env::var_os("XDG_RUNTIME_DIR") {
        candidates.push(PathBuf::from(runtime));
    }
    let mut found: Vec<PathBuf> = Vec::new();
    for candidate in candidates {
        let Ok(real) = std::fs::canonicalize(&candidate) else {
            continue;
        };
        if real.is_dir()
            && real != Path::new("/")
            && !found.iter().any(|known| real.starts_with(known))
        {
            found.retain(|known| !known.starts_with(&real));
            found.push(real);
        }
    }
    found
}

/// The paths of the sockets bound in this network namespace that exist as sockets now and lie
/// outside every directory of `except`.
pub(crate) fn listening_outside(except: &[PathBuf]) -> Vec<PathBuf> {
    let Ok(table) = std::fs::read_to_string("/proc/net/unix") else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = paths_in_table(&table)
        .filter(|path| !except.iter().any(|directory| path.starts_with(directory)))
        .filter(|path| {
            path.symlink_metadata()
                .is_ok_and(|metadata| metadata.file_type().is_socket())
        })
        .collect();
    found.sort();
    found.dedup();
    found
}

/// The absolute paths of `/proc/net/unix`'s table: the eighth column, which holds the rest of
/// the line (a path may hold spaces); abstract names (`@...`) and relative paths left out.
fn paths_in_table(table: &str) -> impl Iterator<Item = PathBuf> + '_ {
    table.lines().skip(1).filter_map(|line| {
        let mut rest = line.trim_start();
        for _ in 0..7 {
            let (_, after) = rest.split_once(char::is_whitespace)?;
            rest = after.trim_start();
        }
        rest.starts_with('/').then(|| PathBuf::from(rest))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_gives_absolute_paths_only() {
        let table = "Num       RefCount Protocol Flags    Type St Inode Path\n\
            0000000000000000: 00000002 00000000 00010000 0001 01 67594 /var/run/docker.sock\n\
            0000000000000000: 00000002 00000000 00010000 0001 01 67595 @attack4-abstract\n\
            0000000000000000: 00000003 00000000 00000000 0001 03 12345\n\
            0000000000000000: 00000002 00000000 00010000 0001 01 67596 /home/a b/s.sock\n\
            0000000000000000: 00000002 00000000 00010000 0001 01 67597 relative.sock\n";
        let paths: Vec<PathBuf> = paths_in_table(table).collect();
        assert_eq!(
            paths,
            [
                PathBuf::from("/var/run/docker.sock"),
                PathBuf::from("/home/a b/s.sock")
            ]
        );
    }

    #[test]
    fn a_listening_socket_is_found_unless_excepted() {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let path = dir.path().join("s.sock");
        let _listener =
            std::os::unix::net::UnixListener::bind(&path).unwrap_or_else(|error| panic!("{error}"));
        assert!(listening_outside(&[]).contains(&path));
        assert!(!listening_outside(&[dir.path().to_path_buf()]).contains(&path));
    }

    #[test]
    fn runtime_directories_are_distinct_and_never_the_root() {
        let found = runtime_directories();
        for (index, directory) in found.iter().enumerate() {
            assert_ne!(directory, Path::new("/"));
            for other in found.iter().skip(index + 1) {
                assert!(!other.starts_with(directory) && !directory.starts_with(other));
            }
        }
    }
}
