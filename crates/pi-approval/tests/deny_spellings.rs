//! A deny rule on a command holds in every mode against every spelling of that command a
//! model can send: quoting, paths, globs, wrappers, shells, `eval`, expansions, substitutions,
//! line continuations, functions, aliases (`deny_spellings.json`, 200+ lines, each running
//! `rm`). Spellings the splitter cannot resolve to a name are refused because the rule could
//! match them.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use pi_approval::{
    LocalPaths, Mode, Permissions, Policy, ProjectTrust, RuleKind, RuleSet, Verdict,
};
use pi_tool::ToolAnnotations;
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize)]
struct Table {
    spellings: Vec<String>,
}

fn table() -> Vec<String> {
    let text = include_str!("deny_spellings.json");
    serde_json::from_str::<Table>(text).unwrap().spellings
}

fn policy(mode: Mode, deny: &str) -> Policy {
    let mut cli = Permissions::default();
    cli.add(RuleKind::Deny, deny).unwrap();
    let rules = RuleSet::from_sources(&cli, None, None, ProjectTrust::Untrusted);
    Policy::new(mode, rules, LocalPaths::new(std::env::temp_dir()))
}

#[test]
fn the_table_is_large_and_distinct() {
    let spellings = table();
    assert!(spellings.len() >= 200, "{} spellings", spellings.len());
    let mut sorted = spellings.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), spellings.len(), "duplicates in the table");
}

#[test]
fn a_deny_rule_refuses_every_spelling_in_every_mode() {
    let spellings = table();
    let mut failures = Vec::new();
    for mode in Mode::ALL {
        let policy = policy(mode, "bash(rm:*)");
        for line in &spellings {
            let decision =
                policy.decide("bash", ToolAnnotations::open(), &json!({ "command": line }));
            if decision.decision != Verdict::Deny {
                failures.push(format!(
                    "{mode}: {line:?} -> {} ({})",
                    decision.decision,
                    decision.reason.unwrap_or_default()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} decisions not denied:\n{}",
        failures.len(),
        spellings.len() * Mode::ALL.len(),
        failures.join("\n")
    );
}

/// The same spellings with a rule on another command: the ones the splitter resolves to `rm`
/// are not refused by it, so the refusals above come from reading the line, not from
/// refusing everything.
#[test]
fn a_deny_rule_on_another_command_leaves_resolved_spellings_alone() {
    let policy = policy(Mode::Yolo, "bash(curl:*)");
    for line in [
        "rm f",
        "env -u HOME rm f",
        "bash -c 'rm f'",
        "timeout 5 rm f",
        "trap 'rm f' EXIT",
    ] {
        let decision = policy.decide("bash", ToolAnnotations::open(), &json!({ "command": line }));
        assert_eq!(decision.decision, Verdict::Allow, "{line}");
    }
    // A name known only when the line runs could be curl: the rule could match it.
    for line in [
        "$(printf rm) f",
        "echo rm f | bash",
        "eval eval eval eval eval eval rm f",
    ] {
        let decision = policy.decide("bash", ToolAnnotations::open(), &json!({ "command": line }));
        assert_eq!(decision.decision, Verdict::Deny, "{line}");
    }
}

/// With no deny rule, a line running an unknown command takes the mode's verdict for lines it
/// cannot prove: the strictness costs only users who wrote a rule it protects.
#[test]
fn without_a_command_rule_unknown_names_fall_to_the_mode() {
    let rules = RuleSet::from_sources(&Permissions::default(), None, None, ProjectTrust::Untrusted);
    let full_auto = Policy::new(
        Mode::FullAuto,
        rules.clone(),
        LocalPaths::new(std::env::temp_dir()),
    );
    let ask = Policy::new(Mode::Ask, rules, LocalPaths::new(std::env::temp_dir()));
    let call = json!({ "command": "$(printf ls)" });
    assert_eq!(
        full_auto
            .decide("bash", ToolAnnotations::open(), &call)
            .decision,
        Verdict::Allow
    );
    assert_eq!(
        ask.decide("bash", ToolAnnotations::open(), &call).decision,
        Verdict::Ask
    );
}
