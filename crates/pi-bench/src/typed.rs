//! The workloads' tools declared as typed Rust structs with the seed's validators.
#![allow(missing_docs)] // Field docs would become schema descriptions; the structs mirror the workload files.

use pi_tool::{
    FnTool, ObjectParams, RegisteredTool, ToolOutput, ToolRegistry, array, boolean, enum_schema,
    enum_value, non_negative_integer, number, object, object_schema, optional, positive_integer,
    string, string_value,
};

object_schema! {
    pub struct Echo {
        pub value: String = string_value(),
    }
}

object_schema! {
    pub struct Read {
        pub path: String = string_value(),
        pub offset: Option<u64> = optional(positive_integer()),
        pub limit: Option<u64> = optional(positive_integer()),
    }
}

object_schema! {
    pub struct Edit {
        pub path: String = string_value(),
        pub old_text as "oldText": String = string_value(),
        pub new_text as "newText": String = string_value(),
    }
}

object_schema! {
    pub struct Bash {
        pub command: String = string_value(),
        pub timeout: Option<f64> = optional(number().exclusive_minimum(0.0)),
    }
}

object_schema! {
    pub struct Grep {
        pub pattern: String = string_value(),
        pub path: Option<String> = optional(string_value()),
        pub glob: Option<String> = optional(string_value()),
        pub ignore_case as "ignoreCase": Option<bool> = optional(boolean()),
        pub literal: Option<bool> = optional(boolean()),
        pub context: Option<u64> = optional(non_negative_integer()),
        pub limit: Option<u64> = optional(positive_integer()),
    }
}

enum_schema! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Team {
        Core = "core",
        Infra = "infra",
        Web = "web",
        Ml = "ml",
        Docs = "docs",
    }
}

enum_schema! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Role {
        Author = "author",
        Reviewer = "reviewer",
        Approver = "approver",
    }
}

enum_schema! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum CheckKind {
        Lint = "lint",
        Test = "test",
        Build = "build",
        Security = "security",
    }
}

enum_schema! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Priority {
        Low = "low",
        Medium = "medium",
        High = "high",
        Critical = "critical",
    }
}

enum_schema! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Status {
        Todo = "todo",
        InProgress = "in_progress",
        Blocked = "blocked",
        Done = "done",
    }
}

enum_schema! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Environment {
        Dev = "dev",
        Staging = "staging",
        Prod = "prod",
    }
}

object_schema! {
    pub struct Assignee {
        pub id: u64 = positive_integer(),
        pub name: String = string_value(),
        pub email: Option<String> = optional(string_value()),
        pub team: Option<Team> = optional(enum_value::<Team>()),
    }
}

object_schema! {
    pub struct Owner {
        pub name: String = string_value(),
        pub role: Role = enum_value::<Role>(),
    }
}

object_schema! {
    pub struct Subtask {
        pub id: u64 = positive_integer(),
        pub title: String = string_value(),
        pub done: bool = boolean(),
        pub owner: Option<Owner> = optional(object::<Owner>()),
    }
}

object_schema! {
    pub struct Attachment {
        pub name: String = string_value(),
        pub size_bytes: u64 = non_negative_integer(),
        pub mime: Option<String> = optional(string_value()),
    }
}

object_schema! {
    pub struct Commit {
        pub sha: String = string_value(),
        pub message: Option<String> = optional(string_value()),
    }
}

object_schema! {
    pub struct Repo {
        pub owner: String = string_value(),
        pub name: String = string_value(),
        pub branch: Option<String> = optional(string_value()),
        pub commit: Option<Commit> = optional(object::<Commit>()),
    }
}

object_schema! {
    pub struct Metadata {
        pub source: Option<String> = optional(string_value()),
        pub version: Option<String> = optional(string_value()),
        pub tags: Option<Vec<String>> = optional(array(string_value())),
    }
}

object_schema! {
    pub struct Check {
        pub name: String = string_value(),
        pub required: Option<bool> = optional(boolean()),
        pub kind: CheckKind = enum_value::<CheckKind>(),
    }
}

object_schema! {
    pub struct PlanTask {
        pub title: String = string().min_length(1),
        pub description: Option<String> = optional(string_value()),
        pub priority: Priority = enum_value::<Priority>(),
        pub status: Status = enum_value::<Status>(),
        pub assignee: Assignee = object::<Assignee>(),
        pub labels: Option<Vec<String>> = optional(array(string_value()).max_items(32)),
        pub estimate_hours: Option<f64> = optional(number().minimum(0.0)),
        pub due_date: Option<String> = optional(string_value()),
        pub depends_on: Option<Vec<u64>> = optional(array(positive_integer())),
        pub subtasks: Vec<Subtask> = array(object::<Subtask>()),
        pub attachments: Option<Vec<Attachment>> = optional(array(object::<Attachment>())),
        pub repo: Repo = object::<Repo>(),
        pub environment: Environment = enum_value::<Environment>(),
        pub notify: Option<bool> = optional(boolean()),
        pub retries: Option<u64> = optional(non_negative_integer().maximum(10)),
        pub timeout_s: Option<f64> = optional(number().exclusive_minimum(0.0)),
        pub metadata: Option<Metadata> = optional(object::<Metadata>()),
        pub checks: Option<Vec<Check>> = optional(array(object::<Check>())),
        pub reviewers: Option<Vec<String>> = optional(array(string_value())),
        pub dry_run: Option<bool> = optional(boolean()),
    }
}

/// A tool whose `execute` returns one string field of its typed parameters.
fn returning<P: ObjectParams>(name: &str, text: fn(P) -> String) -> RegisteredTool {
    RegisteredTool::new(FnTool::new(
        name,
        "benchmark tool",
        P::object_schema(),
        move |params: P, _cx| async move { Ok(ToolOutput::text(text(params))) },
    ))
}

/// Every typed tool of the three workloads; a workload calls the ones it names.
pub fn registry() -> ToolRegistry {
    let tools = [
        returning::<Echo>("echo", |p| p.value),
        returning::<Read>("read", |p| p.path),
        returning::<Edit>("edit", |p| p.path),
        returning::<Bash>("bash", |p| p.command),
        returning::<Grep>("grep", |p| p.pattern),
        returning::<PlanTask>("plan_task", |p| p.title),
    ];
    #[expect(
        clippy::expect_used,
        reason = "the workload's tool names are distinct constants"
    )]
    let registry = ToolRegistry::new(tools).expect("the workload's tools have distinct names");
    registry
}
