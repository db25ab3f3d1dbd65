//! What a repository its user did not write can do to the default mode's shortcuts: a
//! `.git/config` that makes `git status` run a program, a `cd` before a read-only command, a
//! link shipped in the repository, read-only commands with options that write, and edits of
//! the files that decide what the next run may do (`.git/`, `.pi/`, the agent's directory, the
//! session file). Each case is a reproduction from an attack round (ids in the test names'
//! comments); each runs on a real temporary repository.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};

use pi_approval::{
    LocalPaths, Mode, Permissions, Policy, ProjectTrust, Protected, RuleKind, RuleSet, Verdict,
};
use pi_tool::ToolAnnotations;
use serde_json::json;

struct Repo {
    _dir: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
}

impl Repo {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let work = home.join("work");
        std::fs::create_dir_all(work.join(".git")).unwrap();
        std::fs::create_dir_all(work.join("docs")).unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), "KEY").unwrap();
        std::fs::write(
            work.join(".git/config"),
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
        )
        .unwrap();
        Self {
            _dir: dir,
            home,
            work,
        }
    }

    fn policy(&self, mode: Mode, deny: &[&str], allow: &[&str]) -> Policy {
        let mut cli = Permissions::default();
        for rule in deny {
            cli.add(RuleKind::Deny, rule).unwrap();
        }
        for rule in allow {
            cli.add(RuleKind::Allow, rule).unwrap();
        }
        let rules = RuleSet::from_sources(&cli, None, None, ProjectTrust::Untrusted);
        Policy::new(
            mode,
            rules,
            LocalPaths::with_home(&self.work, Some(self.home.clone())),
        )
    }

    fn bash(&self, policy: &Policy, command: &str) -> (Verdict, String) {
        let decision = policy.decide(
            "bash",
            ToolAnnotations::open(),
            &json!({ "command": command }),
        );
        (decision.decision, decision.reason.unwrap_or_default())
    }
}

/// P4: `core.fsmonitor` (and the other keys naming programs) makes `git status` no longer
/// read-only; a plain configuration keeps it so.
#[test]
fn git_is_read_only_only_while_the_repository_names_no_program() {
    let repo = Repo::new();
    let policy = repo.policy(Mode::Ask, &[], &[]);
    assert_eq!(repo.bash(&policy, "git status").0, Verdict::Allow);
    assert_eq!(repo.bash(&policy, "git diff HEAD").0, Verdict::Allow);
    for config in [
        "[core]\n\tfsmonitor = \"rm -f victim\"\n",
        "[diff]\n\texternal = ./x.sh\n",
        "[diff \"bin\"]\n\ttextconv = ./x.sh\n",
        "[filter \"x\"]\n\tclean = ./x.sh\n",
        "[include]\n\tpath = ../elsewhere\n",
    ] {
        std::fs::write(repo.work.join(".git/config"), config).unwrap();
        for command in ["git status", "git diff", "cd docs && git log"] {
            let (verdict, reason) = repo.bash(&policy, command);
            assert_eq!(verdict, Verdict::Ask, "{command} with {config:?}: {reason}");
            assert!(
                reason.contains("configuration makes git run a program"),
                "{reason}"
            );
        }
    }
}

/// P2: `cd; cat .ssh/id_rsa` reads under home; `cd ..`, `cd /`, `cd $X` likewise move out of
/// the workspace (or to somewhere unknown). A `cd` that stays inside keeps the shortcut.
#[test]
fn a_cd_out_of_the_workspace_takes_the_shortcut_away() {
    let repo = Repo::new();
    let policy = repo.policy(Mode::Ask, &[], &[]);
    for command in [
        "cd; cat .ssh/id_rsa",
        "cd ~ && cat .ssh/id_rsa",
        "cd .. && cat .ssh/id_rsa",
        "cd / && cat etc/passwd",
        "cd docs/../.. && ls",
        "cd - && ls",
        "pushd .. && cat .ssh/id_rsa",
    ] {
        let (verdict, reason) = repo.bash(&policy, command);
        assert_eq!(verdict, Verdict::Ask, "{command}: {reason}");
    }
    for command in [
        "cd docs && ls",
        "cd docs; cat ../README.md",
        "cd ./docs/.. && ls",
    ] {
        let (verdict, reason) = repo.bash(&policy, command);
        assert_eq!(verdict, Verdict::Allow, "{command}: {reason}");
    }
}

/// P3: a link shipped in the repository (`docs/id_rsa -> ~/.ssh/id_rsa`) is read where it
/// leads.
#[test]
fn a_path_through_a_link_is_judged_where_it_leads() {
    let repo = Repo::new();
    std::os::unix::fs::symlink(repo.home.join(".ssh/id_rsa"), repo.work.join("docs/id_rsa"))
        .unwrap();
    std::os::unix::fs::symlink(repo.home.join(".ssh"), repo.work.join("keys")).unwrap();
    let policy = repo.policy(Mode::Ask, &[], &[]);
    for command in [
        "cat docs/id_rsa",
        "head -n 1 keys/id_rsa",
        "cd keys && cat id_rsa",
        "grep -r KEY keys",
    ] {
        let (verdict, reason) = repo.bash(&policy, command);
        assert_eq!(verdict, Verdict::Ask, "{command}: {reason}");
        assert!(
            reason.contains("outside the workspace"),
            "{command}: {reason}"
        );
    }
}

/// P1: read-only commands with an option that writes.
#[test]
fn read_only_commands_that_write_are_not_read_only() {
    let repo = Repo::new();
    let policy = repo.policy(Mode::Ask, &[], &[]);
    for command in [
        "tree -o README.md",
        "tree -fo x",
        "tree --output=x",
        "tree -R -H .",
        "file -C -m magic",
        "date -s 2020-01-01",
        "date --set=x",
    ] {
        assert_eq!(repo.bash(&policy, command).0, Verdict::Ask, "{command}");
    }
    for command in ["tree -a", "file README.md", "date +%s"] {
        assert_eq!(repo.bash(&policy, command).0, Verdict::Allow, "{command}");
    }
}

fn edit(policy: &Policy, path: &Path) -> Verdict {
    policy
        .decide(
            "write",
            ToolAnnotations::default(),
            &json!({"path": path, "content": "x"}),
        )
        .decision
}

/// P18, P5: in `auto-edit` (and with an allow rule covering everything) a model cannot write
/// `.git/config`, `.pi/settings.json`, the agent's directory or the session file without
/// asking; `bash` naming them asks in `full-auto`; `yolo` stays `yolo`; a deny rule still
/// refuses.
#[test]
fn protected_paths_ask_in_every_mode_but_yolo() {
    let repo = Repo::new();
    let agent = repo.home.join(".pi/agent");
    let session = repo.work.join("session.jsonl");
    let mut protected = Protected::new();
    protected.add(&agent);
    protected.add(&session);
    let with = |mode, allow: &[&str]| {
        repo.policy(mode, &[], allow)
            .with_protected(protected.clone())
    };
    let targets = [
        repo.work.join(".git/config"),
        repo.work.join(".git/hooks/pre-commit"),
        repo.work.join(".pi/settings.json"),
        repo.work.join("sub/.git/config"),
        agent.join("settings.json"),
        session.clone(),
    ];
    for mode in [Mode::AutoEdit, Mode::FullAuto] {
        let policy = with(mode, &["edit(**)", "write(**)", "bash(*)"]);
        for target in &targets {
            assert_eq!(
                edit(&policy, target),
                Verdict::Ask,
                "{mode} {}",
                target.display()
            );
        }
        assert_eq!(
            edit(&policy, &repo.work.join("src/main.rs")),
            Verdict::Allow,
            "{mode}"
        );
        for command in [
            "echo '[core] fsmonitor = x' > .git/config",
            "cp evil .git/config",
            "sed -i s/a/b/ .pi/settings.json",
            "git config core.fsmonitor ./x.sh",
            "git -C . config core.pager ./x.sh",
            "cd .git && tee config < /dev/null",
            "bash -c 'echo x >> .pi/settings.json'",
        ] {
            let (verdict, reason) = repo.bash(&policy, command);
            assert_eq!(verdict, Verdict::Ask, "{mode} {command}: {reason}");
            assert!(reason.contains("protected path"), "{command}: {reason}");
        }
        // Reading them is no change.
        assert_eq!(
            repo.bash(&policy, "cat .git/config").0,
            Verdict::Allow,
            "{mode}"
        );
    }
    assert_eq!(edit(&with(Mode::Yolo, &[]), &targets[0]), Verdict::Allow);
    assert_eq!(edit(&with(Mode::ReadOnly, &[]), &targets[0]), Verdict::Deny);
    let denied = repo
        .policy(Mode::AutoEdit, &["write(.git/**)"], &[])
        .with_protected(protected.clone());
    assert_eq!(edit(&denied, &targets[0]), Verdict::Deny);
}

/// P9, P12, P11: a file rule judges the file: a hard link to `.env`, a look-alike spelling
/// the tools would respell to the real name, and `bash` commands that read it.
#[test]
fn file_rules_judge_the_file_not_its_spelling() {
    let repo = Repo::new();
    std::fs::write(repo.work.join(".env"), "SECRET=hunter2").unwrap();
    std::fs::hard_link(repo.work.join(".env"), repo.work.join("notes.txt")).unwrap();
    std::fs::write(repo.work.join("it\u{2019}s.env"), "LOOKALIKE").unwrap();
    std::fs::write(repo.work.join("caf\u{e9}.env"), "ACCENT").unwrap();
    let policy = repo.policy(
        Mode::AutoEdit,
        &[
            "edit(.env)",
            "read(.env)",
            "read(it\u{2019}s.env)",
            "read(caf\u{e9}.env)",
        ],
        &[],
    );
    let call = |tool: &str, path: &str| {
        policy
            .decide(
                tool,
                ToolAnnotations::default(),
                &json!({"path": path, "content": "x"}),
            )
            .decision
    };
    assert_eq!(
        call("edit", "notes.txt"),
        Verdict::Deny,
        "a hard link to .env"
    );
    assert_eq!(call("write", "notes.txt"), Verdict::Deny);
    assert_eq!(call("read", "notes.txt"), Verdict::Deny);
    assert_eq!(
        call("read", "it's.env"),
        Verdict::Deny,
        "a straight apostrophe"
    );
    assert_eq!(
        call("read", "cafe\u{301}.env"),
        Verdict::Deny,
        "a decomposed accent"
    );
    assert_eq!(call("edit", "README.md"), Verdict::Allow);
    assert!(
        policy
            .denies_reading(&repo.work.join("notes.txt"))
            .is_some()
    );
    assert!(
        policy
            .denies_reading(&repo.work.join("README.md"))
            .is_none()
    );

    for command in [
        "cat .env",
        "grep SECRET .env",
        "cat notes.txt",
        "head -c 9 ./notes.txt",
        "base64 .env",
        "cd docs && cat ../.env",
    ] {
        let (verdict, reason) = repo.bash(&policy, command);
        assert_eq!(verdict, Verdict::Deny, "{command}: {reason}");
    }
    // Naming the file is not reading it.
    assert_ne!(
        repo.bash(&policy, "echo .env >> .gitignore").0,
        Verdict::Deny
    );
    assert_eq!(repo.bash(&policy, "cat README.md").0, Verdict::Allow);
}
