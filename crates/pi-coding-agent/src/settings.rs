//! Pi's settings files, for what the model choice and the run need: the user's
//! `<agent dir>/settings.json` and the project's `<cwd>/.pi/settings.json`.
//!
//! The merge is Pi's: a key set in the project's file replaces the user's, except that two
//! objects are merged one level deep (`{"retry": {"maxRetries": 5}}` in the project keeps the
//! user's `retry.enabled`; a deeper object such as `retry.provider` is replaced whole). Unknown
//! keys are ignored; a file that is not JSON, or a known key of the wrong type, is an error
//! naming the file and the key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::thinking_level::ThinkingLevel;

/// The file's name, in the agent directory and in the project's `.pi`.
pub const SETTINGS_FILE: &str = "settings.json";
/// The project directory holding the project's settings.
pub const PROJECT_SETTINGS_DIR: &str = ".pi";

/// Pi's agent-level retry defaults.
pub const DEFAULT_MAX_RETRIES: u32 = 3;
/// Pi's first retry delay (doubling each time).
pub const DEFAULT_BASE_DELAY_MS: u64 = 2_000;

/// The merged settings this crate reads.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// The provider of the default model.
    pub default_provider: Option<String>,
    /// The default model's id.
    pub default_model: Option<String>,
    /// The default thinking level.
    pub default_thinking_level: Option<ThinkingLevel>,
    /// Model patterns that scope the choice (as `--models`).
    pub enabled_models: Option<Vec<String>>,
    /// Token budgets per thinking level, for wires that take budgets.
    pub thinking_budgets: Option<BTreeMap<ThinkingLevel, u64>>,
    /// Agent-level retry of transient errors.
    #[serde(default)]
    pub retry: RetrySettings,
    /// What to do with a project's own files when no decision is saved (`ask`, `always`,
    /// `never`); read from the user's file only.
    pub default_project_trust: Option<String>,
    /// Whether skills are offered as `/skill:NAME` commands in the interactive mode (default
    /// yes). Pi's print mode expands `/skill:NAME` either way, and so does this program. The
    /// `skills` and `prompts` lists are read per file, each relative to its own directory, by
    /// the prompt's resource search, not merged here.
    pub enable_skill_commands: Option<bool>,
    /// `images`: how images reach the model.
    #[serde(default)]
    pub images: ImageSettings,
    /// How steering messages are delivered: `one-at-a-time` or `all`.
    pub steering_mode: Option<String>,
    /// How follow-up messages are delivered: `one-at-a-time` or `all`.
    pub follow_up_mode: Option<String>,
    /// The filter `/tree` opens with (`default`, `no-tools`, `user-only`, `labeled-only`,
    /// `all`; see [`crate::TreeFilter::from_setting`]).
    pub tree_filter_mode: Option<String>,
}

/// The `images` object of the settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageSettings {
    /// `blockImages`: no image is sent to the model (each becomes a note saying so).
    pub block_images: Option<bool>,
}

/// `retry` in the settings.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RetrySettings {
    /// Whether to retry at all (default yes).
    pub enabled: Option<bool>,
    /// Attempts after the first (default 3).
    pub max_retries: Option<u32>,
    /// The first delay; each next one doubles (default 2000 ms).
    pub base_delay_ms: Option<u64>,
    /// The provider SDK's own retry settings.
    #[serde(default)]
    pub provider: ProviderRetrySettings,
}

/// `retry.provider` in the settings.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderRetrySettings {
    /// The request timeout.
    pub timeout_ms: Option<u64>,
    /// Retries inside the request (default 0).
    pub max_retries: Option<u32>,
    /// The longest delay a server may ask for before the request fails (default 60000 ms).
    pub max_retry_delay_ms: Option<u64>,
}

impl Settings {
    /// Whether skills are offered as `/skill:NAME` commands (default yes).
    pub fn enable_skill_commands(&self) -> bool {
        self.enable_skill_commands.unwrap_or(true)
    }
}

impl RetrySettings {
    /// Whether to retry (default yes).
    pub fn enabled(&self) -> bool {
        self.enabled.unwrap_or(true)
    }

    /// Attempts after the first.
    pub fn max_retries(&self) -> u32 {
        self.max_retries.unwrap_or(DEFAULT_MAX_RETRIES)
    }

    /// The first delay in milliseconds.
    pub fn base_delay_ms(&self) -> u64 {
        self.base_delay_ms.unwrap_or(DEFAULT_BASE_DELAY_MS)
    }
}

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
    /// It is not a JSON object.
    #[error("{} must hold a JSON object", path.display())]
    NotAnObject {
        /// The file.
        path: PathBuf,
    },
    /// A key this program reads has the wrong type.
    #[error("{}: {field}: {what}", path.display())]
    Field {
        /// The file (the project's when it set the key, else the user's).
        path: PathBuf,
        /// The key (`retry.maxRetries`).
        field: String,
        /// What is wrong.
        what: String,
    },
}

/// One settings file as read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SettingsFile {
    /// Where it is.
    pub path: PathBuf,
    /// What it holds.
    pub values: Map<String, Value>,
}

/// The settings files of a run, each as read, and their merge.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SettingsFiles {
    /// The user's file (`None` when absent or not looked for).
    pub global: Option<SettingsFile>,
    /// The project's file.
    pub project: Option<SettingsFile>,
}

impl SettingsFiles {
    /// Reads `<agent_dir>/settings.json` and, when `project_dir` is given (Pi leaves it out
    /// for a project it does not trust), `<project_dir>/.pi/settings.json`. Missing files are
    /// empty.
    pub fn load(
        agent_dir: Option<&Path>,
        project_dir: Option<&Path>,
    ) -> Result<Self, SettingsError> {
        let global = agent_dir
            .map(|dir| read_object(&dir.join(SETTINGS_FILE)))
            .transpose()?
            .flatten();
        let project = project_dir
            .map(|dir| read_object(&dir.join(PROJECT_SETTINGS_DIR).join(SETTINGS_FILE)))
            .transpose()?
            .flatten();
        Ok(Self { global, project })
    }

    /// The two files merged by Pi's rule, as JSON.
    pub fn merged_json(&self) -> Map<String, Value> {
        let mut merged = self
            .global
            .as_ref()
            .map(|file| file.values.clone())
            .unwrap_or_default();
        if let Some(SettingsFile {
            values: project, ..
        }) = &self.project
        {
            // `defaultProjectTrust` is the user's alone.
            for (key, value) in project
                .iter()
                .filter(|(key, _)| *key != "defaultProjectTrust")
            {
                match (merged.get_mut(key), value) {
                    (Some(Value::Object(base)), Value::Object(over)) => {
                        for (inner, inner_value) in over {
                            base.insert(inner.clone(), inner_value.clone());
                        }
                    }
                    _ => {
                        merged.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        merged
    }

    /// The merged settings, typed; a known key of the wrong type is an error naming the file
    /// that set it.
    pub fn settings(&self) -> Result<Settings, SettingsError> {
        let merged = Value::Object(self.merged_json());
        serde_path_to_error::deserialize::<_, Settings>(merged).map_err(|error| {
            let field = error.path().to_string();
            let top = field
                .split(['.', '['])
                .next()
                .unwrap_or_default()
                .to_owned();
            SettingsError::Field {
                path: self.file_setting(&top).unwrap_or_default(),
                field,
                what: error.into_inner().to_string(),
            }
        })
    }

    /// The file whose value of the top-level `key` is in the merge.
    fn file_setting(&self, key: &str) -> Option<PathBuf> {
        [&self.project, &self.global]
            .into_iter()
            .flatten()
            .find(|file| file.values.contains_key(key))
            .map(|file| file.path.clone())
    }
}

fn read_object(path: &Path) -> Result<Option<SettingsFile>, SettingsError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(SettingsError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    // Pi treats an empty file as no settings.
    if text.trim().is_empty() {
        return Ok(Some(SettingsFile {
            path: path.to_path_buf(),
            values: Map::new(),
        }));
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(values)) => Ok(Some(SettingsFile {
            path: path.to_path_buf(),
            values,
        })),
        Ok(_) => Err(SettingsError::NotAnObject {
            path: path.to_path_buf(),
        }),
        Err(source) => Err(SettingsError::Json {
            path: path.to_path_buf(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_pair(global: &str, project: &str) -> (tempfile::TempDir, SettingsFiles) {
        let dir = tempfile::tempdir().unwrap();
        let agent = dir.path().join("agent");
        let project_dir = dir.path().join("project");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::create_dir_all(project_dir.join(".pi")).unwrap();
        if !global.is_empty() {
            std::fs::write(agent.join("settings.json"), global).unwrap();
        }
        if !project.is_empty() {
            std::fs::write(project_dir.join(".pi/settings.json"), project).unwrap();
        }
        let loaded = SettingsFiles::load(Some(&agent), Some(&project_dir)).unwrap();
        (dir, loaded)
    }

    #[test]
    fn the_project_wins_and_objects_merge_one_level_deep() {
        let (_dir, files) = load_pair(
            r#"{"defaultProvider": "anthropic", "defaultModel": "claude-opus-4-8", "theme": "dark",
                "retry": {"enabled": false, "maxRetries": 5, "provider": {"timeoutMs": 10, "maxRetries": 1}},
                "enabledModels": ["claude-*"], "defaultProjectTrust": "never"}"#,
            r#"{"defaultModel": "claude-sonnet-4-6", "defaultThinkingLevel": "high",
                "retry": {"maxRetries": 7, "provider": {"maxRetries": 2}}, "enabledModels": ["gpt-*"],
                "defaultProjectTrust": "always", "thinkingBudgets": {"low": 1000},
                "enableSkillCommands": false}"#,
        );
        let settings = files.settings().unwrap();
        assert_eq!(settings.default_provider.as_deref(), Some("anthropic"));
        assert_eq!(settings.default_model.as_deref(), Some("claude-sonnet-4-6"));
        assert_eq!(settings.default_thinking_level, Some(ThinkingLevel::High));
        assert_eq!(settings.enabled_models, Some(vec!["gpt-*".to_owned()]));
        assert!(!settings.retry.enabled());
        assert_eq!(settings.retry.max_retries(), 7);
        // `retry.provider` is replaced whole, as in Pi.
        assert_eq!(settings.retry.provider.timeout_ms, None);
        assert_eq!(settings.retry.provider.max_retries, Some(2));
        assert_eq!(settings.default_project_trust.as_deref(), Some("never"));
        assert!(!settings.enable_skill_commands());
        assert_eq!(
            settings.thinking_budgets.unwrap().get(&ThinkingLevel::Low),
            Some(&1000)
        );
    }

    #[test]
    fn absent_files_give_pi_defaults() {
        let (_dir, files) = load_pair("", "");
        let settings = files.settings().unwrap();
        assert_eq!(settings, Settings::default());
        assert!(settings.enable_skill_commands());
        assert!(settings.retry.enabled());
        assert_eq!(
            (settings.retry.max_retries(), settings.retry.base_delay_ms()),
            (3, 2000)
        );
    }

    #[test]
    fn a_bad_file_or_value_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("settings.json"), "{\"defaultModel\": ").unwrap();
        let error = SettingsFiles::load(Some(dir.path()), None).unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with("settings.json is not valid JSON"),
            "{error}"
        );

        let (dir, files) = load_pair(
            r#"{"retry": {"maxRetries": 1}}"#,
            r#"{"defaultThinkingLevel": "huge"}"#,
        );
        let error = files.settings().unwrap_err().to_string();
        let project = dir.path().join("project/.pi/settings.json");
        assert!(
            error.starts_with(&format!(
                "{}: defaultThinkingLevel: unknown variant",
                project.display()
            )),
            "{error}"
        );

        let (dir, files) = load_pair(r#"{"retry": {"maxRetries": "many"}}"#, "{}");
        let error = files.settings().unwrap_err().to_string();
        let global = dir.path().join("agent/settings.json");
        assert!(
            error.starts_with(&format!(
                "{}: retry.maxRetries: invalid type",
                global.display()
            )),
            "{error}"
        );
    }
}
