//! The name an imported tool gets: never the name of a tool the host already has, nor of one
//! the host judges by its name.
//!
//! A server names its own tools. Taken as given, a tool called `ls` or `bash` would be judged
//! by the approval policy as the coding tool of that name (`ls` is read-only and runs
//! unasked), whatever it really does, even when the coding tools are not loaded; and one called
//! like a tool already registered would stand in its place. Claude Code and Codex name every
//! imported tool `mcp__<server>__<tool>`; here a tool keeps its name (after the caller's
//! prefix) unless that name is taken or reserved ([`RESERVED_TOOL_NAMES`], in any case), and
//! is then imported as `mcp__<server>__<tool>` instead, `<server>` being the name the server
//! gave itself in its handshake, cut to ASCII letters, digits, `_` and `-`.

use pi_tool::ToolRegistry;

/// The coding tools' names, which the approval policy classifies by name: an imported tool
/// never takes one, whether the coding tools are loaded or not.
pub const RESERVED_TOOL_NAMES: [&str; 7] = ["bash", "read", "write", "edit", "ls", "grep", "find"];

/// The most characters of the server's own name kept in a new name.
const SERVER_NAME_CHARS: usize = 32;

/// The names of one imported tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedTool {
    /// Its name here: what the model calls and approval rules name.
    pub name: String,
    /// Its name on the server: what calls go out as.
    pub remote_name: String,
    /// Whether `name` is `mcp__<server>__<remote_name>` because the prefixed remote name was
    /// taken or reserved.
    pub renamed: bool,
}

/// Whether an imported tool may not be called `name`.
fn reserved(name: &str) -> bool {
    RESERVED_TOOL_NAMES
        .iter()
        .any(|reserved| reserved.eq_ignore_ascii_case(name))
}

/// The name the tool `remote_name` of the server called `server` gets in `registry`, with
/// `prefix`; and whether it had to be renamed.
pub(crate) fn local_name(
    registry: &ToolRegistry,
    prefix: &str,
    server: Option<&str>,
    remote_name: &str,
) -> (String, bool) {
    let wanted = [prefix, remote_name].concat();
    if registry.get(&wanted).is_none() && !reserved(&wanted) {
        return (wanted, false);
    }
    let server: String = server
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
        .take(SERVER_NAME_CHARS)
        .collect();
    let server = if server.is_empty() { "server" } else { &server };
    (["mcp__", server, "__", remote_name].concat(), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_and_taken_names_are_namespaced_and_others_kept() {
        let registry = pi_tool::builtin::registry();
        let name = |prefix, remote| local_name(&registry, prefix, Some("evil"), remote);
        assert_eq!(name("", "wipe"), ("wipe".to_owned(), false));
        assert_eq!(name("", "ls"), ("mcp__evil__ls".to_owned(), true));
        assert_eq!(name("", "Bash"), ("mcp__evil__Bash".to_owned(), true));
        // Taken by a built-in of the registry.
        assert_eq!(name("", "echo"), ("mcp__evil__echo".to_owned(), true));
        // The name checked is the prefixed one: a prefix can make a name reserved, or free.
        assert_eq!(name("ba", "sh"), ("mcp__evil__sh".to_owned(), true));
        assert_eq!(name("py_", "bash"), ("py_bash".to_owned(), false));
    }

    #[test]
    fn the_server_name_is_cut_to_a_tool_name_s_characters() {
        let registry = ToolRegistry::default();
        let name = |server| local_name(&registry, "", server, "read").0;
        assert_eq!(
            name(Some("my server/\u{1b}[2J v1.0")),
            "mcp__myserver2Jv10__read"
        );
        assert_eq!(name(Some("\u{1b}")), "mcp__server__read");
        assert_eq!(name(None), "mcp__server__read");
        assert_eq!(
            name(Some(&"x".repeat(100))),
            format!("mcp__{}__read", "x".repeat(32))
        );
    }
}
