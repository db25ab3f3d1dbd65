//! The same layer built on plain serde: `serde_json::from_str` straight into a derived struct
//! (the workload's structs of [`typed`](crate::typed), read by serde's own derive),
//! the bounds the schema states checked in code, then the same result message. This is what the
//! workloads' peers were measured against.
//!
//! It comes in two sizes ([`Layer`]): bare (the tool is a function call) and carrying the
//! contract every layer owes a call that runs (its own call id and cancellation signal, the
//! tool's future boxed, panics contained). Ours always carries the contract; the difference
//! between the two sizes is what the contract itself costs, whatever parses the arguments.
#![allow(missing_docs)] // The structs mirror the workload files field by field.

use std::panic::AssertUnwindSafe;

use futures::FutureExt;
use futures::future::BoxFuture;
use pi_tool::{
    ToolCall, ToolContext, ToolResultMessage, failed_result, model_text, now_millis, panic_message,
    text,
};
use serde::de::DeserializeOwned;

use crate::typed::{Bash, Echo, Edit, Grep, PlanTask, Read};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

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

/// How much of the tool contract the plain-serde layer carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// Lookup, `from_str`, bounds, result message; the tool is a plain function call.
    Bare,
    /// The same, plus what the contract asks of any layer for a call that runs: a context of
    /// its own (the call id and a fresh cancellation signal), the tool's future boxed (a
    /// registry holds tools of many types) and panics inside it contained.
    Contract,
}

/// A call whose arguments were accepted.
enum Accepted {
    /// The bare layer's result text.
    Done(String),
    /// The contract layer's running tool.
    Started(BoxFuture<'static, String>),
}

/// What a call's arguments arrive as: the text a provider streamed (the agent loop) or the
/// object an MCP library already parsed (`tools/call`).
pub enum Arguments<'a> {
    /// Raw JSON text: read with `serde_json::from_str`.
    Text(&'a str),
    /// A parsed object: read with `serde_json::from_value`.
    Value(Value),
}

fn run<T: DeserializeOwned + Bounds + Send + 'static>(
    arguments: Arguments<'_>,
    call_id: &str,
    layer: Layer,
    text_of: fn(T) -> String,
) -> Result<Accepted, String> {
    let params = match arguments {
        Arguments::Text(raw) => serde_json::from_str::<T>(raw),
        Arguments::Value(value) => serde_json::from_value::<T>(value),
    }
    .map_err(|error| error.to_string())?;
    params.check().map_err(str::to_owned)?;
    Ok(match layer {
        Layer::Bare => Accepted::Done(text_of(params)),
        Layer::Contract => {
            let context = ToolContext::new(call_id).with_signal(CancellationToken::new());
            Accepted::Started(Box::pin(async move {
                let _context = context;
                text_of(params)
            }))
        }
    })
}

type Handler = fn(Arguments<'_>, &str, Layer) -> Result<Accepted, String>;

/// The plain-serde layer's registry: name → handler.
pub struct Baseline {
    handlers: std::collections::HashMap<&'static str, Handler>,
}

impl Default for Baseline {
    fn default() -> Self {
        let entries: [(&'static str, Handler); 6] = [
            ("echo", |r, id, l| run::<Echo>(r, id, l, |p| p.value)),
            ("read", |r, id, l| run::<Read>(r, id, l, |p| p.path)),
            ("edit", |r, id, l| run::<Edit>(r, id, l, |p| p.path)),
            ("bash", |r, id, l| run::<Bash>(r, id, l, |p| p.command)),
            ("grep", |r, id, l| run::<Grep>(r, id, l, |p| p.pattern)),
            ("plan_task", |r, id, l| {
                run::<PlanTask>(r, id, l, |p| p.title)
            }),
        ];
        Self {
            handlers: entries.into_iter().collect(),
        }
    }
}

impl Baseline {
    /// One call through the plain-serde layer: lookup, `from_str`, bounds, result.
    pub async fn execute(
        &self,
        layer: Layer,
        id: &str,
        name: &str,
        raw: &str,
    ) -> ToolResultMessage {
        self.execute_arguments(layer, id, name, Arguments::Text(raw))
            .await
    }

    /// [`Baseline::execute`] on arguments as text or as an already parsed object.
    pub async fn execute_arguments(
        &self,
        layer: Layer,
        id: &str,
        name: &str,
        arguments: Arguments<'_>,
    ) -> ToolResultMessage {
        let call = ToolCall::new(id, name, Value::Null);
        let Some(handler) = self.handlers.get(name) else {
            return failed_result(&call, model_text::UNKNOWN_TOOL);
        };
        let text_result = match handler(arguments, id, layer) {
            Ok(Accepted::Done(result)) => result,
            Ok(Accepted::Started(running)) => {
                match AssertUnwindSafe(running).catch_unwind().await {
                    Ok(result) => result,
                    Err(panic) => return failed_result(&call, &panic_message(panic.as_ref())),
                }
            }
            Err(reason) => return failed_result(&call, &reason),
        };
        ToolResultMessage {
            tool_call_id: call.id,
            tool_name: call.name,
            content: vec![text(text_result)],
            details: None,
            is_error: false,
            timestamp: now_millis(),
        }
    }
}
