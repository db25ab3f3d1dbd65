//! The jsonschema crate as a peer, as the workloads' anchors measured it: the raw text parsed into
//! a `serde_json::Value`, checked by a validator compiled once from the tool's JSON Schema (every
//! violation collected and named in the refusal, as ours names them), then
//! `serde_json::from_value` into the plain-serde structs (undeclared fields ignored), the trivial
//! execute and the result message.

use std::collections::HashMap;

use anyhow::Context;
use serde::de::DeserializeOwned;
use serde_json::Value;

use pi_tool::{ToolResultMessage, failed_result, model_text, now_millis, text};

use crate::typed::{Bash, Echo, Edit, Grep, PlanTask, Read};
use crate::workload::Workload;

type Execute = fn(Value) -> Result<String, String>;

/// The tools of one workload: a compiled validator and an execute per name.
pub struct JsonschemaPeer {
    tools: HashMap<String, (jsonschema::Validator, Execute)>,
}

fn typed<T: DeserializeOwned>(
    text_of: fn(T) -> String,
) -> impl Fn(Value) -> Result<String, String> {
    move |value| {
        serde_json::from_value::<T>(value)
            .map(text_of)
            .map_err(|error| error.to_string())
    }
}

fn execute_for(name: &str) -> Option<Execute> {
    Some(match name {
        "echo" => |v| typed::<Echo>(|p| p.value)(v),
        "read" => |v| typed::<Read>(|p| p.path)(v),
        "edit" => |v| typed::<Edit>(|p| p.path)(v),
        "bash" => |v| typed::<Bash>(|p| p.command)(v),
        "grep" => |v| typed::<Grep>(|p| p.pattern)(v),
        "plan_task" => |v| typed::<PlanTask>(|p| p.title)(v),
        _ => return None,
    })
}

impl JsonschemaPeer {
    /// Compiles every tool of `workload`.
    pub fn new(workload: &Workload) -> anyhow::Result<Self> {
        let mut tools = HashMap::new();
        for tool in &workload.tools {
            let validator = jsonschema::validator_for(&tool.parameters)
                .map_err(|error| anyhow::anyhow!("{}: {error}", tool.name))?;
            let execute = execute_for(&tool.name).context("a tool this peer does not know")?;
            tools.insert(tool.name.clone(), (validator, execute));
        }
        Ok(Self { tools })
    }

    /// One call: lookup, parse, validate, build the typed value, execute, result.
    pub fn execute(&self, id: &str, name: &str, raw: &str) -> ToolResultMessage {
        let call = pi_tool::ToolCall::new(id, name, Value::Null);
        let Some((validator, execute)) = self.tools.get(name) else {
            return failed_result(&call, model_text::UNKNOWN_TOOL);
        };
        let value: Value = match serde_json::from_str(raw) {
            Ok(value) => value,
            Err(error) => return failed_result(&call, &error.to_string()),
        };
        let violations: Vec<String> = validator
            .iter_errors(&value)
            .map(|error| format!("{}: {error}", error.instance_path()))
            .collect();
        if !violations.is_empty() {
            return failed_result(&call, &violations.join("\n"));
        }
        match execute(value) {
            Ok(result) => ToolResultMessage {
                tool_call_id: call.id,
                tool_name: call.name,
                content: vec![text(result)],
                details: None,
                is_error: false,
                timestamp: now_millis(),
            },
            Err(reason) => failed_result(&call, &reason),
        }
    }
}
