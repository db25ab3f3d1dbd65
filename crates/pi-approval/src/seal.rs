//! Seals on the approval records a session file keeps. A resumed session allows again what a
//! person allowed "for this session"; the session file is plain JSON lines, often inside the
//! workspace (`--session`), where a model's `write` or `bash` can add a forged "yes for this
//! session: `bash(*)`" record. So each record is sealed when written: HMAC-SHA256 over the
//! record and the session's id, under a key only this user can read (`approval-key` in the
//! agent's directory, `0600`), and a record whose seal does not check restores nothing.
//! Bound to the session id, a record copied from another session does not check either.

use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use hmac::{Hmac, KeyInit as _, Mac as _};
use sha2::Sha256;

use crate::ApprovalRecord;

/// The key's file name in the agent's directory.
pub const SEAL_KEY_FILE: &str = "approval-key";

/// Bytes of key.
const KEY_BYTES: usize = 32;

/// Why the key could not be had.
#[derive(Debug, thiserror::Error)]
pub enum SealKeyError {
    /// The file could not be read or created.
    #[error("cannot read or create the approval key {}", path.display())]
    Io {
        /// The key file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is there but holds no key of ours (edited, truncated).
    #[error("{} does not hold an approval key (64 hex digits)", path.display())]
    Malformed {
        /// The key file.
        path: PathBuf,
    },
    /// The file is readable by others than its owner: anyone who can read it can forge.
    #[error("{} is readable by other users (mode {mode:o}); make it 0600", path.display())]
    Exposed {
        /// The key file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The system gave no random bytes for a new key.
    #[error("no random bytes for a new approval key")]
    Random(#[source] getrandom::Error),
}

/// The key approval records are sealed with.
pub struct SealKey {
    key: [u8; KEY_BYTES],
}

impl std::fmt::Debug for SealKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key itself.
        f.debug_struct("SealKey").finish_non_exhaustive()
    }
}

impl SealKey {
    /// The key in `agent_dir` (`approval-key`), made (random, `0600`, never overwritten:
    /// two processes starting at once agree on one) when there is none.
    pub fn load_or_create(agent_dir: &Path) -> Result<Self, SealKeyError> {
        let path = agent_dir.join(SEAL_KEY_FILE);
        let io = |source| SealKeyError::Io {
            path: path.clone(),
            source,
        };
        match Self::read(&path) {
            Err(SealKeyError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound => {}
            other => return other,
        }
        let mut key = [0u8; KEY_BYTES];
        getrandom::fill(&mut key).map_err(SealKeyError::Random)?;
        std::fs::create_dir_all(agent_dir).map_err(io)?;
        let created = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path);
        match created {
            Ok(mut file) => {
                file.write_all(hex(&key).as_bytes()).map_err(io)?;
                file.sync_all().map_err(io)?;
                Ok(Self { key })
            }
            // Another process made it first: use theirs.
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Self::read(&path),
            Err(error) => Err(io(error)),
        }
    }

    fn read(path: &Path) -> Result<Self, SealKeyError> {
        use std::os::unix::fs::PermissionsExt as _;
        let io = |source| SealKeyError::Io {
            path: path.to_owned(),
            source,
        };
        let metadata = std::fs::metadata(path).map_err(io)?;
        let mode = metadata.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(SealKeyError::Exposed {
                path: path.to_owned(),
                mode,
            });
        }
        let text = std::fs::read_to_string(path).map_err(io)?;
        let malformed = || SealKeyError::Malformed {
            path: path.to_owned(),
        };
        let key = unhex(text.trim())
            .and_then(|bytes| <[u8; KEY_BYTES]>::try_from(bytes).ok())
            .ok_or_else(malformed)?;
        Ok(Self { key })
    }

    /// Seals `record` for the session `session_id`: sets its `seal`.
    pub fn seal(&self, record: &mut ApprovalRecord, session_id: &str) {
        record.seal = None;
        record.seal = self
            .mac(record, session_id)
            .map(|mac| hex(&mac.finalize().into_bytes()));
    }

    /// Whether `record` carries a seal this key made for `session_id`.
    pub fn verify(&self, record: &ApprovalRecord, session_id: &str) -> bool {
        let Some(seal) = record.seal.as_deref().and_then(unhex) else {
            return false;
        };
        let mut unsealed = record.clone();
        unsealed.seal = None;
        // `verify_slice` compares in constant time: the answer must not tell how much of a
        // guess was right.
        self.mac(&unsealed, session_id)
            .is_some_and(|mac| mac.verify_slice(&seal).is_ok())
    }

    /// HMAC-SHA256 over the session id (length first, so no two pairs run together) and the
    /// record's JSON without its seal (serde writes the fields in declaration order, so the
    /// same record always gives the same bytes), ready to finalize or verify.
    fn mac(&self, record: &ApprovalRecord, session_id: &str) -> Option<Hmac<Sha256>> {
        // HMAC takes a key of any length: this cannot fail.
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).ok()?;
        mac.update(&(session_id.len() as u64).to_le_bytes());
        mac.update(session_id.as_bytes());
        mac.update(&serde_json::to_vec(record).ok()?);
        Some(mac)
    }
}

/// Bytes from lowercase or uppercase hex; `None` for anything else.
fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    text.as_bytes()
        .chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok())
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut text, byte| {
            let _ = write!(text, "{byte:02x}");
            text
        })
}
