//! An expired subscription login (Pi's `/login`) in `auth.json` renewed with its refresh
//! token and written back, as Pi 0.80.6 does it, so that Pi and this program can share the file:
//!
//! - under Pi's lock: the directory `auth.json.lock` (proper-lockfile's protocol: made with
//!   `mkdir`, taken as stale after 30 s, tried again with a growing wait while held);
//! - the file read again under the lock: when another program renewed the login meanwhile,
//!   its token is used and nothing is sent;
//! - only the renewed entry changed (`access`, `refresh`, `expires`), every other entry kept
//!   as it was, in its order;
//! - written as Pi writes it (two-space JSON, mode 0600), but crash-safely: a temporary file
//!   in the same directory, flushed, then renamed over the old one. Pi writes in place; a
//!   failure here leaves the old file whole.
//!
//! Only Anthropic's login is renewed: it is the only subscription this program's wires can
//! use. Anthropic's token endpoint is fixed in Pi; `PI_TEST_ANTHROPIC_TOKEN_URL` points this
//! program at another one, for tests only.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use pi_providers::login_refresh::{
    ANTHROPIC_TOKEN_URL, LoginRefreshError, now_millis, refresh_anthropic_login,
};
use serde_json::Value;

use crate::auth_file::{AuthFile, AuthFileError};
use crate::secret::Secret;
use crate::variables::Variables;

/// The variable that points the renewal of an Anthropic login at another token endpoint.
/// For tests (Pi has no such setting: its endpoint is fixed).
pub const TOKEN_URL_VARIABLE: &str = "PI_TEST_ANTHROPIC_TOKEN_URL";

/// A lock older than this is taken as left behind by a program that died (Pi's value).
const STALE_LOCK: Duration = Duration::from_secs(30);

/// How often the lock is tried before giving up, and the first wait (doubled each time, at
/// most [`MAX_LOCK_WAIT`]): about Pi's retry schedule.
const LOCK_ATTEMPTS: u32 = 11;
const FIRST_LOCK_WAIT: Duration = Duration::from_millis(100);
const MAX_LOCK_WAIT: Duration = Duration::from_secs(5);

/// A login that could not be renewed. No text holds a token.
#[derive(Debug, thiserror::Error)]
pub enum LoginRenewalError {
    /// No program renews this provider's login here.
    #[error("the subscription login (OAuth) for {provider} cannot be renewed by this program")]
    Unsupported {
        /// The provider.
        provider: String,
    },
    /// The credentials were not read from a file, so there is nothing to write back.
    #[error("the subscription login (OAuth) for {provider} was not read from an auth.json")]
    NoFile {
        /// The provider.
        provider: String,
    },
    /// The lock could not be made, or another program held it too long.
    #[error("{} could not be locked to renew the login: {reason}", path.display())]
    Lock {
        /// The auth.json.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The file could not be read again under the lock.
    #[error(transparent)]
    Read(#[from] AuthFileError),
    /// The entry is no longer a login, or has no refresh token.
    #[error("{}: {provider}: {what}", path.display())]
    Entry {
        /// The auth.json.
        path: PathBuf,
        /// The provider.
        provider: String,
        /// What is missing.
        what: &'static str,
    },
    /// The token endpoint refused or could not be reached.
    #[error(
        "the subscription login (OAuth) for {provider} in {} has expired and could not be renewed: {source}; log in again (pi's /login)",
        path.display()
    )]
    Refresh {
        /// The auth.json.
        path: PathBuf,
        /// The provider.
        provider: String,
        /// Why.
        source: LoginRefreshError,
    },
    /// The renewed login could not be written back (the old file is left as it was).
    #[error("{} could not be written with the renewed login", path.display())]
    Write {
        /// The auth.json.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// The token endpoint for `provider`'s logins, or `None` when this program renews none.
fn token_url(provider: &str, vars: &Variables) -> Option<String> {
    (provider == "anthropic").then(|| {
        vars.get(TOKEN_URL_VARIABLE)
            .filter(|url| !url.is_empty())
            .unwrap_or_else(|| ANTHROPIC_TOKEN_URL.to_owned())
    })
}

/// Renews `provider`'s expired login in `auth` (read from its file) and writes it back;
/// gives the file as it now is. A login another program renewed meanwhile is taken as it is.
pub async fn renew_login(
    auth: &AuthFile,
    provider: &str,
    vars: &Variables,
) -> Result<AuthFile, LoginRenewalError> {
    let Some(url) = token_url(provider, vars) else {
        return Err(LoginRenewalError::Unsupported {
            provider: provider.to_owned(),
        });
    };
    let Some(path) = auth.path() else {
        return Err(LoginRenewalError::NoFile {
            provider: provider.to_owned(),
        });
    };
    let _lock = FileLock::acquire(path).await?;
    // Read again under the lock: another program may have renewed it already.
    let text = AuthFile::read_private(path)?;
    let mut root: Value = serde_json::from_str(&text).map_err(|error| AuthFileError::Json {
        path: path.to_path_buf(),
        line: error.line(),
        column: error.column(),
    })?;
    let entry_error = |what| LoginRenewalError::Entry {
        path: path.to_path_buf(),
        provider: provider.to_owned(),
        what,
    };
    let Some(Value::Object(entry)) = root.get_mut(provider) else {
        return Err(entry_error("the login is no longer in the file"));
    };
    if entry.get("type").and_then(Value::as_str) != Some("oauth") {
        return Err(entry_error("the entry is no longer a login"));
    }
    let expires = entry.get("expires").and_then(Value::as_u64);
    if expires.is_some_and(|expires| now_millis() < expires) {
        return Ok(AuthFile::parse(path, &text)?);
    }
    let refresh = entry
        .get("refresh")
        .and_then(Value::as_str)
        .filter(|token| !token.is_empty())
        .map(Secret::new)
        .ok_or_else(|| entry_error("the login has no refresh token: log in again (pi's /login)"))?;
    let renewed = refresh_anthropic_login(&url, refresh.expose())
        .await
        .map_err(|source| LoginRenewalError::Refresh {
            path: path.to_path_buf(),
            provider: provider.to_owned(),
            source,
        })?;
    entry.insert("refresh".to_owned(), Value::String(renewed.refresh));
    entry.insert("access".to_owned(), Value::String(renewed.access));
    entry.insert("expires".to_owned(), Value::from(renewed.expires));
    let write_error = |source| LoginRenewalError::Write {
        path: path.to_path_buf(),
        source,
    };
    let text = serde_json::to_string_pretty(&root)
        .map_err(|error| write_error(std::io::Error::other(error)))?;
    replace_private_file(path, text.as_bytes()).map_err(write_error)?;
    Ok(AuthFile::parse(path, &text)?)
}

/// Replaces `path` with `content` through a private temporary file renamed over it (a symbolic
/// link is written through). Nothing of the old file changes until the rename.
fn replace_private_file(path: &Path, content: &[u8]) -> std::io::Result<()> {
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let directory = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // tempfile makes the file with mode 0600, Pi's mode for auth.json.
    let mut temporary = tempfile::Builder::new()
        .prefix(".auth.json-")
        .tempfile_in(&directory)?;
    temporary.write_all(content)?;
    temporary.as_file().sync_all()?;
    temporary.persist(&target).map_err(|error| error.error)?;
    // The rename is durable once the directory is.
    if let Ok(directory) = std::fs::File::open(&directory) {
        let _ = directory.sync_all();
    }
    Ok(())
}

/// Pi's lock on auth.json (proper-lockfile's): the directory `<file>.lock`, removed when
/// dropped.
struct FileLock {
    directory: PathBuf,
}

impl FileLock {
    async fn acquire(path: &Path) -> Result<Self, LoginRenewalError> {
        let mut name = path.as_os_str().to_owned();
        name.push(".lock");
        let directory = PathBuf::from(name);
        let lock_error = |reason: String| LoginRenewalError::Lock {
            path: path.to_path_buf(),
            reason,
        };
        let mut wait = FIRST_LOCK_WAIT;
        for _ in 0..LOCK_ATTEMPTS {
            match std::fs::create_dir(&directory) {
                Ok(()) => return Ok(Self { directory }),
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                    if is_stale(&directory) {
                        // Left by a program that died: taken over at once, as Pi does.
                        let _ = std::fs::remove_dir(&directory);
                        continue;
                    }
                }
                Err(error) => return Err(lock_error(error.to_string())),
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(MAX_LOCK_WAIT);
        }
        Err(lock_error(format!(
            "{} is held by another program",
            directory.display()
        )))
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.directory);
    }
}

/// Whether the lock directory was last touched more than [`STALE_LOCK`] ago.
fn is_stale(directory: &Path) -> bool {
    std::fs::metadata(directory)
        .and_then(|metadata| metadata.modified())
        .ok()
        .and_then(|modified| SystemTime::now().duration_since(modified).ok())
        .is_some_and(|age| age > STALE_LOCK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_anthropic_is_renewed_and_the_endpoint_can_be_moved_for_tests() {
        let none = Variables::fixed::<&str, &str>([]);
        assert_eq!(
            token_url("anthropic", &none).as_deref(),
            Some(ANTHROPIC_TOKEN_URL)
        );
        assert_eq!(token_url("openai-codex", &none), None);
        let moved = Variables::fixed([(TOKEN_URL_VARIABLE, "http://127.0.0.1:9/token")]);
        assert_eq!(
            token_url("anthropic", &moved).as_deref(),
            Some("http://127.0.0.1:9/token")
        );
    }

    #[tokio::test]
    async fn the_lock_is_a_directory_beside_the_file_and_a_stale_one_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("auth.json");
        let lock = FileLock::acquire(&file).await.unwrap();
        assert!(dir.path().join("auth.json.lock").is_dir());
        drop(lock);
        assert!(!dir.path().join("auth.json.lock").exists());
        // A lock left 40 s ago by a dead program.
        let stale = dir.path().join("auth.json.lock");
        std::fs::create_dir(&stale).unwrap();
        let old = SystemTime::now() - Duration::from_secs(40);
        std::fs::File::open(&stale)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let lock = FileLock::acquire(&file).await.unwrap();
        drop(lock);
    }

    #[test]
    fn a_replaced_file_is_private_and_whole() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("auth.json");
        std::fs::write(&file, "{}").unwrap();
        replace_private_file(&file, b"{\"a\": 1}").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "{\"a\": 1}");
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
