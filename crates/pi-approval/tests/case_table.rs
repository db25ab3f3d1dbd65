//! The decision table: (rules, mode, call) → decision, read from `cases.json`, half of the
//! cases adversarial (commands hidden from a naive prefix match, paths that lead elsewhere
//! than they read). Every case runs in one workspace: a temporary directory with `src/`,
//! `.env`, and a link `src/link` to the `.ssh` directory of a temporary home.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::path::Path;

use pi_approval::{LocalPaths, Mode, Permissions, Policy, ProjectTrust, RuleKind, RuleSet};
use pi_tool::ToolAnnotations;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// Whether the case tries to slip something past the policy.
    adversarial: bool,
    #[serde(default)]
    mode: Option<String>,
    /// A shorthand for a `bash` call.
    #[serde(default)]
    cmd: Option<String>,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    args: Option<Value>,
    /// `read-only`, `destructive`, `open` or absent (the tool says nothing).
    #[serde(default)]
    annotations: Option<String>,
    /// The name of a rule set in `cases.json`'s `rules`.
    #[serde(default = "standard")]
    rules: String,
    expect: String,
    /// The rule expected to decide (`null`: none); absent: not checked.
    #[serde(default, deserialize_with = "some")]
    rule: Option<Option<String>>,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    commands: Option<Vec<String>>,
}

fn standard() -> String {
    "standard".to_owned()
}

/// Keeps an explicit `null` apart from an absent field.
fn some<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(deserializer).map(Some)
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Lists {
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    ask: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Sources {
    #[serde(default)]
    cli: Lists,
    #[serde(default)]
    user: Lists,
    #[serde(default)]
    project: Option<Lists>,
    #[serde(default)]
    trusted: bool,
}

#[derive(Deserialize)]
struct Table {
    rules: std::collections::BTreeMap<String, Sources>,
    cases: Vec<Case>,
}

fn permissions(lists: &Lists) -> Permissions {
    let mut permissions = Permissions::default();
    for (kind, rules) in [
        (RuleKind::Allow, &lists.allow),
        (RuleKind::Ask, &lists.ask),
        (RuleKind::Deny, &lists.deny),
    ] {
        for rule in rules {
            permissions
                .add(kind, rule)
                .unwrap_or_else(|error| panic!("{error}"));
        }
    }
    permissions
}

fn rule_set(sources: &Sources) -> RuleSet {
    let project = sources.project.as_ref().map(permissions);
    RuleSet::from_sources(
        &permissions(&sources.cli),
        project.as_ref(),
        Some(&permissions(&sources.user)),
        if sources.trusted {
            ProjectTrust::Trusted
        } else {
            ProjectTrust::Untrusted
        },
    )
}

/// The workspace every case runs in: `<tmp>/repo` with `src/`, `docs/`, `.env` and
/// `src/link -> <tmp>/home/.ssh`.
fn workspace(root: &Path) -> LocalPaths {
    let repo = root.join("repo");
    let home = root.join("home");
    for dir in [
        repo.join("src/secret"),
        repo.join("docs"),
        home.join(".ssh"),
    ] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(repo.join(".env"), "KEY=1").unwrap();
    std::fs::write(repo.join("src/lib.rs"), "").unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "key").unwrap();
    std::os::unix::fs::symlink(home.join(".ssh"), repo.join("src/link")).unwrap();
    LocalPaths::with_home(repo, Some(home))
}

#[test]
fn every_case_of_the_table_decides_as_written() {
    let table: Table = serde_json::from_str(include_str!("cases.json")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let paths = workspace(dir.path());
    let mut failures = Vec::new();
    for (index, case) in table.cases.iter().enumerate() {
        let sources = table
            .rules
            .get(&case.rules)
            .unwrap_or_else(|| panic!("case {index}: no rule set {}", case.rules));
        let mode: Mode = case.mode.as_deref().unwrap_or("ask").parse().unwrap();
        let policy = Policy::new(mode, rule_set(sources), paths.clone());
        let (tool, args) = match (&case.cmd, &case.tool) {
            (Some(command), None) => ("bash".to_owned(), serde_json::json!({"command": command})),
            (None, Some(tool)) => (tool.clone(), case.args.clone().unwrap_or_default()),
            _ => panic!("case {index}: give either cmd or tool"),
        };
        let annotations = match case.annotations.as_deref() {
            None if tool == "bash" => ToolAnnotations::open(),
            None => ToolAnnotations::default(),
            Some("read-only") => ToolAnnotations::read_only(),
            Some("destructive") => ToolAnnotations::destructive(),
            Some("open") => ToolAnnotations::open(),
            Some(other) => panic!("case {index}: unknown annotations {other}"),
        };
        let decision = policy.decide(&tool, annotations, &args);
        let mut wrong = Vec::new();
        if decision.decision.as_str() != case.expect {
            wrong.push(format!(
                "decision {} (want {})",
                decision.decision, case.expect
            ));
        }
        if let Some(rule) = &case.rule
            && &decision.rule != rule
        {
            wrong.push(format!("rule {:?} (want {rule:?})", decision.rule));
        }
        if let Some(source) = &case.source
            && decision.source.as_str() != source
        {
            wrong.push(format!(
                "source {} (want {source})",
                decision.source.as_str()
            ));
        }
        if let Some(commands) = &case.commands
            && &decision.commands != commands
        {
            wrong.push(format!(
                "commands {:?} (want {commands:?})",
                decision.commands
            ));
        }
        if !wrong.is_empty() {
            failures.push(format!(
                "case {index} [{mode}] {tool} {args}: {} (reason: {:?})",
                wrong.join(", "),
                decision.reason
            ));
        }
    }
    let adversarial = table.cases.iter().filter(|case| case.adversarial).count();
    assert!(table.cases.len() >= 100, "{} cases", table.cases.len());
    assert!(
        adversarial * 2 >= table.cases.len(),
        "{adversarial} adversarial"
    );
    assert!(
        failures.is_empty(),
        "{} wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
