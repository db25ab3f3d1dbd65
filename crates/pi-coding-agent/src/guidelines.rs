//! The guidelines of the default prompt: which depend on the tools offered (a model told to
//! use `read` when it has none calls a tool that does not exist), then those that always hold.

use crate::tools::OfferedTool;

/// The guidelines for a run offering `tools`, each once, in the order they are shown.
pub(crate) fn guidelines(tools: &[OfferedTool]) -> Vec<&'static str> {
    let has = |name: &str| tools.iter().any(|tool| tool.name == name);
    let mut lines = Vec::new();
    // Without the search tools, the shell is how files are found.
    if has("bash") && !has("grep") && !has("find") && !has("ls") {
        lines.push("Find and list files with bash (ls, rg, find).");
    }
    if has("read") {
        lines.push("Look at files with read, not with cat or sed through bash.");
    }
    if has("edit") {
        lines.push(
            "Change existing files with edit: every oldText must match the file exactly, once.",
        );
        lines.push(
            "Put several changes to one file into one edit call, as several entries of edits[]; \
             each oldText is matched against the file as it was before the call, so entries must \
             not overlap.",
        );
        lines.push(
            "Keep each oldText short but unique; do not copy large unchanged regions into it.",
        );
    }
    if has("write") {
        lines.push("Use write only to create a file or to replace all of it.");
    }
    lines.push("Keep your answers short.");
    lines.push("Name the files you work on by their paths.");
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offered(names: &[&str]) -> Vec<OfferedTool> {
        names
            .iter()
            .map(|name| OfferedTool::new(*name, "x"))
            .collect()
    }

    #[test]
    fn file_tool_guidelines_appear_only_with_their_tools() {
        let none = guidelines(&offered(&["echo"]));
        assert_eq!(none.len(), 2);
        let bash_only = guidelines(&offered(&["bash"]));
        assert!(bash_only.iter().any(|line| line.contains("with bash")));
        let all = guidelines(&offered(&[
            "read", "bash", "edit", "write", "grep", "find", "ls",
        ]));
        assert!(!all.iter().any(|line| line.contains("with bash (ls")));
        assert!(
            all.iter()
                .any(|line| line.contains("with read, not with cat"))
        );
        assert!(all.iter().any(|line| line.starts_with("Use write only")));
        assert_eq!(all.len(), 7);
    }
}
