//! How hard a model is asked to think: Pi's thinking levels, the token budgets the
//! budget-based wires spend on each, and a model's own map of which levels it has.
//!
//! The names and JSON shapes are Pi's (`--thinking high`, `defaultThinkingLevel`,
//! `thinkingBudgets`, a model's `thinkingLevelMap`), so Pi's settings and `models.json` read
//! straight into these types.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A thinking level, from `off` to `max` (Pi's `--thinking`, `:level`, `defaultThinkingLevel`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ThinkingLevel {
    /// No thinking asked for (the default). Some wires then say so explicitly.
    #[default]
    Off,
    /// The least thinking a model offers.
    Minimal,
    /// Little thinking.
    Low,
    /// Some thinking.
    Medium,
    /// Much thinking.
    High,
    /// More than high, on the models that have it.
    Xhigh,
    /// The most a model offers, on the models that have it.
    Max,
}

impl ThinkingLevel {
    /// Every level, from `off` to `max`: the order clamping walks.
    pub const ALL: [Self; 7] = [
        Self::Off,
        Self::Minimal,
        Self::Low,
        Self::Medium,
        Self::High,
        Self::Xhigh,
        Self::Max,
    ];

    /// The level's name as Pi writes it (`off`, `minimal`, ... `max`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Minimal => "minimal",
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Xhigh => "xhigh",
            Self::Max => "max",
        }
    }

    /// `xhigh` and `max`, the levels a model has only when its map names them.
    pub fn is_extended(self) -> bool {
        matches!(self, Self::Xhigh | Self::Max)
    }

    /// The level on a wire that stops at `high`: `xhigh` and `max` become `high`.
    pub fn at_most_high(self) -> Self {
        if self.is_extended() { Self::High } else { self }
    }
}

impl fmt::Display for ThinkingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is no thinking level.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown thinking level {0:?}: expected off, minimal, low, medium, high, xhigh or max")]
pub struct UnknownThinkingLevel(pub String);

impl FromStr for ThinkingLevel {
    type Err = UnknownThinkingLevel;

    /// Exactly Pi's lowercase names: Pi refuses `High` too.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|level| level.as_str() == text)
            .ok_or_else(|| UnknownThinkingLevel(text.to_owned()))
    }
}

/// Token budgets per level for the wires that think by budget (Anthropic before adaptive
/// thinking, Gemini 2.5): Pi's `thinkingBudgets` setting. A level left unset keeps the wire's
/// default; `xhigh` and `max` spend `high`'s budget.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ThinkingBudgets {
    /// Tokens for `minimal`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimal: Option<u64>,
    /// Tokens for `low`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub low: Option<u64>,
    /// Tokens for `medium`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub medium: Option<u64>,
    /// Tokens for `high` (and `xhigh`, `max`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub high: Option<u64>,
}

impl ThinkingBudgets {
    /// Pi's default budgets: 1,024 / 2,048 / 8,192 / 16,384 tokens for minimal / low / medium /
    /// high.
    pub const DEFAULTS: [u64; 4] = [1024, 2048, 8192, 16_384];

    /// The budget set for `level`, if one is (`off` has none; `xhigh` and `max` read `high`).
    pub fn custom(&self, level: ThinkingLevel) -> Option<u64> {
        match level.at_most_high() {
            ThinkingLevel::Off => None,
            ThinkingLevel::Minimal => self.minimal,
            ThinkingLevel::Low => self.low,
            ThinkingLevel::Medium => self.medium,
            _ => self.high,
        }
    }

    /// The budget for `level`: the one set, else Pi's default ([`Self::DEFAULTS`]); 0 for
    /// `off`.
    pub fn budget(&self, level: ThinkingLevel) -> u64 {
        let [minimal, low, medium, high] = Self::DEFAULTS;
        let default = match level.at_most_high() {
            ThinkingLevel::Off => return 0,
            ThinkingLevel::Minimal => minimal,
            ThinkingLevel::Low => low,
            ThinkingLevel::Medium => medium,
            _ => high,
        };
        self.custom(level).unwrap_or(default)
    }
}

/// What a model's map says about one level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelMapping<'a> {
    /// Not in the map: through `high` the wire's usual value, `xhigh` and `max` unsupported.
    Default,
    /// `null` in the map: the model lacks this level.
    Unsupported,
    /// A string in the map: the model has this level and the wire sends this value for it.
    Value(&'a str),
}

/// A model's `thinkingLevelMap` as Pi writes it in its catalog and `models.json`: for each
/// level, omitted (the wire's default), `null` (unsupported) or the value to send, e.g.
/// `{"off": null, "xhigh": "xhigh"}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ThinkingLevelMap(pub BTreeMap<ThinkingLevel, Option<String>>);

impl ThinkingLevelMap {
    /// What the map says about `level`.
    pub fn get(&self, level: ThinkingLevel) -> LevelMapping<'_> {
        match self.0.get(&level) {
            None => LevelMapping::Default,
            Some(None) => LevelMapping::Unsupported,
            Some(Some(value)) => LevelMapping::Value(value),
        }
    }

    /// The value the map sends for `level`, if it names one.
    pub fn value(&self, level: ThinkingLevel) -> Option<&str> {
        match self.get(level) {
            LevelMapping::Value(value) => Some(value),
            _ => None,
        }
    }

    /// Whether the map marks `level` unsupported (`null`).
    pub fn is_unsupported(&self, level: ThinkingLevel) -> bool {
        self.get(level) == LevelMapping::Unsupported
    }

    /// The map with `level` set to `value` (`None` marks it unsupported).
    #[must_use]
    pub fn with(mut self, level: ThinkingLevel, value: Option<&str>) -> Self {
        self.0.insert(level, value.map(str::to_owned));
        self
    }

    /// The levels a model has, in order: only `off` for a model that does not reason; else
    /// every level the map does not mark unsupported, `xhigh` and `max` only when it names
    /// them.
    pub fn supported(&self, reasoning: bool) -> Vec<ThinkingLevel> {
        if !reasoning {
            return vec![ThinkingLevel::Off];
        }
        ThinkingLevel::ALL
            .into_iter()
            .filter(|&level| match self.get(level) {
                LevelMapping::Unsupported => false,
                LevelMapping::Default => !level.is_extended(),
                LevelMapping::Value(_) => true,
            })
            .collect()
    }

    /// `level` made one the model has, as Pi clamps it: the level itself when supported,
    /// else the nearest supported level above it, else the nearest below, else the lowest
    /// supported (`off` when nothing is).
    pub fn clamp(&self, level: ThinkingLevel, reasoning: bool) -> ThinkingLevel {
        let supported = self.supported(reasoning);
        if supported.contains(&level) {
            return level;
        }
        let above = ThinkingLevel::ALL
            .into_iter()
            .filter(|&candidate| candidate > level)
            .find(|candidate| supported.contains(candidate));
        let below = ThinkingLevel::ALL
            .into_iter()
            .rev()
            .filter(|&candidate| candidate < level)
            .find(|candidate| supported.contains(candidate));
        above
            .or(below)
            .or_else(|| supported.first().copied())
            .unwrap_or(ThinkingLevel::Off)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_read_and_print_as_pi_writes_them() {
        for level in ThinkingLevel::ALL {
            assert_eq!(level.as_str().parse::<ThinkingLevel>(), Ok(level));
            assert_eq!(
                serde_json::to_string(&level).ok(),
                Some(format!("\"{level}\""))
            );
        }
        assert!(
            "HIGH".parse::<ThinkingLevel>().is_err(),
            "Pi refuses it too"
        );
        assert!("extreme".parse::<ThinkingLevel>().is_err());
        assert_eq!(ThinkingLevel::default(), ThinkingLevel::Off);
    }

    #[test]
    fn budgets_fall_back_to_pi_defaults_and_extended_levels_spend_high() {
        let budgets: ThinkingBudgets =
            serde_json::from_str(r#"{"low": 4096, "high": 32768}"#).unwrap_or_default();
        assert_eq!(budgets.budget(ThinkingLevel::Minimal), 1024);
        assert_eq!(budgets.budget(ThinkingLevel::Low), 4096);
        assert_eq!(budgets.budget(ThinkingLevel::Medium), 8192);
        assert_eq!(budgets.budget(ThinkingLevel::Max), 32_768);
        assert_eq!(budgets.budget(ThinkingLevel::Off), 0);
        assert_eq!(budgets.custom(ThinkingLevel::Medium), None);
    }

    #[test]
    fn the_map_reads_pi_json_and_clamps_up_then_down() {
        let map: ThinkingLevelMap = serde_json::from_str(
            r#"{"off": null, "minimal": null, "low": "LOW", "medium": null, "high": "HIGH"}"#,
        )
        .unwrap_or_default();
        assert_eq!(map.get(ThinkingLevel::Low), LevelMapping::Value("LOW"));
        assert_eq!(map.get(ThinkingLevel::Xhigh), LevelMapping::Default);
        assert_eq!(
            map.supported(true),
            [ThinkingLevel::Low, ThinkingLevel::High]
        );
        // Up first: minimal → low, medium → high; then down: max → high.
        assert_eq!(map.clamp(ThinkingLevel::Minimal, true), ThinkingLevel::Low);
        assert_eq!(map.clamp(ThinkingLevel::Medium, true), ThinkingLevel::High);
        assert_eq!(map.clamp(ThinkingLevel::Max, true), ThinkingLevel::High);
        assert_eq!(map.clamp(ThinkingLevel::Off, true), ThinkingLevel::Low);
        // A model that does not reason has only off.
        assert_eq!(map.clamp(ThinkingLevel::High, false), ThinkingLevel::Off);
        // The default map: xhigh and max are unsupported and clamp to high.
        let plain = ThinkingLevelMap::default();
        assert_eq!(plain.clamp(ThinkingLevel::Xhigh, true), ThinkingLevel::High);
        let with_max = plain.with(ThinkingLevel::Max, Some("max"));
        assert_eq!(
            with_max.clamp(ThinkingLevel::Xhigh, true),
            ThinkingLevel::Max
        );
    }
}
