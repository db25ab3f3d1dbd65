//! How hard a reasoning model is asked to think: Pi's seven levels, from `off` to `max`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A thinking level as Pi names it (`--thinking`, a `:level` suffix, `defaultThinkingLevel`,
/// a session's `thinking_level_change`). Ordered from least to most thinking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThinkingLevel {
    /// No thinking requested.
    Off,
    /// The smallest budget.
    Minimal,
    /// A small budget.
    Low,
    /// Pi's default.
    Medium,
    /// A large budget.
    High,
    /// Beyond high, for the models whose thinking-level map names it.
    Xhigh,
    /// The most, for the models whose thinking-level map names it.
    Max,
}

impl ThinkingLevel {
    /// Every level, in order.
    pub const ALL: [Self; 7] = [
        Self::Off,
        Self::Minimal,
        Self::Low,
        Self::Medium,
        Self::High,
        Self::Xhigh,
        Self::Max,
    ];

    /// Pi's level when nothing chooses one.
    pub const DEFAULT: Self = Self::Medium;

    /// Pi's name of the level.
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
}

impl fmt::Display for ThinkingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A word that names no thinking level.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown thinking level \"{0}\" (expected off, minimal, low, medium, high, xhigh or max)")]
pub struct UnknownThinkingLevel(pub String);

impl FromStr for ThinkingLevel {
    type Err = UnknownThinkingLevel;

    /// Exactly Pi's lowercase names: Pi rejects `High` too.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|level| level.as_str() == text)
            .ok_or_else(|| UnknownThinkingLevel(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_text_and_json() {
        for level in ThinkingLevel::ALL {
            assert_eq!(level.to_string().parse::<ThinkingLevel>(), Ok(level));
            let json = serde_json::to_string(&level).unwrap();
            assert_eq!(json, format!("\"{level}\""));
            assert_eq!(serde_json::from_str::<ThinkingLevel>(&json).unwrap(), level);
        }
    }

    #[test]
    fn other_spellings_are_refused() {
        for word in ["High", "none", "", "x-high"] {
            let error = word.parse::<ThinkingLevel>().unwrap_err();
            assert!(error.to_string().contains(&format!("\"{word}\"")));
        }
    }

    #[test]
    fn levels_are_ordered_from_off_to_max() {
        assert!(ThinkingLevel::Off < ThinkingLevel::Minimal);
        assert!(ThinkingLevel::High < ThinkingLevel::Xhigh);
        assert_eq!(ThinkingLevel::ALL.iter().max(), Some(&ThinkingLevel::Max));
    }
}
