//! `<agent dir>/auth.json`, Pi's store of credentials (written only to renew a login, see
//! `login_renewal`):
//!
//! ```json
//! {"anthropic": {"type": "api_key", "key": "sk-ant-..."},
//!  "cloudflare-ai-gateway": {"type": "api_key", "key": "$CLOUDFLARE_API_KEY",
//!                            "env": {"CLOUDFLARE_ACCOUNT_ID": "..."}},
//!  "openai-codex": {"type": "oauth", "access": "...", "refresh": "...", "expires": 0}}
//! ```
//!
//! `key` is resolved as in models.json (literal, `$VAR`, `!command`), looking in the entry's
//! own `env` first. OAuth entries (Pi's `/login` subscriptions) keep their access token and
//! its expiry: Anthropic's is used while it is valid (see `ModelRegistry::credentials`) and
//! renewed when it has expired; the others are reported as not supported here. A file that other users may read is refused: it holds keys, and Pi
//! writes it with mode 0600.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::secret::Secret;

/// The file's name in the agent directory.
pub const AUTH_FILE: &str = "auth.json";

/// One provider's entry.
#[derive(Debug, Clone, PartialEq)]
pub enum AuthEntry {
    /// `{"type": "api_key", "key": ..., "env": {...}}`.
    ApiKey {
        /// The key as written (a literal, `$VAR` or `!command`): resolve it before use.
        key: Secret,
        /// Variables for this provider, looked up before the environment.
        env: BTreeMap<String, Secret>,
    },
    /// `{"type": "oauth", "access": ..., "refresh": ..., "expires": ...}`: a subscription
    /// login made by Pi's `/login`.
    OAuth {
        /// The access token, when the entry has one.
        access: Option<Secret>,
        /// When it expires, in milliseconds since the Unix epoch (Pi's `expires`).
        expires: Option<u64>,
    },
}

/// The credentials of `auth.json`, by provider.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AuthFile {
    path: Option<PathBuf>,
    entries: BTreeMap<String, AuthEntry>,
}

/// An `auth.json` that cannot be used. No variant holds a key or a line of the file.
#[derive(Debug, thiserror::Error)]
pub enum AuthFileError {
    /// It exists but cannot be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Other users may read it.
    #[error(
        "{} can be read by other users (mode {mode:04o}); it holds keys, so it is not used: run `chmod 600 {}`",
        path.display(),
        path.display()
    )]
    ReadableByOthers {
        /// The file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// It is not JSON (the position only: the text may be a key).
    #[error("{} is not valid JSON (line {line}, column {column})", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// Where.
        line: usize,
        /// Where.
        column: usize,
    },
    /// An entry has the wrong shape.
    #[error("{}: {field}: {what}", path.display())]
    Entry {
        /// The file.
        path: PathBuf,
        /// The field (`openai.key`).
        field: String,
        /// What is wrong.
        what: &'static str,
    },
}

impl AuthFile {
    /// No credentials.
    pub fn empty() -> Self {
        Self::default()
    }

    /// `auth.json` in `agent_dir`; none when the file does not exist.
    pub fn load_from_agent_dir(agent_dir: &Path) -> Result<Self, AuthFileError> {
        Self::load(&agent_dir.join(AUTH_FILE))
    }

    /// The file at `path`; none when it does not exist.
    pub fn load(path: &Path) -> Result<Self, AuthFileError> {
        match std::fs::metadata(path) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Self::empty()),
            _ => Self::parse(path, &Self::read_private(path)?),
        }
    }

    /// The text of the file at `path`, refused when other users may read it.
    pub(crate) fn read_private(path: &Path) -> Result<String, AuthFileError> {
        let read_error = |source| AuthFileError::Read {
            path: path.to_path_buf(),
            source,
        };
        let metadata = std::fs::metadata(path).map_err(read_error)?;
        check_private(path, &metadata)?;
        std::fs::read_to_string(path).map_err(read_error)
    }

    /// The credentials in `text`, read as the file `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Self, AuthFileError> {
        let entry_error = |field: String, what| AuthFileError::Entry {
            path: path.to_path_buf(),
            field,
            what,
        };
        let value: Value = if text.trim().is_empty() {
            Value::Object(serde_json::Map::new())
        } else {
            serde_json::from_str(text).map_err(|error| AuthFileError::Json {
                path: path.to_path_buf(),
                line: error.line(),
                column: error.column(),
            })?
        };
        let Value::Object(providers) = value else {
            return Err(entry_error(
                "(top level)".to_owned(),
                "must be an object of providers",
            ));
        };
        let mut entries = BTreeMap::new();
        for (provider, entry) in providers {
            let Value::Object(entry) = entry else {
                return Err(entry_error(provider, "must be an object"));
            };
            let parsed = match entry.get("type").and_then(Value::as_str) {
                Some("api_key") => {
                    let Some(Value::String(key)) = entry.get("key") else {
                        return Err(entry_error(format!("{provider}.key"), "must be a string"));
                    };
                    let env = match entry.get("env") {
                        None | Some(Value::Null) => BTreeMap::new(),
                        Some(Value::Object(env)) => {
                            let mut vars = BTreeMap::new();
                            for (name, value) in env {
                                let Value::String(value) = value else {
                                    return Err(entry_error(
                                        format!("{provider}.env.{name}"),
                                        "must be a string",
                                    ));
                                };
                                vars.insert(name.clone(), Secret::new(value.as_str()));
                            }
                            vars
                        }
                        Some(_) => {
                            return Err(entry_error(
                                format!("{provider}.env"),
                                "must be an object",
                            ));
                        }
                    };
                    AuthEntry::ApiKey {
                        key: Secret::new(key.as_str()),
                        env,
                    }
                }
                Some("oauth") => AuthEntry::OAuth {
                    access: entry.get("access").and_then(Value::as_str).map(Secret::new),
                    expires: entry.get("expires").and_then(Value::as_u64),
                },
                _ => {
                    return Err(entry_error(
                        format!("{provider}.type"),
                        "must be \"api_key\" or \"oauth\"",
                    ));
                }
            };
            entries.insert(provider, parsed);
        }
        Ok(Self {
            path: Some(path.to_path_buf()),
            entries,
        })
    }

    /// Credentials given directly (tests, embedders).
    pub fn from_entries(entries: impl IntoIterator<Item = (String, AuthEntry)>) -> Self {
        Self {
            path: None,
            entries: entries.into_iter().collect(),
        }
    }

    /// The file read, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The entry of `provider`.
    pub fn entry(&self, provider: &str) -> Option<&AuthEntry> {
        self.entries.get(provider)
    }

    /// The providers with an entry.
    pub fn providers(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }
}

#[cfg(unix)]
fn check_private(path: &Path, metadata: &std::fs::Metadata) -> Result<(), AuthFileError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(AuthFileError::ReadableByOthers {
            path: path.to_path_buf(),
            mode,
        });
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_path: &Path, _metadata: &std::fs::Metadata) -> Result<(), AuthFileError> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_keys_and_oauth_entries_are_read() {
        let text = r#"{"openai": {"type": "api_key", "key": "sk-1", "env": {"X": "y"}},
                       "anthropic": {"type": "oauth", "access": "a", "refresh": "r", "expires": 1}}"#;
        let file = AuthFile::parse(Path::new("/a/auth.json"), text).unwrap();
        let Some(AuthEntry::ApiKey { key, env }) = file.entry("openai") else {
            panic!("no api key entry");
        };
        assert_eq!(key.expose(), "sk-1");
        assert_eq!(env.get("X").map(Secret::expose), Some("y"));
        assert_eq!(
            file.entry("anthropic"),
            Some(&AuthEntry::OAuth {
                access: Some(Secret::new("a")),
                expires: Some(1)
            })
        );
        assert_eq!(
            file.providers().collect::<Vec<_>>(),
            ["anthropic", "openai"]
        );
    }

    #[test]
    fn a_bad_entry_names_the_field_and_never_the_key() {
        let error =
            AuthFile::parse(Path::new("/a/auth.json"), r#"{"openai": "sk-secret"}"#).unwrap_err();
        assert_eq!(error.to_string(), "/a/auth.json: openai: must be an object");
        let error = AuthFile::parse(
            Path::new("/a/auth.json"),
            r#"{"openai": {"type": "api_key", "key": 5}}"#,
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "/a/auth.json: openai.key: must be a string"
        );
        let error =
            AuthFile::parse(Path::new("/a/auth.json"), "{\"openai\": sk-secret}").unwrap_err();
        let text = error.to_string();
        assert!(
            text.starts_with("/a/auth.json is not valid JSON (line 1"),
            "{text}"
        );
        assert!(!text.contains("sk-secret"));
    }
}
