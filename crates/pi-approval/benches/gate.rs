//! What the approval gate adds to a `read` call end to end (issue item 10: under 5%): the
//! agent loop with a scripted model asking for Pi's `read` of a small file in a workspace, then
//! answering, with and without a gate (mode `ask`, five rules; the read is allowed, nobody is
//! asked). Both runs do the same work besides the gate: the model, the loop, the real tool.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use futures::FutureExt;
use pi_agent::{Agent, AgentConfig};
use pi_ai::FauxProvider;
use pi_approval::{
    Answer, AnswerFuture, ApprovalRequest, Approver, LocalPaths, Mode, Policy, RuleKind, RuleSet,
    Source,
};
use serde_json::{Value, json};

/// Never asked in this benchmark (a read runs in mode `ask`); refuses if it ever is.
struct Nobody;

impl Approver for Nobody {
    fn ask<'a>(&'a self, _request: &'a ApprovalRequest) -> AnswerFuture<'a> {
        async {
            Answer::Unanswered {
                reason: "nobody in a benchmark".to_owned(),
            }
        }
        .boxed()
    }
}

fn script() -> Value {
    json!([
        {"content": [{"type": "toolCall", "id": "c1", "name": "read",
            "arguments": {"path": "src/lib.rs"}}]},
        {"content": [{"type": "text", "text": "read it"}]}
    ])
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let source: String = (0..200).map(|n| format!("fn f{n}() {{}}\n")).collect();
    std::fs::write(dir.path().join("src/lib.rs"), source).unwrap();
    let workspace = pi_coding_tools::Workspace::new(dir.path());
    let tools = Arc::new(pi_coding_tools::all_tools(&workspace));
    let mut rules = RuleSet::default();
    for rule in [
        "bash(git log:*)",
        "read(.env)",
        "edit(src/**)",
        "read(~/.ssh/**)",
        "mcp_github_*",
    ] {
        rules.push(RuleKind::Deny, rule.parse().unwrap(), Source::User);
    }
    let gate = Arc::new(pi_agent::ApprovalGate::new(
        Policy::new(Mode::Ask, rules, LocalPaths::new(dir.path())),
        Arc::new(Nobody),
    ));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let script = script();
    let run = |gated: bool| {
        let model = Arc::new(FauxProvider::from_script(&script).unwrap());
        let mut config = AgentConfig::new(model, Arc::clone(&tools));
        if gated {
            config = config.with_approval_gate(Arc::clone(&gate));
        }
        let run = runtime.block_on(Agent::new(config).prompt("read src/lib.rs"));
        assert_eq!(run.messages.len(), 4);
        run
    };
    // The gated read really ran (its result is the file, not a refusal).
    let checked = run(true);
    assert!(matches!(&checked.messages[2], pi_ai::Message::ToolResult(result) if !result.is_error));
    let mut group = c.benchmark_group("a read call end to end");
    group.bench_function("without approvals", |b| b.iter(|| run(false)));
    group.bench_function("with the approval gate", |b| b.iter(|| run(true)));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
