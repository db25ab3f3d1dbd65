//! Which tools the model is offered, as Pi chooses them: by default `read`, `bash`, `edit` and
//! `write` of the seven coding tools, plus every tool an MCP server brought (Pi's extension
//! tools); `--tools` names exactly the tools offered, `--exclude-tools` takes some away,
//! `--no-builtin-tools` leaves only the MCP servers' and `--no-tools` none.

use pi_tool::{RegisteredTool, ToolRegistry};

/// The coding tools offered when no flag says otherwise (Pi's default set).
pub const DEFAULT_TOOLS: [&str; 4] = ["read", "bash", "edit", "write"];

/// The tool flags of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolSelection {
    /// `--tools`: exactly these (built-in or imported); `None`: the defaults.
    pub only: Option<Vec<String>>,
    /// `--exclude-tools`: never these.
    pub exclude: Vec<String>,
    /// `--no-tools`: none, unless `--tools` names some.
    pub no_tools: bool,
    /// `--no-builtin-tools`: none of the coding tools, unless `--tools` names some.
    pub no_builtin_tools: bool,
}

/// The tools offered, and the names `--tools` or `--exclude-tools` gave that no tool has.
#[derive(Debug)]
pub struct SelectedTools {
    /// The tools the model is offered.
    pub tools: ToolRegistry,
    /// Names given that match no tool (a typo, or a server that did not start).
    pub unknown: Vec<String>,
}

impl ToolSelection {
    /// The tools of `available` (the coding tools and the MCP servers' imports) this selection
    /// offers, in `available`'s order.
    pub fn select(
        &self,
        available: &ToolRegistry,
    ) -> Result<SelectedTools, pi_tool::RegistryError> {
        let offered = |tool: &RegisteredTool| {
            let name = tool.name();
            if self.exclude.iter().any(|excluded| excluded == name) {
                return false;
            }
            if let Some(only) = &self.only {
                return only.iter().any(|wanted| wanted == name);
            }
            if self.no_tools {
                return false;
            }
            if tool.is_imported() {
                return true;
            }
            !self.no_builtin_tools && DEFAULT_TOOLS.contains(&name)
        };
        let tools = ToolRegistry::new(available.list().filter(|tool| offered(tool)).cloned())?
            .with_wording(available.wording());
        let unknown = self
            .only
            .iter()
            .flatten()
            .chain(&self.exclude)
            .filter(|name| available.get(name).is_none())
            .cloned()
            .collect();
        Ok(SelectedTools { tools, unknown })
    }
}

/// A comma-separated list of names (`read,grep , find`), without empty ones.
pub fn name_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn names(selection: &ToolSelection, available: &ToolRegistry) -> Vec<String> {
        selection
            .select(available)
            .unwrap()
            .tools
            .list()
            .map(|tool| tool.name().to_owned())
            .collect()
    }

    /// The seven coding tools and one tool "imported" from an MCP server.
    fn coding_tools() -> ToolRegistry {
        let dir = tempfile::tempdir().unwrap();
        let mut tools =
            pi_coding_tools::all_tools(&pi_coding_tools::Workspace::unconfined(dir.path()));
        let echo = pi_tool::builtin::registry().get("echo").unwrap().clone();
        tools.register(echo.imported_from("server")).unwrap();
        tools
    }

    #[test]
    fn pi_defaults_then_each_flag() {
        let available = coding_tools();
        let mut selection = ToolSelection::default();
        let mut defaults = names(&selection, &available);
        defaults.sort();
        assert_eq!(defaults, ["bash", "echo", "edit", "read", "write"]);
        selection.only = Some(name_list("read, grep,find,ls,nope"));
        assert_eq!(
            names(&selection, &available),
            ["read", "grep", "find", "ls"]
        );
        assert_eq!(selection.select(&available).unwrap().unknown, ["nope"]);
        selection.exclude = name_list("grep");
        assert_eq!(names(&selection, &available), ["read", "find", "ls"]);
        let none = ToolSelection {
            no_tools: true,
            ..ToolSelection::default()
        };
        assert!(names(&none, &available).is_empty());
        let no_builtin = ToolSelection {
            no_builtin_tools: true,
            ..ToolSelection::default()
        };
        assert_eq!(names(&no_builtin, &available), ["echo"]);
    }
}
