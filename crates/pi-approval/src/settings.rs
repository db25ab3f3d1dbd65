//! `permissions` in Pi's settings files: the user's (`<agent dir>/settings.json`, the agent
//! dir being `~/.pi/agent` or `PI_CODING_AGENT_DIR`) and the project's
//! (`<cwd>/.pi/settings.json`). Only `permissions` is read; every other key is Pi's.
//!
//! ```json
//! {"permissions": {"mode": "auto-edit", "allow": ["bash(git log:*)"], "ask": [], "deny": ["read(.env)"]}}
//! ```
//!
//! A missing file is no settings; an unreadable or malformed one, or a bad rule in it, is an
//! error naming the file (and the list, the rule's index and column), and the run must not
//! start: a policy silently missing its deny rules is worse than no run.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::policy::Permissions;
use crate::rule::{RuleError, RuleKind};
use crate::{Mode, UnknownMode};

/// A settings file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// It exists but cannot be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It is not JSON.
    #[error("{} is not valid JSON", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// Where and why.
        source: serde_json::Error,
    },
    /// `permissions` or one of its keys has the wrong shape.
    #[error("{}: {what}", path.display())]
    Shape {
        /// The file.
        path: PathBuf,
        /// What is wrong (`permissions.allow must be a list of strings`).
        what: String,
    },
    /// A rule cannot be read.
    #[error("{}: permissions.{}[{index}]", path.display(), kind.as_str())]
    Rule {
        /// The file.
        path: PathBuf,
        /// The list it is in.
        kind: RuleKind,
        /// Its place in the list, from 0.
        index: usize,
        /// The rule and what is wrong with it.
        source: RuleError,
    },
    /// It cannot be written (the decision it was to save still holds for the session).
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `permissions.mode` names no mode.
    #[error("{}: permissions.mode", path.display())]
    Mode {
        /// The file.
        path: PathBuf,
        /// The name given.
        source: UnknownMode,
    },
}

/// Pi's agent directory (see [`pi_tool::path::agent_dir`]: `PI_CODING_AGENT_DIR` with `~`
/// expanded, else `~/.pi/agent`).
pub fn agent_dir() -> Option<PathBuf> {
    pi_tool::path::agent_dir()
}

/// The user's settings file.
pub fn user_settings_path() -> Option<PathBuf> {
    agent_dir().map(|dir| dir.join("settings.json"))
}

/// A project's settings file.
pub fn project_settings_path(cwd: &Path) -> PathBuf {
    cwd.join(".pi").join("settings.json")
}

/// Reads the `permissions` of a settings file: `Ok(None)` when the file does not exist.
pub fn load(path: &Path) -> Result<Option<Permissions>, SettingsError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(SettingsError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    parse(path, &text).map(Some)
}

/// Reads the `permissions` of a settings file's text (`path` names it in errors).
pub fn parse(path: &Path, text: &str) -> Result<Permissions, SettingsError> {
    let shape = |what: String| SettingsError::Shape {
        path: path.to_owned(),
        what,
    };
    let settings: Value = serde_json::from_str(text).map_err(|source| SettingsError::Json {
        path: path.to_owned(),
        source,
    })?;
    let Value::Object(settings) = settings else {
        return Err(shape("settings must be a JSON object".to_owned()));
    };
    let mut permissions = Permissions::default();
    let Some(section) = settings.get("permissions") else {
        return Ok(permissions);
    };
    let Value::Object(section) = section else {
        return Err(shape("permissions must be an object".to_owned()));
    };
    for kind in [RuleKind::Allow, RuleKind::Ask, RuleKind::Deny] {
        let Some(list) = section.get(kind.as_str()) else {
            continue;
        };
        let not_strings = || {
            shape(format!(
                "permissions.{} must be a list of strings",
                kind.as_str()
            ))
        };
        let Value::Array(list) = list else {
            return Err(not_strings());
        };
        for (index, rule) in list.iter().enumerate() {
            let Value::String(rule) = rule else {
                return Err(not_strings());
            };
            permissions
                .add(kind, rule)
                .map_err(|source| SettingsError::Rule {
                    path: path.to_owned(),
                    kind,
                    index,
                    source,
                })?;
        }
    }
    if let Some(mode) = section.get("mode") {
        let Value::String(mode) = mode else {
            return Err(shape("permissions.mode must be a string".to_owned()));
        };
        permissions.mode = Some(mode.parse::<Mode>().map_err(|source| SettingsError::Mode {
            path: path.to_owned(),
            source,
        })?);
    }
    Ok(permissions)
}

/// Whether the user trusts the project in `project_dir`: its canonical path is listed in
/// `permissions.trustedProjects` of the user's settings (`text`). Only the user's own file
/// can say so; a project cannot trust itself.
pub fn trusts_project(path: &Path, text: &str, project_dir: &Path) -> Result<bool, SettingsError> {
    let settings: Value = serde_json::from_str(text).map_err(|source| SettingsError::Json {
        path: path.to_owned(),
        source,
    })?;
    let Some(listed) = settings
        .get("permissions")
        .and_then(|permissions| permissions.get("trustedProjects"))
    else {
        return Ok(false);
    };
    let Value::Array(listed) = listed else {
        return Err(SettingsError::Shape {
            path: path.to_owned(),
            what: "permissions.trustedProjects must be a list of directories".to_owned(),
        });
    };
    let project = pi_tool::path::canonical(project_dir);
    Ok(listed
        .iter()
        .filter_map(Value::as_str)
        .any(|dir| pi_tool::path::canonical(Path::new(dir)) == project))
}

/// Adds `rule` to `permissions.<kind>` of the settings file at `path` (created when missing),
/// keeping every other key as it was, written atomically (a temporary file renamed over it):
/// on any error the file is untouched. A rule already listed is not added twice.
pub fn save_rule(path: &Path, kind: RuleKind, rule: &str) -> Result<(), SettingsError> {
    // The rule must read back, or the next run would refuse to start.
    rule.parse::<crate::Rule>()
        .map_err(|source| SettingsError::Rule {
            path: path.to_owned(),
            kind,
            index: 0,
            source,
        })?;
    let shape = |what: &str| SettingsError::Shape {
        path: path.to_owned(),
        what: what.to_owned(),
    };
    edit(path, |settings| {
        let Value::Object(top) = settings else {
            return Err(shape("settings must be a JSON object"));
        };
        let Value::Object(permissions) = top
            .entry("permissions")
            .or_insert_with(|| Value::Object(Default::default()))
        else {
            return Err(shape("permissions must be an object"));
        };
        let Value::Array(list) = permissions
            .entry(kind.as_str())
            .or_insert_with(|| Value::Array(Vec::new()))
        else {
            return Err(shape("the rule list must be a list of strings"));
        };
        if !list.iter().any(|listed| listed.as_str() == Some(rule)) {
            list.push(Value::String(rule.to_owned()));
        }
        Ok(())
    })
}

/// Sets the value at `keys` (`["compaction", "enabled"]`) in the settings file at `path`
/// (created when missing; objects made on the way), keeping every other key as it was, written
/// atomically: on any error (a file that is not JSON, a key on the way that is not an object)
/// the file is untouched. Pi's `/settings` writes its choices so.
pub fn save_value(path: &Path, keys: &[&str], value: Value) -> Result<(), SettingsError> {
    let shape = |what: String| SettingsError::Shape {
        path: path.to_owned(),
        what,
    };
    let Some((last, parents)) = keys.split_last() else {
        return Err(shape("no setting named".to_owned()));
    };
    edit(path, |settings| {
        let Value::Object(top) = settings else {
            return Err(shape("settings must be a JSON object".to_owned()));
        };
        let mut object = top;
        for key in parents {
            let Value::Object(inner) = object
                .entry(*key)
                .or_insert_with(|| Value::Object(Default::default()))
            else {
                return Err(shape(format!("{key} must be an object")));
            };
            object = inner;
        }
        object.insert((*last).to_owned(), value);
        Ok(())
    })
}

/// Reads the settings file at `path` (an empty object when missing), lets `change` edit it,
/// and writes it back atomically: on any error, `change`'s too, the file is untouched.
fn edit(
    path: &Path,
    change: impl FnOnce(&mut Value) -> Result<(), SettingsError>,
) -> Result<(), SettingsError> {
    let mut settings = match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str::<Value>(&text).map_err(|source| SettingsError::Json {
            path: path.to_owned(),
            source,
        })?,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            Value::Object(Default::default())
        }
        Err(source) => {
            return Err(SettingsError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    change(&mut settings)?;
    let mut text =
        serde_json::to_string_pretty(&settings).map_err(|source| SettingsError::Json {
            path: path.to_owned(),
            source,
        })?;
    text.push('\n');
    write_atomically(path, text.as_bytes()).map_err(|source| SettingsError::Write {
        path: path.to_owned(),
        source,
    })
}

/// Writes `content` to a temporary file beside `path`, flushes it and renames it over `path`.
/// A `path` that is a symbolic link (a settings file kept in a dotfiles repository) is
/// written through: its target is replaced, the link stays a link.
fn write_atomically(path: &Path, content: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let linked;
    let path = if std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink()) {
        linked = pi_tool::path::canonical(path);
        linked.as_path()
    } else {
        path
    };
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&directory)?;
    let mut temporary = tempfile::Builder::new()
        .prefix(".settings-")
        .tempfile_in(&directory)?;
    temporary.write_all(content)?;
    if let Ok(existing) = std::fs::metadata(path) {
        temporary
            .as_file()
            .set_permissions(existing.permissions())?;
    }
    temporary.as_file().sync_all()?;
    temporary.persist(path).map_err(|error| error.error)?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn save_value_sets_a_nested_key_and_keeps_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(
            &path,
            r#"{"theme": "dark", "compaction": {"reserveTokens": 100}}"#,
        )
        .unwrap();
        save_value(&path, &["compaction", "enabled"], Value::Bool(false)).unwrap();
        save_value(&path, &["steeringMode"], Value::from("all")).unwrap();
        let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            saved,
            serde_json::json!({"theme": "dark", "steeringMode": "all",
                               "compaction": {"reserveTokens": 100, "enabled": false}})
        );
        // A missing file is made.
        let fresh = dir.path().join("new.json");
        save_value(&fresh, &["defaultThinkingLevel"], Value::from("high")).unwrap();
        assert!(
            std::fs::read_to_string(&fresh)
                .unwrap()
                .contains("\"high\"")
        );
    }

    #[test]
    fn save_value_never_truncates_a_file_it_cannot_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        for broken in ["{\"theme\": ", r#"{"compaction": 3}"#, "[1, 2]"] {
            std::fs::write(&path, broken).unwrap();
            assert!(save_value(&path, &["compaction", "enabled"], Value::Bool(true)).is_err());
            assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
        }
    }
}
