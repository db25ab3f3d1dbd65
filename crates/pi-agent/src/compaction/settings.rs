//! Compaction settings, read from Pi's `settings.json` files: the agent directory's, then the
//! project's `<cwd>/.pi/settings.json` (a field set there wins).
//!
//! ```json
//! {"compaction": {"enabled": true, "reserveTokens": 16384, "keepRecentTokens": 20000,
//!                 "thresholdPercent": 80,
//!                 "modelOverrides": {"gpt-4.1": {"keepRecentTokens": 40000}}}}
//! ```
//!
//! Pi reads the first three. `thresholdPercent` (compact at N% of the context window instead
//! of at window − reserve) and `modelOverrides` (keyed by `provider/model` or by the model id)
//! are what Pi's users asked for; Pi ignores both, so a file holding them still works in Pi.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Pi's default room left for the summary and the next answer.
pub const DEFAULT_RESERVE_TOKENS: u64 = 16_384;
/// Pi's default size of the recent conversation kept verbatim.
pub const DEFAULT_KEEP_RECENT_TOKENS: u64 = 20_000;

/// The settings that apply to one model.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionSettings {
    /// Whether the loop compacts on its own (a manual compaction runs either way).
    pub enabled: bool,
    /// Compact when the context exceeds the window less this many tokens.
    pub reserve_tokens: u64,
    /// Keep roughly this many tokens of the newest conversation verbatim.
    pub keep_recent_tokens: u64,
    /// Compact at this percentage of the window instead (1–100).
    pub threshold_percent: Option<f64>,
}

impl Default for CompactionSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            reserve_tokens: DEFAULT_RESERVE_TOKENS,
            keep_recent_tokens: DEFAULT_KEEP_RECENT_TOKENS,
            threshold_percent: None,
        }
    }
}

impl CompactionSettings {
    /// The context size above which the loop compacts, for a model with `window` tokens.
    pub fn limit(&self, window: u64) -> u64 {
        match self.threshold_percent {
            // Whole tokens: the fraction of a token a percentage leaves does not matter.
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                clippy::cast_precision_loss
            )]
            Some(percent) => ((window as f64) * percent / 100.0).floor() as u64,
            None => window.saturating_sub(self.reserve_tokens),
        }
    }

    /// Whether a context of `tokens` calls for compaction on a model with `window` tokens.
    pub fn should_compact(&self, tokens: u64, window: u64) -> bool {
        self.enabled && tokens > self.limit(window)
    }

    fn apply(&mut self, patch: &SettingsPatch) {
        if let Some(enabled) = patch.enabled {
            self.enabled = enabled;
        }
        if let Some(reserve) = patch.reserve_tokens {
            self.reserve_tokens = reserve;
        }
        if let Some(keep) = patch.keep_recent_tokens {
            self.keep_recent_tokens = keep;
        }
        if let Some(percent) = patch.threshold_percent {
            self.threshold_percent = Some(percent);
        }
    }
}

/// Some of the settings, as one file or one override gives them.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingsPatch {
    /// `enabled`.
    pub enabled: Option<bool>,
    /// `reserveTokens`.
    pub reserve_tokens: Option<u64>,
    /// `keepRecentTokens`.
    pub keep_recent_tokens: Option<u64>,
    /// `thresholdPercent`.
    pub threshold_percent: Option<f64>,
}

/// The `compaction` object of a settings file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CompactionSection {
    #[serde(flatten)]
    base: SettingsPatch,
    #[serde(default)]
    model_overrides: BTreeMap<String, SettingsPatch>,
}

/// A settings file: only `compaction` is read here; other keys belong to others.
#[derive(Debug, Default, Deserialize)]
struct SettingsFile {
    #[serde(default)]
    compaction: Option<CompactionSection>,
}

/// A settings file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// It exists but could not be read.
    #[error("reading {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Its JSON, or its `compaction` object, is not what Pi writes.
    #[error("{path} is not a settings file Pi can read")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// A value out of range.
    #[error("{path}: {message}")]
    OutOfRange {
        /// The file.
        path: PathBuf,
        /// Which value and why.
        message: String,
    },
}

/// Everything the settings files say about compaction: the settings and each model's
/// overrides.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompactionConfig {
    base: CompactionSettings,
    overrides: BTreeMap<String, SettingsPatch>,
}

impl CompactionConfig {
    /// Pi's defaults, no overrides.
    pub fn new(base: CompactionSettings) -> Self {
        Self {
            base,
            overrides: BTreeMap::new(),
        }
    }

    /// Reads `<agent_dir>/settings.json`, then `<cwd>/.pi/settings.json`; a missing file is
    /// no settings.
    pub fn load(agent_dir: Option<&Path>, cwd: &Path) -> Result<Self, SettingsError> {
        let mut config = Self::default();
        let project = cwd.join(".pi").join("settings.json");
        let files = agent_dir
            .map(|dir| dir.join("settings.json"))
            .into_iter()
            .chain(std::iter::once(project));
        for path in files {
            config.merge_file(&path)?;
        }
        Ok(config)
    }

    /// Applies one settings file over these settings (a missing file changes nothing).
    pub fn merge_file(&mut self, path: &Path) -> Result<(), SettingsError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(source) => {
                return Err(SettingsError::Read {
                    path: path.to_owned(),
                    source,
                });
            }
        };
        let file: SettingsFile =
            serde_json::from_str(&text).map_err(|source| SettingsError::Invalid {
                path: path.to_owned(),
                source,
            })?;
        let Some(section) = file.compaction else {
            return Ok(());
        };
        check(path, "compaction", &section.base)?;
        for (model, patch) in &section.model_overrides {
            check(path, &format!("compaction.modelOverrides.{model}"), patch)?;
        }
        self.base.apply(&section.base);
        for (model, patch) in section.model_overrides {
            let merged = self.overrides.entry(model).or_default();
            merge_patch(merged, &patch);
        }
        Ok(())
    }

    /// The settings for `model` of `provider`: an override keyed `provider/model` wins over
    /// one keyed by the model id.
    pub fn for_model(&self, provider: &str, model: &str) -> CompactionSettings {
        let mut settings = self.base.clone();
        if let Some(patch) = self.overrides.get(model) {
            settings.apply(patch);
        }
        if let Some(patch) = self.overrides.get(&format!("{provider}/{model}")) {
            settings.apply(patch);
        }
        settings
    }
}

fn merge_patch(into: &mut SettingsPatch, patch: &SettingsPatch) {
    into.enabled = patch.enabled.or(into.enabled);
    into.reserve_tokens = patch.reserve_tokens.or(into.reserve_tokens);
    into.keep_recent_tokens = patch.keep_recent_tokens.or(into.keep_recent_tokens);
    into.threshold_percent = patch.threshold_percent.or(into.threshold_percent);
}

fn check(path: &Path, at: &str, patch: &SettingsPatch) -> Result<(), SettingsError> {
    if let Some(percent) = patch.threshold_percent
        && !(percent > 0.0 && percent <= 100.0)
    {
        return Err(SettingsError::OutOfRange {
            path: path.to_owned(),
            message: format!(
                "{at}.thresholdPercent must be above 0 and at most 100, not {percent}"
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn defaults_are_pis() {
        let settings = CompactionSettings::default();
        assert_eq!(settings.reserve_tokens, 16_384);
        assert_eq!(settings.keep_recent_tokens, 20_000);
        assert!(settings.should_compact(200_000 - 16_384 + 1, 200_000));
        assert!(!settings.should_compact(200_000 - 16_384, 200_000));
    }

    #[test]
    fn project_settings_win_and_overrides_apply_per_model() {
        let agent = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        std::fs::write(
            agent.path().join("settings.json"),
            r#"{"theme":"dark","compaction":{"reserveTokens":1000,"keepRecentTokens":5000,
               "modelOverrides":{"gpt-4.1":{"thresholdPercent":50},"openai/gpt-4.1":{"keepRecentTokens":7}}}}"#,
        )
        .unwrap();
        std::fs::create_dir(cwd.path().join(".pi")).unwrap();
        std::fs::write(
            cwd.path().join(".pi/settings.json"),
            r#"{"compaction":{"keepRecentTokens":6000}}"#,
        )
        .unwrap();
        let config = CompactionConfig::load(Some(agent.path()), cwd.path()).unwrap();
        let other = config.for_model("anthropic", "claude-sonnet-4-5");
        assert_eq!(
            (other.reserve_tokens, other.keep_recent_tokens),
            (1000, 6000)
        );
        assert_eq!(other.limit(10_000), 9_000);
        let gpt = config.for_model("openai", "gpt-4.1");
        assert_eq!(gpt.threshold_percent, Some(50.0));
        assert_eq!(gpt.keep_recent_tokens, 7);
        assert_eq!(gpt.limit(10_000), 5_000);
    }

    #[test]
    fn bad_files_are_named_and_missing_ones_are_defaults() {
        let cwd = tempfile::tempdir().unwrap();
        assert_eq!(
            CompactionConfig::load(None, cwd.path()).unwrap(),
            CompactionConfig::default()
        );
        std::fs::create_dir(cwd.path().join(".pi")).unwrap();
        let path = cwd.path().join(".pi/settings.json");
        std::fs::write(&path, r#"{"compaction":{"reserveTokens":"lots"}}"#).unwrap();
        let error = CompactionConfig::load(None, cwd.path()).unwrap_err();
        assert!(matches!(error, SettingsError::Invalid { .. }), "{error}");
        std::fs::write(&path, r#"{"compaction":{"thresholdPercent":150}}"#).unwrap();
        let error = CompactionConfig::load(None, cwd.path()).unwrap_err();
        assert!(error.to_string().contains("thresholdPercent"), "{error}");
    }
}
