//! How long a provider is asked to keep the prompt cache (Pi's `cacheRetention`): `short` by
//! default, `long` when `PI_CACHE_RETENTION=long` (Pi reads only that value; any other leaves
//! `short`), `none` for an embedder that wants no caching. Each wire sends it as Pi 0.80.6
//! does: Anthropic `cache_control` on the system prompt, the last tool and the last user
//! block (`ttl: "1h"` when long), Bedrock cache points (`ttl: "1h"` when long), OpenAI
//! Responses `prompt_cache_retention: "24h"` when long. A model whose `compat` says
//! `supportsLongCacheRetention: false` gets the short form instead.

use serde_json::{Value, json};

/// The variable Pi reads for the retention.
pub const CACHE_RETENTION_VARIABLE: &str = "PI_CACHE_RETENTION";

/// The most characters OpenAI takes in a `prompt_cache_key`.
const PROMPT_CACHE_KEY_MAX_CHARS: usize = 64;

/// OpenAI's `prompt_cache_key` for a session: its id, cut to the 64 characters OpenAI takes
/// (characters, not bytes, as Pi cuts it).
pub(crate) fn prompt_cache_key(session_id: &str) -> String {
    session_id
        .chars()
        .take(PROMPT_CACHE_KEY_MAX_CHARS)
        .collect()
}

/// How long the prompt cache is kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CacheRetention {
    /// No cache markers.
    None,
    /// The provider's default lifetime (Anthropic's five minutes).
    #[default]
    Short,
    /// The longest lifetime the provider offers (an hour, or a day on OpenAI).
    Long,
}

impl CacheRetention {
    /// From the value of `PI_CACHE_RETENTION`, as Pi reads it: `long` is long, anything else
    /// (or nothing) short.
    pub fn from_variable(value: Option<&str>) -> Self {
        if value == Some("long") {
            Self::Long
        } else {
            Self::Short
        }
    }

    /// Whether the long form applies to a model whose compat allows it (`None`: allowed).
    pub(crate) fn long_for(self, supports_long: Option<bool>) -> bool {
        self == Self::Long && supports_long != Some(false)
    }

    /// Anthropic's `cache_control` value; `None` when nothing is cached.
    pub(crate) fn anthropic_cache_control(self, supports_long: Option<bool>) -> Option<Value> {
        match self {
            Self::None => None,
            _ if self.long_for(supports_long) => Some(json!({"type": "ephemeral", "ttl": "1h"})),
            _ => Some(json!({"type": "ephemeral"})),
        }
    }

    /// A Bedrock cache point (Pi adds the hour whatever the model's compat says).
    pub(crate) fn bedrock_cache_point(self) -> Value {
        if self == Self::Long {
            json!({"cachePoint": {"type": "default", "ttl": "1h"}})
        } else {
            json!({"cachePoint": {"type": "default"}})
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_keys_are_cut_to_64_characters() {
        assert_eq!(prompt_cache_key("abc"), "abc");
        let long = "é".repeat(70);
        assert_eq!(prompt_cache_key(&long), "é".repeat(64));
    }

    #[test]
    fn only_long_is_long_and_compat_can_refuse_it() {
        assert_eq!(
            CacheRetention::from_variable(Some("long")),
            CacheRetention::Long
        );
        assert_eq!(
            CacheRetention::from_variable(Some("LONG")),
            CacheRetention::Short
        );
        assert_eq!(
            CacheRetention::from_variable(Some("none")),
            CacheRetention::Short
        );
        assert_eq!(CacheRetention::from_variable(None), CacheRetention::Short);
        assert_eq!(
            CacheRetention::Long.anthropic_cache_control(None),
            Some(json!({"type": "ephemeral", "ttl": "1h"}))
        );
        assert_eq!(
            CacheRetention::Long.anthropic_cache_control(Some(false)),
            Some(json!({"type": "ephemeral"}))
        );
        assert_eq!(CacheRetention::None.anthropic_cache_control(None), None);
        assert_eq!(
            CacheRetention::Long.bedrock_cache_point(),
            json!({"cachePoint": {"type": "default", "ttl": "1h"}})
        );
    }
}
