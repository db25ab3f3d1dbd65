//! Pi's automatic retry: a response that failed with a transient error (overloaded, a rate
//! limit, a 5xx, a dropped connection, a time-out) is asked for again after a pause that
//! doubles each time (`retry.baseDelayMs`, up to `retry.maxRetries` times), announced by
//! `auto_retry_start` and `auto_retry_end`. Quota and billing errors are not transient, and a
//! context overflow is compaction's to handle.

use std::sync::LazyLock;
use std::time::Duration;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use pi_agent::AgentEvent;
use pi_ai::{AssistantMessage, Message};
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

/// Whether a session retries now and how far its current prompt got: shared by the prompt
/// that retries and the agent's `agent_end`, which says beforehand whether it will.
#[derive(Debug)]
pub(crate) struct RetryState {
    policy: RetryPolicy,
    /// On or off (RPC's `set_auto_retry` turns it while the session runs).
    enabled: AtomicBool,
    /// The retries the running prompt made so far.
    attempts: AtomicU32,
}

impl RetryState {
    /// The state of a session starting with `policy`, no retry made yet.
    pub(crate) fn new(policy: RetryPolicy) -> Self {
        Self {
            enabled: AtomicBool::new(policy.enabled),
            attempts: AtomicU32::new(0),
            policy,
        }
    }

    /// The policy it started with.
    pub(crate) fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    /// Whether failed responses are asked for again.
    pub(crate) fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::SeqCst)
    }

    /// Turns the retry on or off.
    pub(crate) fn set_enabled(&self, enabled: bool) {
        self.enabled.store(enabled, Ordering::SeqCst);
    }

    /// The retries the running prompt made so far.
    pub(crate) fn attempts(&self) -> u32 {
        self.attempts.load(Ordering::SeqCst)
    }

    /// Records how many retries the running prompt made (0 when a prompt starts).
    pub(crate) fn set_attempts(&self, attempts: u32) {
        self.attempts.store(attempts, Ordering::SeqCst);
    }

    /// Takes the count of retries made (it starts again from 0).
    pub(crate) fn take_attempts(&self) -> u32 {
        self.attempts.swap(0, Ordering::SeqCst)
    }

    /// What a response means for the retries, as Pi reads it: an answer that did not fail
    /// after retries ends them (`auto_retry_end` with success, right after its `message_end`)
    /// and the count starts again.
    pub(crate) fn answered(&self, answer: &AssistantMessage) -> Option<AgentEvent> {
        if answer.stop_reason == pi_ai::StopReason::Error {
            return None;
        }
        let attempt = self.take_attempts();
        (attempt > 0).then_some(AgentEvent::AutoRetryEnd {
            success: true,
            attempt,
            final_error: None,
        })
    }

    /// Whether a run that added `messages` is asked again, as Pi decides it: the retry is
    /// on, retries are left, and the run's last answer failed transiently.
    pub(crate) fn will_retry(&self, messages: &[Message]) -> bool {
        self.is_enabled()
            && self.attempts() < self.policy.max_retries
            && messages.iter().rev().find_map(|message| match message {
                Message::Assistant(answer) => Some(is_transient_failure(answer)),
                _ => None,
            }) == Some(true)
    }
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
    fn a_run_is_retried_while_on_and_attempts_are_left() {
        let state = RetryState::new(RetryPolicy {
            enabled: true,
            max_retries: 2,
            base_delay: Duration::ZERO,
        });
        let run = [Message::Assistant(failed("HTTP 500 Internal Server Error"))];
        assert!(state.will_retry(&run));
        assert!(!state.will_retry(&[Message::Assistant(failed("invalid x-api-key"))]));
        assert!(!state.will_retry(&[]));
        state.set_attempts(2);
        assert!(!state.will_retry(&run));
        state.set_attempts(1);
        state.set_enabled(false);
        assert!(!state.will_retry(&run));
    }

    #[test]
    fn an_answer_after_retries_ends_them_with_success_and_a_failure_does_not() {
        let state = RetryState::new(RetryPolicy::DISABLED);
        let mut answer = failed("HTTP 500");
        state.set_attempts(2);
        assert!(state.answered(&answer).is_none());
        assert_eq!(state.attempts(), 2);
        answer.stop_reason = pi_ai::StopReason::Stop;
        let Some(AgentEvent::AutoRetryEnd {
            success, attempt, ..
        }) = state.answered(&answer)
        else {
            panic!("no auto_retry_end");
        };
        assert!(success);
        assert_eq!(attempt, 2);
        assert_eq!(state.attempts(), 0);
        assert!(state.answered(&answer).is_none());
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
