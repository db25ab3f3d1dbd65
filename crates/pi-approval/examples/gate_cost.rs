//! What the approval gate adds to a call end to end, for `valgrind --tool=callgrind`
//! (instruction counts compare the two without timing noise; `scripts/approval-cost.sh`
//! prints the table).
//!
//! Usage: gate_cost read|bash none|gate|decide ROUNDS
//!
//! - `read`: the agent loop with a scripted model asking for Pi's `read` of a 200-line file
//!   in a workspace, then answering; `bash`: the same with a 10-command pipeline of known
//!   read-only commands over that file (the shell and its commands are other processes:
//!   callgrind counts only this one, so `bash`'s share is an upper bound).
//! - `none`: no gate; `gate`: the gate in mode `ask` against 1,000 rules (none matching, so
//!   every one is tried; the call is allowed and nobody is asked); `decide`: the policy's
//!   decision alone, on the same call and rules.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../benches/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::sync::Arc;

use futures::FutureExt;
use pi_agent::{Agent, AgentConfig, ApprovalGate};
use pi_ai::FauxProvider;
use pi_approval::{
    Answer, AnswerFuture, ApprovalRequest, Approver, LocalPaths, Mode, Policy, Verdict,
};
use pi_tool::ToolAnnotations;
use serde_json::{Value, json};

/// Never asked here (both calls are allowed in mode `ask`); refuses if it ever is.
struct Nobody;

impl Approver for Nobody {
    fn ask<'a>(&'a self, _request: &'a ApprovalRequest) -> AnswerFuture<'a> {
        async {
            Answer::Unanswered {
                reason: "nobody in a measurement".to_owned(),
            }
        }
        .boxed()
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: gate_cost read|bash none|gate|decide ROUNDS";
    let call = args.first().expect(usage).as_str();
    let how = args.get(1).expect(usage).as_str();
    let rounds: usize = args.get(2).expect(usage).parse().expect(usage);

    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let source: String = (0..200).map(|n| format!("fn f{n}() {{}}\n")).collect();
    std::fs::write(dir.path().join("src/lib.rs"), source).unwrap();
    let (tool, arguments, annotations) = match call {
        "read" => (
            "read",
            json!({"path": "src/lib.rs"}),
            ToolAnnotations::read_only(),
        ),
        "bash" => (
            "bash",
            json!({"command": common::FILE_PIPELINE}),
            ToolAnnotations::open(),
        ),
        _ => panic!("{usage}"),
    };
    let policy = || {
        Policy::new(
            Mode::Ask,
            common::thousand_rules(),
            LocalPaths::new(dir.path()),
        )
    };
    // Both calls run unasked: the measurement is of a decision that lets the call through.
    let decision = policy().decide(tool, annotations, &arguments);
    assert_eq!(decision.decision, Verdict::Allow, "{decision:?}");
    if how == "decide" {
        let policy = policy();
        for _ in 0..rounds {
            black_box(policy.decide(tool, annotations, black_box(&arguments)));
        }
        return;
    }
    let gate = match how {
        "none" => None,
        "gate" => Some(Arc::new(ApprovalGate::new(policy(), Arc::new(Nobody)))),
        _ => panic!("{usage}"),
    };
    let workspace = pi_coding_tools::Workspace::new(dir.path());
    let tools = Arc::new(pi_coding_tools::all_tools(&workspace));
    let script: Value = json!([
        {"content": [{"type": "toolCall", "id": "c1", "name": tool, "arguments": arguments}]},
        {"content": [{"type": "text", "text": "done"}]}
    ]);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for _ in 0..rounds {
        let model = Arc::new(FauxProvider::from_script(&script).unwrap());
        let mut config = AgentConfig::new(model, Arc::clone(&tools));
        if let Some(gate) = &gate {
            config = config.with_approval_gate(Arc::clone(gate));
        }
        let run = runtime.block_on(Agent::new(config).prompt("go"));
        // The call really ran (its result is the file or the count, not a refusal).
        match run.messages.get(2) {
            Some(pi_ai::Message::ToolResult(result)) if !result.is_error => {}
            other => panic!("the call did not run: {other:?}"),
        }
        black_box(run);
    }
}
