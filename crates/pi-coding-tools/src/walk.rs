//! Walking a directory as ripgrep and fd do: `.gitignore` respected (inside a git repository or
//! not, as Pi's explicit `--ignore-file`s make it), hidden files included, `.git` itself skipped.

use std::path::{Path, PathBuf};

use ignore::{DirEntry, WalkBuilder};
use pi_tool::ToolError;
use tokio_util::sync::CancellationToken;

/// What a model is told when its call is cancelled mid-walk.
pub(crate) const ABORTED: &str = "Operation aborted";

/// The walker over `root`, optionally narrowed by a `--glob`-style override.
pub(crate) fn walker(root: &Path, glob: Option<&str>) -> Result<WalkBuilder, ToolError> {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .require_git(false)
        .sort_by_file_path(Path::cmp)
        .filter_entry(|entry| entry.file_name() != ".git");
    if let Some(glob) = glob {
        let overrides = ignore::overrides::OverrideBuilder::new(root)
            .add(glob)
            .and_then(|builder| builder.build())
            .map_err(|error| ToolError::new(format!("Invalid glob {glob}: {error}")))?;
        builder.overrides(overrides);
    }
    Ok(builder)
}

/// The entries below `root` (not `root` itself), until `visit` says stop or the call is
/// cancelled. Unreadable entries are skipped.
pub(crate) fn each_entry(
    builder: &WalkBuilder,
    signal: &CancellationToken,
    mut visit: impl FnMut(&DirEntry) -> bool,
) -> Result<(), ToolError> {
    for entry in builder.build().filter_map(Result::ok) {
        if signal.is_cancelled() {
            return Err(ToolError::new(ABORTED));
        }
        if entry.depth() == 0 {
            continue;
        }
        if !visit(&entry) {
            break;
        }
    }
    Ok(())
}

/// `path` relative to `root`, with `/` separators whatever the platform.
pub(crate) fn relative(root: &Path, path: &Path) -> String {
    let relative: PathBuf = path.strip_prefix(root).unwrap_or(path).to_path_buf();
    relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}
