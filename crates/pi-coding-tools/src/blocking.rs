//! File-system work off the async executor.

use pi_tool::{ToolError, panic_message};

/// Runs `work` on tokio's blocking pool when a runtime is there (so a large search never stalls
/// other tasks), inline otherwise. A panic in `work` becomes the call's error.
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ToolError> {
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => runtime.spawn_blocking(work).await.map_err(|error| {
            if error.is_panic() {
                ToolError::new(panic_message(error.into_panic().as_ref()))
            } else {
                ToolError::new("the work was cancelled")
            }
        }),
        Err(_) => Ok(work()),
    }
}
