//! What a caller hands to every tool it runs, before the call's id is known.

use arcstr::ArcStr;
use tokio_util::sync::CancellationToken;

use crate::{ProgressCallback, ToolContext};

/// The caller's part of a [`ToolContext`]: cancellation and where progress goes.
///
/// There is no call id here on purpose: the call path sets it from the call, last, so a caller
/// cannot make a tool believe it is answering another call.
#[derive(Clone, Debug, Default)]
pub struct CallContext {
    /// Cancellation for the call; when `None`, nothing can cancel it (a tool that asks for its
    /// signal gets a token that is never cancelled).
    pub signal: Option<CancellationToken>,
    /// Receives the tool's progress reports.
    pub report_progress: Option<ProgressCallback>,
}

impl CallContext {
    /// The tool's context for the call `call_id`.
    pub(crate) fn for_call(self, call_id: &ArcStr) -> ToolContext {
        let mut context = ToolContext::new(call_id.clone());
        if let Some(signal) = self.signal {
            context = context.with_signal(signal);
        }
        if let Some(callback) = self.report_progress {
            context = context.with_progress(callback);
        }
        context
    }
}
