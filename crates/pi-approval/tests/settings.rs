//! Settings files: where they are, what `permissions` may hold, the project-trust rule, and
//! the errors an unreadable or malformed file gives.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::path::Path;

use pi_approval::settings::{self, SettingsError};
use pi_approval::{
    LocalPaths, Mode, Permissions, Policy, ProjectTrust, RuleKind, RuleSet, Source, Verdict,
};
use pi_tool::ToolAnnotations;
use serde_json::json;

fn parse(text: &str) -> Result<Permissions, SettingsError> {
    settings::parse(Path::new("/u/settings.json"), text)
}

#[test]
fn permissions_are_read_and_other_keys_left_to_pi() {
    let permissions = parse(
        r#"{"theme": "dark", "permissions": {"mode": "auto-edit", "allow": ["bash(git log:*)"], "deny": ["read(.env)"]}}"#,
    )
    .unwrap();
    assert_eq!(permissions.mode, Some(Mode::AutoEdit));
    assert_eq!(permissions.allow.len(), 1);
    assert_eq!(permissions.deny.first().unwrap().text(), "read(.env)");
    assert!(parse("{}").unwrap().allow.is_empty());
}

#[test]
fn malformed_files_name_the_file_the_list_and_the_rule() {
    // The whole chain, as the CLI prints it: each cause once.
    let message = |text: &str| pi_tool::error_text(&parse(text).unwrap_err());
    assert!(message("{").starts_with("/u/settings.json is not valid JSON: "));
    assert_eq!(
        message("[]"),
        "/u/settings.json: settings must be a JSON object"
    );
    assert_eq!(
        message(r#"{"permissions": []}"#),
        "/u/settings.json: permissions must be an object"
    );
    assert_eq!(
        message(r#"{"permissions": {"allow": "bash"}}"#),
        "/u/settings.json: permissions.allow must be a list of strings"
    );
    assert_eq!(
        message(r#"{"permissions": {"deny": ["bash", "bash(rm"]}}"#),
        r#"/u/settings.json: permissions.deny[1]: rule "bash(rm" at column 5: `(` is not closed by a `)` ending the rule"#
    );
    assert_eq!(
        message(r#"{"permissions": {"mode": "auto"}}"#),
        r#"/u/settings.json: permissions.mode: unknown approval mode "auto": use read-only, ask, auto-edit, full-auto or yolo"#
    );
}

#[test]
fn a_missing_file_is_no_settings_and_an_unreadable_one_an_error() {
    let dir = tempfile::tempdir().unwrap();
    assert!(
        settings::load(&dir.path().join("none.json"))
            .unwrap()
            .is_none()
    );
    // A directory where the file should be cannot be read.
    let error = settings::load(dir.path()).unwrap_err();
    assert!(matches!(error, SettingsError::Read { .. }), "{error}");
    assert!(error.to_string().starts_with("cannot read "), "{error}");
    let file = dir.path().join("settings.json");
    std::fs::write(&file, r#"{"permissions": {"ask": ["bash(git push:*)"]}}"#).unwrap();
    assert_eq!(settings::load(&file).unwrap().unwrap().ask.len(), 1);
}

#[test]
fn the_settings_files_are_where_pi_keeps_them() {
    assert_eq!(
        settings::project_settings_path(Path::new("/repo")),
        Path::new("/repo/.pi/settings.json")
    );
    // PI_CODING_AGENT_DIR is read by Pi too; this test only reads it.
    let user = settings::user_settings_path().unwrap();
    match std::env::var_os("PI_CODING_AGENT_DIR") {
        Some(dir) if !dir.is_empty() => assert_eq!(user, Path::new(&dir).join("settings.json")),
        _ => assert!(
            user.ends_with(".pi/agent/settings.json"),
            "{}",
            user.display()
        ),
    }
}

#[test]
fn a_project_cannot_grant_itself_permissions_until_trusted() {
    let project = parse(
        r#"{"permissions": {"mode": "yolo", "allow": ["bash(make:*)"], "deny": ["bash(make clean)"]}}"#,
    )
    .unwrap();
    let cli = Permissions::default();
    let decide = |trust, command: &str| {
        let rules = RuleSet::from_sources(&cli, Some(&project), None, trust);
        let mode = rules.mode().unwrap_or_default();
        Policy::new(mode, rules, LocalPaths::new("/repo")).decide(
            "bash",
            ToolAnnotations::open(),
            &json!({"command": command}),
        )
    };
    let untrusted = decide(ProjectTrust::Untrusted, "make all");
    assert_eq!(
        (untrusted.decision, untrusted.source),
        (Verdict::Ask, Source::Mode)
    );
    let trusted = decide(ProjectTrust::Trusted, "make all");
    assert_eq!(
        (trusted.decision, trusted.source),
        (Verdict::Allow, Source::Project)
    );
    // Deny rules always count.
    assert_eq!(
        decide(ProjectTrust::Untrusted, "make clean").decision,
        Verdict::Deny
    );
    let rules = RuleSet::from_sources(&cli, Some(&project), None, ProjectTrust::Untrusted);
    assert_eq!(rules.ignored().len(), 1);
    assert_eq!(
        rules.mode(),
        None,
        "an untrusted project's mode is ignored too"
    );
}

#[test]
fn the_command_line_comes_first_then_the_project_then_the_user() {
    let mut cli = Permissions::default();
    cli.add(RuleKind::Ask, "bash(git push:*)").unwrap();
    cli.mode = Some(Mode::ReadOnly);
    let user = parse(r#"{"permissions": {"mode": "yolo", "ask": ["bash(git:*)"]}}"#).unwrap();
    let rules = RuleSet::from_sources(&cli, None, Some(&user), ProjectTrust::Trusted);
    assert_eq!(rules.mode(), Some(Mode::ReadOnly));
    let policy = Policy::new(Mode::Ask, rules, LocalPaths::new("/repo"));
    let decision = policy.decide(
        "bash",
        ToolAnnotations::open(),
        &json!({"command": "git push"}),
    );
    assert_eq!(decision.rule.as_deref(), Some("bash(git push:*)"));
    assert_eq!(decision.source, Source::Cli);
}

#[test]
fn a_bare_deny_hides_the_tool_and_a_scoped_one_does_not() {
    let mut user = Permissions::default();
    user.add(RuleKind::Deny, "mcp_github_*").unwrap();
    user.add(RuleKind::Deny, "bash(rm:*)").unwrap();
    user.add(RuleKind::Allow, "edit").unwrap();
    user.add(RuleKind::Deny, "write").unwrap();
    let rules = RuleSet::from_sources(
        &Permissions::default(),
        None,
        Some(&user),
        ProjectTrust::Untrusted,
    );
    let policy = Policy::new(Mode::Ask, rules, LocalPaths::new("/repo"));
    assert!(policy.hides_tool("mcp_github_create_issue"));
    assert!(!policy.hides_tool("bash"));
    assert!(!policy.hides_tool("read"));
    assert!(policy.hides_tool("write"));
    assert!(!policy.hides_tool("edit"), "a bare allow hides nothing");
}

#[test]
fn a_saved_rule_keeps_every_other_key_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent").join("settings.json");
    // No file yet: created with the rule alone.
    settings::save_rule(&path, RuleKind::Allow, "bash(make:*)").unwrap();
    std::fs::write(
        &path,
        r#"{"theme": "dark", "permissions": {"deny": ["read(.env)"], "allow": ["bash(git log:*)"]}, "z": [1]}"#,
    )
    .unwrap();
    settings::save_rule(&path, RuleKind::Allow, "bash(make:*)").unwrap();
    settings::save_rule(&path, RuleKind::Allow, "bash(make:*)").unwrap();
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(saved["theme"], "dark");
    assert_eq!(saved["z"], json!([1]));
    assert_eq!(saved["permissions"]["deny"], json!(["read(.env)"]));
    assert_eq!(
        saved["permissions"]["allow"],
        json!(["bash(git log:*)", "bash(make:*)"])
    );
    let keys: Vec<&String> = saved.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["theme", "permissions", "z"], "order kept");
    assert_eq!(settings::load(&path).unwrap().unwrap().allow.len(), 2);
}

#[test]
fn a_save_that_cannot_happen_leaves_the_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    std::fs::write(&path, "{ not json").unwrap();
    let error = settings::save_rule(&path, RuleKind::Allow, "bash(make:*)").unwrap_err();
    assert!(matches!(error, SettingsError::Json { .. }), "{error}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ not json");
    std::fs::write(&path, "{}").unwrap();
    let error = settings::save_rule(&path, RuleKind::Allow, "bash(").unwrap_err();
    assert!(matches!(error, SettingsError::Rule { .. }), "{error}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}");
}

#[test]
fn only_the_users_list_trusts_a_project() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("repo");
    std::fs::create_dir(&project).unwrap();
    let path = Path::new("/u/settings.json");
    let listed = json!({"permissions": {"trustedProjects": [project.join("..").join("repo")]}});
    assert!(settings::trusts_project(path, &listed.to_string(), &project).unwrap());
    assert!(!settings::trusts_project(path, "{}", &project).unwrap());
    let other = json!({"permissions": {"trustedProjects": ["/elsewhere"]}});
    assert!(!settings::trusts_project(path, &other.to_string(), &project).unwrap());
    assert!(
        settings::trusts_project(
            path,
            r#"{"permissions": {"trustedProjects": "x"}}"#,
            &project
        )
        .is_err()
    );
}

/// A settings file kept elsewhere (a dotfiles repository) and linked into the agent's
/// directory: "always" writes its target, and the link stays a link.
#[test]
fn a_saved_rule_writes_through_a_symlinked_settings_file() {
    let dir = tempfile::tempdir().unwrap();
    let dotfiles = dir.path().join("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::write(dotfiles.join("settings.json"), r#"{"theme":"dark"}"#).unwrap();
    let agent = dir.path().join("agent");
    std::fs::create_dir_all(&agent).unwrap();
    let link = agent.join("settings.json");
    std::os::unix::fs::symlink(dotfiles.join("settings.json"), &link).unwrap();

    settings::save_rule(&link, RuleKind::Allow, "bash(touch:*)").unwrap();

    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let target: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dotfiles.join("settings.json")).unwrap())
            .unwrap();
    assert_eq!(target["theme"], "dark");
    assert_eq!(target["permissions"]["allow"], json!(["bash(touch:*)"]));
    // Nothing left beside the link or the target.
    assert_eq!(std::fs::read_dir(&agent).unwrap().count(), 1);
    assert_eq!(std::fs::read_dir(&dotfiles).unwrap().count(), 1);
}
