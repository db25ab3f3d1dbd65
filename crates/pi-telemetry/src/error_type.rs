//! The values of `error.type` on our spans and metrics.

/// Why a tool call, a model request or a run failed, as `error.type` names it. The
/// conventions leave the values to the instrumentation; these are ours, in snake case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorType {
    /// The model called a tool the registry does not have.
    UnknownTool,
    /// The arguments did not validate.
    InvalidArguments,
    /// The tool ran and reported a failure.
    ToolError,
    /// The tool panicked.
    Panic,
    /// The call ran past its time limit.
    Timeout,
    /// The run was cancelled before or while the call ran.
    Cancelled,
    /// A hook or the approval policy refused the call.
    Denied,
    /// The model request failed.
    ModelError,
}

impl ErrorType {
    /// The attribute value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UnknownTool => "unknown_tool",
            Self::InvalidArguments => "invalid_arguments",
            Self::ToolError => "tool_error",
            Self::Panic => "panic",
            Self::Timeout => "timeout",
            Self::Cancelled => "cancelled",
            Self::Denied => "denied",
            Self::ModelError => "model_error",
        }
    }
}

impl From<pi_tool::FailureKind> for ErrorType {
    /// The class of a failed call, read from its typed outcome.
    fn from(kind: pi_tool::FailureKind) -> Self {
        use pi_tool::FailureKind;
        match kind {
            FailureKind::UnknownTool => Self::UnknownTool,
            FailureKind::InvalidArguments => Self::InvalidArguments,
            FailureKind::Panic => Self::Panic,
            FailureKind::Timeout => Self::Timeout,
            FailureKind::Aborted => Self::Cancelled,
            FailureKind::Denied => Self::Denied,
            // `FailureKind` may grow: a kind this crate does not know yet is the tool's.
            _ => Self::ToolError,
        }
    }
}

impl std::fmt::Display for ErrorType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorType;

    #[test]
    fn every_value_is_distinct_snake_case_and_a_panic_is_not_a_tool_error() {
        let all = [
            ErrorType::UnknownTool,
            ErrorType::InvalidArguments,
            ErrorType::ToolError,
            ErrorType::Panic,
            ErrorType::Timeout,
            ErrorType::Cancelled,
            ErrorType::Denied,
            ErrorType::ModelError,
        ];
        let values: std::collections::BTreeSet<_> = all.iter().map(|e| e.as_str()).collect();
        assert_eq!(values.len(), all.len());
        assert!(
            values
                .iter()
                .all(|v| v.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        );
        assert_eq!(ErrorType::Panic.as_str(), "panic");
        assert_ne!(ErrorType::Panic, ErrorType::ToolError);
    }
}
