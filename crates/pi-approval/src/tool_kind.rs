//! What the policy knows about a tool from its name: Pi's `bash` takes a command line, Pi's
//! file tools take a path. Only these take rule specifiers; every other tool (the demo tools,
//! MCP tools) is matched by name alone and judged by its annotations.

/// How the policy reads a tool's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// `bash`: the `command` argument is split into simple commands.
    Shell,
    /// A file tool: the path argument is resolved as confinement resolves it.
    File {
        /// The argument that holds the path.
        key: &'static str,
        /// The path when the argument is absent (`.` for `ls`, `find`, `grep`).
        default: Option<&'static str>,
        /// Whether the tool changes the file (`write`, `edit`).
        changes: bool,
    },
    /// Anything else.
    Other,
}

impl ToolKind {
    /// The kind of the tool called `name`.
    pub fn of(name: &str) -> Self {
        match name {
            "bash" => Self::Shell,
            "read" => Self::file(None, false),
            "write" | "edit" => Self::file(None, true),
            "ls" | "find" | "grep" => Self::file(Some("."), false),
            _ => Self::Other,
        }
    }

    /// The kind a rule's tool pattern stands for; `None` for a pattern with `*` (it may stand
    /// for tools of several kinds, so it takes no specifier).
    pub(crate) fn of_rule_name(pattern: &str) -> Option<Self> {
        (!pattern.contains('*')).then(|| Self::of(pattern))
    }

    const fn file(default: Option<&'static str>, changes: bool) -> Self {
        Self::File {
            key: "path",
            default,
            changes,
        }
    }
}
