//! The workloads' tools declared as typed Rust structs with `#[derive(Deserialize, ToolParams)]`.
#![allow(missing_docs)] // Field docs would become schema descriptions; the structs mirror the workload files.

use pi_tool::schema::ObjectParams;
use pi_tool::{FnTool, RegisteredTool, ToolOutput, ToolParams, ToolRegistry};
use serde::Deserialize;

#[derive(Deserialize, ToolParams)]
pub struct Echo {
    pub value: String,
}

#[derive(Deserialize, ToolParams)]
pub struct Read {
    pub path: String,
    #[param(min = 1)]
    pub offset: Option<u64>,
    #[param(min = 1)]
    pub limit: Option<u64>,
}

#[derive(Deserialize, ToolParams)]
#[serde(rename_all = "camelCase")]
pub struct Edit {
    pub path: String,
    pub old_text: String,
    pub new_text: String,
}

#[derive(Deserialize, ToolParams)]
pub struct Bash {
    pub command: String,
    #[param(exclusive_min = 0.0)]
    pub timeout: Option<f64>,
}

#[derive(Deserialize, ToolParams)]
#[serde(rename_all = "camelCase")]
pub struct Grep {
    pub pattern: String,
    pub path: Option<String>,
    pub glob: Option<String>,
    pub ignore_case: Option<bool>,
    pub literal: Option<bool>,
    pub context: Option<u64>,
    #[param(min = 1)]
    pub limit: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToolParams)]
#[serde(rename_all = "lowercase")]
pub enum Team {
    Core,
    Infra,
    Web,
    Ml,
    Docs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToolParams)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Author,
    Reviewer,
    Approver,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToolParams)]
#[serde(rename_all = "lowercase")]
pub enum CheckKind {
    Lint,
    Test,
    Build,
    Security,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToolParams)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    Low,
    Medium,
    High,
    Critical,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToolParams)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Todo,
    InProgress,
    Blocked,
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToolParams)]
#[serde(rename_all = "lowercase")]
pub enum Environment {
    Dev,
    Staging,
    Prod,
}

#[derive(Deserialize, ToolParams)]
pub struct Assignee {
    #[param(min = 1)]
    pub id: u64,
    pub name: String,
    pub email: Option<String>,
    pub team: Option<Team>,
}

#[derive(Deserialize, ToolParams)]
pub struct Owner {
    pub name: String,
    pub role: Role,
}

#[derive(Deserialize, ToolParams)]
pub struct Subtask {
    #[param(min = 1)]
    pub id: u64,
    pub title: String,
    pub done: bool,
    pub owner: Option<Owner>,
}

#[derive(Deserialize, ToolParams)]
pub struct Attachment {
    pub name: String,
    pub size_bytes: u64,
    pub mime: Option<String>,
}

#[derive(Deserialize, ToolParams)]
pub struct Commit {
    pub sha: String,
    pub message: Option<String>,
}

#[derive(Deserialize, ToolParams)]
pub struct Repo {
    pub owner: String,
    pub name: String,
    pub branch: Option<String>,
    pub commit: Option<Commit>,
}

#[derive(Deserialize, ToolParams)]
pub struct Metadata {
    pub source: Option<String>,
    pub version: Option<String>,
    pub tags: Option<Vec<String>>,
}

#[derive(Deserialize, ToolParams)]
pub struct Check {
    pub name: String,
    pub required: Option<bool>,
    pub kind: CheckKind,
}

#[derive(Deserialize, ToolParams)]
pub struct PlanTask {
    #[param(min_length = 1)]
    pub title: String,
    pub description: Option<String>,
    pub priority: Priority,
    pub status: Status,
    pub assignee: Assignee,
    #[param(max_items = 32)]
    pub labels: Option<Vec<String>>,
    #[param(min = 0.0)]
    pub estimate_hours: Option<f64>,
    pub due_date: Option<String>,
    #[param(items(min = 1))]
    pub depends_on: Option<Vec<u64>>,
    pub subtasks: Vec<Subtask>,
    pub attachments: Option<Vec<Attachment>>,
    pub repo: Repo,
    pub environment: Environment,
    pub notify: Option<bool>,
    #[param(max = 10)]
    pub retries: Option<u64>,
    #[param(exclusive_min = 0.0)]
    pub timeout_s: Option<f64>,
    pub metadata: Option<Metadata>,
    pub checks: Option<Vec<Check>>,
    pub reviewers: Option<Vec<String>>,
    pub dry_run: Option<bool>,
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
