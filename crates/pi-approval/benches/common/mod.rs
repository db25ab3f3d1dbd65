//! The rules and calls the cost measurements share (`benches/decide.rs`, `benches/gate.rs`,
//! `examples/gate_cost.rs`).
#![allow(dead_code, clippy::unwrap_used)]

use pi_approval::{RuleKind, RuleSet, Source};

/// 1,000 rules: a third each deny, ask and allow, of every form (exact, prefix, glob, paths,
/// MCP names), none matching the measured calls, so every rule is tried.
pub(crate) fn thousand_rules() -> RuleSet {
    let mut rules = RuleSet::default();
    for index in 0..1000 {
        let (kind, rule) = match index % 6 {
            0 => (RuleKind::Deny, format!("bash(tool{index}:*)")),
            1 => (RuleKind::Ask, format!("bash(tool{index} run *)")),
            2 => (RuleKind::Allow, format!("bash(tool{index} exact)")),
            3 => (RuleKind::Deny, format!("read(secret{index}/**)")),
            4 => (RuleKind::Ask, format!("edit(gen{index}/*.rs)")),
            _ => (RuleKind::Allow, format!("mcp_server{index}_*")),
        };
        rules.push(kind, rule.parse().unwrap(), Source::User);
    }
    rules
}

/// Five deny rules of the usual kinds.
pub(crate) fn five_rules() -> RuleSet {
    let mut few = RuleSet::default();
    for rule in [
        "bash(git log:*)",
        "read(.env)",
        "edit(src/**)",
        "read(~/.ssh/**)",
        "mcp_github_*",
    ] {
        few.push(RuleKind::Deny, rule.parse().unwrap(), Source::User);
    }
    few
}

/// A 10-command pipeline (a history search).
pub(crate) const PIPELINE: &str = "git log --oneline | grep fix | head -50 | sort | uniq -c \
                            | sort -rn | cut -c1-80 | tr a-z A-Z | sed -n 1,20p | wc -l";

/// A 10-command pipeline of known read-only commands over a workspace file: it runs in mode
/// `ask` without asking, in any directory holding `src/lib.rs`.
pub(crate) const FILE_PIPELINE: &str = "cat src/lib.rs | grep fn | head -50 | tail -40 | cut -c1-80 \
                                 | grep -v f1 | nl | tail -20 | sed -n 1,10p | wc -l";
