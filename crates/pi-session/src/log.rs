//! The session file as a crash-safe append-only log.
//!
//! - A new file appears with its first lines already in it: they are written to a temporary
//!   file in the same directory, flushed to disk, and hard-linked to the final name, which
//!   fails rather than replace an existing file. No file without a header ever exists.
//! - Each entry is one `write` of a whole line, but for a long message's, which is written
//!   through a small buffer in several (the last line torn by a crash is detected on load, and
//!   the next append starts on a fresh line after it, rewriting nothing).
//! - [`LogFile::sync`] is `fdatasync`; the agent loop calls it before each model request and
//!   at the end of a run.
//! - Before each append the path is checked to still name the file that was opened (device
//!   and inode) at the length this log left it, so a deleted, replaced or foreign-written file
//!   is reported instead of written to (Pi recreated a deleted file without its header).
//! - While open for writing the file holds an exclusive advisory lock (`flock`), so two of our
//!   processes never interleave appends.
//! - A failed append (a full disk) cuts only the bytes it wrote itself, leaving the file as it
//!   was before the call.

use std::fs::{self, File, OpenOptions};
use std::io::{IoSlice, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{NotASessionReason, Result, SessionError};
use crate::line::{RecordingWriter, SourceFile, WrittenLine};
use crate::text_file::ReadEnd;

/// The buffer a streamed line goes through on its way to the file.
const STREAMED_BUFFER: usize = 64 << 10;

/// Session files are private to their owner: they hold whole conversations.
const NEW_FILE_MODE: u32 = 0o600;

/// An open session file, positioned for appends.
#[derive(Debug)]
pub(crate) struct LogFile {
    path: PathBuf,
    file: File,
    device: u64,
    inode: u64,
    /// The length this log knows the file has.
    len: u64,
    /// The file does not end with a newline (a torn or unterminated last line).
    needs_newline: bool,
    /// Bytes written since the last sync.
    unsynced: bool,
    /// A handle of its own on the open file, for reading appended lines back (made when
    /// first needed).
    reader: Option<Arc<SourceFile>>,
}

impl LogFile {
    /// Creates `path` holding `content` (whole lines), atomically; fails if it exists.
    pub(crate) fn create(path: &Path, content: &[u8]) -> Result<Self> {
        let dir = parent_dir(path);
        fs::create_dir_all(dir).map_err(|e| SessionError::io("create directory", dir, e))?;
        let temp = temp_path(path);
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(NEW_FILE_MODE)
            .open(&temp)
            .map_err(|e| SessionError::io("create", &temp, e))?;
        let written = file
            .write_all(content)
            .and_then(|()| file.sync_all())
            .and_then(|()| file.metadata())
            .map_err(|e| SessionError::io("write", &temp, e));
        let created = match written {
            Ok(metadata) => metadata,
            Err(error) => {
                let _ = fs::remove_file(&temp);
                return Err(error);
            }
        };
        // A hard link never replaces an existing file, unlike rename.
        let linked = fs::hard_link(&temp, path);
        let _ = fs::remove_file(&temp);
        match linked {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(SessionError::AlreadyExists {
                    path: path.to_path_buf(),
                });
            }
            Err(error) => return Err(SessionError::io("create", path, error)),
        }
        sync_dir(dir)?;
        let log = Self::open_locked(path)?;
        if (log.device, log.inode) != (created.dev(), created.ino()) {
            // Someone replaced the file between the link and the open.
            return Err(SessionError::FileReplaced {
                path: path.to_path_buf(),
            });
        }
        Ok(log)
    }

    /// Opens an existing file for appending and locks it; the caller reads it through
    /// [`LogFile::file`] and says where it ended with [`LogFile::read_to`].
    pub(crate) fn open(path: &Path) -> Result<Self> {
        Self::open_locked(path)
    }

    /// The open file, for reading.
    pub(crate) fn file(&self) -> &File {
        &self.file
    }

    /// Records where reading the file ended: the next append goes there, on a fresh line.
    pub(crate) fn read_to(&mut self, end: ReadEnd) {
        self.len = end.end;
        self.needs_newline = end.last_byte.is_some_and(|byte| byte != b'\n');
    }

    /// Opens and locks `path`; its length and last byte come from the file's metadata until
    /// the caller reads it.
    fn open_locked(path: &Path) -> Result<Self> {
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(|e| SessionError::io("open", path, e))?;
        let metadata = file
            .metadata()
            .map_err(|e| SessionError::io("read", path, e))?;
        if !metadata.is_file() {
            return Err(SessionError::NotASession {
                path: path.to_path_buf(),
                reason: NotASessionReason::NotARegularFile,
            });
        }
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(SessionError::Locked {
                    path: path.to_path_buf(),
                });
            }
            Err(std::fs::TryLockError::Error(error)) => {
                return Err(SessionError::io("lock", path, error));
            }
        }
        Ok(Self {
            path: path.to_path_buf(),
            device: metadata.dev(),
            inode: metadata.ino(),
            len: metadata.len(),
            // Our own files always end with a newline; `open` checks the real last byte.
            needs_newline: false,
            unsynced: false,
            reader: None,
            file,
        })
    }

    /// Replaces `path` with `content` atomically (temporary file, sync, rename), keeping its
    /// permissions. Only a version migration rewrites a file.
    pub(crate) fn replace(path: &Path, content: &[u8]) -> Result<()> {
        let dir = parent_dir(path);
        let permissions = fs::metadata(path)
            .map_err(|e| SessionError::io("read", path, e))?
            .permissions();
        let temp = temp_path(path);
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(NEW_FILE_MODE)
            .open(&temp)
            .map_err(|e| SessionError::io("create", &temp, e))?;
        let written = file
            .write_all(content)
            .and_then(|()| file.set_permissions(permissions))
            .and_then(|()| file.sync_all())
            .and_then(|()| fs::rename(&temp, path))
            .map_err(|e| SessionError::io("rewrite", path, e));
        if let Err(error) = written {
            let _ = fs::remove_file(&temp);
            return Err(error);
        }
        sync_dir(dir)
    }

    /// The file's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one line (`line` has no newline; one is added, and one put before it when the
    /// file ends mid-line); gives the offset in the file where the line's text begins.
    /// Nothing is written if the path no longer names this file at the length this log left
    /// it.
    pub(crate) fn append_line(&mut self, line: &str) -> Result<u64> {
        self.check_unchanged()?;
        let before: &[u8] = if self.needs_newline { b"\n" } else { b"" };
        // Written from where the line is, not copied into one buffer first: a long message's
        // line would be held twice while it is written.
        let mut pieces = [
            IoSlice::new(before),
            IoSlice::new(line.as_bytes()),
            IoSlice::new(b"\n"),
        ];
        match write_all_vectored(&mut self.file, &mut pieces) {
            Ok(()) => {
                let offset = self.len + before.len() as u64;
                self.len = offset + line.len() as u64 + 1;
                self.needs_newline = false;
                self.unsynced = true;
                Ok(offset)
            }
            Err(error) => {
                self.undo_partial_write();
                Err(SessionError::io("append to", &self.path, error))
            }
        }
    }

    /// Appends one line that `write` writes straight into the file through a small buffer,
    /// never held whole (a line of a long message); gives where its text begins and what
    /// recognises it. Torn by a crash, it is the torn last line a load already handles;
    /// failed (a full disk, `write` itself), the file is cut back to where it was.
    pub(crate) fn append_streamed(
        &mut self,
        write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<(u64, WrittenLine)> {
        self.check_unchanged()?;
        let newline_first = self.needs_newline;
        let written = (|| {
            let mut buffered = std::io::BufWriter::with_capacity(STREAMED_BUFFER, &mut self.file);
            if newline_first {
                buffered.write_all(b"\n")?;
            }
            let mut recording = RecordingWriter::new(&mut buffered);
            write(&mut recording)?;
            let (_, written) = recording.finish();
            buffered.write_all(b"\n")?;
            buffered.flush()?;
            Ok::<_, std::io::Error>(written)
        })();
        match written {
            Ok(written) => {
                let offset = self.len + u64::from(newline_first);
                self.len = offset + written.len() as u64 + 1;
                self.needs_newline = false;
                self.unsynced = true;
                Ok((offset, written))
            }
            Err(error) => {
                self.undo_partial_write();
                Err(SessionError::io("append to", &self.path, error))
            }
        }
    }

    /// A handle on this file for reading lines back where [`LogFile::append_line`] wrote them;
    /// it stays readable if the path is renamed or deleted.
    pub(crate) fn reader(&mut self) -> Result<Arc<SourceFile>> {
        if let Some(reader) = &self.reader {
            return Ok(Arc::clone(reader));
        }
        let file = self
            .file
            .try_clone()
            .map_err(|e| SessionError::io("open", &self.path, e))?;
        let reader = Arc::new(SourceFile::new(file, &self.path));
        self.reader = Some(Arc::clone(&reader));
        Ok(reader)
    }

    /// Flushes what was appended to the disk (`fdatasync`); nothing to do if nothing was.
    pub(crate) fn sync(&mut self) -> Result<()> {
        if !self.unsynced {
            return Ok(());
        }
        self.file
            .sync_data()
            .map_err(|e| SessionError::io("sync", &self.path, e))?;
        self.unsynced = false;
        Ok(())
    }

    fn check_unchanged(&self) -> Result<()> {
        let at_path = match fs::metadata(&self.path) {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Err(SessionError::FileDeleted {
                    path: self.path.clone(),
                });
            }
            Err(error) => return Err(SessionError::io("check", &self.path, error)),
        };
        if at_path.dev() != self.device || at_path.ino() != self.inode {
            return Err(SessionError::FileReplaced {
                path: self.path.clone(),
            });
        }
        if at_path.len() != self.len {
            return Err(SessionError::ChangedElsewhere {
                path: self.path.clone(),
                expected: self.len,
                found: at_path.len(),
            });
        }
        Ok(())
    }

    /// After a failed write, cuts the file back to the length it had before the call: only
    /// bytes this call wrote are removed (the lock keeps other writers of ours out).
    fn undo_partial_write(&mut self) {
        let now = self.file.metadata().map(|metadata| metadata.len());
        match now {
            Ok(len) if len == self.len => {}
            Ok(len) if len > self.len && self.file.set_len(self.len).is_ok() => {}
            Ok(len) => {
                // Could not restore: make the next append start on a fresh line after
                // whatever is there, and accept the file's length as it is.
                self.len = len;
                self.needs_newline = true;
            }
            Err(_) => self.needs_newline = true,
        }
    }
}

/// Writes every byte of `pieces`, in as few `writev` calls as the kernel allows. (std's
/// `Write::write_all_vectored` is not stable yet.)
fn write_all_vectored(file: &mut File, mut pieces: &mut [IoSlice<'_>]) -> std::io::Result<()> {
    IoSlice::advance_slices(&mut pieces, 0);
    while !pieces.is_empty() {
        match file.write_vectored(pieces) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(written) => IoSlice::advance_slices(&mut pieces, written),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// A temporary name beside `path`, hidden and not ending in `.jsonl` so no session listing
/// ever picks it up.
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let unique = uuid::Uuid::new_v4().simple().to_string();
    parent_dir(path).join(format!(".{name}.{unique}.tmp"))
}

/// Makes a new name in `dir` durable (the file's own sync does not cover its directory entry).
fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|dir| dir.sync_all())
        .map_err(|e| SessionError::io("sync directory", dir, e))
}
