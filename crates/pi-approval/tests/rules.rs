//! Rule syntax: what parses, and errors that name the rule, the column and the problem.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use pi_approval::{CommandPattern, Rule, RuleErrorKind, Specifier};

fn error(rule: &str) -> (usize, RuleErrorKind, String) {
    let error = rule.parse::<Rule>().unwrap_err();
    let text = error.to_string();
    (error.column, error.kind, text)
}

#[test]
fn each_form_parses_to_its_specifier() {
    let spec = |rule: &str| rule.parse::<Rule>().unwrap().specifier().clone();
    assert_eq!(spec("bash"), Specifier::Any);
    assert_eq!(
        spec("bash(git status)"),
        Specifier::Command(CommandPattern::Exact("git status".into()))
    );
    assert_eq!(
        spec("bash(git   log:*)"),
        Specifier::Command(CommandPattern::Prefix("git log".into()))
    );
    assert_eq!(
        spec("bash(npm run test *)"),
        Specifier::Command(CommandPattern::Glob("npm run test *".into()))
    );
    assert_eq!(spec("edit(src/**)"), Specifier::Path("src/**".into()));
    assert_eq!(spec("mcp_github_*"), Specifier::Any);
    // Parentheses inside a command are part of it.
    assert_eq!(
        spec("bash(echo (x))"),
        Specifier::Command(CommandPattern::Exact("echo (x)".into()))
    );
}

#[test]
fn errors_name_the_rule_and_the_column() {
    let (column, kind, text) = error("bash(git status");
    assert_eq!((column, kind), (5, RuleErrorKind::Unclosed));
    assert_eq!(
        text,
        r#"rule "bash(git status" at column 5: `(` is not closed by a `)` ending the rule"#
    );
    assert_eq!(error("").1, RuleErrorKind::Empty);
    assert_eq!(error("(ls)").1, RuleErrorKind::MissingTool);
    assert_eq!(
        error("ba sh").0..=error("ba sh").0,
        3..=3,
        "the space is the third character"
    );
    assert_eq!(error("bash()").1, RuleErrorKind::EmptySpecifier);
    assert_eq!(error("bash(ls) x").1, RuleErrorKind::Unclosed);
    let (column, kind, _) = error("bash(git:*log)");
    assert_eq!((column, kind), (9, RuleErrorKind::PrefixNotAtEnd));
    let (column, kind, text) = error("echo(x)");
    assert_eq!(
        (column, kind),
        (5, RuleErrorKind::NoSpecifierFor("echo".into()))
    );
    assert!(text.contains("only bash and the file tools"), "{text}");
    assert_eq!(
        error("mcp_*(x)").1,
        RuleErrorKind::NoSpecifierFor("mcp_*".into())
    );
    assert!(matches!(error("edit(src/[a)").1, RuleErrorKind::BadGlob(_)));
    // Columns count characters, not bytes.
    assert_eq!(error("é(x").0, 1);
    assert_eq!(error("bash(é").0, 5);
}

#[test]
fn a_rule_prints_as_written_and_round_trips_through_json() {
    let rule: Rule = "bash(git log:*)".parse().unwrap();
    let json = serde_json::to_string(&rule).unwrap();
    assert_eq!(json, r#""bash(git log:*)""#);
    assert_eq!(serde_json::from_str::<Rule>(&json).unwrap(), rule);
    let bad = serde_json::from_str::<Rule>(r#""bash(""#).unwrap_err();
    assert!(bad.to_string().contains("at column 5"), "{bad}");
}
