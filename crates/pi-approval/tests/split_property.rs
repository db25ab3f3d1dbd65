//! Whatever text arrives as a command line, the splitter neither panics nor lets a line it
//! could not prove harmless be allowed without asking.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use pi_approval::{LocalPaths, Mode, Policy, RuleKind, RuleSet, Source, Verdict, shell};
use pi_tool::ToolAnnotations;
use proptest::prelude::*;
use serde_json::json;

/// Shell-ish text: words, quotes, operators, substitutions, newlines.
fn shellish() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "git",
        "status",
        "rm",
        "-rf",
        "~",
        " ",
        " ",
        "&&",
        "||",
        ";",
        "|",
        "\n",
        "$(",
        ")",
        "`",
        "'",
        "\"",
        "\\",
        ">",
        ">>",
        "<",
        "2>&1",
        "/dev/null",
        "$X",
        "${",
        "}",
        "(",
        "{",
        "bash",
        "-c",
        "eval",
        "xargs",
        "find",
        "-exec",
        "-delete",
        "FOO=1",
        "#",
        "<<EOF",
        "EOF",
        "env",
        "sudo",
        "*",
        "..",
        "<(",
        "&",
    ]);
    prop::collection::vec(pieces, 0..24).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn unprovable_lines_are_never_allowed_by_a_bash_allow_rule(line in shellish()) {
        let mut rules = RuleSet::default();
        rules.push(RuleKind::Allow, "bash".parse().unwrap(), Source::User);
        let policy = Policy::new(Mode::Ask, rules, LocalPaths::new("/repo"));
        let split = shell::split(&line);
        let decision = policy.decide("bash", ToolAnnotations::open(), &json!({"command": line}));
        if !split.unprovable.is_empty() {
            prop_assert_eq!(decision.decision, Verdict::Ask, "{:?}", split.unprovable);
        }
    }

    #[test]
    fn a_denied_command_is_denied_wherever_it_hides(prefix in shellish(), suffix in shellish()) {
        let mut rules = RuleSet::default();
        rules.push(RuleKind::Deny, "bash(rm:*)".parse().unwrap(), Source::User);
        let policy = Policy::new(Mode::Yolo, rules, LocalPaths::new("/repo"));
        // `rm` as its own statement after whatever came before (closed off by a newline).
        let line = format!("{prefix}\nrm x\n{suffix}");
        let decision = policy.decide("bash", ToolAnnotations::open(), &json!({"command": line}));
        // Text before may open a quote or a heredoc that turns `rm x` into data; what must
        // hold is that wherever the splitter sees `rm` run, openly or hidden, even yolo
        // denies the line.
        let split = shell::split(&line);
        if split.all_commands().any(|command| command.words().first().is_some_and(|name| name == "rm")) {
            prop_assert_eq!(decision.decision, Verdict::Deny);
        }
    }
}

#[test]
fn arbitrary_bytes_do_not_panic() {
    for line in [
        "",
        "\0",
        "$(((",
        "'",
        "\"$(",
        "a\\",
        "<<",
        "${x:-$(rm y)}",
        "\u{202e}rm",
    ] {
        let _ = shell::split(line);
    }
    let deep = "$(".repeat(2000);
    let _ = shell::split(&deep);
    let nested = "bash -c \"".repeat(50);
    let _ = shell::split(&nested);
}

#[test]
fn deep_nesting_asks_instead_of_overflowing_the_stack() {
    for (open, close) in [("(", ")"), ("$(", ")"), ("{ ", "; }")] {
        let line = format!("{}ls{}", open.repeat(20_000), close.repeat(20_000));
        let split = shell::split(&line);
        assert!(!split.unprovable.is_empty(), "{open}");
    }
}
