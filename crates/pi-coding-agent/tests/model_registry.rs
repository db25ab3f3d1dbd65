//! The model registry as a front end uses it: an agent directory prepared with settings,
//! models.json and auth.json, an environment, the command line's say; the model, key and
//! thinking level that come out.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::path::{Path, PathBuf};

use pi_ai::{Cost, Usage};
use pi_coding_agent::{
    KeySource, ModelApi, ModelList, ModelRegistry, ModelRequest, RegistryError, Secret,
    SelectionError, SessionModel, Settings, SettingsFiles, ThinkingLevel, Variables,
    calculate_cost, list_models, resolve_model,
};
use tempfile::TempDir;

struct AgentDir {
    root: TempDir,
}

impl AgentDir {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("agent")).unwrap();
        std::fs::create_dir_all(root.path().join("project/.pi")).unwrap();
        Self { root }
    }

    fn agent(&self) -> PathBuf {
        self.root.path().join("agent")
    }

    fn project(&self) -> PathBuf {
        self.root.path().join("project")
    }

    fn write(&self, name: &str, text: &str) -> &Self {
        write_private(&self.agent().join(name), text);
        self
    }

    fn registry(&self, env: &[(&str, &str)]) -> ModelRegistry {
        ModelRegistry::load(&self.agent(), Variables::fixed(env.iter().copied())).unwrap()
    }

    fn settings(&self) -> Settings {
        SettingsFiles::load(Some(&self.agent()), Some(&self.project()))
            .unwrap()
            .settings()
            .unwrap()
    }
}

fn write_private(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
}

const LOCAL_SERVER: &str = r#"{"providers": {"llama": {"baseUrl": "http://127.0.0.1:8080/v1", "api": "openai-completions",
    "models": [{"id": "smollm2", "contextWindow": 8192, "maxTokens": 512}]}}}"#;

#[test]
fn a_local_server_in_models_json_is_used_with_no_flags_and_no_key() {
    let dir = AgentDir::new();
    dir.write("models.json", LOCAL_SERVER);
    let mut registry = dir.registry(&[]);
    let resolved = resolve_model(&mut registry, &dir.settings(), &ModelRequest::default()).unwrap();
    assert_eq!(resolved.model.reference(), "llama/smollm2");
    assert_eq!(resolved.model.api, ModelApi::OpenAiCompletions);
    assert_eq!(resolved.model.base_url, "http://127.0.0.1:8080/v1");
    assert_eq!(
        (resolved.model.context_window, resolved.model.max_tokens),
        (8192, 512)
    );
    assert_eq!(resolved.credentials.key, None);
    assert_eq!(resolved.credentials.source, KeySource::LocalServer);
    // Not a reasoning model: thinking is off whatever the default.
    assert_eq!(resolved.thinking_level, ThinkingLevel::Off);
}

#[test]
fn settings_defaults_choose_the_model_and_the_project_overrides_the_user() {
    let dir = AgentDir::new();
    dir.write(
        "settings.json",
        r#"{"defaultProvider": "openai", "defaultModel": "gpt-4.1", "defaultThinkingLevel": "low"}"#,
    );
    write_private(
        &dir.project().join(".pi/settings.json"),
        r#"{"defaultModel": "gpt-5.5"}"#,
    );
    let mut registry = dir.registry(&[
        ("OPENAI_API_KEY", "sk-openai"),
        ("ANTHROPIC_API_KEY", "sk-ant"),
    ]);
    let resolved = resolve_model(&mut registry, &dir.settings(), &ModelRequest::default()).unwrap();
    assert_eq!(resolved.model.reference(), "openai/gpt-5.5");
    assert_eq!(resolved.thinking_level, ThinkingLevel::Low);
    assert_eq!(resolved.credentials.key.unwrap().expose(), "sk-openai");
}

#[test]
fn without_settings_the_first_provider_with_a_key_gives_its_default_model() {
    let dir = AgentDir::new();
    let mut registry = dir.registry(&[("GEMINI_API_KEY", "g"), ("XAI_API_KEY", "x")]);
    let resolved = resolve_model(
        &mut registry,
        &Settings::default(),
        &ModelRequest::default(),
    )
    .unwrap();
    assert_eq!(resolved.model.reference(), "google/gemini-3.1-pro-preview");
    assert_eq!(resolved.model.api, ModelApi::GoogleGenerativeAi);
    // Pi's default `medium` is one this model lacks (its map: only low and high): the next up.
    assert_eq!(resolved.thinking_level, ThinkingLevel::High);
}

#[test]
fn keys_are_taken_in_pi_order_from_the_files() {
    let dir = AgentDir::new();
    dir.write(
        "models.json",
        r#"{"providers": {"openai": {"baseUrl": "https://api.openai.com/v1", "apiKey": "!printf sk-from-models"}}}"#,
    );
    let request = ModelRequest {
        model: Some("openai/gpt-5.5".to_owned()),
        ..ModelRequest::default()
    };
    let key = |registry: &mut ModelRegistry, request: &ModelRequest| {
        let resolved = resolve_model(registry, &Settings::default(), request).unwrap();
        let credentials = resolved.credentials;
        (
            credentials.key.unwrap().expose().to_owned(),
            credentials.source,
        )
    };
    let env = [("OPENAI_API_KEY", "sk-from-env"), ("VAULT", "sk-from-auth")];
    // models.json's key before the variable, as a running Pi 0.80.6 sends it.
    assert_eq!(
        key(&mut dir.registry(&env), &request),
        ("sk-from-models".to_owned(), KeySource::ModelsFile)
    );
    dir.write(
        "models.json",
        r#"{"providers": {"openai": {"baseUrl": "https://api.openai.com/v1"}}}"#,
    );
    assert_eq!(
        key(&mut dir.registry(&env), &request),
        (
            "sk-from-env".to_owned(),
            KeySource::Environment("OPENAI_API_KEY".to_owned())
        )
    );
    dir.write(
        "auth.json",
        r#"{"openai": {"type": "api_key", "key": "$VAULT"}}"#,
    );
    assert_eq!(
        key(&mut dir.registry(&env), &request),
        ("sk-from-auth".to_owned(), KeySource::AuthFile)
    );
    let with_flag = ModelRequest {
        api_key: Some(Secret::new("sk-from-flag")),
        ..request.clone()
    };
    assert_eq!(
        key(&mut dir.registry(&env), &with_flag),
        ("sk-from-flag".to_owned(), KeySource::CommandLine)
    );
}

#[test]
fn an_auth_file_others_can_read_is_refused() {
    let dir = AgentDir::new();
    let path = dir.agent().join("auth.json");
    std::fs::write(
        &path,
        r#"{"openai": {"type": "api_key", "key": "sk-secret-1"}}"#,
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let error =
            ModelRegistry::load(&dir.agent(), Variables::fixed::<&str, &str>([])).unwrap_err();
        assert!(matches!(error, RegistryError::AuthFile(_)));
        let text = error.to_string();
        assert!(
            text.contains("can be read by other users (mode 0644)"),
            "{text}"
        );
        assert!(
            text.contains(&format!("chmod 600 {}", path.display())),
            "{text}"
        );
        assert!(!text.contains("sk-secret-1"));
    }
}

#[test]
fn a_continued_session_brings_back_its_model_and_thinking_level() {
    let dir = AgentDir::new();
    dir.write("settings.json", r#"{"defaultThinkingLevel": "minimal"}"#);
    let env = [("ANTHROPIC_API_KEY", "a"), ("OPENAI_API_KEY", "o")];
    let session = SessionModel {
        model: Some(("openai".to_owned(), "gpt-5.4".to_owned())),
        thinking_level: Some(ThinkingLevel::High),
    };
    let request = ModelRequest {
        session: Some(session.clone()),
        ..ModelRequest::default()
    };
    let resolved = resolve_model(&mut dir.registry(&env), &dir.settings(), &request).unwrap();
    assert_eq!(resolved.model.reference(), "openai/gpt-5.4");
    assert_eq!(resolved.thinking_level, ThinkingLevel::High);
    assert!(resolved.warnings.is_empty());

    // Without a thinking entry the settings' default applies; --model wins over the session.
    let request = ModelRequest {
        session: Some(SessionModel {
            thinking_level: None,
            ..session.clone()
        }),
        model: Some("anthropic/claude-haiku-4-5".to_owned()),
        ..ModelRequest::default()
    };
    let resolved = resolve_model(&mut dir.registry(&env), &dir.settings(), &request).unwrap();
    assert_eq!(resolved.model.reference(), "anthropic/claude-haiku-4-5");
    assert_eq!(resolved.thinking_level, ThinkingLevel::Minimal);

    // The session's provider lost its key: the usual choice, with a note.
    let request = ModelRequest {
        session: Some(session),
        ..ModelRequest::default()
    };
    let resolved = resolve_model(
        &mut dir.registry(&[("ANTHROPIC_API_KEY", "a")]),
        &dir.settings(),
        &request,
    )
    .unwrap();
    assert_eq!(resolved.model.reference(), "anthropic/claude-opus-4-8");
    assert_eq!(
        resolved.warnings,
        ["Could not restore model openai/gpt-5.4 (no auth configured)."]
    );
}

#[test]
fn with_nothing_configured_one_error_says_what_to_set() {
    let dir = AgentDir::new();
    let error = resolve_model(
        &mut dir.registry(&[]),
        &Settings::default(),
        &ModelRequest::default(),
    )
    .unwrap_err();
    assert!(matches!(error, SelectionError::NoModel { .. }));
    let text = error.to_string();
    for needed in [
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "GEMINI_API_KEY",
        "--api-key",
        "models.json",
    ] {
        assert!(text.contains(needed), "{needed} missing from: {text}");
    }
    assert!(
        text.contains(&dir.agent().join("models.json").display().to_string()),
        "{text}"
    );
}

#[test]
fn api_key_needs_a_model_and_serves_a_first_run() {
    let dir = AgentDir::new();
    let flag_only = ModelRequest {
        api_key: Some(Secret::new("sk-flag")),
        ..ModelRequest::default()
    };
    let error =
        resolve_model(&mut dir.registry(&[]), &Settings::default(), &flag_only).unwrap_err();
    assert_eq!(
        error.to_string(),
        "--api-key requires a model to be specified via --model, --provider/--model, or --models"
    );
    let with_model = ModelRequest {
        provider: Some("groq".to_owned()),
        model: Some("openai/gpt-oss-120b".to_owned()),
        ..flag_only
    };
    let resolved =
        resolve_model(&mut dir.registry(&[]), &Settings::default(), &with_model).unwrap();
    assert_eq!(resolved.model.reference(), "groq/openai/gpt-oss-120b");
    assert_eq!(resolved.credentials.source, KeySource::CommandLine);
    // A named model without any key: the key error, not a silent other model.
    let no_key = ModelRequest {
        model: Some("mistral/devstral-medium-latest".to_owned()),
        ..ModelRequest::default()
    };
    let error = resolve_model(&mut dir.registry(&[]), &Settings::default(), &no_key).unwrap_err();
    assert_eq!(
        error.to_string(),
        "no API key for mistral: set MISTRAL_API_KEY, pass --api-key, or add an {\"type\": \"api_key\"} entry \"mistral\" in auth.json"
    );
}

#[test]
fn thinking_is_clamped_to_the_model() {
    let dir = AgentDir::new();
    let request = |model: &str, thinking| ModelRequest {
        model: Some(model.to_owned()),
        thinking: Some(thinking),
        ..ModelRequest::default()
    };
    let env = [("OPENAI_API_KEY", "o"), ("ANTHROPIC_API_KEY", "a")];
    let level = |model: &str, thinking| {
        resolve_model(
            &mut dir.registry(&env),
            &Settings::default(),
            &request(model, thinking),
        )
        .unwrap()
        .thinking_level
    };
    assert_eq!(
        level("openai/gpt-4o", ThinkingLevel::High),
        ThinkingLevel::Off
    );
    assert_eq!(
        level("anthropic/claude-haiku-4-5", ThinkingLevel::Max),
        ThinkingLevel::High
    );
    assert_eq!(
        level("anthropic/claude-opus-4-8", ThinkingLevel::Max),
        ThinkingLevel::Max
    );
}

#[test]
fn list_models_shows_only_providers_with_a_key() {
    let dir = AgentDir::new();
    dir.write("models.json", LOCAL_SERVER);
    let registry = dir.registry(&[("DEEPSEEK_API_KEY", "d")]);
    let ModelList::Rows(rows) = list_models(&registry, None) else {
        panic!("no rows");
    };
    let providers: std::collections::BTreeSet<_> =
        rows.iter().map(|row| row.provider.as_str()).collect();
    assert_eq!(
        providers.into_iter().collect::<Vec<_>>(),
        ["deepseek", "llama"]
    );
    let text = list_models(&registry, None).render("");
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap().trim_end(),
        "provider  model              context  max-out  thinking  images"
    );
    assert!(
        text.contains("llama     smollm2            8.2K     512      no        no"),
        "{text}"
    );
    assert_eq!(
        list_models(&registry, Some("qqq")).render(""),
        "No models matching \"qqq\"\n"
    );
    assert_eq!(
        list_models(&AgentDir::new().registry(&[]), None),
        ModelList::NoModels
    );
}

#[test]
fn cost_is_computed_from_the_catalog_prices() {
    let dir = AgentDir::new();
    let registry = dir.registry(&[]);
    let haiku = registry.find("anthropic", "claude-haiku-4-5").unwrap();
    let mut usage = Usage {
        input: 1_000_000,
        output: 100_000,
        cache_read: 2_000_000,
        cache_write: 400_000,
        total_tokens: 3_500_000,
        cost: Cost::default(),
    };
    let cost = calculate_cost(&haiku.cost, &mut usage);
    // $1 + $0.50 + $0.20 + $0.50 at $1 / $5 / $0.10 / $1.25 per million.
    assert!((cost.input - 1.0).abs() < 1e-9);
    assert!((cost.output - 0.5).abs() < 1e-9);
    assert!((cost.cache_read - 0.2).abs() < 1e-9);
    assert!((cost.cache_write - 0.5).abs() < 1e-9);
    assert!((cost.total - 2.2).abs() < 1e-9);
    let json = serde_json::to_value(usage).unwrap();
    assert!((json["cost"]["total"].as_f64().unwrap() - 2.2).abs() < 1e-9);
}

#[test]
fn no_key_is_ever_printed() {
    let dir = AgentDir::new();
    dir.write(
        "models.json",
        r#"{"providers": {"proxy": {"baseUrl": "https://proxy.example.com/v1", "api": "anthropic-messages",
            "apiKey": "sk-models-77", "authHeader": true, "headers": {"x-secret": "$HEADER_SECRET"},
            "models": [{"id": "m"}]}}}"#,
    );
    dir.write(
        "auth.json",
        r#"{"openai": {"type": "api_key", "key": "sk-auth-55", "env": {"HIDDEN": "sk-env-66"}}}"#,
    );
    let env = [
        ("ANTHROPIC_API_KEY", "sk-ant-44"),
        ("HEADER_SECRET", "sk-header-88"),
    ];
    let mut printed = String::new();
    let mut registry = dir.registry(&env);
    printed.push_str(&format!("{registry:?}"));
    for model in ["proxy/m", "openai/gpt-5.5", "anthropic/claude-opus-4-8"] {
        let request = ModelRequest {
            model: Some(model.to_owned()),
            api_key: Some(Secret::new("sk-flag-99")),
            ..ModelRequest::default()
        };
        let resolved = resolve_model(&mut registry, &Settings::default(), &request).unwrap();
        printed.push_str(&format!("{resolved:?} {resolved:#?}"));
    }
    let mut registry = dir.registry(&[]);
    let error = resolve_model(
        &mut registry,
        &Settings::default(),
        &ModelRequest {
            model: Some("proxy/m".to_owned()),
            ..ModelRequest::default()
        },
    )
    .unwrap_err();
    printed.push_str(&format!("{error} {error:?}"));
    assert!(printed.contains("Secret(***)"));
    for key in [
        "sk-models-77",
        "sk-auth-55",
        "sk-env-66",
        "sk-ant-44",
        "sk-header-88",
        "sk-flag-99",
    ] {
        assert!(!printed.contains(key), "{key} printed");
    }
}

#[test]
fn a_scope_chooses_its_first_model_or_the_saved_default_in_it() {
    let dir = AgentDir::new();
    let env = [("ANTHROPIC_API_KEY", "a"), ("OPENAI_API_KEY", "o")];
    let request = ModelRequest {
        models: Some(pi_coding_agent::split_patterns(
            "nothing-here, anthropic/claude-haiku-4-5:low, gpt-4.1",
        )),
        ..ModelRequest::default()
    };
    let resolved = resolve_model(&mut dir.registry(&env), &Settings::default(), &request).unwrap();
    assert_eq!(resolved.model.reference(), "anthropic/claude-haiku-4-5");
    assert_eq!(resolved.thinking_level, ThinkingLevel::Low);
    assert_eq!(
        resolved.warnings,
        ["No models match pattern \"nothing-here\""]
    );

    let saved = Settings {
        default_provider: Some("openai".to_owned()),
        default_model: Some("gpt-4.1".to_owned()),
        ..Settings::default()
    };
    let resolved = resolve_model(&mut dir.registry(&env), &saved, &request).unwrap();
    assert_eq!(resolved.model.reference(), "openai/gpt-4.1");
    // A continued session ignores the scope and keeps its model.
    let continuing = ModelRequest {
        session: Some(SessionModel {
            model: Some(("anthropic".to_owned(), "claude-opus-4-8".to_owned())),
            thinking_level: None,
        }),
        ..request
    };
    let resolved = resolve_model(&mut dir.registry(&env), &saved, &continuing).unwrap();
    assert_eq!(resolved.model.reference(), "anthropic/claude-opus-4-8");
}

#[test]
fn an_empty_model_list_says_what_to_set() {
    let dir = AgentDir::new();
    let registry = dir.registry(&[]);
    let message = SelectionError::no_model(&registry).to_string();
    let text = list_models(&registry, None).render(&message);
    assert!(
        text.starts_with(
            "No model available: no provider has an API key. Set one of ANTHROPIC_API_KEY"
        ),
        "{text}"
    );
    assert!(text.ends_with("\"models\")\n"), "{text}");
}
