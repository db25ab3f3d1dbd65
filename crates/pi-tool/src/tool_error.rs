//! How a tool fails: a message for the model, the error it came from, optional details.

use std::fmt;
use std::sync::Arc;

/// A tool's failure: its message is what the model reads after `Tool <name> failed: `.
///
/// Any `std::error::Error`, an `anyhow::Error` or a `String` converts into it, so `?` works
/// inside `execute`:
///
/// ```
/// use pi_tool::ToolError;
///
/// fn read() -> Result<String, ToolError> {
///     Ok(std::fs::read_to_string("/definitely/not/here")?)
/// }
/// let error = read().unwrap_err();
/// assert!(error.message().contains("No such file"));
/// // The error it came from is kept, for logs and for `downcast_ref`.
/// let io = error.source().and_then(|source| source.downcast_ref::<std::io::Error>()).unwrap();
/// assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
/// assert_eq!(ToolError::new("exploded").message(), "exploded");
/// ```
///
/// Like `anyhow::Error`, it does not itself implement `std::error::Error`: that is what lets
/// every error type convert into it.
#[derive(Debug, Clone)]
pub struct ToolError {
    message: String,
    /// The error this one was converted from, if any.
    source: Option<Arc<dyn std::error::Error + Send + Sync + 'static>>,
    /// Details for the program, set beside `{"error": message}` in the result (boxed: most
    /// failures have none, and results travel by value).
    details: Option<Box<serde_json::Map<String, serde_json::Value>>>,
}

impl PartialEq for ToolError {
    /// Two failures are equal when the model reads the same text.
    fn eq(&self, other: &Self) -> bool {
        self.message == other.message
    }
}

impl Eq for ToolError {}

impl ToolError {
    /// A failure with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            source: None,
            details: None,
        }
    }

    /// A failure with this message, caused by `source` (kept for logs and `downcast_ref`; the
    /// model reads only the message).
    pub fn with_source(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self {
            message: message.into(),
            source: Some(Arc::new(source)),
            details: None,
        }
    }

    /// The same failure with `key: value` in its result's details, beside `error` (what a
    /// program reads without parsing the message, such as a
    /// [`SandboxRefusal`](crate::SandboxRefusal)).
    #[must_use]
    pub fn with_detail(mut self, key: &str, value: serde_json::Value) -> Self {
        self.details
            .get_or_insert_with(Default::default)
            .insert(key.to_owned(), value);
        self
    }

    /// The details set with [`ToolError::with_detail`], as the result will hold them
    /// (without `error`); `None` when there are none.
    pub fn details(&self) -> Option<&serde_json::Map<String, serde_json::Value>> {
        self.details.as_deref()
    }

    /// The message the model will read.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The error this failure came from, if it was converted from one.
    pub fn source(&self) -> Option<&(dyn std::error::Error + Send + Sync + 'static)> {
        self.source.as_deref()
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Every error type, `anyhow::Error` (which is not a `std::error::Error`) and plain strings
/// convert: the bound is what `Box<dyn Error>` converts from, so `?` works on all of them.
/// The message is the error and its causes, each said once (see [`error_text`](crate::error_text)):
/// the model needs the reason, not only the outermost context. The error itself is kept as the
/// source, its chain whole.
impl<E> From<E> for ToolError
where
    E: Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
{
    fn from(error: E) -> Self {
        let error: Box<dyn std::error::Error + Send + Sync + 'static> = error.into();
        Self {
            message: crate::error_text(error.as_ref()),
            source: Some(Arc::from(error)),
            details: None,
        }
    }
}
