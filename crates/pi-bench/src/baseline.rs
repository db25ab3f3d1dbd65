//! The same layer built on plain serde: `serde_json::from_str` straight into a derived struct,
//! the bounds the schema states checked in code, then the same result message. This is what the
//! workloads' peers were measured against.
#![allow(missing_docs)] // The structs mirror the workload files field by field.

use pi_tool::{ToolCall, ToolResultMessage, failed_result, model_text, now_millis, text};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

#[derive(Deserialize)]
pub struct Echo {
    pub value: String,
}

#[derive(Deserialize)]
pub struct Read {
    pub path: String,
    pub offset: Option<u64>,
    pub limit: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Edit {
    pub path: String,
    pub old_text: String,
    pub new_text: String,
}

#[derive(Deserialize)]
pub struct Bash {
    pub command: String,
    pub timeout: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Grep {
    pub pattern: String,
    pub path: Option<String>,
    pub glob: Option<String>,
    pub ignore_case: Option<bool>,
    pub literal: Option<bool>,
    pub context: Option<u64>,
    pub limit: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    Low,
    Medium,
    High,
    Critical,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Todo,
    InProgress,
    Blocked,
    Done,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Team {
    Core,
    Infra,
    Web,
    Ml,
    Docs,
}

#[derive(Deserialize)]
pub struct Assignee {
    pub id: u64,
    pub name: String,
    pub email: Option<String>,
    pub team: Option<Team>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Author,
    Reviewer,
    Approver,
}

#[derive(Deserialize)]
pub struct Owner {
    pub name: String,
    pub role: Role,
}

#[derive(Deserialize)]
pub struct Subtask {
    pub id: u64,
    pub title: String,
    pub done: bool,
    pub owner: Option<Owner>,
}

#[derive(Deserialize)]
pub struct Attachment {
    pub name: String,
    pub size_bytes: u64,
    pub mime: Option<String>,
}

#[derive(Deserialize)]
pub struct Commit {
    pub sha: String,
    pub message: Option<String>,
}

#[derive(Deserialize)]
pub struct Repo {
    pub owner: String,
    pub name: String,
    pub branch: Option<String>,
    pub commit: Option<Commit>,
}

#[derive(Deserialize)]
pub struct Metadata {
    pub source: Option<String>,
    pub version: Option<String>,
    pub tags: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    Lint,
    Test,
    Build,
    Security,
}

#[derive(Deserialize)]
pub struct Check {
    pub name: String,
    pub required: Option<bool>,
    pub kind: CheckKind,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Environment {
    Dev,
    Staging,
    Prod,
}

#[derive(Deserialize)]
pub struct PlanTask {
    pub title: String,
    pub description: Option<String>,
    pub priority: Priority,
    pub status: Status,
    pub assignee: Assignee,
    pub labels: Option<Vec<String>>,
    pub estimate_hours: Option<f64>,
    pub due_date: Option<String>,
    pub depends_on: Option<Vec<u64>>,
    pub subtasks: Vec<Subtask>,
    pub attachments: Option<Vec<Attachment>>,
    pub repo: Repo,
    pub environment: Environment,
    pub notify: Option<bool>,
    pub retries: Option<u64>,
    pub timeout_s: Option<f64>,
    pub metadata: Option<Metadata>,
    pub checks: Option<Vec<Check>>,
    pub reviewers: Option<Vec<String>>,
    pub dry_run: Option<bool>,
}

/// The bounds a schema states that serde does not check.
trait Bounds {
    fn check(&self) -> Result<(), &'static str>;
}

fn at_least_one(value: Option<u64>) -> bool {
    value.is_none_or(|n| n >= 1)
}

impl Bounds for Echo {
    fn check(&self) -> Result<(), &'static str> {
        Ok(())
    }
}

impl Bounds for Read {
    fn check(&self) -> Result<(), &'static str> {
        (at_least_one(self.offset) && at_least_one(self.limit))
            .then_some(())
            .ok_or("offset and limit must be >= 1")
    }
}

impl Bounds for Edit {
    fn check(&self) -> Result<(), &'static str> {
        Ok(())
    }
}

impl Bounds for Bash {
    fn check(&self) -> Result<(), &'static str> {
        self.timeout
            .is_none_or(|t| t > 0.0)
            .then_some(())
            .ok_or("timeout must be > 0")
    }
}

impl Bounds for Grep {
    fn check(&self) -> Result<(), &'static str> {
        at_least_one(self.limit)
            .then_some(())
            .ok_or("limit must be >= 1")
    }
}

impl Bounds for PlanTask {
    fn check(&self) -> Result<(), &'static str> {
        let ok = !self.title.is_empty()
            && self.assignee.id >= 1
            && self.labels.as_ref().is_none_or(|labels| labels.len() <= 32)
            && self.estimate_hours.is_none_or(|h| h >= 0.0)
            && self
                .depends_on
                .as_ref()
                .is_none_or(|ids| ids.iter().all(|id| *id >= 1))
            && self.subtasks.iter().all(|subtask| subtask.id >= 1)
            && self.retries.is_none_or(|r| r <= 10)
            && self.timeout_s.is_none_or(|t| t > 0.0);
        ok.then_some(()).ok_or("a bound is violated")
    }
}

fn run<T: DeserializeOwned + Bounds>(
    call: &ToolCall,
    raw: &str,
    text_of: fn(T) -> String,
) -> ToolResultMessage {
    match serde_json::from_str::<T>(raw) {
        Ok(params) => match params.check() {
            Ok(()) => ToolResultMessage {
                tool_call_id: call.id.clone(),
                tool_name: call.name.clone(),
                content: vec![text(text_of(params))],
                details: None,
                is_error: false,
                timestamp: now_millis(),
            },
            Err(reason) => failed_result(call, reason),
        },
        Err(error) => failed_result(call, &error.to_string()),
    }
}

type Handler = fn(&ToolCall, &str) -> ToolResultMessage;

/// The plain-serde layer's registry: name → handler.
pub struct Baseline {
    handlers: std::collections::HashMap<&'static str, Handler>,
}

impl Default for Baseline {
    fn default() -> Self {
        let entries: [(&'static str, Handler); 6] = [
            ("echo", |c, r| run::<Echo>(c, r, |p| p.value)),
            ("read", |c, r| run::<Read>(c, r, |p| p.path)),
            ("edit", |c, r| run::<Edit>(c, r, |p| p.path)),
            ("bash", |c, r| run::<Bash>(c, r, |p| p.command)),
            ("grep", |c, r| run::<Grep>(c, r, |p| p.pattern)),
            ("plan_task", |c, r| run::<PlanTask>(c, r, |p| p.title)),
        ];
        Self {
            handlers: entries.into_iter().collect(),
        }
    }
}

impl Baseline {
    /// One call through the plain-serde layer: lookup, `from_str`, bounds, result.
    pub async fn execute(&self, id: &str, name: &str, raw: &str) -> ToolResultMessage {
        let call = ToolCall::new(id, name, Value::Null);
        match self.handlers.get(name) {
            Some(handler) => handler(&call, raw),
            None => failed_result(&call, model_text::UNKNOWN_TOOL),
        }
    }
}
