//! Writes that cannot tear: the new content goes to a temporary file in the same directory, is
//! flushed to disk, takes the old file's permissions, and is renamed over the target in one
//! step. A crash or `kill -9` at any moment leaves the old file or the new one, never half.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Replaces the file at `path` with `content` atomically. A symbolic link is written through:
/// its target is replaced, the link stays.
pub(crate) fn write_file(path: &Path, content: &[u8]) -> std::io::Result<()> {
    let target = resolve_link(path);
    // A FIFO, a device, a socket or a directory is never replaced by a file behind the
    // user's back.
    if let Ok(existing) = std::fs::metadata(&target)
        && !existing.is_file()
    {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let directory = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut temporary = tempfile::Builder::new()
        .prefix(".pi-write-")
        .tempfile_in(&directory)?;
    temporary.write_all(content)?;
    temporary.as_file().sync_all()?;
    if let Ok(existing) = std::fs::metadata(&target) {
        temporary
            .as_file()
            .set_permissions(existing.permissions())?;
    }
    temporary.persist(&target).map_err(|error| error.error)?;
    // The rename itself is durable once the directory is flushed (not possible everywhere).
    if let Ok(directory) = std::fs::File::open(&directory) {
        let _ = directory.sync_all();
    }
    Ok(())
}

/// The file a path finally names, following symbolic links; the path itself when it does not
/// exist yet.
fn resolve_link(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
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
