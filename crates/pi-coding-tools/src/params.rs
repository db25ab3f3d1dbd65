//! The parameters of Pi's seven coding tools, as Pi shows them to a model.
//!
//! Derived with [`ToolParams`]: the schemas are exactly Pi's (no `$defs`, no integer
//! `format`s, no type arrays), so every provider dialect renders them cleanly, and parsing walks
//! the arguments once without a JSON Schema engine on the hot path.

#![allow(missing_docs)] // Field docs are the model-facing descriptions; each struct is documented.

use pi_tool::ToolParams;
use pi_tool::schema::ObjectParams;

/// `read`: a file's contents, optionally a window of lines.
#[derive(Debug, Clone, PartialEq, ToolParams)]
pub struct ReadParams {
    /// Path to the file to read (relative or absolute)
    pub path: String,
    /// Line number to start reading from (1-indexed)
    #[param(min = 1)]
    pub offset: Option<u64>,
    /// Maximum number of lines to read
    #[param(min = 1)]
    pub limit: Option<u64>,
}

/// `write`: create or overwrite a file.
#[derive(Debug, Clone, PartialEq, ToolParams)]
pub struct WriteParams {
    /// Path to the file to write (relative or absolute)
    pub path: String,
    /// Content to write to the file
    pub content: String,
}

/// One replacement of an `edit`.
#[derive(Debug, Clone, PartialEq, ToolParams)]
#[serde(rename_all = "camelCase")]
pub struct EditOperation {
    /// Exact text to find and replace (must match exactly)
    pub old_text: String,
    /// New text to replace the old text with
    pub new_text: String,
}

/// `edit`: one or more exact-text replacements in one file.
#[derive(Debug, Clone, PartialEq, ToolParams)]
pub struct EditParams {
    /// Path to the file to edit (relative or absolute)
    pub path: String,
    /// Replacements to make; each oldText must occur exactly once in the original file
    #[param(min_items = 1)]
    pub edits: Vec<EditOperation>,
}

/// `bash`: run a command.
#[derive(Debug, Clone, PartialEq, ToolParams)]
pub struct BashParams {
    /// Bash command to execute
    pub command: String,
    /// Timeout in seconds (optional)
    #[param(exclusive_min = 0.0)]
    pub timeout: Option<f64>,
}

/// `grep`: search file contents.
#[derive(Debug, Clone, PartialEq, ToolParams)]
pub struct GrepParams {
    /// Search pattern (regex or literal string)
    pub pattern: String,
    /// Directory or file to search (default: current directory)
    pub path: Option<String>,
    /// Filter files by glob pattern, e.g. '*.ts'
    pub glob: Option<String>,
    /// Case-insensitive search (default: false)
    #[serde(rename = "ignoreCase")]
    pub ignore_case: Option<bool>,
    /// Treat pattern as literal string (default: false)
    pub literal: Option<bool>,
    /// Lines of context around each match
    pub context: Option<u64>,
    /// Maximum number of matches to return (default: 100)
    #[param(min = 1)]
    pub limit: Option<u64>,
}

/// `find`: files by glob pattern.
#[derive(Debug, Clone, PartialEq, ToolParams)]
pub struct FindParams {
    /// Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'
    pub pattern: String,
    /// Directory to search in (default: current directory)
    pub path: Option<String>,
    /// Maximum number of results (default: 1000)
    #[param(min = 1)]
    pub limit: Option<u64>,
}

/// `ls`: a directory's entries.
#[derive(Debug, Clone, PartialEq, ToolParams)]
pub struct LsParams {
    /// Directory to list (default: current directory)
    pub path: Option<String>,
    /// Maximum number of entries to return (default: 500)
    #[param(min = 1)]
    pub limit: Option<u64>,
}

/// One coding tool as a model is shown it, before it has an implementation.
#[derive(Debug, Clone, Copy)]
pub struct ToolSchema {
    /// The tool's name.
    pub name: &'static str,
    /// What it does, for the model.
    pub description: &'static str,
    /// The JSON Schema of its parameters.
    pub parameters: fn() -> &'static serde_json::Value,
}

fn shown<T: ObjectParams>() -> &'static serde_json::Value {
    // An object schema always has a JSON Schema; `Null` only to avoid a panic path.
    static NULL: serde_json::Value = serde_json::Value::Null;
    pi_tool::schema::Schema::json_schema(T::object_schema()).unwrap_or(&NULL)
}

/// The seven tools in Pi's order, with Pi's descriptions.
pub const TOOL_SCHEMAS: [ToolSchema; 7] = [
    ToolSchema {
        name: "read",
        description: "Read the contents of a file. Output is truncated; use offset/limit for large files.",
        parameters: shown::<ReadParams>,
    },
    ToolSchema {
        name: "write",
        description: "Write content to a file. Creates the file if it does not exist, overwrites it if it does. Creates parent directories.",
        parameters: shown::<WriteParams>,
    },
    ToolSchema {
        name: "edit",
        description: "Edit a file by replacing exact text. Each oldText must match exactly once, including whitespace.",
        parameters: shown::<EditParams>,
    },
    ToolSchema {
        name: "bash",
        description: "Execute a bash command in the current working directory.",
        parameters: shown::<BashParams>,
    },
    ToolSchema {
        name: "grep",
        description: "Search file contents for a pattern. Respects .gitignore.",
        parameters: shown::<GrepParams>,
    },
    ToolSchema {
        name: "find",
        description: "Search for files by glob pattern. Respects .gitignore.",
        parameters: shown::<FindParams>,
    },
    ToolSchema {
        name: "ls",
        description: "List directory contents, including dotfiles.",
        parameters: shown::<LsParams>,
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use pi_tool::schema::Schema;
    use serde_json::json;

    #[test]
    fn edit_parses_nested_operations_and_reports_paths() {
        let schema = EditParams::object_schema();
        let parsed = schema
            .parse(&json!({"path": "a.rs", "edits": [{"oldText": "a", "newText": "b", "x": 1}]}))
            .unwrap();
        assert_eq!(parsed.edits[0].old_text, "a");
        let error = schema
            .parse(&json!({"path": "a.rs", "edits": [{"oldText": 1, "newText": "b"}, {}]}))
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "参数有 3 处错误：\n\
             - edits[0].oldText: 必须是 string，收到 number 1\n\
             - edits[1].oldText: 必须是 string，但缺失\n\
             - edits[1].newText: 必须是 string，但缺失"
        );
    }

    #[test]
    fn grep_uses_pi_camel_case_names() {
        let parsed = GrepParams::object_schema()
            .parse(&json!({"pattern": "x", "ignoreCase": true, "context": 0}))
            .unwrap();
        assert_eq!((parsed.ignore_case, parsed.context), (Some(true), Some(0)));
        let shown = (TOOL_SCHEMAS[4].parameters)();
        assert!(shown["properties"]["ignoreCase"].is_object());
    }
}
