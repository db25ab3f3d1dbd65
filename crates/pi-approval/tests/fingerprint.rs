//! The fingerprint binds a decision to the arguments decided on: a hook (or anything else)
//! that changes them after approval is caught by the check before execution.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use pi_approval::{LocalPaths, Mode, Policy, RuleKind, RuleSet, Source, Verdict};
use pi_tool::ToolAnnotations;
use serde_json::json;

#[test]
fn arguments_changed_after_approval_fail_the_check() {
    let mut rules = RuleSet::default();
    rules.push(
        RuleKind::Allow,
        "bash(git status)".parse().unwrap(),
        Source::User,
    );
    let policy = Policy::new(Mode::Ask, rules, LocalPaths::new("/repo"));
    let mut arguments = json!({"command": "git status", "timeout": 10});
    let decision = policy.decide("bash", ToolAnnotations::open(), &arguments);
    assert_eq!(decision.decision, Verdict::Allow);
    // Key order and formatting are not changes.
    let same = serde_json::from_str(r#"{ "timeout": 10, "command": "git status" }"#).unwrap();
    decision.fingerprint.check("bash", &same).unwrap();
    // A hook rewriting the command after the decision is.
    arguments["command"] = json!("git status; rm -rf ~");
    let error = decision.fingerprint.check("bash", &arguments).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("the arguments of bash changed after they were approved")
    );
    // So is the same call sent to another tool.
    assert!(decision.fingerprint.check("sh", &same).is_err());
    // And a number is not its string.
    assert!(
        decision
            .fingerprint
            .check("bash", &json!({"command": "git status", "timeout": "10"}))
            .is_err()
    );
}

#[test]
fn the_decision_serialises_as_policy_check_prints_it() {
    let policy = Policy::new(Mode::Ask, RuleSet::default(), LocalPaths::new("/repo"));
    let decision = policy.decide(
        "bash",
        ToolAnnotations::open(),
        &json!({"command": "ls && make"}),
    );
    let value = serde_json::to_value(&decision).unwrap();
    assert_eq!(value["decision"], "ask");
    assert_eq!(value["rule"], serde_json::Value::Null);
    assert_eq!(value["source"], "mode");
    assert_eq!(value["commands"], json!(["ls", "make"]));
    assert!(
        value["fingerprint"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    assert_eq!(value["fingerprint"].as_str().unwrap().len(), 7 + 64);
}
