//! How a run is set up: the model, the tools, how batches execute, and the hooks.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use pi_ai::{AssistantMessage, Message, Provider};
#[cfg(feature = "approvals")]
use pi_approval::{Approver, Policy};
use pi_tool::{Content, ToolCall, ToolRegistry, ToolResultMessage};
use serde_json::Value;

use crate::AgentEvent;
#[cfg(feature = "approvals")]
use crate::ApprovalGate;

/// How the calls of one assistant message run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ExecutionMode {
    /// All at once (up to the concurrency limit). A batch that calls an exclusive tool runs
    /// sequentially anyway.
    #[default]
    Parallel,
    /// One after another, in call order.
    Sequential,
}

/// What `before_tool_call` sees: the call, and its arguments after validation.
#[derive(Debug, Clone)]
pub struct BeforeToolCallContext {
    /// The call as the model made it.
    pub call: ToolCall,
    /// The validated arguments (undeclared fields dropped, defaults filled in).
    pub arguments: Value,
}

/// What `before_tool_call` decides.
#[derive(Debug, Clone, PartialEq)]
pub enum BeforeToolCall {
    /// Run the call as it is.
    Allow,
    /// Do not run it; the model reads the reason (a default one when `None`).
    Block {
        /// Why.
        reason: Option<String>,
    },
    /// Run it with these arguments instead; they are validated again.
    Rewrite {
        /// The new arguments.
        arguments: Value,
    },
}

/// What `after_tool_call` sees: the call and its result (synthesized results included).
#[derive(Debug, Clone)]
pub struct AfterToolCallContext {
    /// The call as the model made it.
    pub call: ToolCall,
    /// The result so far.
    pub result: ToolResultMessage,
}

/// What `after_tool_call` replaces; `None` keeps the field.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AfterToolCall {
    /// New content.
    pub content: Option<Vec<Content>>,
    /// New details (`Some(None)` removes them).
    pub details: Option<Option<Value>>,
    /// New error flag.
    pub is_error: Option<bool>,
    /// Ask the loop to stop after this batch (all results of the batch must ask).
    pub terminate: Option<bool>,
}

/// What `before_request` sees: the conversation the next model request will carry.
#[derive(Debug, Clone)]
pub struct BeforeRequestContext {
    /// The history the run was given, then every message the run added so far, in order.
    /// Shared with the request about to be made: clone what you keep, not the `Arc`, or the
    /// loop copies the conversation at its next message.
    pub messages: Arc<Vec<Message>>,
    /// Where the run's own messages begin in `messages`.
    pub added_from: usize,
    /// The turn about to start, counted from 1.
    pub turn: usize,
}

/// The `before_request` hook: `Err(reason)` ends the run with [`crate::EndReason::Error`] and
/// that reason, before the request is made.
pub type BeforeRequestHook =
    Arc<dyn Fn(BeforeRequestContext) -> BoxFuture<'static, Result<(), String>> + Send + Sync>;

/// The `will_retry` hook: given the messages a run added, whether its owner will ask again
/// for the failed response (so `agent_end` can say so before the retry is announced).
pub type WillRetryHook = Arc<dyn Fn(&[Message]) -> bool + Send + Sync>;

/// The `after_response` hook: an event its owner announces right after a response's
/// `message_end` (a session's `auto_retry_end` once a retried request got its answer).
pub type AfterResponseHook = Arc<dyn Fn(&AssistantMessage) -> Option<AgentEvent> + Send + Sync>;

/// The `before_tool_call` hook.
pub type BeforeHook =
    Arc<dyn Fn(BeforeToolCallContext) -> BoxFuture<'static, BeforeToolCall> + Send + Sync>;

/// The `after_tool_call` hook.
pub type AfterHook =
    Arc<dyn Fn(AfterToolCallContext) -> BoxFuture<'static, AfterToolCall> + Send + Sync>;

/// How many calls of one response run by default.
pub const DEFAULT_MAX_CALLS_PER_BATCH: usize = 128;

/// Everything a run needs. Built with [`AgentConfig::new`] and the `with_*` methods.
#[derive(Clone)]
pub struct AgentConfig {
    /// The model.
    pub provider: Arc<dyn Provider>,
    /// The tools of this run.
    pub tools: Arc<ToolRegistry>,
    /// The system prompt.
    pub system_prompt: Option<String>,
    /// Parallel (default) or sequential batches.
    pub execution: ExecutionMode,
    /// At most this many calls at once in a parallel batch.
    pub max_concurrency: Option<usize>,
    /// At most this many calls of one response run; the rest are answered as refused, so a
    /// runaway response cannot start thousands of tools (default [`DEFAULT_MAX_CALLS_PER_BATCH`]).
    pub max_calls_per_batch: usize,
    /// A time limit for every call.
    pub tool_timeout: Option<Duration>,
    /// Time limits for particular tools, overriding `tool_timeout`.
    pub tool_timeouts: HashMap<String, Duration>,
    /// How long a tool whose token was cancelled (time limit, cancelled run) gets to finish:
    /// [`pi_tool::CANCEL_GRACE`], the grace every caller of the call path uses, unless set.
    pub cancel_grace: Duration,
    /// At most this many turns (model responses) per run.
    pub max_turns: Option<usize>,
    /// Runs after validation, before execution.
    pub before_tool_call: Option<BeforeHook>,
    /// Runs on every result.
    pub after_tool_call: Option<AfterHook>,
    /// Runs before each model request (a session log syncs there; an error stops the run).
    pub before_request: Option<BeforeRequestHook>,
    /// Whether an ended run is retried (the `willRetry` of `agent_end`); `None`: never.
    pub will_retry: Option<WillRetryHook>,
    /// Adds an event after each response's `message_end`; `None`: nothing.
    pub after_response: Option<AfterResponseHook>,
    /// Decides every call on its final arguments, after `before_tool_call`; `None` runs
    /// every valid call (the behaviour without approvals).
    #[cfg(feature = "approvals")]
    pub approvals: Option<Arc<ApprovalGate>>,
    /// The agent's name and conversation id on the run's spans.
    pub labels: crate::RunLabels,
}

impl std::fmt::Debug for AgentConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentConfig")
            .field("model", &self.provider.model())
            .field("tools", &self.tools.len())
            .field("execution", &self.execution)
            .field("max_concurrency", &self.max_concurrency)
            .field("tool_timeout", &self.tool_timeout)
            .field("max_turns", &self.max_turns)
            .finish_non_exhaustive()
    }
}

impl AgentConfig {
    /// A configuration with defaults: parallel batches without a limit, no time limits, a
    /// the call path's one grace ([`pi_tool::CANCEL_GRACE`]), no turn limit, no hooks.
    pub fn new(provider: Arc<dyn Provider>, tools: Arc<ToolRegistry>) -> Self {
        Self {
            provider,
            tools,
            system_prompt: None,
            execution: ExecutionMode::Parallel,
            max_concurrency: None,
            max_calls_per_batch: DEFAULT_MAX_CALLS_PER_BATCH,
            tool_timeout: None,
            tool_timeouts: HashMap::new(),
            cancel_grace: pi_tool::CANCEL_GRACE,
            max_turns: None,
            before_tool_call: None,
            after_tool_call: None,
            before_request: None,
            will_retry: None,
            after_response: None,
            #[cfg(feature = "approvals")]
            approvals: None,
            labels: crate::RunLabels::default(),
        }
    }

    /// Sets the system prompt.
    #[must_use]
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Sets the execution mode.
    #[must_use]
    pub fn with_execution(mut self, execution: ExecutionMode) -> Self {
        self.execution = execution;
        self
    }

    /// Runs at most `limit` (at least 1) calls of one response; the rest get refusals.
    #[must_use]
    pub fn with_max_calls_per_batch(mut self, limit: usize) -> Self {
        self.max_calls_per_batch = limit.max(1);
        self
    }

    /// At most `limit` (at least 1) calls at once in a parallel batch.
    #[must_use]
    pub fn with_max_concurrency(mut self, limit: usize) -> Self {
        self.max_concurrency = Some(limit.max(1));
        self
    }

    /// A time limit for every call.
    #[must_use]
    pub fn with_tool_timeout(mut self, limit: Duration) -> Self {
        self.tool_timeout = Some(limit);
        self
    }

    /// A time limit for one tool.
    #[must_use]
    pub fn with_tool_timeout_for(mut self, tool: impl Into<String>, limit: Duration) -> Self {
        self.tool_timeouts.insert(tool.into(), limit);
        self
    }

    /// The grace a cancelled tool gets.
    #[must_use]
    pub fn with_cancel_grace(mut self, grace: Duration) -> Self {
        self.cancel_grace = grace;
        self
    }

    /// A turn limit.
    #[must_use]
    pub fn with_max_turns(mut self, turns: usize) -> Self {
        self.max_turns = Some(turns);
        self
    }

    /// The `will_retry` hook: whether the run that added these messages is asked again.
    #[must_use]
    pub fn with_will_retry(
        mut self,
        hook: impl Fn(&[Message]) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.will_retry = Some(Arc::new(hook));
        self
    }

    /// The `after_response` hook: an event to announce after a response's `message_end`.
    #[must_use]
    pub fn with_after_response(
        mut self,
        hook: impl Fn(&AssistantMessage) -> Option<AgentEvent> + Send + Sync + 'static,
    ) -> Self {
        self.after_response = Some(Arc::new(hook));
        self
    }

    /// The `before_tool_call` hook.
    #[must_use]
    pub fn with_before_tool_call(
        mut self,
        hook: impl Fn(BeforeToolCallContext) -> BoxFuture<'static, BeforeToolCall>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        self.before_tool_call = Some(Arc::new(hook));
        self
    }

    /// The `after_tool_call` hook.
    #[must_use]
    pub fn with_after_tool_call(
        mut self,
        hook: impl Fn(AfterToolCallContext) -> BoxFuture<'static, AfterToolCall> + Send + Sync + 'static,
    ) -> Self {
        self.after_tool_call = Some(Arc::new(hook));
        self
    }

    /// The `before_request` hook: called with the conversation before each model request;
    /// an `Err` ends the run with that reason instead of making the request.
    #[must_use]
    pub fn with_before_request(
        mut self,
        hook: impl Fn(BeforeRequestContext) -> BoxFuture<'static, Result<(), String>>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        self.before_request = Some(Arc::new(hook));
        self
    }

    /// Approvals: every call is decided by `policy` on its final arguments, and what it says
    /// to ask goes to `approver`; bare tool names in its `deny` are not shown to the model.
    #[must_use]
    #[cfg(feature = "approvals")]
    pub fn with_approvals(self, policy: Policy, approver: Arc<dyn Approver>) -> Self {
        self.with_approval_gate(Arc::new(ApprovalGate::new(policy, approver)))
    }

    /// The same with a gate the caller keeps (to restore a session's rules, or to share
    /// them between runs).
    #[must_use]
    #[cfg(feature = "approvals")]
    pub fn with_approval_gate(mut self, gate: Arc<ApprovalGate>) -> Self {
        self.approvals = Some(gate);
        self
    }

    /// What the model is shown of the tools: all of them, less those a bare `deny` rule
    /// hides.
    pub fn shown_tools(&self) -> Vec<pi_tool::ToolDefinition> {
        #[cfg_attr(not(feature = "approvals"), allow(unused_mut))]
        let mut definitions = self.tools.definitions();
        #[cfg(feature = "approvals")]
        if let Some(gate) = &self.approvals {
            definitions.retain(|definition| !gate.hides_tool(&definition.name));
        }
        definitions
    }

    /// The time limit of a tool.
    pub(crate) fn timeout_for(&self, tool: &str) -> Option<Duration> {
        self.tool_timeouts.get(tool).copied().or(self.tool_timeout)
    }
}
