//! Pi's built-in coding tools: `read`, `write`, `edit`, `bash`, `grep`, `find`, `ls`.
//!
//! Why a crate of its own: these are tools like any other, built only on the `pi-tool`
//! contract, so a host that wants Pi's coding tools (an MCP server, another agent) takes them
//! without the loop or a model; and they carry what no other crate should (ripgrep's crates,
//! image decoding, the kernel sandboxes: Landlock, seccomp, bubblewrap).
//!
//! Each is declared once as a typed Rust struct ([`params`]) whose JSON Schema and parser come
//! from the same declaration, and implemented as Pi's behaves: the same limits (2 000 lines,
//! 50 KB), the same notices telling the model how to continue, the same texts. Where upstream
//! is known to be wrong (it counts UTF-16 units as "bytes", blocks its event loop in `find`,
//! lets parallel writes to one file race), these do better and say so where it happens.
//!
//! All tools of a set share one [`Workspace`]: the directory relative paths resolve against,
//! and the per-file queue that makes writers of one file wait for each other.
//!
//! ```
//! use pi_coding_tools::{Workspace, read_only_tools};
//!
//! let tools = read_only_tools(&Workspace::new("."));
//! let names: Vec<_> = tools.list().map(|tool| tool.name()).collect();
//! assert_eq!(names, ["read", "grep", "find", "ls"]);
//! ```

mod access;
mod atomic;
mod bash;
mod blocking;
mod edit;
mod find;
mod grep;
mod image_file;
pub mod launcher;
mod ls;
pub mod params;
mod path_errors;
mod read;
mod report;
mod sandbox;
mod tool;
pub mod truncate;
mod walk;
mod workspace;
mod write;

use pi_tool::{RegisteredTool, ToolRegistry};

pub use access::{AccessFuture, CommandEnd, CommandRequest, CommandRun, CommandRunner, FileAccess};
pub use bash::bash_tool;
pub use edit::edit_tool;
pub use find::find_tool;
pub use grep::grep_tool;
pub use image_file::image_attachment;
pub use launcher::{LAUNCHER_SUBCOMMAND, LaunchError, ShellLaunch, launch};
pub use ls::ls_tool;
pub use read::read_tool;
pub use sandbox::ShellSandbox;
pub use workspace::{Unreadable, Workspace};
pub use write::write_tool;

fn registry_of(tools: impl IntoIterator<Item = RegisteredTool>) -> ToolRegistry {
    #[expect(
        clippy::expect_used,
        reason = "the tools' names are distinct constants: a duplicate is a bug in this crate"
    )]
    let registry = ToolRegistry::new(tools).expect("Pi's coding tools have distinct names");
    registry
}

/// Pi's default set: `read`, `bash`, `edit`, `write`.
pub fn coding_tools(workspace: &Workspace) -> ToolRegistry {
    registry_of([
        read_tool(workspace),
        bash_tool(workspace),
        edit_tool(workspace),
        write_tool(workspace),
    ])
}

/// All seven, in Pi's order: `read`, `write`, `edit`, `bash`, `grep`, `find`, `ls`.
pub fn all_tools(workspace: &Workspace) -> ToolRegistry {
    registry_of([
        read_tool(workspace),
        write_tool(workspace),
        edit_tool(workspace),
        bash_tool(workspace),
        grep_tool(workspace),
        find_tool(workspace),
        ls_tool(workspace),
    ])
}

/// Pi's read-only set: `read`, `grep`, `find`, `ls`.
pub fn read_only_tools(workspace: &Workspace) -> ToolRegistry {
    registry_of([
        read_tool(workspace),
        grep_tool(workspace),
        find_tool(workspace),
        ls_tool(workspace),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What each tool declares it may change (MCP's hints, read by approvals and shown by the
    /// MCP server): the readers change nothing, `write`/`edit` change files, `bash` anything.
    #[test]
    fn each_tool_says_what_it_may_change() {
        let tools = all_tools(&Workspace::new("."));
        for tool in tools.list() {
            let hints = tool.annotations();
            let expected = match tool.name() {
                "read" | "grep" | "find" | "ls" => pi_tool::ToolAnnotations::read_only(),
                "write" | "edit" => pi_tool::ToolAnnotations::destructive(),
                _ => pi_tool::ToolAnnotations::open(),
            };
            assert_eq!(hints, expected, "{}", tool.name());
        }
    }
}
