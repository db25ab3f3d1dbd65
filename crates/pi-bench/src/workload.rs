//! A workload file: tools, calls with raw argument text, and what each call must produce.

use std::path::Path;

use anyhow::{Context, bail};
use futures::executor::block_on;
use pi_tool::{CallContext, ToolCall, ToolRegistry, ToolResultMessage, execute_tool_call};

use crate::baseline::{Baseline, Layer};
use crate::dynamic;
use serde::Deserialize;
use serde_json::Value;

/// One workload, as in `bench/workloads/README.md`.
#[derive(Debug, Clone, Deserialize)]
pub struct Workload {
    /// Its name, e.g. `w2_coding_tools`.
    pub name: String,
    /// For each tool, the argument whose value `execute` returns as its text.
    pub execute_returns: std::collections::BTreeMap<String, String>,
    /// The tools: name, description, JSON Schema parameters.
    pub tools: Vec<WorkloadTool>,
    /// The calls, in order.
    pub calls: Vec<WorkloadCall>,
}

/// A tool of a workload.
#[derive(Debug, Clone, Deserialize)]
pub struct WorkloadTool {
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// The JSON Schema of its parameters.
    pub parameters: Value,
}

/// A call of a workload.
#[derive(Debug, Clone, Deserialize)]
pub struct WorkloadCall {
    /// The call id.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The raw argument text, as a provider delivers it.
    pub arguments: String,
    /// What the call must produce.
    pub expect: Expect,
}

impl WorkloadCall {
    /// This call through our executor as the agent loop makes it, on the current thread: the
    /// argument text parsed into the call's `Value` (`pi_ai::parse_arguments`), then the one
    /// call path.
    pub fn run(&self, tools: &ToolRegistry) -> ToolResultMessage {
        let call = ToolCall::new(
            self.id.as_str(),
            self.name.as_str(),
            pi_ai::parse_arguments(&self.arguments),
        );
        block_on(execute_tool_call(&call, tools, CallContext::default()))
    }

    /// This call through the plain-serde layer of size `layer`, on the current thread.
    pub fn run_baseline(&self, baseline: &Baseline, layer: Layer) -> ToolResultMessage {
        block_on(baseline.execute(layer, &self.id, &self.name, &self.arguments))
    }
}

/// The expected outcome of a call.
#[derive(Debug, Clone, Deserialize)]
pub struct Expect {
    /// Whether the call succeeds.
    pub ok: bool,
    /// The validated arguments (undeclared fields dropped), for valid calls.
    #[serde(default)]
    pub args: Option<Value>,
    /// The result text, for valid calls.
    #[serde(default)]
    pub text: Option<String>,
}

impl Workload {
    /// Reads a workload file.
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
    }

    /// The workloads shipped in `bench/workloads/`, in order.
    pub fn shipped() -> anyhow::Result<Vec<Self>> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/workloads");
        [
            "w1_echo.json",
            "w2_coding_tools.json",
            "w3_wide_nested.json",
        ]
        .iter()
        .map(|file| Self::load(&dir.join(file)))
        .collect()
    }
}

/// Checks a result against a call's expectation: pairing, success or failure, and text.
pub fn check(call: &WorkloadCall, result: &ToolResultMessage) -> anyhow::Result<()> {
    if result.tool_call_id != call.id || result.tool_name != call.name {
        bail!("{}: result is not paired with its call", call.id);
    }
    if result.is_error == call.expect.ok {
        bail!(
            "{}: expected ok={}, got isError={} ({})",
            call.id,
            call.expect.ok,
            result.is_error,
            result.text()
        );
    }
    let expected_text = call.expect.text.as_ref().filter(|_| call.expect.ok);
    if let Some(text) = expected_text.filter(|text| **text != result.text()) {
        bail!(
            "{}: expected text {text:?}, got {:?}",
            call.id,
            result.text()
        );
    }
    Ok(())
}

/// Runs every call of `workload` through `tools` and checks it against its expectation; checks
/// the arguments a tool receives against `expect.args` (with mirror tools built from the
/// workload's schemas); checks that the plain-serde baseline agrees on which calls are valid.
pub fn verify(workload: &Workload, tools: &ToolRegistry) -> anyhow::Result<()> {
    for call in &workload.calls {
        let result = call.run(tools);
        check(call, &result)?;
    }
    let mirror = dynamic::mirror_registry(workload)?;
    for call in workload.calls.iter().filter(|call| call.expect.ok) {
        let result = call.run(&mirror);
        let received: Value = serde_json::from_str(&result.text())?;
        if Some(&received) != call.expect.args.as_ref() {
            bail!(
                "{}: the tool received {received}, expected {:?}",
                call.id,
                call.expect.args
            );
        }
    }
    let baseline = Baseline::default();
    for layer in [Layer::Bare, Layer::Contract] {
        for call in &workload.calls {
            let result = call.run_baseline(&baseline, layer);
            if result.is_error == call.expect.ok {
                bail!(
                    "{}: the serde baseline ({layer:?}) disagrees with the expectation",
                    call.id
                );
            }
            if call.expect.ok {
                check(call, &result)?;
            }
        }
    }
    Ok(())
}
