//! What a tool says when the path it was given cannot be used: "Path not found" only when it
//! is not there (Pi's words), the real reason otherwise. A directory the user may not read
//! was reported as missing, and a model told a path does not exist goes looking elsewhere.

use std::path::Path;

use pi_tool::ToolError;

/// The error for a path whose metadata could not be read.
pub(crate) fn unusable(path: &Path, error: &std::io::Error) -> ToolError {
    let shown = path.display();
    match error.kind() {
        std::io::ErrorKind::NotFound => ToolError::new(format!("Path not found: {shown}")),
        std::io::ErrorKind::PermissionDenied => {
            ToolError::new(format!("Permission denied: {shown}"))
        }
        _ => ToolError::new(format!("Cannot use {shown}: {error}")),
    }
}

/// `path`'s metadata, or the error a tool answers with.
pub(crate) fn metadata(path: &Path) -> Result<std::fs::Metadata, ToolError> {
    std::fs::metadata(path).map_err(|error| unusable(path, &error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cause_is_named() {
        let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let path = Path::new("/x");
        assert_eq!(unusable(path, &missing).to_string(), "Path not found: /x");
        assert_eq!(unusable(path, &denied).to_string(), "Permission denied: /x");
    }
}
