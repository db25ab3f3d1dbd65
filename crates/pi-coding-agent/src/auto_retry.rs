//! Pi's automatic retry: a response that failed with a transient error (overloaded, a rate
//! limit, a 5xx, a dropped connection, a time-out) is asked for again after a pause that
//! doubles each time (`retry.baseDelayMs`, up to `retry.maxRetries` times), announced by
//! `auto_retry_start` and `auto_retry_end`. Quota and billing errors are not transient, and a
//! context overflow is compaction's to handle.

use std::sync::LazyLock;
use std::time::Duration;

use pi_ai::AssistantMessage;
use regex::Regex;

use crate::settings::RetrySettings;

/// When and how often a failed response is asked for again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Whether it is at all.
    pub enabled: bool,
    /// The most retries of one response.
    pub max_retries: u32,
    /// The first pause; each next one is twice the last.
    pub base_delay: Duration,
}

impl RetryPolicy {
    /// No retry (the `agent` subcommand's, whose callers see each failure as it is).
    pub const DISABLED: Self = Self {
        enabled: false,
        max_retries: 0,
        base_delay: Duration::ZERO,
    };

    /// The policy the settings' `retry` object gives (Pi's defaults: on, 3 retries, 2 s).
    pub fn from_settings(settings: &RetrySettings) -> Self {
        Self {
            enabled: settings.enabled(),
            max_retries: settings.max_retries(),
            base_delay: Duration::from_millis(settings.base_delay_ms()),
        }
    }

    /// The pause before retry number `attempt` (from 1).
    pub fn delay(&self, attempt: u32) -> Duration {
        let doubling = 2u32.saturating_pow(attempt.saturating_sub(1));
        self.base_delay.saturating_mul(doubling)
    }
}

/// Errors that name a limit of the account, not a passing load: retrying cannot help.
static NOT_TRANSIENT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        "(?i)GoUsageLimitError|FreeUsageLimitError|Monthly usage limit reached|available balance\
         |insufficient_quota|out of budget|quota exceeded|billing",
    )
    .ok()
});

/// Errors of load, of the server or of the connection (the wording providers and transports
/// use, as Pi lists them).
static TRANSIENT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        "(?i)overloaded|rate.?limit|too many requests|429|500|502|503|504|524\
         |service.?unavailable|server.?error|internal.?error|provider.?returned.?error\
         |network.?error|connection.?error|connection.?refused|connection.?lost\
         |other side closed|fetch failed|upstream.?connect|reset before headers\
         |socket hang up|socket connection was closed|timed? out|timeout|terminated\
         |websocket.?closed|websocket.?error|ended without|stream ended before message_stop\
         |http2 request did not get a response|retry delay|you can retry your request\
         |try your request again|please retry your request|ResourceExhausted",
    )
    .ok()
});

/// Whether `answer` failed with an error worth asking again for.
pub fn is_transient_failure(answer: &AssistantMessage) -> bool {
    if answer.stop_reason != pi_ai::StopReason::Error
        || pi_agent::compaction::is_context_overflow(answer)
    {
        return false;
    }
    let Some(error) = answer
        .error_message
        .as_deref()
        .filter(|text| !text.is_empty())
    else {
        return false;
    };
    let matches = |pattern: &Option<Regex>| pattern.as_ref().is_some_and(|re| re.is_match(error));
    !matches(&NOT_TRANSIENT) && matches(&TRANSIENT)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn failed(error: &str) -> AssistantMessage {
        serde_json::from_value(serde_json::json!({
            "role": "assistant", "content": [], "api": "x", "provider": "p", "model": "m",
            "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "error", "errorMessage": error, "timestamp": 1
        }))
        .unwrap()
    }

    #[test]
    fn transient_errors_are_retried_and_account_limits_are_not() {
        for error in [
            "529 Overloaded",
            "HTTP 503 Service Unavailable",
            "Rate limit exceeded",
            "connection refused",
            "the response sent no event for 300 s (timed out)",
        ] {
            assert!(is_transient_failure(&failed(error)), "{error}");
        }
        for error in [
            "429 insufficient_quota: check your billing",
            "invalid x-api-key",
            "",
        ] {
            assert!(!is_transient_failure(&failed(error)), "{error}");
        }
    }

    #[test]
    fn pauses_double() {
        let policy = RetryPolicy::from_settings(&RetrySettings::default());
        assert!(policy.enabled);
        assert_eq!(policy.max_retries, 3);
        assert_eq!(policy.delay(1), Duration::from_secs(2));
        assert_eq!(policy.delay(3), Duration::from_secs(8));
    }
}
