//! Writes that cannot tear: the new content goes to a temporary file in the same directory, is
//! flushed to disk, takes the old file's mode, owner and group, and is renamed over the target
//! in one step. A crash or `kill -9` at any moment leaves the old file or the new one, never half.
//!
//! What the user set on the file is kept or respected:
//! - a file this user may not write (mode `0444`, an ACL, a read-only mount) is refused, as an
//!   in-place write would be, although the rename would need only the directory's write bit;
//! - a new file gets `0666` less the umask, as any program's `open(O_CREAT)` would (the
//!   temporary file's own `0600` would hide it from the user's group);
//! - a file with more than one hard link is rewritten in place, so every name keeps seeing the
//!   same file. The trade-off: that write is not atomic; the content is written and synced in
//!   one go, but a crash in the middle of it can leave the file half-written. Replacing the
//!   name instead would silently split the links, which is worse and harder to notice.

use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Replaces the file at `path` with `content`. A symbolic link is written through: its target
/// is replaced, the link stays.
pub(crate) fn write_file(path: &Path, content: &[u8]) -> std::io::Result<()> {
    let target = resolve_link(path);
    let existing = std::fs::metadata(&target).ok();
    if let Some(existing) = &existing {
        // A FIFO, a device, a socket or a directory is never replaced by a file behind the
        // user's back.
        if !existing.is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file",
            ));
        }
        // The kernel says whether this user may change the file (modes, ACLs, root's
        // override, read-only mounts): opening it for writing changes nothing.
        let writable = std::fs::OpenOptions::new().write(true).open(&target);
        match writable {
            Err(error) if error.kind() == std::io::ErrorKind::PermissionDenied => {
                return Err(std::io::Error::new(
                    error.kind(),
                    format!("the file is read-only for this user ({error})"),
                ));
            }
            Err(error) => return Err(error),
            Ok(file) if existing.nlink() > 1 => return write_in_place(file, content),
            Ok(_) => {}
        }
    }
    let directory = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut temporary = tempfile::Builder::new()
        .prefix(".pi-write-")
        .tempfile_in(&directory)?;
    temporary.write_all(content)?;
    let mode = match &existing {
        Some(existing) => existing.permissions().mode() & 0o7777,
        None => 0o666 & !umask(),
    };
    temporary
        .as_file()
        .set_permissions(std::fs::Permissions::from_mode(mode))?;
    if let Some(existing) = &existing {
        // Only root may give a file away, and a user only to a group of theirs: where this
        // is refused, the file becomes this user's, as an editor's save-by-rename makes it.
        let _ = std::os::unix::fs::fchown(
            temporary.as_file(),
            Some(existing.uid()),
            Some(existing.gid()),
        );
        // `chown` clears set-user-ID and set-group-ID bits: set the mode once more.
        let _ = temporary
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode));
    }
    temporary.as_file().sync_all()?;
    temporary.persist(&target).map_err(|error| error.error)?;
    // The rename itself is durable once the directory is flushed (not possible everywhere).
    if let Ok(directory) = std::fs::File::open(&directory) {
        let _ = directory.sync_all();
    }
    Ok(())
}

/// Rewrites an open file's content in place, keeping its inode (and so its other names).
fn write_in_place(mut file: std::fs::File, content: &[u8]) -> std::io::Result<()> {
    file.write_all(content)?;
    file.set_len(u64::try_from(content.len()).unwrap_or(u64::MAX))?;
    file.sync_all()
}

/// This process's umask, read once, the first time it is asked for: [`crate::Workspace`] asks
/// when it is made, before any file tool runs on a thread Landlock confines (which may not read
/// `/proc/self/status`: under `umask 077` new files came out `0644`, readable by everyone).
pub(crate) fn umask() -> u32 {
    static UMASK: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *UMASK.get_or_init(read_umask)
}

/// The umask, read without changing it (`umask(2)` can only set it, which would race with
/// every other thread creating files). Linux 4.7+ shows it in `/proc/self/status`; `022`, the
/// usual default, elsewhere.
fn read_umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|line| line.starts_with("Umask:"))?;
            u32::from_str_radix(line.trim_start_matches("Umask:").trim(), 8).ok()
        })
        .unwrap_or(0o022)
}

/// The file a path finally names, following symbolic links (a dangling one to where its target
/// would be); the path itself when it is not a link.
fn resolve_link(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => crate::workspace::canonical(path),
        _ => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_keeps_permissions_and_writes_through_links() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.sh");
        std::fs::write(&file, "old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
            let link = dir.path().join("link.sh");
            std::os::unix::fs::symlink(&file, &link).unwrap();
            write_file(&link, b"new").unwrap();
            assert!(
                std::fs::symlink_metadata(&link)
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
            assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
            let mode = std::fs::metadata(&file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o755);
        }
        write_file(&file, b"newer").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "newer");
        let leftovers = std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|entry| {
                entry
                    .as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().starts_with(".pi-write-"))
            })
            .count();
        assert_eq!(leftovers, 0);
    }
}
