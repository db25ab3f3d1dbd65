//! The session host as a long-lived front end uses it: changing the thinking level keeps the
//! conversation, `new`/`fork`/`clone` go on in other files (the fork ending before the
//! message forked from), a failed change leaves the session that ran, and nothing changes
//! while a prompt holds the session. No request is sent: the model is a local server's,
//! named in `models.json`, and no prompt runs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pi_ai::{AssistantContent, AssistantMessage, Message, ModelInfo, UserMessage};
use pi_approval::{Mode, Permissions, ProjectTrust, Protected, RuleSet};
use pi_coding_agent::{
    ApprovalFlags, ApprovalSetup, CycleDirection, HostError, McpServers, ModelRegistry,
    ModelRequest, ModelScope, NobodyToAsk, PromptOptions, RetryPolicy, SessionHost, SessionSetup,
    Settings, ThinkingLevel, Variables, resolve_run_model,
};
use pi_session::Session;
use pi_tool::builtin;
use tokio_util::sync::CancellationToken;

struct Dirs {
    _root: tempfile::TempDir,
    cwd: PathBuf,
    agent: PathBuf,
    sessions: PathBuf,
}

fn dirs() -> Dirs {
    let root = tempfile::tempdir().unwrap();
    let cwd = root.path().join("work");
    let agent = root.path().join("agent");
    let sessions = root.path().join("sessions");
    for dir in [&cwd, &agent, &sessions] {
        std::fs::create_dir_all(dir).unwrap();
    }
    // Two local models, one that reasons: nothing is sent to them.
    std::fs::write(
        agent.join("models.json"),
        r#"{"providers": {"local": {"baseUrl": "http://127.0.0.1:9/v1",
             "api": "openai-completions",
             "models": [{"id": "plain"}, {"id": "thinker", "reasoning": true}]}}}"#,
    )
    .unwrap();
    Dirs {
        _root: root,
        cwd,
        agent,
        sessions,
    }
}

/// A session file holding two exchanges.
fn stored_session(dirs: &Dirs) -> PathBuf {
    let mut session = Session::create(&dirs.sessions, &dirs.cwd);
    for (question, answer) in [("first question", "one"), ("second question", "two")] {
        session
            .append_message(&Message::from(UserMessage::text(question)))
            .unwrap();
        let model = ModelInfo {
            api: "openai-completions".into(),
            provider: "local".into(),
            model: "plain".into(),
        };
        let reply = AssistantMessage::new(&model, vec![AssistantContent::text(answer)]);
        session.append_message(&Message::from(reply)).unwrap();
    }
    session.file_path().unwrap().to_path_buf()
}

async fn host(dirs: &Dirs, file: &Path, model: &str) -> SessionHost {
    let mut registry =
        ModelRegistry::load(&dirs.agent, Variables::fixed::<&str, &str>([])).unwrap();
    let request = ModelRequest {
        provider: Some("local".to_owned()),
        model: Some(model.to_owned()),
        ..ModelRequest::default()
    };
    let resolved = resolve_run_model(&mut registry, &Settings::default(), &request)
        .await
        .unwrap();
    let approvals = ApprovalSetup {
        mode: Mode::FullAuto,
        rules: RuleSet::from_sources(&Permissions::default(), None, None, ProjectTrust::Untrusted),
        user_settings: None,
        cwd: dirs.cwd.clone(),
        project_trusted: false,
        outside_tools: None,
        protected: Protected::new(),
        flags: ApprovalFlags::default(),
    };
    let mut prompt = PromptOptions::new(&dirs.cwd);
    prompt.today = "2026-12-07".to_owned();
    let setup = SessionSetup {
        cwd: dirs.cwd.clone(),
        agent_dir: Some(dirs.agent.clone()),
        tools: builtin::registry(),
        mcp_servers: McpServers::default(),
        approvals,
        approver: Arc::new(NobodyToAsk {
            cwd: dirs.cwd.clone(),
            why: "the test has nobody to ask",
        }),
        prompt,
        context_window: None,
        execution: Default::default(),
        max_turns: None,
        tool_timeout: None,
        stop: CancellationToken::new(),
        thinking_budgets: Default::default(),
        wire: pi_providers::ProviderConfig::new(model),
        retry: RetryPolicy::DISABLED,
        block_images: false,
    };
    let started = setup
        .start(Session::open(file).unwrap(), &resolved)
        .unwrap();
    SessionHost::new(
        setup,
        registry,
        Some(dirs.sessions.clone()),
        resolved,
        started.session,
    )
}

fn message_count(host: &SessionHost) -> usize {
    host.session().unwrap().messages().unwrap().len()
}

#[tokio::test]
async fn a_thinking_level_change_keeps_the_conversation_and_file() {
    let dirs = dirs();
    let file = stored_session(&dirs);
    let mut host = host(&dirs, &file, "thinker").await;
    assert_eq!(message_count(&host), 4);
    host.set_thinking_level(ThinkingLevel::High).await.unwrap();
    assert_eq!(host.model().thinking_level, ThinkingLevel::High);
    assert_eq!(host.session().unwrap().session_file().unwrap(), file);
    assert_eq!(message_count(&host), 4);
    // The change is recorded in the same file, as Pi records a level change.
    let stored = std::fs::read_to_string(&file).unwrap();
    assert!(stored.contains(r#""thinkingLevel":"high""#), "{stored}");
    // Cycling goes to the next level the model supports.
    host.cycle_thinking_level().await.unwrap().unwrap();
    assert_ne!(host.model().thinking_level, ThinkingLevel::High);
}

#[tokio::test]
async fn a_model_without_levels_does_not_cycle_and_models_cycle_in_order() {
    let dirs = dirs();
    let file = stored_session(&dirs);
    let mut host = host(&dirs, &file, "plain").await;
    assert!(host.cycle_thinking_level().await.unwrap().is_none());
    host.cycle_model().await.unwrap().unwrap();
    assert_eq!(host.model().model.id, "thinker");
    host.cycle_model().await.unwrap().unwrap();
    assert_eq!(host.model().model.id, "plain");
    assert_eq!(message_count(&host), 4);
}

#[tokio::test]
async fn a_fork_ends_before_the_message_forked_from_and_gives_its_text() {
    let dirs = dirs();
    let file = stored_session(&dirs);
    let mut host = host(&dirs, &file, "plain").await;
    let points = host.fork_points();
    assert_eq!(
        points
            .iter()
            .map(|point| point.text.as_str())
            .collect::<Vec<_>>(),
        ["first question", "second question"]
    );
    let (_, text) = host.fork(&points[1].entry_id).await.unwrap();
    assert_eq!(text, "second question");
    let forked = host.session().unwrap().session_file().unwrap();
    assert_ne!(forked, file);
    assert!(forked.starts_with(&dirs.sessions));
    assert_eq!(message_count(&host), 2);
    // The file forked from is as it was.
    assert_eq!(
        Session::load(&file)
            .unwrap()
            .context()
            .unwrap()
            .messages
            .len(),
        4
    );
    // Forking at the first message starts an empty session.
    let mut host = self::host(&dirs, &file, "plain").await;
    host.fork(&points[0].entry_id).await.unwrap();
    assert_eq!(message_count(&host), 0);
}

#[tokio::test]
async fn clone_and_new_go_on_in_new_files() {
    let dirs = dirs();
    let file = stored_session(&dirs);
    let mut host = host(&dirs, &file, "plain").await;
    host.clone_session().await.unwrap();
    let copy = host.session().unwrap().session_file().unwrap();
    assert_ne!(copy, file);
    assert_eq!(message_count(&host), 4);
    host.new_session().await.unwrap();
    assert_eq!(message_count(&host), 0);
    assert_ne!(host.session().unwrap().session_file().unwrap(), copy);
    // And back to the first file.
    host.switch_session(&file).await.unwrap();
    assert_eq!(message_count(&host), 4);
}

#[tokio::test]
async fn a_failed_change_leaves_the_session_that_ran() {
    let dirs = dirs();
    let file = stored_session(&dirs);
    let mut host = host(&dirs, &file, "plain").await;
    let error = host.set_model("local", "missing").await.unwrap_err();
    assert_eq!(error.to_string(), "Model not found: local/missing");
    let error = host.fork("no-such-entry").await.unwrap_err();
    assert!(matches!(error, HostError::NotAForkPoint(_)), "{error}");
    let missing = dirs.sessions.join("missing.jsonl");
    let error = host.switch_session(&missing).await.unwrap_err();
    assert!(
        pi_tool::error_text(&error).starts_with(&format!("opening {}", missing.display())),
        "{error}"
    );
    assert_eq!(host.session().unwrap().session_file().unwrap(), file);
    assert_eq!(message_count(&host), 4);
}

#[tokio::test]
async fn nothing_changes_while_a_prompt_holds_the_session() {
    let dirs = dirs();
    let file = stored_session(&dirs);
    let mut host = host(&dirs, &file, "thinker").await;
    // A prompt task holds a clone of the session while it runs.
    let running = Arc::clone(host.session().unwrap());
    assert!(host.is_busy());
    let error = host
        .set_thinking_level(ThinkingLevel::Low)
        .await
        .unwrap_err();
    assert!(matches!(error, HostError::Busy), "{error}");
    assert!(matches!(
        host.new_session().await.unwrap_err(),
        HostError::Busy
    ));
    drop(running);
    assert!(!host.is_busy());
    host.set_thinking_level(ThinkingLevel::Low).await.unwrap();
    assert_eq!(host.close().await, None);
}

#[tokio::test]
async fn another_host_runs_in_its_own_directory_with_the_same_model() {
    let dirs = dirs();
    let file = stored_session(&dirs);
    let host = host(&dirs, &file, "thinker").await;
    let elsewhere = dirs.cwd.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let mut setup = host.setup().clone();
    setup.cwd = elsewhere.clone();
    let (other, _) = host
        .start_another(setup, Session::create(&dirs.sessions, &elsewhere))
        .unwrap();
    assert_eq!(other.setup().cwd, elsewhere);
    assert_eq!(other.model().model.id, "thinker");
    assert_eq!(other.session_dir(), Some(dirs.sessions.as_path()));
    assert_eq!(message_count(&other), 0);
    // The first host's session is untouched.
    assert_eq!(message_count(&host), 4);
    assert_ne!(
        other.session().unwrap().session_id(),
        host.session().unwrap().session_id()
    );
}

#[tokio::test]
async fn an_approval_mode_change_keeps_the_conversation() {
    let dirs = dirs();
    let file = stored_session(&dirs);
    let mut host = host(&dirs, &file, "plain").await;
    assert_eq!(host.setup().approvals.mode, Mode::FullAuto);
    host.set_approval_mode(Mode::ReadOnly).await.unwrap();
    assert_eq!(host.setup().approvals.mode, Mode::ReadOnly);
    assert_eq!(host.session().unwrap().session_file().unwrap(), file);
    assert_eq!(message_count(&host), 4);
}

#[tokio::test]
async fn reload_reads_prompt_templates_again_and_keeps_the_conversation() {
    let dirs = dirs();
    let file = stored_session(&dirs);
    let mut host = host(&dirs, &file, "plain").await;
    assert!(host.session().unwrap().commands().templates.is_empty());
    std::fs::create_dir_all(dirs.agent.join("prompts")).unwrap();
    std::fs::write(
        dirs.agent.join("prompts").join("review.md"),
        "---\ndescription: review the code\n---\nReview $1 please.",
    )
    .unwrap();
    // Not seen until reloaded.
    assert!(host.session().unwrap().commands().templates.is_empty());
    host.reload().await.unwrap();
    let session = host.session().unwrap();
    let names: Vec<&str> = session
        .commands()
        .templates
        .iter()
        .map(|template| template.name.as_str())
        .collect();
    assert_eq!(names, ["review"]);
    assert_eq!(message_count(&host), 4);
    assert_eq!(
        host.session().unwrap().session_file().as_deref(),
        Some(file.as_path())
    );
}

#[tokio::test]
async fn reload_reads_the_approval_rules_again_and_keeps_the_sessions_mode() {
    let dirs = dirs();
    let file = stored_session(&dirs);
    let mut host = host(&dirs, &file, "plain").await;
    host.set_approval_mode(Mode::ReadOnly).await.unwrap();
    let denies = |host: &SessionHost| {
        host.setup()
            .approvals
            .rules
            .entries()
            .iter()
            .any(|entry| entry.rule.to_string() == "bash(rm:*)")
    };
    assert!(!denies(&host));
    // A deny rule added to the project's settings mid-session (a project's deny rules hold
    // whether or not it is trusted).
    std::fs::create_dir_all(dirs.cwd.join(".pi")).unwrap();
    std::fs::write(
        dirs.cwd.join(".pi").join("settings.json"),
        r#"{"permissions": {"deny": ["bash(rm:*)"]}}"#,
    )
    .unwrap();
    host.reload().await.unwrap();
    assert!(denies(&host), "{:?}", host.setup().approvals.rules);
    assert_eq!(host.setup().approvals.mode, Mode::ReadOnly);
    assert_eq!(message_count(&host), 4);
}

#[tokio::test]
async fn reload_applies_the_queue_modes_the_settings_name_now() {
    let dirs = dirs();
    let file = stored_session(&dirs);
    let mut host = host(&dirs, &file, "plain").await;
    let before = host.session().unwrap().steering().is_one_at_a_time();
    let (steering, follow_up) = if before {
        ("all", "one-at-a-time")
    } else {
        ("one-at-a-time", "all")
    };
    std::fs::write(
        dirs.agent.join("settings.json"),
        format!(r#"{{"steeringMode": "{steering}", "followUpMode": "{follow_up}"}}"#),
    )
    .unwrap();
    host.reload().await.unwrap();
    let session = host.session().unwrap();
    assert_eq!(session.steering().is_one_at_a_time(), !before);
    assert_eq!(
        session.follow_ups().is_one_at_a_time(),
        follow_up == "one-at-a-time"
    );
}

#[tokio::test]
async fn cycling_goes_through_the_scope_both_ways_at_its_levels() {
    let dirs = dirs();
    std::fs::write(
        dirs.agent.join("models.json"),
        r#"{"providers": {"local": {"baseUrl": "http://127.0.0.1:9/v1",
             "api": "openai-completions",
             "models": [{"id": "plain"}, {"id": "thinker", "reasoning": true}, {"id": "third"}]}}}"#,
    )
    .unwrap();
    let file = stored_session(&dirs);
    let mut host = host(&dirs, &file, "plain").await;
    let patterns = ["local/thinker:high".to_owned(), "local/plain".to_owned()];
    let (scope, warnings) = ModelScope::resolve(&patterns, host.registry());
    assert!(warnings.is_empty(), "{warnings:?}");
    host.set_scope(scope);
    let ids = |host: &SessionHost| {
        (
            host.model().model.id.clone(),
            host.model().thinking_level.to_string(),
        )
    };
    host.cycle_model().await.unwrap().unwrap();
    assert_eq!(ids(&host), ("thinker".to_owned(), "high".to_owned()));
    host.cycle_model().await.unwrap().unwrap();
    assert_eq!(ids(&host), ("plain".to_owned(), "off".to_owned()));
    host.cycle_model_toward(CycleDirection::Backward)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ids(&host).0, "thinker");
    // Each switch is a model_change entry of the same file, as /model records it.
    let stored = std::fs::read_to_string(&file).unwrap();
    let changes: Vec<&str> = stored
        .lines()
        .filter(|line| line.contains(r#""type":"model_change""#))
        .collect();
    assert_eq!(changes.len(), 3, "{stored}");
    assert!(changes[0].contains(r#""modelId":"thinker""#), "{stored}");
    // Toggled off for the session, thinker is left out: one model left, no cycle.
    host.toggle_in_scope("local", "thinker");
    assert!(!host.scope().includes("local", "thinker"));
    assert!(host.cycle_model().await.unwrap().is_none());
    // Third turned on goes last; thinker, outside the scope, counts as its first (as Pi's).
    host.toggle_in_scope("local", "third");
    host.cycle_model().await.unwrap().unwrap();
    assert_eq!(ids(&host).0, "third");
    host.cycle_model().await.unwrap().unwrap();
    assert_eq!(ids(&host).0, "plain");
}

#[tokio::test]
async fn without_a_scope_cycling_goes_through_every_model_with_a_key_backwards_too() {
    let dirs = dirs();
    let file = stored_session(&dirs);
    let mut host = host(&dirs, &file, "plain").await;
    host.cycle_model_toward(CycleDirection::Backward)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(host.model().model.id, "thinker");
    host.cycle_model_toward(CycleDirection::Backward)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(host.model().model.id, "plain");
}

#[tokio::test]
async fn import_copies_a_session_file_into_the_directory_and_continues_it() {
    let dirs = dirs();
    let file = stored_session(&dirs);
    let mut host = host(&dirs, &file, "plain").await;
    host.new_session().await.unwrap();
    assert_eq!(message_count(&host), 0);
    // A session kept elsewhere, under another name.
    let elsewhere = dirs.cwd.join("shared.jsonl");
    std::fs::copy(&file, &elsewhere).unwrap();
    let (imported, _) = host.import_session(&elsewhere).await.unwrap();
    assert_eq!(imported, dirs.sessions.join("shared.jsonl"));
    assert_eq!(message_count(&host), 4);
    assert_eq!(
        host.session().unwrap().session_file().as_deref(),
        Some(imported.as_path())
    );
    // Again: the name is taken in the directory, so it is refused, that file untouched.
    let before = std::fs::read(&imported).unwrap();
    std::fs::write(&elsewhere, b"{\"type\":\"session\"}\n").unwrap();
    assert!(host.import_session(&elsewhere).await.is_err());
    assert_eq!(std::fs::read(&imported).unwrap(), before);
    // Not a session: refused before anything is copied.
    let notes = dirs.cwd.join("notes.jsonl");
    std::fs::write(&notes, "just words\n").unwrap();
    assert!(host.import_session(&notes).await.is_err());
    assert!(!dirs.sessions.join("notes.jsonl").exists());
    assert_eq!(message_count(&host), 4);
}
