//! A call's outcome as a type: why it failed, beside the paired result that says so. The agent
//! loop, the MCP server and telemetry read the kind; the model reads the message. The text is
//! rendered once, where the failure happens ([`crate::failure`]).

use crate::ToolResultMessage;

/// Why a call failed. Every kind is answered with a paired result (`isError: true`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FailureKind {
    /// The registry has no tool of the requested name; nothing was parsed or run.
    UnknownTool,
    /// The arguments did not validate; the tool never ran.
    InvalidArguments,
    /// The tool ran and reported a failure: an `Err`, or an output marked `isError`.
    ToolError,
    /// The tool (or its parameters' parser) panicked; the panic was contained.
    Panic,
    /// The call ran past its time limit.
    Timeout,
    /// The caller's signal stopped the call, or it was never started.
    Aborted,
    /// A hook, an approval or a limit refused the call before it ran.
    Denied,
}

/// A call that failed before its tool ran (an unknown tool, invalid arguments, a panicking
/// parser): its kind and its paired result, already rendered.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", message.text())]
pub struct CallFailure {
    kind: FailureKind,
    message: Box<ToolResultMessage>,
}

impl CallFailure {
    /// A failure of `kind` answered by `message`.
    pub fn new(kind: FailureKind, message: ToolResultMessage) -> Self {
        Self {
            kind,
            message: Box::new(message),
        }
    }

    /// Why the call failed.
    pub fn kind(&self) -> FailureKind {
        self.kind
    }

    /// The paired result the caller answers with.
    pub fn message(&self) -> &ToolResultMessage {
        &self.message
    }

    /// The paired result, taken.
    pub fn into_message(self) -> ToolResultMessage {
        *self.message
    }

    /// As the outcome of a call that never ran.
    pub fn into_executed(self) -> ExecutedCall {
        ExecutedCall::failed(self.kind, *self.message)
    }
}

/// What running a call produced: its one result message, whether the tool asked an agent loop
/// to stop after this batch, and why it failed if it did.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecutedCall {
    /// The paired result.
    pub message: ToolResultMessage,
    /// The tool's [`ToolOutput::terminate`](crate::ToolOutput::terminate); `false` for every failure.
    pub terminate: bool,
    /// Why the call failed; `None` when it succeeded.
    pub failure: Option<FailureKind>,
}

impl ExecutedCall {
    /// A call that failed as `kind`, answered by `message`.
    pub fn failed(kind: FailureKind, message: ToolResultMessage) -> Self {
        Self {
            message,
            terminate: false,
            failure: Some(kind),
        }
    }
}

impl From<CallFailure> for ExecutedCall {
    fn from(failure: CallFailure) -> Self {
        failure.into_executed()
    }
}
